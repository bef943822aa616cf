import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createGateway, gatewayOptionsFromConfig } from '../../src/gateway/index.js';
import { silentLogger } from '../../src/log.js';
import { type ClientRecord, type DeviceRecord, startSimulator } from '../../src/simulator/index.js';
import { CounterSeries } from '../../src/telemetry/series.js';
import type { PartContext } from '../lib/context.js';
import { median, ratio } from '../lib/stats.js';
import { syntheticSite } from '../synthetic-site.js';

/** Issue 20's figures on the largest synthetic site, ms unless named otherwise. */
export interface TelemetryRow {
  devices: number;
  clients: number;
  payloadMb: number;
  /** JSON.parse of the controller's stat/sta body (the floor). */
  parseMs: number;
  /** The same body fetched over HTTP from the controller, then JSON.parse'd. */
  fetchParseMs: number;
  topNowMs: number;
  topNowRatio: number;
  top1hMs: number;
  top1hRatio: number;
  /** list_clients is i20-live's tool: measured when it is registered, else null. */
  listClientsMs: number | null;
  listClientsRatio: number | null;
  tickMs: number;
  samples: number;
  /** Typed arrays held by the samples after an hour (all series: clients, devices, DPI). */
  sampleMb: number;
  /** Heap and array buffers held by the hour of samples (keys included), after a full collection. */
  heapMb: number;
}

const MINUTE = 60_000;
// Ticks timed through the controller (each reads stat/sta, stat/device and both DPI lists).
const TICKS = 3;

/**
 * The memory an hour of 60 s samples of `clients` clients holds: 61 samples of every client's
 * counters fed to the clients' series with telemetry's own retention, without the controller
 * (the series does not care where the counters came from).
 */
function hourOfSamples(clients: number): { sampleMb: number; heapMb: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
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
  gc?.();
  const after = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  return { sampleMb: series.bytes() / 2 ** 20, heapMb: (after - before) / 2 ** 20 };
}

/**
 * top_clients (now, and 1 h from an hour of samples) and list_clients on a site of 2,000 devices and
 * 50,000 clients, in-process against the simulator over real HTTP, next to the floor of merely
 * JSON.parse-ing the controller's stat/sta body, same run. Then the memory of an hour of samples
 * (61 ticks of 60 s on a hand-driven clock, counters advancing between them).
 */
export async function runTelemetry(ctx: PartContext): Promise<TelemetryRow> {
  const [devices, clients] = ctx.options.quick ? [200, 5_000] : [2_000, 50_000];
  const repeats = Math.max(3, ctx.options.repeats);
  const site = syntheticSite({ devices, clients, seed: 2024 });
  const sim = await startSimulator();
  const state = sim.state.site('default');
  if (!state) throw new Error('the simulator has no default site');
  state.clients = site.clients as ClientRecord[];
  state.devices = site.devices as DeviceRecord[];
  const dataDir = mkdtempSync(join(tmpdir(), 'netops-bench-telemetry-'));
  let clock = Math.floor(Date.now() / MINUTE) * MINUTE;
  const config = loadConfig({
    DATA_DIR: dataDir,
    GATEWAY_URL: sim.url,
    GATEWAY_API_KEY: sim.apiKey,
    TELEMETRY_INTERVAL_SECONDS: '60',
    // A shared, loaded machine: the figures are ratios, a read must not give up on the way.
    GATEWAY_TIMEOUT_MS: '120000',
    GATEWAY_READ_BUDGET_MS: '120000',
  });
  const logger = silentLogger();
  const gateway = createGateway(gatewayOptionsFromConfig(config, logger));
  const app = createApp({ config, logger, gateway, now: () => clock });
  try {
    const url = `${sim.url}/proxy/network/api/s/default/stat/sta`;
    const headers = { 'X-API-KEY': sim.apiKey };
    const body = await (await fetch(url, { headers })).text();
    const time = async (run: () => Promise<unknown> | unknown) => {
      const runs: number[] = [];
      for (let i = 0; i < repeats; i += 1) {
        gateway.invalidate();
        const started = performance.now();
        await run();
        runs.push(performance.now() - started);
      }
      return median(runs);
    };
    ctx.progress(`telemetry: ${devices} devices / ${clients} clients, floor`);
    const parseMs = await time(() => JSON.parse(body));
    const fetchParseMs = await time(async () => JSON.parse(await (await fetch(url, { headers })).text()));
    const run = (tool: string, args: Record<string, unknown>) => app.registry.run(tool, args, app.context);
    ctx.progress('telemetry: top_clients now');
    const topNowMs = await time(() => run('top_clients', { window: 'now' }));
    const listClients = app.registry.get('list_clients');
    const listClientsMs = listClients ? await time(() => run('list_clients', { limit: 50 })) : null;

    ctx.progress('telemetry: ticks through the controller');
    const ticks: number[] = [];
    for (let i = 0; i <= TICKS; i += 1) {
      if (i > 0) sim.advanceTraffic({ seconds: 60 });
      clock += MINUTE;
      const started = performance.now();
      await app.telemetry.tick();
      ticks.push(performance.now() - started);
    }
    ctx.progress('telemetry: memory of an hour of samples (61 samples of every client)');
    const { sampleMb, heapMb } = hourOfSamples(clients);
    ctx.progress('telemetry: top_clients 1h');
    const top1hMs = await time(() => run('top_clients', { window: '1h' }));
    return {
      devices,
      clients,
      payloadMb: Buffer.byteLength(body) / 2 ** 20,
      parseMs,
      fetchParseMs,
      topNowMs,
      topNowRatio: ratio(topNowMs, parseMs),
      top1hMs,
      top1hRatio: ratio(top1hMs, parseMs),
      listClientsMs,
      listClientsRatio: listClientsMs === null ? null : ratio(listClientsMs, parseMs),
      tickMs: median(ticks),
      samples: 61,
      sampleMb,
      heapMb,
    };
  } finally {
    await app.close();
    await sim.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
