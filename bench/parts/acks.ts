import type { PartContext } from '../lib/context.js';
import { BenchController } from '../lib/controller.js';
import { ERROR_MARKS, messageText } from '../lib/fake-slack.js';
import type { RunningApp } from '../lib/processes.js';
import { FLOOR_ENTRY, startApp } from '../lib/processes.js';
import { type AckSample, runArrivals, runLoad } from '../lib/slack-load.js';
import { median, percentile, ratio } from '../lib/stats.js';

const COMMAND = 'list_vlans';

/**
 * The second load shape: an outage brings `ARRIVAL_PEOPLE` people to the
 * channel, each typing one command within `ARRIVAL_WINDOW_MS`, at random (open loop: Slack sends a
 * command when the person types it, whether or not earlier ones were acknowledged). The first
 * shape, 50 senders each sending again as soon as acked and 250 ms passed (about 200 commands a
 * second for 2.5 s), is kept: it is a saturation test (on 2 cores it measures CPU per command),
 * not a picture of Slack traffic.
 */
export const ARRIVAL_PEOPLE = 50;
export const ARRIVAL_WINDOW_MS = 5000;
/**
 * Bursts per repeat and app, each with its own seeded arrival times. The p99 is taken over every ack
 * of every burst and repeat (300 with 3 repeats): with one burst of 50, p99 was the single slowest
 * ack, decided by whichever collection or stall of the machine fell inside those 5 s.
 */
export const ARRIVAL_BURSTS = 2;

/**
 * The bot acks with its background work running, at shorter intervals than the
 * defaults so each runs several times during the load: the watcher polling devices every second
 * and sweeping for drift every 5 s, telemetry sampling every 5 s (each a read of the whole site),
 * the change timers ticking every second. The bare Bolt floor runs none of it.
 */
export const BACKGROUND_ENV: Record<string, string> = {
  ALERT_CHANNEL: 'C0ALERTS',
  DRIFT_CHANNEL: 'C0DRIFT',
  WATCH_INTERVAL_SECONDS: '1',
  DRIFT_INTERVAL_SECONDS: '5',
  TELEMETRY_INTERVAL_SECONDS: '5',
  CHANGE_TIMER_TICK_SECONDS: '1',
};

/** One load run against one app. */
export interface AckRun {
  p50: number;
  p99: number;
  max: number;
  /** Non-200 acks. */
  failedAcks: number;
  /** CPU the app used per command while the load ran, in ms. */
  cpuMsPerCommand: number;
  /** Bot only: CPU per command until every answer was posted, in ms. */
  cpuMsPerAnswer?: number;
  /** Bot only: answers posted to response_url, how many were error notices, when the last came. */
  answers?: number;
  errorAnswers?: number;
  lastAnswerMs?: number;
  firstAnswerMs?: number;
  /** Bot only: commands sent before the first answer (they wait on one shared read), and how long their answers took to post. */
  waitingCommands?: number;
  burstMs?: number;
  /** Bot only: ack p99 of the commands whose ack was in flight while that burst was posted, and of the rest. */
  p99DuringAnswers?: number;
  p99Otherwise?: number;
  duringAnswers?: number;
}

/** The figures at one controller latency: medians over the repeats. */
export interface AckLatencyResult {
  latencyMs: number;
  commands: number;
  senders: number;
  paceMs: number;
  bot: { p50: number; p99: number; answers: number; errorAnswers: number; lastAnswerMs: number };
  floor: { p50: number; p99: number };
  /** The bare Bolt app answering every command through response_url (a second floor); absent in older results. */
  answeringFloor?: { p50: number; p99: number };
  p50Ratio: number;
  p99Ratio: number;
  /** Bot p99 ÷ the answering floor's p99. */
  p99RatioAnswering?: number;
  /** Every answer of every repeat arrived (and none was an error). */
  allAnswered: boolean;
  runs: { bot: AckRun; floor: AckRun; answeringFloor?: AckRun }[];
  /** The open-loop burst (ARRIVAL_PEOPLE in ARRIVAL_WINDOW_MS) in the same processes, after the load; absent in older results. */
  arrivals?: ArrivalResult;
}

/** Open-loop bursts, ARRIVAL_BURSTS per repeat and app: p50 and p99 over all their acks. */
export interface ArrivalResult {
  people: number;
  windowMs: number;
  /** Bursts per repeat (absent in older saved runs: one burst). */
  bursts?: number;
  bot: ArrivalFigures;
  floor: ArrivalFigures;
  answeringFloor: ArrivalFigures;
  p99Ratio: number;
  p99RatioAnswering: number;
  allAnswered: boolean;
}

export interface ArrivalFigures {
  /** Over every ack of every burst and repeat. */
  p50: number;
  p99: number;
  /** How many acks p50 and p99 are taken over (absent in older saved runs). */
  acks?: number;
  /** Median of the per-repeat slowest ack. */
  max: number;
  /** CPU per command from the first arrival until every answer (the bot and answering floor) was posted, ms. */
  cpuMsPerCommand: number;
  runs: {
    p50: number;
    p99: number;
    max: number;
    cpuMsPerCommand: number;
    answers?: number;
    /** Every ack of the repeat's bursts, ms. */
    ms: number[];
  }[];
}

/** Raw ack latencies per repeat, for bench/results/raw/. */
export type AckSamples = Record<string, { bot: number[]; floor: number[]; answeringFloor: number[] }[]>;

/**
 * `commands` signed `/net list_vlans` from `senders` concurrent senders, against the bot (a fresh
 * process per repeat, so every repeat starts cold) and against the bare Bolt app, at each
 * controller latency. The bot's answers are waited for and counted.
 */
export async function runAcks(ctx: PartContext): Promise<{ results: AckLatencyResult[]; raw: AckSamples }> {
  const { options } = ctx;
  const results: AckLatencyResult[] = [];
  const raw: AckSamples = {};
  for (const latencyMs of options.ackLatenciesMs) {
    const controller = await BenchController.start({ latencyMs });
    const runs: { bot: AckRun; floor: AckRun; answeringFloor: AckRun }[] = [];
    const arrivalRuns: Record<'bot' | 'floor' | 'answeringFloor', ArrivalFigures['runs']> = {
      bot: [],
      floor: [],
      answeringFloor: [],
    };
    raw[String(latencyMs)] = [];
    try {
      for (let repeat = 0; repeat < options.repeats; repeat++) {
        const floorApp = await startApp('floor', FLOOR_ENTRY, { slackApiUrl: ctx.slack.apiUrl });
        let floorSamples: AckSample[];
        let floorCpu = 0;
        try {
          await warmUp(ctx, floorApp.port, `floor-${latencyMs}-${repeat}`, false);
          floorCpu = floorApp.cpuMs();
          floorSamples = await sendLoad(ctx, floorApp.port, `floor-${latencyMs}-${repeat}`);
          floorCpu = (floorApp.cpuMs() - floorCpu) / options.commands;
          arrivalRuns.floor.push(
            await arrivalRun(ctx, floorApp, `floor-${latencyMs}-${repeat}`, repeat, false),
          );
        } finally {
          await floorApp.stop();
        }
        const answering = await answeringFloorRun(ctx, latencyMs, repeat);
        arrivalRuns.answeringFloor.push(answering.arrivals);
        const bot = await startApp('bot', ctx.bot, {
          slackApiUrl: ctx.slack.apiUrl,
          controllerUrl: controller.url,
          controllerApiKey: controller.apiKey,
          // BENCH_BOT_NODE_OPTIONS (e.g. `--require <abs path>/bench/apps/cpu-profile-hook.cjs`, a CPU
          // profile per bot; Node 20 refuses `--cpu-prof` there): to look into a run.
          env: {
            // BENCH_ACKS_BACKGROUND=off: the bot without them, to tell their share.
            ...(process.env.BENCH_ACKS_BACKGROUND === 'off' ? {} : BACKGROUND_ENV),
            ...(process.env.BENCH_BOT_NODE_OPTIONS
              ? { NODE_OPTIONS: process.env.BENCH_BOT_NODE_OPTIONS }
              : {}),
          },
        });
        let botRun: AckRun;
        let botSamples: AckSample[];
        try {
          const keyPrefix = `bot-${latencyMs}-${repeat}`;
          await warmUp(ctx, bot.port, keyPrefix, true);
          const started = performance.now();
          const cpuBefore = bot.cpuMs();
          botSamples = await sendLoad(ctx, bot.port, keyPrefix);
          const cpuLoad = bot.cpuMs() - cpuBefore;
          const keys = botSamples.map((s) => s.key);
          await ctx.slack.waitFor(keys, latencyMs * 4 + 30_000);
          botRun = {
            ...botFigures(botSamples, keys, ctx, started),
            cpuMsPerCommand: cpuLoad / options.commands,
            cpuMsPerAnswer: (bot.cpuMs() - cpuBefore) / options.commands,
          };
          arrivalRuns.bot.push(await arrivalRun(ctx, bot, keyPrefix, repeat, true, latencyMs));
        } finally {
          await bot.stop();
        }
        const floorRun = { ...loadFigures(floorSamples), cpuMsPerCommand: floorCpu };
        runs.push({ bot: botRun, floor: floorRun, answeringFloor: answering.run });
        raw[String(latencyMs)]?.push({
          bot: botSamples.map((s) => s.ms),
          floor: floorSamples.map((s) => s.ms),
          answeringFloor: answering.samples.map((s) => s.ms),
        });
        ctx.progress(
          `acks @${latencyMs} ms ${repeat + 1}/${options.repeats}: p99 bot ${botRun.p99.toFixed(0)} ms, floor ${floorRun.p99.toFixed(0)} ms, answering floor ${answering.run.p99.toFixed(0)} ms, answers ${botRun.answers}/${options.commands}; open-loop burst p99 bot ${arrivalRuns.bot.at(-1)?.p99.toFixed(0)} ms, floor ${arrivalRuns.floor.at(-1)?.p99.toFixed(0)} ms, answering floor ${answering.arrivals.p99.toFixed(0)} ms`,
        );
      }
    } finally {
      await controller.close();
    }
    const bot = {
      p50: median(runs.map((r) => r.bot.p50)),
      p99: median(runs.map((r) => r.bot.p99)),
      answers: median(runs.map((r) => r.bot.answers ?? 0)),
      errorAnswers: median(runs.map((r) => r.bot.errorAnswers ?? 0)),
      lastAnswerMs: median(runs.map((r) => r.bot.lastAnswerMs ?? Number.NaN)),
    };
    const floor = { p50: median(runs.map((r) => r.floor.p50)), p99: median(runs.map((r) => r.floor.p99)) };
    const answeringFloor = {
      p50: median(runs.map((r) => r.answeringFloor.p50)),
      p99: median(runs.map((r) => r.answeringFloor.p99)),
    };
    results.push({
      latencyMs,
      commands: options.commands,
      senders: options.senders,
      paceMs: options.paceMs,
      bot,
      floor,
      answeringFloor,
      p50Ratio: ratio(bot.p50, floor.p50),
      p99Ratio: ratio(bot.p99, floor.p99),
      p99RatioAnswering: ratio(bot.p99, answeringFloor.p99),
      allAnswered: runs.every((r) => r.bot.answers === options.commands && r.bot.errorAnswers === 0),
      runs,
      arrivals: arrivalResult(arrivalRuns),
    });
  }
  return { results, raw };
}

/**
 * The bare Bolt app answering every command through response_url `latencyMs` after its ack: what
 * answering costs an app that does no other work, under the same load. Its answers are waited for.
 */
async function answeringFloorRun(
  ctx: PartContext,
  latencyMs: number,
  repeat: number,
): Promise<{ run: AckRun; samples: AckSample[]; arrivals: ArrivalFigures['runs'][number] }> {
  const { options } = ctx;
  const app = await startApp('floor', FLOOR_ENTRY, {
    slackApiUrl: ctx.slack.apiUrl,
    env: { ANSWER_AFTER_MS: String(latencyMs) },
  });
  try {
    const keyPrefix = `answering-floor-${latencyMs}-${repeat}`;
    await warmUp(ctx, app.port, keyPrefix, false);
    const cpuBefore = app.cpuMs();
    const samples = await sendLoad(ctx, app.port, keyPrefix);
    const cpu = (app.cpuMs() - cpuBefore) / options.commands;
    await ctx.slack.waitFor(
      samples.map((s) => s.key),
      latencyMs * 4 + 30_000,
    );
    const arrivals = await arrivalRun(ctx, app, keyPrefix, repeat, true, latencyMs);
    return { run: { ...loadFigures(samples), cpuMsPerCommand: cpu }, samples, arrivals };
  } finally {
    await app.stop();
  }
}

/**
 * The open-loop burst against an app that has just taken the closed-loop load (so it is warm, and
 * the bot's background work keeps running): one second of quiet, then ARRIVAL_PEOPLE commands at
 * seeded random times (the same in every app of a repeat). Answers are waited for where the app
 * answers, so CPU per command covers them.
 */
async function arrivalRun(
  ctx: PartContext,
  app: RunningApp,
  prefix: string,
  repeat: number,
  answers: boolean,
  latencyMs = 0,
): Promise<ArrivalFigures['runs'][number]> {
  const samples: AckSample[] = [];
  let cpuMs = 0;
  for (let burst = 0; burst < ARRIVAL_BURSTS; burst++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const cpuBefore = app.cpuMs();
    const burstSamples = await runArrivals({
      port: app.port,
      commands: ARRIVAL_PEOPLE,
      windowMs: ARRIVAL_WINDOW_MS,
      text: COMMAND,
      responseUrl: (key) => ctx.slack.responseUrl(key),
      keyPrefix: `${prefix}-arrivals-${burst}`,
      seed: 26 + repeat * ARRIVAL_BURSTS + burst,
    });
    if (answers)
      await ctx.slack.waitFor(
        burstSamples.map((s) => s.key),
        latencyMs * 4 + 30_000,
      );
    cpuMs += app.cpuMs() - cpuBefore;
    samples.push(...burstSamples);
  }
  const keys = samples.map((s) => s.key);
  const ms = samples.map((s) => s.ms);
  return {
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    max: Math.max(...ms),
    cpuMsPerCommand: cpuMs / samples.length,
    ...(answers ? { answers: keys.filter((k) => ctx.slack.responses.has(k)).length } : {}),
    ms,
  };
}

function arrivalResult(
  runs: Record<'bot' | 'floor' | 'answeringFloor', ArrivalFigures['runs']>,
): ArrivalResult {
  const figures = (list: ArrivalFigures['runs']): ArrivalFigures => ({
    ...pooledPercentiles(list.map((r) => r.ms)),
    max: median(list.map((r) => r.max)),
    cpuMsPerCommand: median(list.map((r) => r.cpuMsPerCommand)),
    runs: list,
  });
  const bot = figures(runs.bot);
  const floor = figures(runs.floor);
  const answeringFloor = figures(runs.answeringFloor);
  return {
    people: ARRIVAL_PEOPLE,
    windowMs: ARRIVAL_WINDOW_MS,
    bursts: ARRIVAL_BURSTS,
    bot,
    floor,
    answeringFloor,
    p99Ratio: ratio(bot.p99, floor.p99),
    p99RatioAnswering: ratio(bot.p99, answeringFloor.p99),
    allAnswered: runs.bot.every((r) => r.answers === ARRIVAL_PEOPLE * ARRIVAL_BURSTS),
  };
}

/** p50 and p99 over the acks of every repeat together, and how many there were. */
export function pooledPercentiles(perRepeat: readonly (readonly number[])[]): {
  p50: number;
  p99: number;
  acks: number;
} {
  const all = perRepeat.flat();
  return { p50: percentile(all, 50), p99: percentile(all, 99), acks: all.length };
}

/** The measured load: the options' commands from their senders at their pace, to `port`. */
function sendLoad(ctx: PartContext, port: number, keyPrefix: string): Promise<AckSample[]> {
  const { options } = ctx;
  return runLoad({
    port,
    commands: options.commands,
    senders: options.senders,
    paceMs: options.paceMs,
    text: COMMAND,
    responseUrl: (key) => ctx.slack.responseUrl(key),
    keyPrefix,
  });
}

/**
 * A freshly started process compiles its request path on the first requests; `/net help` (which
 * never reaches the controller, so the bot stays cold) warms it the same way in the bot and the
 * floor, so the measured load compares steady states. The bot's help answers are waited for.
 */
async function warmUp(ctx: PartContext, port: number, prefix: string, answers: boolean): Promise<void> {
  const { senders, warmup } = ctx.options;
  if (warmup === 0) return;
  const samples = await runLoad({
    port,
    commands: senders * warmup,
    senders,
    paceMs: 0,
    text: 'help',
    responseUrl: (key) => ctx.slack.responseUrl(key),
    keyPrefix: `${prefix}-warm-up`,
  });
  if (answers)
    await ctx.slack.waitFor(
      samples.map((s) => s.key),
      30_000,
    );
}

function loadFigures(samples: AckSample[]): Omit<AckRun, 'cpuMsPerCommand'> {
  const ms = samples.map((s) => s.ms);
  return {
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    max: Math.max(...ms),
    failedAcks: samples.filter((s) => s.status !== 200).length,
  };
}

function botFigures(
  samples: AckSample[],
  keys: string[],
  ctx: PartContext,
  started: number,
): Omit<AckRun, 'cpuMsPerCommand'> {
  const posts = keys.flatMap((k) => {
    const post = ctx.slack.responses.get(k);
    return post ? [post] : [];
  });
  const times = posts.map((p) => p.at);
  const first = times.length > 0 ? Math.min(...times) : Number.NaN;
  const last = times.length > 0 ? Math.max(...times) : Number.NaN;
  // The burst: answers to the commands that were waiting on the first (shared) read, released
  // together. An ack "during the burst" was in flight at some point while they were posted.
  const waiting = samples.filter((s) => s.sentAt < first);
  const burstEnd = Math.max(first, ...waiting.map((s) => ctx.slack.responses.get(s.key)?.at ?? first));
  const inBurst = (s: AckSample) => s.sentAt < burstEnd && s.sentAt + s.ms > first;
  const during = samples.filter(inBurst).map((s) => s.ms);
  const otherwise = samples.filter((s) => !inBurst(s)).map((s) => s.ms);
  return {
    ...loadFigures(samples),
    answers: posts.length,
    errorAnswers: posts.filter((p) => ERROR_MARKS.test(messageText(p.body))).length,
    firstAnswerMs: first - started,
    lastAnswerMs: last - started,
    waitingCommands: waiting.length,
    burstMs: burstEnd - first,
    p99DuringAnswers: percentile(during, 99),
    p99Otherwise: percentile(otherwise, 99),
    duringAnswers: during.length,
  };
}
