import { GATEWAY_DEFAULTS } from '../../src/gateway/options.js';
import { type PartContext, sleep } from '../lib/context.js';
import { BenchController, type ControllerMode } from '../lib/controller.js';
import { ERROR_MARKS, messageText } from '../lib/fake-slack.js';
import { startApp } from '../lib/processes.js';
import { sendCommand } from '../lib/slack-load.js';
import { durationsIn, median, medianItem, ratio } from '../lib/stats.js';

/** The budget: the user reads an error within 10 s of the command. */
export const ERROR_BUDGET_MS = 10_000;
// A message "says how long the user waited" when a duration it names is within this share of the wait.
const SAYS_WAIT_TOLERANCE = 0.25;
const TOOL = 'list_vlans';
// Warm: the bot has answered once (controller detected, site looked up) and its read cache has
// since expired, so the same command goes to the controller again, as when a user asks later.
const CACHE_EXPIRED_MS = GATEWAY_DEFAULTS.cacheTtlSeconds * 1000 + 1000;

/** One user's experience of a controller that is down. */
export interface ErrorRun {
  waitMs: number;
  message: string;
  /** Durations the message names, in ms. */
  mentionedMs: number[];
  /** Requests the controller side saw for the command. */
  requests: number;
  /** The answer was an error notice (not a result served from somewhere else). */
  isError: boolean;
}

/** One scenario, medians over the repeats. */
export interface ErrorScenario {
  mode: Exclude<ControllerMode, 'forward'>;
  /** cold: the bot started with the controller already down; warm: it went down after a first answer. */
  state: 'cold' | 'warm';
  waitMs: number;
  budgetRatio: number;
  /** Every repeat's message named a duration within 25 % of that user's wait. */
  saysWait: boolean;
  /** The message of the median run. */
  message: string;
  runs: ErrorRun[];
}

/**
 * Time from `/net list_vlans` to the error posted to response_url, with the controller refusing
 * connections (its port closed) or hanging (it accepts and never answers), cold and warm. The
 * repeats of a scenario run side by side (each with its own bot and controller): they mostly wait
 * on timers, and the hanging scenario would otherwise dominate the suite's time.
 */
export async function runErrors(ctx: PartContext): Promise<ErrorScenario[]> {
  const scenarios: ErrorScenario[] = [];
  for (const mode of ['refuse', 'hang'] as const) {
    for (const state of ['cold', 'warm'] as const) {
      const runs = await Promise.all(
        Array.from({ length: ctx.options.repeats }, (_, i) => oneRun(ctx, mode, state, i)),
      );
      const waitMs = median(runs.map((r) => r.waitMs));
      scenarios.push({
        mode,
        state,
        waitMs,
        budgetRatio: ratio(waitMs, ERROR_BUDGET_MS),
        saysWait: runs.every(
          (r) =>
            r.isError && r.mentionedMs.some((m) => Math.abs(m - r.waitMs) <= SAYS_WAIT_TOLERANCE * r.waitMs),
        ),
        message: medianItem(runs, (r) => r.waitMs)?.message ?? '',
        runs,
      });
      ctx.progress(`errors ${mode} ${state}: ${waitMs.toFixed(0)} ms; "${scenarios.at(-1)?.message ?? ''}"`);
    }
  }
  return scenarios;
}

async function oneRun(
  ctx: PartContext,
  mode: 'refuse' | 'hang',
  state: 'cold' | 'warm',
  index: number,
): Promise<ErrorRun> {
  const controller = await BenchController.start({ mode: state === 'cold' ? mode : 'forward' });
  const bot = await startApp('bot', ctx.bot, {
    slackApiUrl: ctx.slack.apiUrl,
    controllerUrl: controller.url,
    controllerApiKey: controller.apiKey,
  });
  const ask = async (tool: string, key: string) => {
    const ack = await sendCommand(bot.port, tool, ctx.slack.responseUrl(key), key);
    await ctx.slack.waitFor([key], 120_000);
    const post = ctx.slack.responses.get(key);
    if (!post) throw new Error(`the bot never answered /net ${tool} (${mode}, ${state})`);
    return { waitMs: post.at - ack.sentAt, message: messageText(post.body) };
  };
  try {
    if (state === 'warm') {
      await ask(TOOL, `error-${mode}-${state}-${index}-warm-up`);
      await sleep(CACHE_EXPIRED_MS);
      await controller.setMode(mode);
    }
    controller.clearRequests();
    const { waitMs, message } = await ask(TOOL, `error-${mode}-${state}-${index}`);
    return {
      waitMs,
      message,
      mentionedMs: durationsIn(message),
      requests: controller.requests.length,
      isError: ERROR_MARKS.test(message),
    };
  } finally {
    await bot.stop();
    await controller.close();
  }
}
