import { describe, expect, it } from 'vitest';
import { rateChartSpec, renderRateChartSvg } from '../../src/topology/chart.js';

const T = Date.parse('2026-11-26T22:25:03Z');
const line = (name: string, ...offsetsMs: number[]) => ({
  name,
  points: offsetsMs.map((ms, i) => ({ at: T + ms, bytesPerSecond: 1e6 * (i + 1) })),
});

type Axis = { format: string };
const xAxis = (spec: Record<string, unknown>) => (spec.encoding as { x: { axis: Axis } }).x.axis;

describe('rateChartSpec', () => {
  it.each([
    [0, 1400],
    [900, 1100],
    [500, 2500],
  ])(
    'a span of seconds (%i–%i ms) is labelled in seconds, each time once, in order',
    async (from, to) => {
      const svg = await renderRateChartSvg({ title: 't', lines: [line('Apple TV', from, to)] });
      const labels = [...svg.matchAll(/>(\d\d:\d\d:\d\d)</g)].map((m) => m[1] ?? '');
      expect(labels.length).toBeGreaterThan(0);
      expect(new Set(labels).size).toBe(labels.length);
      expect([...labels].sort()).toEqual(labels);
    },
    30_000,
  );

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
