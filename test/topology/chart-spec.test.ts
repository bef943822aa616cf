import { describe, expect, it } from 'vitest';
import { rateChartSpec } from '../../src/topology/chart.js';

const T = Date.parse('2026-11-26T22:25:03Z');
const line = (name: string, ...offsetsMs: number[]) => ({
  name,
  points: offsetsMs.map((ms, i) => ({ at: T + ms, bytesPerSecond: 1e6 * (i + 1) })),
});

type Axis = { format: string; tickMinStep?: number; labelOverlap?: unknown };
const xAxis = (spec: Record<string, unknown>) => (spec.encoding as { x: { axis: Axis } }).x.axis;

describe('rateChartSpec', () => {
  it('shows seconds on a span of seconds, never two ticks within a second, and drops overlapping labels', () => {
    const axis = xAxis(rateChartSpec({ title: 't', lines: [line('Apple TV', 0, 1400)] }));
    expect(axis.format).toBe('%H:%M:%S');
    expect(axis.tickMinStep).toBe(1000);
    expect(axis.labelOverlap).toBe('greedy');
  });

  it('shows minutes on an hour', () => {
    expect(xAxis(rateChartSpec({ title: 't', lines: [line('Apple TV', 0, 3_600_000)] })).format).toBe(
      '%H:%M',
    );
  });

  it('draws rates in Mbit/s, one series per client in the table’s order', () => {
    const spec = rateChartSpec({ title: 't', lines: [line('B', 0), line('A', 0)] });
    expect((spec.data as { values: { mbps: number }[] }).values.map((v) => v.mbps)).toEqual([8, 8]);
    expect((spec.encoding as { color: { sort: string[] } }).color.sort).toEqual(['B', 'A']);
  });
});
