import { type PartContext, sleep } from '../lib/context.js';
import { BenchController } from '../lib/controller.js';
import { FLOOR_ENTRY, startApp } from '../lib/processes.js';
import { median, ratio } from '../lib/stats.js';

/** How long the process sits idle after its first healthz 200 before its RSS is read. */
const IDLE_MS = 2000;

/** Start-up to the first `/healthz` 200 and RSS at idle, for one kind of app. */
export interface StartupFigures {
  startupMs: number;
  rssMiB: number;
  samples: { startupMs: number; rssMiB: number }[];
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
        await sleep(IDLE_MS);
        samples[kind].push({ startupMs: app.startupMs, rssMiB: app.rssMiB() });
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
