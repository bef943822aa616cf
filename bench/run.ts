/**
 * `npm run bench`: the performance suite. Every figure is a ratio to a floor measured
 * in the same run, because the machine is shared and absolute times are noisy. Prints the budget
 * table and one table per part (Markdown) on stdout, progress on stderr, and writes
 * `bench/results/<time>.json` (the summary) and `bench/results/raw/<time>.json` (every sample).
 * Options: see bench/lib/options.ts (`npm run bench -- --help`).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PartContext } from './lib/context.js';
import { BenchSlack } from './lib/fake-slack.js';
import { PARTS, type Part, parseOptions, USAGE } from './lib/options.js';
import { BOT_ENTRY } from './lib/processes.js';
import { budgetRows, fmt, markdownReport, type PartResults } from './lib/report.js';
import { runAcks } from './parts/acks.js';
import { runBurst } from './parts/burst.js';
import { runErrors } from './parts/errors.js';
import { runFleet } from './parts/fleet.js';
import { runFleetWatch } from './parts/fleet-watch.js';
import { runGuardrails } from './parts/guardrails.js';
import { runReads } from './parts/reads.js';
import { runRounds } from './parts/rounds.js';
import { runStartup } from './parts/startup.js';
import { runStoreScale } from './parts/store-scale.js';
import { runTelemetry } from './parts/telemetry.js';
import { runTopology } from './parts/topology.js';
import { runWatch } from './parts/watch.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** What each part measures, as the report reads it; acks also keep their raw latencies in `raw`. */
// Deliberately alike: one entry per part, each naming its own result.
const PART_RUNNERS: Record<Part, (ctx: PartContext, raw: Record<string, unknown>) => Promise<PartResults>> = {
  startup: async (ctx) => ({ startup: await runStartup(ctx) }),
  acks: async (ctx, raw) => {
    const acks = await runAcks(ctx);
    raw.ackLatenciesMs = acks.raw;
    return { acks: acks.results };
  },
  reads: async (ctx) => ({ reads: await runReads(ctx) }),
  rounds: async (ctx) => ({ rounds: await runRounds(ctx) }),
  errors: async (ctx) => ({ errors: await runErrors(ctx) }),
  topology: async (ctx) => ({ topology: await runTopology(ctx) }),
  telemetry: async (ctx) => ({ telemetry: await runTelemetry(ctx) }),
  guardrails: async (ctx) => ({ guardrails: await runGuardrails(ctx) }),
  watch: async (ctx) => ({ watch: await runWatch(ctx), fleetWatch: await runFleetWatch(ctx) }),
  burst: async (ctx) => ({ burst: await runBurst(ctx) }),
  store: async (ctx) => ({ store: await runStoreScale(ctx) }),
  fleet: async (ctx) => ({ fleet: await runFleet(ctx) }),
};

const SPAWNING: Part[] = ['startup', 'acks', 'reads', 'errors'];

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help')) {
    console.log(USAGE);
    return 0;
  }
  const options = parseOptions(argv);
  const started = performance.now();
  const loadAtStart = loadavg();
  const progress = (message: string) =>
    process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${message}\n`);
  const cpu = cpus();
  const machine = {
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cores: cpu.length,
    cpu: cpu[0]?.model.trim() ?? 'unknown CPU',
    memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
  };
  console.log(
    `Node ${machine.node} · ${machine.cores} cores (${machine.cpu}) · ${fmt(machine.memoryGiB, 1)} GiB RAM · load average at start ${loadAtStart.map((l) => l.toFixed(2)).join(' ')} · ${options.repeats} repeat(s)${options.quick ? ' · quick' : ''}\n`,
  );

  const spawns = options.parts.some((p) => SPAWNING.includes(p));
  if (spawns && options.build) {
    progress('building dist/ (scripts/bundle.mjs, esbuild)');
    execFileSync(process.execPath, [join(root, 'scripts', 'bundle.mjs')], { cwd: root, stdio: 'inherit' });
  }
  const slack = await BenchSlack.start();
  const bot = BOT_ENTRY;
  const ctx: PartContext = { options, slack, bot, progress };
  const results: PartResults = {};
  const raw: Record<string, unknown> = {};
  const failures: Record<string, string> = {};
  const partSeconds: Record<string, number> = {};
  for (const part of options.parts) {
    const partStarted = performance.now();
    progress(`${part}: starting`);
    try {
      Object.assign(results, await PART_RUNNERS[part](ctx, raw));
    } catch (error) {
      // The message, not the stack: results are committed, and a stack names this machine's paths.
      failures[part] = error instanceof Error ? error.message : String(error);
      progress(`${part}: FAILED: ${error instanceof Error ? error.message : String(error)}`);
    }
    partSeconds[part] = Number(((performance.now() - partStarted) / 1000).toFixed(1));
  }
  await slack.close();

  const elapsedS = (performance.now() - started) / 1000;
  const loadAtEnd = loadavg();
  console.log(markdownReport(results));
  console.log(
    `\nElapsed ${fmt(elapsedS, 0)} s (${Object.entries(partSeconds)
      .map(([p, s]) => `${p} ${fmt(s, 0)} s`)
      .join(', ')}) · load average at end ${loadAtEnd.map((l) => l.toFixed(2)).join(' ')}`,
  );

  const stamp = new Date()
    .toISOString()
    .replace(/[:.]/g, '-')
    .replace(/-\d{3}Z$/, 'Z');
  const partial = options.parts.length < PARTS.length ? `-${options.parts.join('-')}` : '';
  const name = `${stamp}${options.quick ? '-quick' : ''}${partial}`;
  const summary = {
    suite: 'netops-bot performance suite',
    startedAt: new Date(Date.now() - elapsedS * 1000).toISOString(),
    elapsedS: Number(elapsedS.toFixed(1)),
    partSeconds,
    machine: { ...machine, loadavgStart: loadAtStart, loadavgEnd: loadAtEnd },
    options,
    bot: { script: relative(root, bot.script) },
    budgets: budgetRows(results),
    results,
    ...(Object.keys(failures).length > 0 ? { failures } : {}),
  };
  const dir = join(root, 'bench', 'results');
  mkdirSync(join(dir, 'raw'), { recursive: true });
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(summary, null, 2)}\n`);
  writeFileSync(join(dir, 'raw', `${name}.json`), `${JSON.stringify({ name, ...raw })}\n`);
  console.log(`\nWrote bench/results/${name}.json (summary) and bench/results/raw/${name}.json (samples).`);
  return Object.keys(failures).length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
