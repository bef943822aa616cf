import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { App } from '../../src/app.js';
import { CounterSeries } from '../../src/telemetry/series.js';
import { type TopClientsAnswer, topClientsChart } from '../../src/tools/clients/top-clients.js';
import { closeChartThread, renderRateChartPng } from '../../src/topology/chart.js';
import type { PartContext } from '../lib/context.js';
import { startSyntheticController } from '../lib/controller.js';
import { clock, inProcessBot, LARGE_SITE_ENV, type Timed } from '../lib/in-process.js';
import { median, ratio } from '../lib/stats.js';

/** A tool's figure and its ratios to the floors, each the median of the per-round ratios. */
export interface ToolFigure extends Timed {
  /** Wall time ÷ JSON.parse of the bodies the tool reads, round by round. */
  ratio: number;
  /** CPU time ÷ the same floor's CPU time (what a loaded machine disturbs least). */
  cpuRatio: number;
  /** Wall time ÷ fetching those bodies over HTTP and JSON.parse-ing them. */
  fetchRatio: number;
  /** Wall time ÷ JSON.parse of stat/sta alone. */
  staRatio: number;
  /** CPU time ÷ the CPU of decoding the bytes it reads and parsing them. */
  decodeCpuRatio: number;
}

/** The first chart of a process (the chart thread starts, vega and resvg load) and a later one. */
export interface ChartFigures {
  firstMs: number;
  laterMs: number;
  /** The longest this event loop went without running a 10 ms timer during the first chart. */
  firstMaxLoopGapMs: number;
  /** CPU the process used during the first chart (both threads: process.cpuUsage counts workers). */
  firstMainCpuMs: number;
}

/** Telemetry's figures on the largest synthetic site, ms unless named otherwise. */
export interface TelemetryRow {
  devices: number;
  clients: number;
  /** Where the controller ran: a process of its own since the fair re-measure. */
  controller: 'separate process' | 'same process';
  payloadMb: number;
  /** stat/device and rest/networkconf, which list_clients reads too. */
  devicePayloadMb: number;
  repeats: number;
  /** JSON.parse of the controller's stat/sta body (the budget's floor). */
  parseMs: number;
  parseCpuMs: number;
  /** The body's bytes decoded (UTF-8) to a string, then JSON.parse'd: what any client must do. */
  decodeParseMs: number;
  decodeParseCpuMs: number;
  /** The same body fetched over HTTP from the controller, then JSON.parse'd. */
  fetchParseMs: number;
  /** JSON.parse of every body list_clients reads: stat/sta, stat/device, rest/networkconf. */
  parseListBodiesMs: number;
  /** Those three fetched together over HTTP, then parsed. */
  fetchParseListBodiesMs: number;
  topNow: ToolFigure;
  top1h: ToolFigure;
  listClients: ToolFigure;
  // Deliberately alike: a figures type: one field per measure, as every part's row declares them.
  /** The same tools on a warm cache (the answer read within the cache TTL, as a burst of commands). */
  warmTopNowMs: number;
  warmListClientsMs: number;
  tickMs: number;
  chart: ChartFigures;
  samples: number;
  /** Typed arrays held by the samples after an hour (all series: clients, devices, DPI). */
  sampleMb: number;
  /** Heap and array buffers held by the hour of samples (keys included), after a full collection. */
  heapMb: number;
}

const MINUTE = 60_000;
// Ticks timed through the controller (each reads stat/sta, stat/device and both DPI lists).
const TICKS = 3;

/** A full collection, also when node was started without --expose-gc (npm run bench is not). */
function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/**
 * The memory an hour of 60 s samples of `clients` clients holds: 61 samples of every client's
 * counters fed to the clients' series with telemetry's own retention, without the controller
 * (the series does not care where the counters came from).
 */
function hourOfSamples(clients: number): { sampleMb: number; heapMb: number } {
  const gc = collector();
  gc();
  const before = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  const series = new CounterSeries({
    fineRetentionMs: 62 * MINUTE,
    bucketMs: 60 * MINUTE,
    bucketRetentionMs: 25 * 60 * MINUTE,
    maxKeys: 100_000,
  });
  const macs = Array.from(
    { length: clients },
    (_, i) => `02:00:${[16, 8, 0].map((s) => ((i >> s) & 255).toString(16).padStart(2, '0')).join(':')}:00`,
  );
  for (let t = 0; t <= 60; t += 1) {
    series.ingest(
      t * MINUTE,
      macs.map((mac, i): [string, number, number] => [mac, t * (1000 + i), t * 100]),
    );
  }
  gc();
  const after = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  return { sampleMb: series.bytes() / 2 ** 20, heapMb: (after - before) / 2 ** 20 };
}

const medianOf = (runs: readonly Timed[]): Timed => ({
  ms: median(runs.map((r) => r.ms)),
  cpuMs: median(runs.map((r) => r.cpuMs)),
});

/** The chart `/net top` would post, from the samples taken: first in this process, then again. */
async function chartFigures(app: App): Promise<ChartFigures> {
  const answer = (await app.registry.run(
    'top_clients',
    { window: '1h', limit: 8 },
    app.context,
  )) as TopClientsAnswer;
  const data = await topClientsChart(answer, app.context);
  if (!data) throw new Error('no chart data after the ticks');
  let last = performance.now();
  let maxGap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
  }, 10);
  try {
    const first = await clock(() => renderRateChartPng(data));
    const firstMaxLoopGapMs = Math.max(maxGap, performance.now() - last);
    const later = await clock(() => renderRateChartPng(data));
    return { firstMs: first.ms, laterMs: later.ms, firstMaxLoopGapMs, firstMainCpuMs: first.cpuMs };
  } finally {
    clearInterval(timer);
    await closeChartThread();
  }
}

/**
 * top_clients (now, and 1 h after a few ticks) and list_clients on a site of 2,000 devices and
 * 50,000 clients. The controller (the simulator serving the synthetic site) runs in a process of
 * its own; the bot is built in this process through createApp and reaches it over real HTTP, its
 * read cache emptied before every cold call. The floors are measured in the same rounds as the
 * tools (floor, tool, floor, tool …) and every ratio is the median of the per-round ratios, so a
 * load that drifts during the run moves both sides. Then the memory of an hour of samples.
 */
export async function runTelemetry(ctx: PartContext): Promise<TelemetryRow> {
  const [devices, clients] = ctx.options.quick ? [200, 5_000] : [2_000, 50_000];
  const repeats = Math.max(5, ctx.options.repeats);
  ctx.progress(
    `telemetry: starting the controller (${devices} devices / ${clients} clients) in its own process`,
  );
  const controller = await startSyntheticController({ devices, clients, seed: 2024 });
  const dataDir = mkdtempSync(join(tmpdir(), 'netops-bench-telemetry-'));
  let now = Math.floor(Date.now() / MINUTE) * MINUTE;
  const { gateway, app } = inProcessBot(
    controller,
    dataDir,
    { ...LARGE_SITE_ENV, TELEMETRY_INTERVAL_SECONDS: '60' },
    { now: () => now },
  );
  try {
    const base = `${controller.url}/proxy/network/api/s/default`;
    const headers = { 'X-API-KEY': controller.apiKey };
    const get = async (path: string) => (await fetch(`${base}/${path}`, { headers })).text();
    const LIST_PATHS = ['stat/sta', 'stat/device', 'rest/networkconf'];
    const bodies = await Promise.all(LIST_PATHS.map(get));
    const [sta = ''] = bodies;
    const bytes = bodies.map((b) => Buffer.from(b));
    const [staBytes = Buffer.alloc(0)] = bytes;
    const run = (tool: string, args: Record<string, unknown>) => app.registry.run(tool, args, app.context);
    const cold = (tool: string, args: Record<string, unknown>) => () => {
      gateway.invalidate();
      return run(tool, args);
    };
    // Warm-up: the first call of a tool loads its modules and lets V8 optimise; not counted.
    ctx.progress('telemetry: warm-up');
    await cold('top_clients', { window: 'now' })();
    await cold('list_clients', { limit: 50 })();

    const rounds = async (tools: Record<string, () => Promise<unknown>>) => {
      const runs: Record<string, Timed[]> = {
        parse: [],
        parseList: [],
        decodeParse: [],
        decodeParseList: [],
        fetchParse: [],
        fetchParseList: [],
      };
      for (const name of Object.keys(tools)) runs[name] = [];
      for (let i = 0; i < repeats; i += 1) {
        ctx.progress(`telemetry: round ${i + 1} of ${repeats}`);
        runs.parse?.push(await clock(() => JSON.parse(sta)));
        runs.parseList?.push(await clock(() => bodies.map((b) => JSON.parse(b))));
        runs.decodeParse?.push(await clock(() => JSON.parse(staBytes.toString('utf8'))));
        runs.decodeParseList?.push(await clock(() => bytes.map((b) => JSON.parse(b.toString('utf8')))));
        runs.fetchParse?.push(await clock(async () => JSON.parse(await get('stat/sta'))));
        runs.fetchParseList?.push(
          await clock(async () => (await Promise.all(LIST_PATHS.map(get))).map((b) => JSON.parse(b))),
        );
        for (const [name, call] of Object.entries(tools)) runs[name]?.push(await clock(call));
      }
      return runs;
    };
    const figure = (
      runs: Record<string, Timed[]>,
      tool: string,
      floor: 'parse' | 'parseList',
    ): ToolFigure => {
      const mine = runs[tool] ?? [];
      const per = (other: string, pick: (t: Timed) => number) =>
        median(mine.map((t, i) => ratio(pick(t), pick((runs[other] ?? [])[i] ?? { ms: NaN, cpuMs: NaN }))));
      return {
        ...medianOf(mine),
        ratio: per(floor, (t) => t.ms),
        cpuRatio: per(floor, (t) => t.cpuMs),
        fetchRatio: per(floor === 'parse' ? 'fetchParse' : 'fetchParseList', (t) => t.ms),
        staRatio: per('parse', (t) => t.ms),
        decodeCpuRatio: per(floor === 'parse' ? 'decodeParse' : 'decodeParseList', (t) => t.cpuMs),
      };
    };
    const first = await rounds({
      topNow: cold('top_clients', { window: 'now' }),
      listClients: cold('list_clients', { limit: 50 }),
    });
    const warm = async (tool: string, args: Record<string, unknown>) => {
      await run(tool, args);
      const runs: Timed[] = [];
      for (let i = 0; i < repeats; i += 1) runs.push(await clock(() => run(tool, args)));
      return medianOf(runs).ms;
    };
    const warmTopNowMs = await warm('top_clients', { window: 'now' });
    const warmListClientsMs = await warm('list_clients', { limit: 50 });

    ctx.progress('telemetry: ticks through the controller');
    const ticks: number[] = [];
    for (let i = 0; i <= TICKS; i += 1) {
      if (i > 0) await controller.advance(60);
      now += MINUTE;
      gateway.invalidate();
      ticks.push((await clock(() => app.telemetry.tick())).ms);
    }
    ctx.progress('telemetry: top_clients 1h');
    const second = await rounds({ top1h: cold('top_clients', { window: '1h' }) });
    ctx.progress('telemetry: the first chart and a later one');
    const chart = await chartFigures(app);
    ctx.progress('telemetry: memory of an hour of samples (61 samples of every client)');
    const { sampleMb, heapMb } = hourOfSamples(clients);
    const floor = medianOf(first.parse ?? []);
    return {
      devices,
      clients,
      controller: 'separate process',
      payloadMb: Buffer.byteLength(sta) / 2 ** 20,
      devicePayloadMb: bodies.slice(1).reduce((sum, b) => sum + Buffer.byteLength(b), 0) / 2 ** 20,
      repeats,
      parseMs: floor.ms,
      parseCpuMs: floor.cpuMs,
      decodeParseMs: medianOf(first.decodeParse ?? []).ms,
      decodeParseCpuMs: medianOf(first.decodeParse ?? []).cpuMs,
      fetchParseMs: medianOf(first.fetchParse ?? []).ms,
      parseListBodiesMs: medianOf(first.parseList ?? []).ms,
      fetchParseListBodiesMs: medianOf(first.fetchParseList ?? []).ms,
      topNow: figure(first, 'topNow', 'parse'),
      top1h: figure(second, 'top1h', 'parse'),
      listClients: figure(first, 'listClients', 'parseList'),
      warmTopNowMs,
      warmListClientsMs,
      tickMs: median(ticks),
      chart,
      samples: 61,
      sampleMb,
      heapMb,
    };
  } finally {
    await app.close();
    await controller.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
