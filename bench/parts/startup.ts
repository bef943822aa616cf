import { get } from 'node:http';
import { type PartContext, sleep } from '../lib/context.js';
import { BenchController } from '../lib/controller.js';
import { FLOOR_ENTRY, startApp } from '../lib/processes.js';
import { median, ratio } from '../lib/stats.js';

/** How long the process sits idle, once its start-up work has settled, before its RSS is read. */
const IDLE_MS = 2000;

/** How long the bot's start-up work (the controller warm-up) may take before RSS is read anyway. */
const SETTLE_TIMEOUT_MS = 30_000;

/**
 * Resolves once the app's start-up work is done: for the bot, when /healthz shows the console it
 * read in its warm-up (`controller`, issue 25), which every bot with a controller does at start and
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

/** Start-up to the first `/healthz` 200 and RSS at idle, for one kind of app. */
export interface StartupFigures {
  startupMs: number;
  rssMiB: number;
  /** settleMs: from healthz 200 to the end of the start-up work (the bot's warm-up; 0 for the floor). */
  samples: { startupMs: number; rssMiB: number; settleMs?: number }[];
}

/** The bot against the bare Bolt app, started alternately in the same run. */
export interface StartupResult {
  bot: StartupFigures;
  floor: StartupFigures;
  startupRatio: number;
  rssRatio: number;
  idleMs: number;
}

/** Spawns each app `repeats` times (alternating which goes first) and keeps the medians. */
export async function runStartup(ctx: PartContext): Promise<StartupResult> {
  const controller = await BenchController.start();
  const samples = { bot: [] as StartupFigures['samples'], floor: [] as StartupFigures['samples'] };
  try {
    for (let repeat = 0; repeat < ctx.options.repeats; repeat++) {
      const order: ('bot' | 'floor')[] = repeat % 2 === 0 ? ['floor', 'bot'] : ['bot', 'floor'];
      for (const kind of order) {
        const app = await startApp(kind, kind === 'bot' ? ctx.bot : FLOOR_ENTRY, {
          slackApiUrl: ctx.slack.apiUrl,
          controllerUrl: controller.url,
          controllerApiKey: controller.apiKey,
        });
        const settleMs = await settled(app.port, kind);
        await sleep(IDLE_MS);
        samples[kind].push({ startupMs: app.startupMs, rssMiB: app.rssMiB(), settleMs });
        await app.stop();
        ctx.progress(
          `startup ${repeat + 1}/${ctx.options.repeats} ${kind}: ${app.startupMs.toFixed(0)} ms to healthz`,
        );
      }
    }
  } finally {
    await controller.close();
  }
  const figures = (list: StartupFigures['samples']): StartupFigures => ({
    startupMs: median(list.map((s) => s.startupMs)),
    rssMiB: median(list.map((s) => s.rssMiB)),
    samples: list,
  });
  const bot = figures(samples.bot);
  const floor = figures(samples.floor);
  return {
    bot,
    floor,
    startupRatio: ratio(bot.startupMs, floor.startupMs),
    rssRatio: ratio(bot.rssMiB, floor.rssMiB),
    idleMs: IDLE_MS,
  };
}
