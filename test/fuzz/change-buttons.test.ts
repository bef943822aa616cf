import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Approvals } from '../../src/approvals/approvals.js';
import type { Actor } from '../../src/approvals/types.js';
import { DEMO_TRAFFIC_MATCHING_LISTS, type FaultSpec } from '../../src/simulator/index.js';
import type { SlackBot } from '../helpers/slack-bot.js';
import { commandBody } from '../helpers/slack-requests.js';
import * as kit from './fuzz-bot.js';

// APPROVERS lists Bob, Carol and the group S0APPROVERS, whose only member is Dave. Alice and
// Carol request changes; Eve may do nothing.
const ALLOWED = new Set(['U0BOB', 'U0CAROL', 'U0DAVE']);
const PEOPLE = ['U0ALICE', 'U0BOB', 'U0CAROL', 'U0DAVE'];
const USERS = [...PEOPLE, 'U0EVE', 'W0ADMIN', 'S0APPROVERS', 'u0bob', '<@U0BOB>', 'U0BOB ', 'U0BOB,U0CAROL'];
const REQUESTERS = ['U0ALICE', 'U0CAROL'];
// Renaming a traffic matching list: its dry run reads one list, so proposals stay cheap.
const TARGETS = Object.values(DEMO_TRAFFIC_MATCHING_LISTS);
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** A click: which button, on what, by whom, how many times at once, and what else happens meanwhile. */
const click = fc.record({
  action: fc.oneof(
    { weight: 9, arbitrary: fc.constant('approve') },
    { weight: 3, arbitrary: fc.constant('cancel') },
    { weight: 1, arbitrary: fc.constantFrom('approve ', 'APPROVE', 'approve_all', '') },
  ),
  target: fc.oneof(
    // A pending request (what a real click is on), or any request the run has seen, in whatever state.
    { weight: 6, arbitrary: fc.nat().map((index) => ({ kind: 'pending' as const, index })) },
    { weight: 6, arbitrary: fc.nat().map((index) => ({ kind: 'request' as const, index })) },
    {
      weight: 2,
      arbitrary: fc
        .array(fc.constantFrom(...BASE32), { minLength: 20, maxLength: 20 })
        .map((chars) => ({ kind: 'value' as const, value: `cr_${chars.join('')}` })),
    },
    {
      weight: 2,
      arbitrary: fc
        .oneof(fc.string({ maxLength: 30 }), fc.constantFrom('', 'cr_', 'null', '../', 'x'.repeat(2001)))
        .map((value) => ({ kind: 'value' as const, value })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom<unknown>(42, null, true, ['cr_x'], { id: 'cr_x' }, Number.MAX_VALUE * 2)
        .map((value) => ({ kind: 'value' as const, value })),
    },
  ),
  user: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...PEOPLE) },
    { weight: 3, arbitrary: fc.constantFrom(...USERS) },
  ),
  /** Double and triple clicks, sent at once. */
  times: fc.oneof(
    { weight: 6, arbitrary: fc.constant(1) },
    { weight: 1, arbitrary: fc.integer({ min: 2, max: 5 }) },
  ),
  /** The controller fails the write or the check at approval; or approval time runs out first. */
  fault: fc.oneof(
    { weight: 12, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<FaultSpec>(
        { method: 'PUT', kind: 'status', status: 500 },
        { method: 'PUT', kind: 'status', status: 400 },
        { method: 'PUT', kind: 'drop' },
        { method: 'GET', route: 'traffic-matching-lists', kind: 'status', status: 503, times: 3 },
      ),
    },
  ),
  expire: fc.oneof(
    { weight: 80, arbitrary: fc.constant(false) },
    { weight: 1, arbitrary: fc.constant(true) },
  ),
});

let bot: SlackBot;
let now = Date.now();
const timing = new kit.Timing();
/** Every request id a preview offered, in order: requests in every state once the run is under way. */
const offered: string[] = [];
/** Requests known to have run (an `executing` event), so a second run is caught. */
const ran = new Set<string>();
/** Clicks on unknown action ids: Bolt answers them after its 3 s timeout, so they are awaited at the end. */
const unanswered: Promise<unknown>[] = [];
let inFlight = 0;
let proposals = 0;

/** Counts approvals at work, so a case ends only when its clicks are fully handled. */
function track(approvals: Approvals): void {
  for (const name of ['approve', 'cancel'] as const) {
    const original = approvals[name].bind(approvals);
    approvals[name] = (async (id: string, actor: Actor) => {
      inFlight += 1;
      try {
        return await original(id, actor);
      } finally {
        inFlight -= 1;
      }
    }) as never;
  }
}

function collectOffered(): void {
  for (const call of bot.slack.callsOf('chat.postMessage')) {
    const blocks = (call.args.blocks ?? []) as { elements?: { action_id?: string; value?: string }[] }[];
    for (const element of blocks.flatMap((b) => b.elements ?? [])) {
      if (element.action_id === 'approve' && element.value && !offered.includes(element.value))
        offered.push(element.value);
    }
  }
}

/** Keeps a few requests pending, each renaming a list to a name of its own. */
async function keepPending(): Promise<void> {
  while ((await bot.approvals.count({ state: 'pending' })) < 2) {
    proposals += 1;
    const target = TARGETS[proposals % TARGETS.length];
    const user = REQUESTERS[proposals % REQUESTERS.length] ?? 'U0ALICE';
    const responseUrl = bot.slack.responseUrl();
    await bot.post(
      commandBody({
        text: `update_traffic_matching_list list_id=${target} name=fz${proposals}`,
        user_id: user,
        channel_id: 'C1',
        response_url: responseUrl,
      }),
    );
    const before = offered.length;
    const shown = await kit.until(() => {
      collectOffered();
      return offered.length > before || bot.slack.responses.some((r) => responseUrl.endsWith(r.path));
    });
    if (!shown) throw new Error('a proposal was never answered');
    const id = offered.at(-1);
    // The click must find the message to edit: wait kit.until the preview's message is recorded.
    while (id && (await bot.approvals.get(id))?.message === undefined) await kit.until(() => false, 1);
  }
}

function payloadOf(action: string, value: unknown, user: string, responseUrl: string): string {
  const payload = {
    type: 'block_actions',
    team: { id: 'T1' },
    user: { id: user, username: 'fuzz' },
    api_app_id: 'A1',
    trigger_id: 'trigger-b',
    container: { type: 'message', channel_id: 'C1', message_ts: '1.0' },
    channel: { id: 'C1' },
    response_url: responseUrl,
    actions: [{ action_id: action, block_id: 'decide', type: 'button', value, action_ts: '1.1' }],
  };
  return `payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

beforeAll(async () => {
  bot = await kit.startFuzzBot(
    { APPROVERS: 'U0BOB,U0CAROL,S0APPROVERS', AUDIT_CHANNEL: 'CAUDIT', APPROVAL_TTL_SECONDS: '60' },
    () => now,
  );
  bot.slack.userGroups.S0APPROVERS = ['U0DAVE'];
  track(bot.approvals);
}, 30_000);

afterAll(async () => {
  console.info(timing.summary('random button payloads'));
  await Promise.allSettled(unanswered);
  await bot?.close();
});

describe('random button payloads', () => {
  it(
    `never run a change twice, nor without an approval by an allowed user (${kit.FUZZ_RUNS} cases)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(click, async ({ action, target, user, times, fault, expire }) => {
          await keepPending();
          if (expire) {
            now += 61_000;
            await bot.app.slack?.sweep();
          }
          if (fault) bot.sim.injectFault(fault);
          const pending = target.kind === 'pending' ? await bot.approvals.list({ state: 'pending' }) : [];
          const id =
            target.kind === 'request'
              ? offered[target.index % offered.length]
              : target.kind === 'pending'
                ? pending[target.index % Math.max(1, pending.length)]?.id
                : undefined;
          const value = target.kind === 'value' ? target.value : id;
          const requestsBefore = bot.sim.requests.length;
          const firstCall = bot.slack.calls.length;
          const firstResponse = bot.slack.responses.length;
          kit.nextCase();

          const started = performance.now();
          const bodies = Array.from({ length: times }, () =>
            payloadOf(action, value, user, bot.slack.responseUrl()),
          );
          const answers = bodies.map((body) => kit.send(bot, body, () => true));
          if (action !== 'approve' && action !== 'cancel') unanswered.push(...answers);
          else await Promise.all(answers);
          // Done once no approval is at work and Slack has been quiet for a moment.
          let calls = -1;
          await kit.until(() => {
            const quiet = inFlight === 0 && calls === bot.slack.calls.length + bot.slack.responses.length;
            calls = bot.slack.calls.length + bot.slack.responses.length;
            return quiet;
          });
          bot.sim.clearFaults();
          collectOffered();
          const writes = kit.writesOf(bot.sim, requestsBefore);
          timing.add(performance.now() - started, writes.length > 0 ? 'ran' : 'did not run');

          expect(writes.length, `${times} click(s) wrote ${writes.length} times`).toBeLessThanOrEqual(1);
          const history = id ? await bot.approvals.history(id) : undefined;
          const executing = history?.events.filter((e) => e.type === 'executing') ?? [];
          expect(executing.length).toBeLessThanOrEqual(1);
          if (writes.length === 1) {
            // The write is the clicked request's change, run once, approved by an allowed user.
            expect(id).toBeDefined();
            expect(ran.has(id ?? '')).toBe(false);
            const approved = history?.events.filter((e) => e.type === 'approved') ?? [];
            expect(approved).toHaveLength(1);
            const approver = approved[0]?.actor.userId ?? '';
            expect(ALLOWED.has(approver), `approved by ${approver}`).toBe(true);
            expect(approver).toBe(user);
            expect(approver).not.toBe(history?.request.requester.userId);
            expect((writes[0]?.body as { name?: unknown } | undefined)?.name).toBe(
              history?.request.args.name,
            );
          }
          if (executing.length === 1 && id) ran.add(id);
          const seen = {
            status: 200,
            body: '',
            ms: 0,
            calls: bot.slack.calls.slice(firstCall),
            responses: bot.slack.responses.slice(firstResponse).map((r) => r.body),
          };
          expect(kit.textProblemsOf(bot, seen, value)).toEqual([]);
          expect(kit.shownJson(seen)).not.toMatch(kit.INJECTED_MARKUP);
        }),
        kit.fuzzParameters(),
      );

      // Over the whole run: each write belongs to one run of one request, approved by an allowed user.
      const all = await bot.approvals.list({ limit: 100_000 });
      let runs = 0;
      for (const request of all) {
        const events = (await bot.approvals.history(request.id))?.events ?? [];
        const executions = events.filter((e) => e.type === 'executing').length;
        const approvals = events.filter((e) => e.type === 'approved');
        expect(executions).toBeLessThanOrEqual(1);
        if (executions === 1) {
          expect(approvals).toHaveLength(1);
          expect(ALLOWED.has(approvals[0]?.actor.userId ?? '')).toBe(true);
          expect(approvals[0]?.actor.userId).not.toBe(request.requester.userId);
        }
        runs += executions;
      }
      expect(kit.writesOf(bot.sim)).toHaveLength(runs);
      expect(runs).toBeGreaterThan(0);
      console.info(
        `random button payloads: ${all.length} requests, ${runs} ran, states ${JSON.stringify(countStates(all))}`,
      );
    },
    kit.fuzzTimeoutMs(),
  );
});

function countStates(requests: { state: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of requests) counts[r.state] = (counts[r.state] ?? 0) + 1;
  return counts;
}
