import { describe, expect, it } from 'vitest';
import { budgetRows } from '../../bench/lib/report.js';
import type { BurstRow } from '../../bench/parts/burst.js';
import { IDLE_RSS_STARTS, type StartupResult, startsFor } from '../../bench/parts/startup.js';
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

describe('the burst budget row (requests in a burst = distinct resources)', () => {
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

describe('the topology budget rows (topology within 2× of JSON.parse at 50,000 clients)', () => {
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

const startup = (bot: number[], floor: number[]): StartupResult => {
  const figures = (rss: number[]) => ({
    startupMs: 500,
    rssMiB: [...rss].sort((a, b) => a - b)[Math.floor(rss.length / 2)] as number,
    rssLowestMiB: Math.min(...rss),
    samples: rss.map((rssMiB) => ({ startupMs: 500, rssMiB })),
  });
  const b = figures(bot);
  const f = figures(floor);
  return {
    bot: b,
    floor: f,
    startupRatio: 1,
    rssRatio: b.rssMiB / f.rssMiB,
    rssLowestRatio: (b.rssLowestMiB ?? 0) / (f.rssLowestMiB ?? 1),
    idleMs: 2000,
  };
};

describe('the idle RSS budget row (≤ 1.2× a bare Bolt app)', () => {
  const rssRow = (result: StartupResult) =>
    budgetRows({ startup: result }).find((r) => r.measure.startsWith('RSS'));

  it('prints the medians and the lowest of both apps, and is met when both ratios hold', () => {
    const row = rssRow(startup([85, 85.2, 95.6], [73.5, 74.1, 84.9]));
    expect(row?.now).toBe('85.2 MiB; lowest 85.0 MiB');
    expect(row?.floor).toBe('74.1 MiB; lowest 73.5 MiB (bare Bolt)');
    expect(row?.ratio).toBe('1.15×; lowest 1.16×');
    expect(row?.met).toBe(true);
  });

  it("is not met when only the floor's burst made the medians look good", () => {
    const row = rssRow(startup([95.1, 95.7, 105.4], [77.5, 83.9, 88.3]));
    expect(row?.ratio).toBe('1.14×; lowest 1.23×');
    expect(row?.met).toBe(false);
  });

  it('judges the steady sample when the run has one, and prints the start-up sample unjudged', () => {
    // Arrange: the 2 s samples look within budget; 20 s later the floor has shed its young generation.
    const base = startup([85, 85.2, 95.6], [73.5, 74.1, 84.9]);
    const withSteady = (figures: StartupResult['bot'], steady: number[]) => ({
      ...figures,
      steadyRssMiB: [...steady].sort((a, b) => a - b)[1] as number,
      steadyRssLowestMiB: Math.min(...steady),
    });
    const bot = withSteady(base.bot, [82.4, 83.1, 83.6]);
    const floor = withSteady(base.floor, [64.1, 65.3, 73]);
    const result: StartupResult = {
      ...base,
      bot,
      floor,
      steadyRssRatio: (bot.steadyRssMiB ?? 0) / (floor.steadyRssMiB ?? 1),
      steadyRssLowestRatio: (bot.steadyRssLowestMiB ?? 0) / (floor.steadyRssLowestMiB ?? 1),
      steadyMs: 20_000,
    };

    // Act
    const rows = budgetRows({ startup: result }).filter((r) => r.measure.startsWith('RSS'));

    // Assert: the steady row decides; the start-up row is shown without a verdict.
    expect(rows).toHaveLength(2);
    expect(rows[0]?.measure).toContain('20 s after start-up settled');
    expect(rows[0]?.now).toBe('83.1 MiB; lowest 82.4 MiB');
    expect(rows[0]?.ratio).toBe('1.27×; lowest 1.29×');
    expect(rows[0]?.met).toBe(false);
    expect(rows[1]?.ratio).toBe('1.15×; lowest 1.16×');
    expect(rows[1]?.met).toBeUndefined();
  });

  it('starts each app at least 9 times in a full run, as told in a quick one', () => {
    expect(IDLE_RSS_STARTS).toBe(9);
    expect(startsFor(3, false)).toBe(9);
    expect(startsFor(12, false)).toBe(12);
    expect(startsFor(1, true)).toBe(1);
  });
});
