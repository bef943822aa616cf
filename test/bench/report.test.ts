import { describe, expect, it } from 'vitest';
import { budgetRows } from '../../bench/lib/report.js';
import type { BurstRow } from '../../bench/parts/burst.js';
import type { TopologyRow } from '../../bench/parts/topology.js';

const burst = (over: Partial<BurstRow>): BurstRow => ({
  people: 50,
  latencyMs: 300,
  requests: 26,
  distinct: 26,
  repeats: [],
  lookups: 11,
  failed: 0,
  failures: [],
  ms: 2000,
  ...over,
});

describe('the burst budget row (issue 26: requests in a burst = distinct resources)', () => {
  it('is met when the controller saw each distinct resource once and every lookup answered', () => {
    const [row] = budgetRows({ burst: burst({}) });
    expect(row?.met).toBe(true);
    expect(row?.floor).toBe('26 distinct resources');
  });

  it('is not met when a resource was asked for twice', () => {
    const [row] = budgetRows({ burst: burst({ requests: 27 }) });
    expect(row?.met).toBe(false);
    expect(row?.ratio).toMatch(/1\.04×/);
  });

  it('is not met when lookups failed, however few requests went out', () => {
    const [row] = budgetRows({ burst: burst({ requests: 20, distinct: 20, failed: 4 }) });
    expect(row?.met).toBe(false);
    expect(row?.now).toContain('4 lookups failed');
  });
});

describe('the topology budget rows (issue 26: topology within 2× of JSON.parse at 50,000 clients)', () => {
  const row = (over: Partial<TopologyRow>): TopologyRow => ({
    devices: 2000,
    clients: 50_000,
    payloadMb: 54,
    floorMs: 400,
    floorPeakMb: 56,
    recordsMs: 250,
    graphMs: 300,
    buildMs: 550,
    redactMs: 100,
    readMs: 650,
    graphmlMs: 700,
    exportRedactMs: 80,
    graphmlMb: 33,
    dotMs: 260,
    totalMs: 1250,
    ratio: 3.125,
    usPerNode: 16,
    peakMb: 360,
    ...over,
  });

  it('judges the read (records + graph + redaction) and the GraphML export each against the same floor', () => {
    const [exportRow, readRow] = budgetRows({ topology: [row({})] });

    expect(exportRow?.measure).toMatch(/export_topology.*redaction/);
    expect(exportRow?.met).toBe(false);
    expect(readRow?.measure).toMatch(/get_network_topology/);
    expect(readRow?.measure).toMatch(/redaction/);
    expect(readRow?.ratio).toMatch(/1\.63×/);
    expect(readRow?.met).toBe(true);
  });

  it('leaves a smaller site unjudged', () => {
    const rows = budgetRows({ topology: [row({ devices: 200, clients: 5000 })] });

    expect(rows.map((r) => r.met)).toEqual([undefined, undefined]);
  });
});
