import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { afterAll, beforeAll } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { SIGNING_SECRET, type SlackBot, startSlackBot } from '../helpers/slack-bot.js';
import { slackHeaders } from '../helpers/slack-requests.js';
import { slackTextProblems } from '../helpers/slack-text.js';

/**
 * Cases per property: 250 in `npm test`, more with `FUZZ_RUNS=20000 npm run fuzz`. The count is
 * arbitrary, set by the suite's 5-minute budget on 2 cores (2,000, then 1,000, then 400, then 250
 * as the suite grew); the seed is fixed, so the 250 are the first 250 of the larger runs. Tests may
 * read the environment (the rule that only config.ts does is for src/).
 */
export const FUZZ_RUNS = Math.max(1, Number(process.env.FUZZ_RUNS ?? 250) || 250);
/** A fixed seed unless FUZZ_SEED is set, so a failure in CI replays; fast-check prints the seed. */
export const FUZZ_SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20_251_110;

/** fast-check parameters shared by the fuzz properties. */
/**
 * A property's time limit: 10 minutes, or 75 ms a case for `npm run fuzz`'s larger runs (a case
 * takes 2–20 ms, more as the bot's store and the simulator fill up over tens of thousands).
 */
export const fuzzTimeoutMs = (runs = FUZZ_RUNS): number => Math.max(600_000, runs * 75);

export const fuzzParameters = (numRuns = FUZZ_RUNS): fc.Parameters<unknown> => ({
  numRuns,
  seed: FUZZ_SEED,
  // Each case talks to a live bot; shrinking a failure replays many, so it is capped.
  endOnFailure: false,
  maxSkipsPerRun: 1,
});

/** Requests the simulator counts as writes: every method but GET, except the classic stat reads (POST). */
/**
 * The controller writes the simulator received, from request number `from` on: a case passes the
 * count it saw at its start, so tens of thousands of cases do not rescan every earlier request.
 */
export const writesOf = (sim: Simulator, from = 0) =>
  sim.requests.slice(from).filter((r) => r.method !== 'GET' && !r.route.includes('/stat/'));

/** What one Slack request led to: the calls and response_url posts the bot made for it. */
export interface Answer {
  status: number;
  /** The HTTP response to the request itself (a view_submission ack can carry errors). */
  body: string;
  calls: SlackCall[];
  responses: Record<string, unknown>[];
  ms: number;
}

let sequence = 0;

/** A unique suffix per case: channels, trigger ids and response URLs tell the cases apart. */
export const nextCase = () => {
  sequence += 1;
  return sequence;
};

/** Timing of the cases of one property, and what they led to, printed at the end of the file. */
export class Timing {
  readonly samples: number[] = [];
  readonly outcomes = new Map<string, number>();
  add(ms: number, outcome?: string): void {
    this.samples.push(ms);
    if (outcome) this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1);
  }
  summary(name: string): string {
    const sorted = [...this.samples].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    const total = sorted.reduce((n, v) => n + v, 0);
    const outcomes = [...this.outcomes].map(([outcome, count]) => `${outcome} ${count}`).join(', ');
    return `${name}: ${sorted.length} cases in ${(total / 1000).toFixed(1)} s (median ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, max ${at(1).toFixed(1)} ms)${outcomes ? `; ${outcomes}` : ''}`;
  }
}

/** Polls often: a case is a few milliseconds, and 2,000 of them must stay fast. */
export async function until(predicate: () => boolean, timeoutMs = 8000): Promise<boolean> {
  const started = performance.now();
  while (!predicate()) {
    if (performance.now() - started > timeoutMs) return false;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return true;
}

/** One bot for every case of a file: real Bolt over HTTP, the fake Slack, the simulator. */
export async function startFuzzBot(env: Record<string, string> = {}, now?: () => number): Promise<SlackBot> {
  // A long TTL unless asked otherwise: cases must not see their requests expire while the run lasts.
  return startSlackBot({ env: { APPROVAL_TTL_SECONDS: '86400', ...env }, ...(now ? { now } : {}) });
}

/** The file's one bot and the timing of its cases, started before and closed after the file. */
export interface FuzzRun {
  readonly bot: SlackBot;
  readonly timing: Timing;
}

/**
 * Starts the file's bot before its cases and closes it after them, printing the timing summary
 * under `label` (a fuzz file's only output: how fast the cases ran and what they reached).
 */
export function useFuzzBot(label: string, start: () => Promise<SlackBot> = () => startFuzzBot()): FuzzRun {
  let started: SlackBot | undefined;
  const timing = new Timing();
  beforeAll(async () => {
    started = await start();
  }, 30_000);
  afterAll(async () => {
    console.info(timing.summary(label));
    await started?.close();
  });
  return {
    timing,
    get bot() {
      if (!started) throw new Error('the fuzz bot is not started yet');
      return started;
    },
  };
}

/**
 * POSTs a signed form body and collects what the bot did for it. `answered` says when the answer
 * is complete; calls are attributed by index (cases run one at a time).
 */
export async function send(
  bot: SlackBot,
  body: string,
  answered: (calls: SlackCall[], responses: { path: string; body: Record<string, unknown> }[]) => boolean,
  options: {
    timeoutMs?: number;
    /** The HTTP response is the whole answer (a form kept open with errors). */
    answeredByAck?: (ack: string) => boolean;
  } = {},
): Promise<Answer & { answered: boolean }> {
  const firstCall = bot.slack.calls.length;
  const firstResponse = bot.slack.responses.length;
  const started = performance.now();
  const response = await fetch(`http://127.0.0.1:${bot.port}/slack/events`, {
    method: 'POST',
    headers: slackHeaders(SIGNING_SECRET, body),
    body,
  });
  const text = await response.text();
  const ok =
    options.answeredByAck?.(text) === true ||
    (await until(
      () => answered(bot.slack.calls.slice(firstCall), bot.slack.responses.slice(firstResponse)),
      options.timeoutMs,
    ));
  return {
    status: response.status,
    body: text,
    calls: bot.slack.calls.slice(firstCall),
    responses: bot.slack.responses.slice(firstResponse).map((r) => r.body),
    ms: performance.now() - started,
    answered: ok,
  };
}

/**
 * Slack text problems in everything one case sent (see test/helpers/slack-text.ts), checked here
 * per case rather than when the fake Slack closes: escaping twice is checked unless the case's
 * input held text that looks escaped. The fake's own record is emptied, having been checked.
 */
export function textProblemsOf(bot: SlackBot, answer: Answer, input: unknown): string[] {
  const options = { dataMayLookEscaped: /&(?:amp|lt|gt);/.test(JSON.stringify(input)) };
  bot.slack.textProblems.length = 0;
  return [
    ...answer.calls.flatMap((c) => slackTextProblems(c.args, c.method, options)),
    ...answer.responses.flatMap((r) => slackTextProblems(r, 'response_url', options)),
  ];
}

// Fields Slack never renders as text: what a form's input holds, what a button or option sends back.
const UNSHOWN = new Set(['initial_value', 'value', 'private_metadata']);

/** What one case sent that Slack shows, as JSON (inputs' prefilled values and sent-back values left out). */
export const shownJson = (answer: Answer) =>
  JSON.stringify([answer.calls, answer.responses], (key, item: unknown) =>
    UNSHOWN.has(key) ? undefined : item,
  );

/** Markup that must never reach Slack from data: what the injected names and values carry. */
export const INJECTED_MARKUP = /<!(?:channel|here|everyone)|<@U0EVIL|<#C0EVIL|<https?:|<mailto:/;

/** Strings an attacker or a bad day puts in names and values. */
/** Text that must be escaped or shown visibly: markup, backticks, bidi and zero-width characters. */
export const MARKUP_STRINGS = [
  'x``` <!channel> <@U0EVIL> <https://evil.example|click>',
  '<!here>',
  '<!everyone|all>',
  '<#C0EVIL>',
  '<mailto:a@evil.example|mail>',
  '```',
  '`',
  'a`b``c',
  'Ser\u200Bvers',
  '\u202Eexe.txt',
  '\u2066x\u2069',
  '\uFEFF',
  'R&D <lab>',
];

export const NASTY_STRINGS = [
  ...MARKUP_STRINGS,
  'a\u0000b',
  '\u001b[31mred',
  'R&D <lab> &amp; &lt;',
  '\\u200B',
  '*bold* _it_ ~s~ > quote',
  ':rotating_light:',
  '😀👨‍👩‍👧',
  '\uD800',
  '',
  ' ',
  'null',
  'undefined',
  '{"a":1}',
  '[1,2',
  '"',
  '“curly”',
  '‘',
  '=',
  '==',
  'a=b=c',
  ',,,',
  'IoT',
  'Guest',
  'Servers',
  'default',
  '10.0.0.0/8',
  '4095',
  '-1',
  '1e309',
  'NaN',
  '0x10',
  'true',
  'aa:bb:cc:dd:ee:ff',
];

/** Text from anywhere: grammar-ish junk, the nasty strings, full unicode, very long runs. */
export const anyText = (maxLength = 40) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
    { weight: 3, arbitrary: fc.string({ maxLength }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...NASTY_STRINGS), fc.integer({ min: 50, max: 400 }))
        .map(([s, n]) => (s || 'x').repeat(n)),
    },
  );
