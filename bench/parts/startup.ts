import { get } from 'node:http';
import { type PartContext, sleep } from '../lib/context.js';
import { BenchController } from '../lib/controller.js';
import { FLOOR_ENTRY, startApp, threadArenaMiB } from '../lib/processes.js';
import { median, ratio } from '../lib/stats.js';

/** How long the process sits idle, once its start-up work has settled, before its RSS is read. */
const IDLE_MS = 2000;

/**
 * How long after start-up settled the idle RSS that is judged is read: past V8's memory reducer,
 * which shrinks the young generation (grown during start-up to 16 MB in either app) about 8 s after
 * the last full collection. The sample at IDLE_MS falls before or after it at random, a jump of
 * about 9 MiB in either app (docs/decisions.md, "Benchmarks").
 */
export const STEADY_MS = 20_000;

/** How long the bot's start-up work (the controller warm-up) may take before RSS is read anyway. */
const SETTLE_TIMEOUT_MS = 30_000;

/**
 * Resolves once the app's start-up work is done: for the bot, when /healthz shows the console it
 * read in its warm-up (`controller`), which every bot with a controller does at start and
 * which loads the controller client; for the bare Bolt app, at once (it has none). Idle RSS is read
 * `IDLE_MS` after this point in both, so a sample never depends on whether the warm-up had finished.
 * Returns how long the wait took, in ms.
 */
export async function settled(port: number, kind: 'bot' | 'floor'): Promise<number> {
  const started = performance.now();
  if (kind === 'floor') return 0;
  while (performance.now() - started < SETTLE_TIMEOUT_MS) {
    const body = await healthBody(port);
    if (body !== undefined && typeof body.controller === 'object' && body.controller !== null) break;
    await sleep(50);
  }
  return performance.now() - started;
}

function healthBody(port: number): Promise<Record<string, unknown> | undefined> {
  return new Promise((resolve) => {
    const req = get({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
        } catch {
          resolve(undefined);
        }
      });
    });
    req.once('error', () => resolve(undefined));
    req.setTimeout(1000, () => req.destroy());
  });
}

/**
 * Starts of each app in a full run, whatever `--repeats` says: an idle RSS sample is cheap (a start
 * and a wait) and the figure needs several, since a start draws the thread-arena burst at random
 * (bench/lib/smaps.ts) in either app, about one in two.
 */
export const IDLE_RSS_STARTS = 9;

/** How many times each app is started: `repeats`, and at least IDLE_RSS_STARTS unless the run is quick. */
export function startsFor(repeats: number, quick: boolean): number {
  return quick ? repeats : Math.max(repeats, IDLE_RSS_STARTS);
}

/** Start-up to the first `/healthz` 200 and RSS at idle, for one kind of app. */
export interface StartupFigures {
  startupMs: number;
  /** Median RSS at idle. */
  rssMiB: number;
  /** Lowest RSS at idle: a start that drew no thread-arena burst, as a rule. */
  rssLowestMiB?: number;
  /** Median of RSS less the thread arenas' resident memory (the part that jumps at random). */
  rssLessArenasMiB?: number;
  /**
   * settleMs: from healthz 200 to the end of the start-up work (the bot's warm-up; 0 for the floor).
   * arenaMiB: resident memory of the thread malloc arenas in that sample.
   */
  samples: {
    startupMs: number;
    rssMiB: number;
    settleMs?: number;
    arenaMiB?: number;
    /** RSS and thread arenas STEADY_MS after start-up settled (absent in older result files). */
    steadyRssMiB?: number;
    steadyArenaMiB?: number;
  }[];
  /** Median and lowest of the steady samples (absent in older result files). */
  steadyRssMiB?: number;
  steadyRssLowestMiB?: number;
}

/** The bot against the bare Bolt app, started alternately in the same run. */
export interface StartupResult {
  bot: StartupFigures;
  floor: StartupFigures;
  startupRatio: number;
  /** Median against median. */
  rssRatio: number;
  /** Lowest against lowest: neither side decided by the burst. Absent in older result files. */
  rssLowestRatio?: number;
  /** Medians of RSS less thread arenas (for reading only; the budget is judged on RSS). */
  rssLessArenasRatio?: number;
  idleMs: number;
  /** The steady samples' ratios, median against median and lowest against lowest: what the budget is judged on. */
  steadyRssRatio?: number;
  steadyRssLowestRatio?: number;
  steadyMs?: number;
}

/** Spawns each app `repeats` times (alternating which goes first) and keeps the medians. */
export async function runStartup(ctx: PartContext): Promise<StartupResult> {
  const controller = await BenchController.start();
  const samples = { bot: [] as StartupFigures['samples'], floor: [] as StartupFigures['samples'] };
  try {
    const starts = startsFor(ctx.options.repeats, ctx.options.quick);
    for (let repeat = 0; repeat < starts; repeat++) {
      const order: ('bot' | 'floor')[] = repeat % 2 === 0 ? ['floor', 'bot'] : ['bot', 'floor'];
      for (const kind of order) {
        const app = await startApp(kind, kind === 'bot' ? ctx.bot : FLOOR_ENTRY, {
          slackApiUrl: ctx.slack.apiUrl,
          controllerUrl: controller.url,
          controllerApiKey: controller.apiKey,
        });
        const settleMs = await settled(app.port, kind);
        await sleep(IDLE_MS);
        const rssMiB = app.rssMiB();
        const arenaMiB = threadArenaMiB(app.pid);
        // A quick run checks the part works; only a full run waits for the steady sample.
        const steady = ctx.options.quick
          ? {}
          : await sleep(STEADY_MS - IDLE_MS).then(() => ({
              steadyRssMiB: app.rssMiB(),
              steadyArenaMiB: threadArenaMiB(app.pid),
            }));
        samples[kind].push({ startupMs: app.startupMs, rssMiB, settleMs, arenaMiB, ...steady });
        await app.stop();
        ctx.progress(`startup ${repeat + 1}/${starts} ${kind}: ${app.startupMs.toFixed(0)} ms to healthz`);
      }
    }
  } finally {
    await controller.close();
  }
  const figures = (list: StartupFigures['samples']): StartupFigures => {
    const steady = list.flatMap((s) => (s.steadyRssMiB === undefined ? [] : [s.steadyRssMiB]));
    return {
      startupMs: median(list.map((s) => s.startupMs)),
      rssMiB: median(list.map((s) => s.rssMiB)),
      rssLowestMiB: Math.min(...list.map((s) => s.rssMiB)),
      rssLessArenasMiB: median(list.map((s) => s.rssMiB - (s.arenaMiB ?? 0))),
      ...(steady.length > 0 ? { steadyRssMiB: median(steady), steadyRssLowestMiB: Math.min(...steady) } : {}),
      samples: list,
    };
  };
  const bot = figures(samples.bot);
  const floor = figures(samples.floor);
  return {
    bot,
    floor,
    startupRatio: ratio(bot.startupMs, floor.startupMs),
    rssRatio: ratio(bot.rssMiB, floor.rssMiB),
    rssLowestRatio: ratio(bot.rssLowestMiB ?? Number.NaN, floor.rssLowestMiB ?? Number.NaN),
    rssLessArenasRatio: ratio(bot.rssLessArenasMiB ?? Number.NaN, floor.rssLessArenasMiB ?? Number.NaN),
    idleMs: IDLE_MS,
    ...(bot.steadyRssMiB !== undefined && floor.steadyRssMiB !== undefined
      ? {
          steadyRssRatio: ratio(bot.steadyRssMiB, floor.steadyRssMiB),
          steadyRssLowestRatio: ratio(
            bot.steadyRssLowestMiB ?? Number.NaN,
            floor.steadyRssLowestMiB ?? Number.NaN,
          ),
          steadyMs: STEADY_MS,
        }
      : {}),
  };
}
