import { execFile, fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { z } from 'zod';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type FleetConsoles, loadFleet } from '../../src/consoles/fleet-consoles.js';
import { RateBudgetSpentError, RateLimitedError } from '../../src/errors.js';
import { bucketOf } from '../../src/fleet/rate-budget.js';
import { silentLogger } from '../../src/log.js';
import { type FleetConsoleOptions, startFleet } from '../../src/simulator/fleet.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { FleetServerMessage } from '../apps/fleet-server.js';
import type { PartContext } from '../lib/context.js';
import { median, ratio } from '../lib/stats.js';
import { postgresServer } from './store-scale.js';

/** A fleet lookup against its slowest console's own lookup, medians of per-round ratios. */
export interface FleetLookupFigure {
  consoles: number;
  sites: number;
  /** The slowest console's `where <client> console=<it>` alone, each round's slowest. */
  slowestSingleMs: number;
  /** `where <client>` across every console. */
  fleetMs: number;
  ratio: number;
  /** Consoles that answered the fleet lookup (all of them, or the figure means little). */
  answered: number;
}

/** Memory of a bot with one console configured against one with many, after start and after a lookup. */
export interface FleetMemoryFigure {
  consoles: number;
  /** RSS growth per console beyond the first, MiB: configured only, and after a lookup across all. */
  configuredRssPerConsoleMiB: number;
  usedRssPerConsoleMiB: number;
  /** The same in heap, external and array buffers, MiB. */
  configuredHeapPerConsoleMiB: number;
  usedHeapPerConsoleMiB: number;
}

/** Cloud requests of two replicas sharing one budget. */
export interface FleetBudgetFigure {
  requestsPerMinute: number;
  seconds: number;
  /** Requests the cloud received from both replicas together. */
  received: number;
  /** The most the budget lets through in that time (its burst, then its refill). */
  ceiling: number;
  /** Received per minute over the run (the burst included: a run shorter than a minute reads high). */
  perMinute: number;
  /** Reads the budget refused (the bot's own message, unsent). */
  refused: number;
  /** Reads the cloud refused with 429: must be none. */
  cloud429: number;
  replicas: number;
}

export interface FleetRow {
  lookup: FleetLookupFigure;
  /** `down` (get_fleet_status) across every console against the slowest console's own. */
  status?: FleetLookupFigure;
  memory?: FleetMemoryFigure;
  budget?: FleetBudgetFigure;
}

const MIB = 2 ** 20;

/** A simulated fleet in a process of its own (bench/apps/fleet-server.ts): its consoles file, and close. */
async function forkFleet(consoles: number | FleetConsoleOptions[], sites: number) {
  const child = fork(
    join(benchDir, 'apps', 'fleet-server.ts'),
    ['--consoles', JSON.stringify(consoles), '--sites', String(sites)],
    { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const file = await new Promise<FleetServerMessage>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the fleet server exited with code ${code}`)));
    child.on('message', (message: FleetServerMessage) => {
      if (message.type === 'ready') resolve(message);
    });
  });
  return {
    file,
    async close() {
      if (child.connected) child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/** WAN-like latencies, the same for a seed: 40 to 200 ms an answer, one console at 240 ms. */
function latencies(count: number): FleetConsoleOptions[] {
  return Array.from({ length: count }, (_, i) => ({ slow: i === count - 1 ? 240 : 40 + ((i * 37) % 161) }));
}

/** A fleet's consoles file written to disk, and the environment its secrets are in. */
function writeConsolesFile(dir: string, text: string, extra = ''): string {
  const path = join(dir, `consoles-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    path,
    extra === ''
      ? text
      : text.replace('api_key_env: FLEET_CLOUD_API_KEY\n', `api_key_env: FLEET_CLOUD_API_KEY\n${extra}`),
  );
  return path;
}

async function fleetApp(path: string, env: Record<string, string>, dataDir: string, budgetMs = 8000) {
  const config = loadConfig({
    ...env,
    CONSOLES_FILE: path,
    DATA_DIR: dataDir,
    TELEMETRY_INTERVAL_SECONDS: '0',
    GATEWAY_READ_BUDGET_MS: String(budgetMs),
  });
  const logger = silentLogger();
  const consoles = await loadFleet(config, logger);
  const app = createApp({ config, logger, gateway: consoles.defaultGateway(), consoles });
  return { consoles, app };
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/** A fleet-wide read to time: the tool, its arguments, and the consoles an answer says did not answer. */
interface FleetRead {
  tool: string;
  args: Record<string, unknown>;
  unanswered: (answer: unknown) => string[];
}

const WHERE: FleetRead = {
  tool: 'find_client',
  args: { client: 'Apple TV' },
  unanswered: (answer) => (answer as { unanswered: { console: string }[] }).unanswered.map((u) => u.console),
};

const DOWN: FleetRead = {
  tool: 'get_fleet_status',
  args: {},
  unanswered: (answer) =>
    (answer as { sites: { console?: string; problem: string }[] }).sites
      .filter((row) => row.problem.startsWith('not reachable'))
      .map((row) => row.console ?? ''),
};

/** (a) A read across the fleet against the slowest console's own, round by round (`where`, then `down`). */
async function measureLookup(
  ctx: PartContext,
  count: number,
  sites: number,
  read: FleetRead,
): Promise<FleetLookupFigure> {
  // The consoles answer from a process of their own: the bot's CPU is its own.
  const fleet = await forkFleet(latencies(count), sites);
  const dir = mkdtempSync(join(tmpdir(), 'netops-bench-fleet-'));
  const file = fleet.file;
  const { consoles, app } = await fleetApp(writeConsolesFile(dir, file.text), file.env, dir);
  const where = (only?: string) =>
    app.registry.run(
      read.tool,
      only === undefined ? read.args : { ...read.args, console: only },
      app.context,
    );
  const cold = (consoles: FleetConsoles) => {
    for (const each of consoles.list()) consoles.gateway(each.name).invalidate();
  };
  try {
    // Warm-up: every gateway built, the controllers detected, the modules loaded.
    await where();
    const singles: number[] = [];
    const fleets: number[] = [];
    const ratios: number[] = [];
    let answered = 0;
    const rounds = Math.max(3, ctx.options.repeats);
    for (let round = 0; round < rounds; round += 1) {
      ctx.progress(`fleet: ${read.tool} round ${round + 1} of ${rounds}`);
      let slowest = 0;
      for (const each of consoles.list()) {
        cold(consoles);
        slowest = Math.max(slowest, await timed(() => where(each.name)));
      }
      cold(consoles);
      let answer: unknown;
      const ms = await timed(async () => {
        answer = await where();
      });
      answered = count - new Set(read.unanswered(answer)).size;
      singles.push(slowest);
      fleets.push(ms);
      ratios.push(ratio(ms, slowest));
    }
    return {
      consoles: count,
      sites,
      slowestSingleMs: median(singles),
      fleetMs: median(fleets),
      ratio: median(ratios),
      answered,
    };
  } finally {
    await app.close();
    await consoles.close();
    await fleet.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function memoryOf(path: string, env: Record<string, string>) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', join(benchDir, 'apps', 'fleet-memory.ts')],
    { env: { ...process.env, ...env, CONSOLES_FILE: path }, cwd: join(benchDir, '..'), timeout: 120_000 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
    configured: { rss: number; heap: number };
    used: { rss: number; heap: number };
  };
}

/** (b) A bot with `count` consoles against one with one console, each in its own process, medians. */
async function measureMemory(ctx: PartContext, count: number): Promise<FleetMemoryFigure> {
  const fleet = await forkFleet(count, 1);
  const one = await forkFleet(1, 1);
  const dir = mkdtempSync(join(tmpdir(), 'netops-bench-fleet-memory-'));
  try {
    const many = fleet.file;
    const single = one.file;
    const manyPath = writeConsolesFile(dir, many.text);
    const singlePath = writeConsolesFile(dir, single.text);
    const per = {
      configuredRss: [] as number[],
      usedRss: [] as number[],
      configuredHeap: [] as number[],
      usedHeap: [] as number[],
    };
    const rounds = Math.max(3, ctx.options.repeats);
    for (let round = 0; round < rounds; round += 1) {
      ctx.progress(`fleet: memory round ${round + 1} of ${rounds}`);
      const small = await memoryOf(singlePath, single.env);
      const large = await memoryOf(manyPath, many.env);
      const each = (a: number, b: number) => (b - a) / MIB / (count - 1);
      per.configuredRss.push(each(small.configured.rss, large.configured.rss));
      per.usedRss.push(each(small.used.rss, large.used.rss));
      per.configuredHeap.push(each(small.configured.heap, large.configured.heap));
      per.usedHeap.push(each(small.used.heap, large.used.heap));
    }
    return {
      consoles: count,
      configuredRssPerConsoleMiB: median(per.configuredRss),
      usedRssPerConsoleMiB: median(per.usedRss),
      configuredHeapPerConsoleMiB: median(per.configuredHeap),
      usedHeapPerConsoleMiB: median(per.usedHeap),
    };
  } finally {
    await fleet.close();
    await one.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One replica reading through the connector as fast as its workers can, until `until`. */
async function hammer(consoles: FleetConsoles, until: number, counts: { refused: number; cloud429: number }) {
  const names = consoles.list().map((each) => each.name);
  const worker = async (start: number) => {
    for (let i = start; performance.now() < until; i += 1) {
      const name = names[i % names.length] as string;
      try {
        await consoles.gateway(name).classicRead('default', 'stat/device', z.unknown(), { fresh: true });
      } catch (error) {
        if (error instanceof RateBudgetSpentError) counts.refused += 1;
        else if (error instanceof RateLimitedError) counts.cloud429 += 1;
        else throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, (_, i) => worker(i)));
}

/** (c) Two replicas (two PostgreSQL store clients) reading through the cloud with one shared budget. */
async function measureBudget(
  ctx: PartContext,
  perMinute: number,
  seconds: number,
): Promise<FleetBudgetFigure | undefined> {
  const server = await postgresServer(ctx);
  if (!server) return undefined;
  const fleet = await startFleet({
    consoles: Array.from({ length: 6 }, () => ({ reach: 'connector' as const })),
    sites: 1,
    // Site Manager's own limit is the budget: a replica that overspent it would be answered 429.
    cloud: { rateLimitPerMinute: perMinute },
  });
  const dir = mkdtempSync(join(tmpdir(), 'netops-bench-fleet-budget-'));
  const admin = new pg.Client({ connectionString: server.url });
  const stores: PostgresStore[] = [];
  const replicas: FleetConsoles[] = [];
  try {
    await admin.connect();
    await admin.query('CREATE DATABASE netops_bench_fleet');
    const url = new URL(server.url);
    url.pathname = '/netops_bench_fleet';
    const file = fleet.consolesFile();
    const path = writeConsolesFile(dir, file.text, `  requests_per_minute: ${perMinute}\n`);
    for (let i = 0; i < 2; i += 1) {
      const store = await PostgresStore.open({
        database: { url: url.toString() },
        logger: silentLogger(),
        leaseSeconds: 30,
      });
      stores.push(store);
      const { consoles } = await fleetApp(path, file.env, dir, 2000);
      consoles.shareBudget(store.rateBudget());
      replicas.push(consoles);
    }
    fleet.cloud.clearRequests();
    ctx.progress(`fleet: two replicas reading through the cloud for ${seconds} s`);
    const counts = { refused: 0, cloud429: 0 };
    const started = performance.now();
    const until = started + seconds * 1000;
    await Promise.all(replicas.map((consoles) => hammer(consoles, until, counts)));
    // Reads still waiting for their token at the end are sent after it: the ceiling counts that time.
    const elapsedS = (performance.now() - started) / 1000;
    const received = fleet.cloud.requests.length;
    const spec = bucketOf(perMinute);
    return {
      requestsPerMinute: perMinute,
      seconds: Number(elapsedS.toFixed(1)),
      received,
      ceiling: Math.floor(spec.burst + spec.perSecond * elapsedS),
      perMinute: (received / elapsedS) * 60,
      refused: counts.refused,
      cloud429: counts.cloud429,
      replicas: 2,
    };
  } finally {
    for (const consoles of replicas) await consoles.close();
    for (const store of stores) await store.close();
    await admin.end().catch(() => undefined);
    await fleet.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The fleet's figures: a lookup across 50 consoles, memory per console, the shared cloud budget. */
export async function runFleet(ctx: PartContext): Promise<FleetRow> {
  const count = ctx.options.quick ? 12 : 50;
  ctx.progress(`fleet: ${count} simulated consoles, 40–240 ms an answer`);
  const lookup = await measureLookup(ctx, count, 2, WHERE);
  const status = await measureLookup(ctx, count, 2, DOWN);
  const memory = await measureMemory(ctx, count);
  // A whole minute: what Site Manager counts. A quick run checks the same ceiling over 20 s.
  const budget = await measureBudget(ctx, 600, ctx.options.quick ? 20 : 60);
  return { lookup, status, memory, ...(budget === undefined ? {} : { budget }) };
}
