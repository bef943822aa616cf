import type { PartContext } from '../lib/context.js';
import { BenchController } from '../lib/controller.js';
import { FLOOR_ENTRY, type RunningApp, startApp } from '../lib/processes.js';
import { sendCommand } from '../lib/slack-load.js';
import { median, ratio } from '../lib/stats.js';

const TOOL = 'list_vlans';

/** One repeat: times from the slash command to the answer posted to response_url. */
export interface ReadRun {
  coldMs: number;
  warmMs: number;
  coldRequests: number;
  warmRequests: number;
  floorColdMs: number;
  floorWarmMs: number;
  roundTripMs: number;
}

/** Read overhead over the controller's latency, medians over the repeats. */
export interface ReadsResult {
  tool: string;
  latencyMs: number;
  /** One plain request through to the controller, as measured from the bench. */
  roundTripMs: number;
  floorColdMs: number;
  floorWarmMs: number;
  coldMs: number;
  warmMs: number;
  coldRequests: number;
  warmRequests: number;
  /** Cold answer ÷ (the bare app's first answer + one controller round trip): the ideal one-round read. */
  coldRatio: number;
  /** Warm answer ÷ the bare app's second answer. */
  warmRatio: number;
  /** What the bot adds beyond the floor, in ms and in controller round trips. */
  coldOverheadMs: number;
  coldOverheadRoundTrips: number;
  warmOverheadMs: number;
  runs: ReadRun[];
}

/**
 * `/net list_vlans` twice on a freshly started bot with the controller at `readLatencyMs`: the
 * first answer is cold (nothing detected or cached), the second warm (within the cache lifetime).
 * Floors from the same run: the bare Bolt app answering `/net echo` (first and second command
 * after its start), and one request straight to the controller.
 */
export async function runReads(ctx: PartContext): Promise<ReadsResult> {
  const latencyMs = ctx.options.readLatencyMs;
  const controller = await BenchController.start({ latencyMs });
  const runs: ReadRun[] = [];
  let counter = 0;
  const answerMs = async (app: RunningApp, text: string): Promise<number> => {
    counter += 1;
    const key = `read-${app.kind}-${counter}`;
    const ack = await sendCommand(app.port, text, ctx.slack.responseUrl(key), key);
    if (ack.status !== 200) throw new Error(`${app.kind} answered HTTP ${ack.status} to /net ${text}`);
    await ctx.slack.waitFor([key], latencyMs * 10 + 30_000);
    const post = ctx.slack.responses.get(key);
    if (!post) throw new Error(`${app.kind} never answered /net ${text}`);
    return post.at - ack.sentAt;
  };
  try {
    for (let repeat = 0; repeat < ctx.options.repeats; repeat++) {
      const floor = await startApp('floor', FLOOR_ENTRY, { slackApiUrl: ctx.slack.apiUrl });
      let floorColdMs: number;
      let floorWarmMs: number;
      try {
        floorColdMs = await answerMs(floor, 'echo');
        floorWarmMs = await answerMs(floor, 'echo');
      } finally {
        await floor.stop();
      }
      const trips: number[] = [];
      for (let i = 0; i < 3; i++) trips.push(await controller.roundTrip());
      const bot = await startApp('bot', ctx.bot, {
        slackApiUrl: ctx.slack.apiUrl,
        controllerUrl: controller.url,
        controllerApiKey: controller.apiKey,
      });
      try {
        controller.clearRequests();
        const coldMs = await answerMs(bot, TOOL);
        const coldRequests = controller.requests.length;
        controller.clearRequests();
        const warmMs = await answerMs(bot, TOOL);
        const warmRequests = controller.requests.length;
        runs.push({
          coldMs,
          warmMs,
          coldRequests,
          warmRequests,
          floorColdMs,
          floorWarmMs,
          roundTripMs: median(trips),
        });
        ctx.progress(
          `reads ${repeat + 1}/${ctx.options.repeats}: cold ${coldMs.toFixed(0)} ms (${coldRequests} requests), warm ${warmMs.toFixed(0)} ms; floor ${floorColdMs.toFixed(0)}/${floorWarmMs.toFixed(0)} ms, round trip ${median(trips).toFixed(0)} ms`,
        );
      } finally {
        await bot.stop();
      }
    }
  } finally {
    await controller.close();
  }
  const m = (pick: (r: ReadRun) => number) => median(runs.map(pick));
  const roundTripMs = m((r) => r.roundTripMs);
  const floorColdMs = m((r) => r.floorColdMs);
  const floorWarmMs = m((r) => r.floorWarmMs);
  const coldMs = m((r) => r.coldMs);
  const warmMs = m((r) => r.warmMs);
  return {
    tool: TOOL,
    latencyMs,
    roundTripMs,
    floorColdMs,
    floorWarmMs,
    coldMs,
    warmMs,
    coldRequests: m((r) => r.coldRequests),
    warmRequests: m((r) => r.warmRequests),
    coldRatio: ratio(coldMs, floorColdMs + roundTripMs),
    warmRatio: ratio(warmMs, floorWarmMs),
    coldOverheadMs: coldMs - floorColdMs - roundTripMs,
    coldOverheadRoundTrips: ratio(coldMs - floorColdMs, roundTripMs),
    warmOverheadMs: warmMs - floorWarmMs,
    runs,
  };
}
