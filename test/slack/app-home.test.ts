import { describe, expect, it } from 'vitest';
import { messageProblems, viewProblems } from '../../src/slack/blocks/limits.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { SIGNING_SECRET, type SlackBot, useSlackBots } from '../helpers/slack-bot.js';
import { buttonsIn } from '../helpers/slack-buttons.js';
import {
  homeButtonBody,
  homeOpenedBody,
  slackJsonHeaders,
  viewSubmissionBody,
} from '../helpers/slack-requests.js';

const bot = useSlackBots((b) => {
  for (const call of b.slack.calls) {
    if (call.method === 'views.publish' || call.method === 'views.open') {
      expect(viewProblems(call.args.view), call.method).toEqual([]);
    }
    if (['chat.postMessage', 'chat.update'].includes(call.method))
      expect(messageProblems(call.args)).toEqual([]);
  }
  for (const response of b.slack.responses) expect(messageProblems(response.body)).toEqual([]);
});

const publishesTo = (b: SlackBot, user: string) =>
  b.slack.callsOf('views.publish').filter((c) => c.args.user_id === user);
const viewOf = (call: SlackCall | undefined) => (call?.args.view ?? {}) as { blocks?: unknown[] };
const textOf = (call: SlackCall | undefined) => JSON.stringify(viewOf(call).blocks ?? []);
/** The request ids a Home view offers to approve. */
const approvable = (call: SlackCall | undefined) =>
  buttonsIn(viewOf(call).blocks)
    .filter((x) => x.action_id === 'approve')
    .map((x) => x.value);
const previews = (b: SlackBot) => b.slack.callsOf('chat.postMessage').filter((c) => !c.args.thread_ts);
const threads = (b: SlackBot) => b.slack.callsOf('chat.postMessage').filter((c) => c.args.thread_ts);
const simWrites = (b: SlackBot) =>
  b.sim.requests.filter((r) => r.method !== 'GET' && !r.route.includes('/stat/'));
const responsesTo = (b: SlackBot, url: string) => b.slack.responses.filter((r) => url.endsWith(r.path));

async function openHome(b: SlackBot, user: string): Promise<SlackCall> {
  const before = publishesTo(b, user).length;
  const body = homeOpenedBody(user);
  const answer = await b.post(body, slackJsonHeaders(SIGNING_SECRET, body));
  expect(answer.status).toBe(200);
  await b.slack.waitFor(() => publishesTo(b, user).length > before, 10_000);
  return publishesTo(b, user).at(-1) as SlackCall;
}

function homeClick(b: SlackBot, actionId: string, value: string, userId: string) {
  return b.post(homeButtonBody({ actionId, value, userId }));
}

async function propose(b: SlackBot, text: string, user = 'U01'): Promise<string> {
  return (await b.propose(text, user)).id;
}

const LAB = 'create_network name=Lab vlan_id=91 subnet=10.91.0.0/24';

describe('App Home', () => {
  it('lists a pending request under "Waiting for you" for an approver, and not for its requester', async () => {
    const b = await bot({ env: { APPROVERS: 'U02,S0NETOPS' } });
    b.slack.userGroups.S0NETOPS = ['U03'];
    const id = await propose(b, LAB, 'U01');

    const approver = await openHome(b, 'U02');
    const member = await openHome(b, 'U03');
    const requester = await openHome(b, 'U01');
    const stranger = await openHome(b, 'U09');

    expect(approvable(approver)).toEqual([id]);
    expect(approvable(member)).toEqual([id]);
    expect(approvable(requester)).toEqual([]);
    expect(approvable(stranger)).toEqual([]);
    expect(textOf(approver)).toContain('Waiting for you (1)');
    expect(textOf(requester)).toContain('Waiting for you (0)');
    expect(textOf(requester)).toContain('Your requests (1)');
    expect(textOf(requester)).toContain(id);
    expect(textOf(approver)).toContain('https://example.slack.com/archives/C1/p');
    expect(textOf(approver)).toMatch(/:large_green_circle: reachable/);
    expect(viewOf(approver)).toMatchObject({ type: 'home' });
    expect(b.slack.callsOf('chat.getPermalink').length).toBeLessThanOrEqual(1);
  });

  it('shows 200 pending requests from the store ten at a time, within Slack’s limits, on every page', async () => {
    // Arrange: 200 distinct requests in the bot's own store (distinct, or each would replace the last).
    const b = await bot();
    for (let i = 0; i < 200; i += 1) {
      await b.approvals.propose({
        tool: 'create_network',
        args: {
          name: `Bulk${i}`,
          vlan_id: 1000 + i,
          subnet: `10.${100 + Math.floor(i / 100)}.${i % 100}.0/24`,
        },
        requester: { userId: 'U01' },
        channel: 'C1',
      });
    }

    // Act
    const first = await openHome(b, 'U02');
    const before = publishesTo(b, 'U02').length;
    const next = await homeClick(b, 'home_page_next', '1', 'U02');
    await b.slack.waitFor(() => publishesTo(b, 'U02').length > before, 10_000);
    const second = publishesTo(b, 'U02').at(-1);

    // Assert (the afterEach also checks every published view against Block Kit's limits)
    expect(textOf(first)).toContain('Waiting for you (200)');
    expect(textOf(first)).toContain('Showing 1–10 of 200');
    expect(approvable(first)).toHaveLength(10);
    expect(next.status).toBe(200);
    expect(textOf(second)).toContain('Showing 11–20 of 200');
    expect(approvable(second)).toHaveLength(10);
    expect(new Set([...approvable(first), ...approvable(second)]).size).toBe(20);
  }, 60_000);

  it('ignores the Messages tab and refuses an unsigned event', async () => {
    const b = await bot();
    const messages = homeOpenedBody('U02', 'messages');
    const unsigned = homeOpenedBody('U02');
    const answers = [
      await b.post(messages, slackJsonHeaders(SIGNING_SECRET, messages)),
      await b.post(unsigned, { 'content-type': 'application/json' }),
    ];
    await new Promise((r) => setTimeout(r, 200));

    expect(answers.map((a) => a.status)).toEqual([200, 401]);
    expect(b.slack.callsOf('views.publish')).toEqual([]);
  });

  it('runs an approval from Home once, edits the channel message, threads the result and refreshes Home', async () => {
    const b = await bot();
    const id = await propose(b, LAB, 'U01');
    await openHome(b, 'U02');
    const published = publishesTo(b, 'U02').length;

    const click = await homeClick(b, 'approve', id, 'U02');
    await b.slack.waitFor(() => threads(b).length > 0);
    await b.slack.waitFor(() => publishesTo(b, 'U02').length > published);

    expect(click.status).toBe(200);
    expect(simWrites(b).filter((r) => r.method === 'POST')).toHaveLength(1);
    expect((await b.approvals.get(id))?.state).toBe('succeeded');
    const edited = b.slack.callsOf('chat.update').at(-1);
    expect(edited?.args.ts).toBe((await b.approvals.get(id))?.message?.ts);
    expect(JSON.stringify(edited?.args.blocks)).toContain('Done');
    expect(buttonsIn(edited?.args.blocks)).toEqual([]);
    expect(approvable(publishesTo(b, 'U02').at(-1))).toEqual([]);
  });

  it('runs a change once when a channel click and a Home click come at the same moment', async () => {
    const b = await bot();
    const id = await propose(b, LAB, 'U01');
    await openHome(b, 'U03');

    const [channel] = await Promise.all([b.click('approve', id, 'U02'), homeClick(b, 'approve', id, 'U03')]);
    await b.slack.waitFor(() => threads(b).length > 0);
    // The loser is told: ephemerally under the channel message, or at the top of their Home.
    await b.slack.waitFor(
      () =>
        responsesTo(b, channel.responseUrl).length > 0 ||
        publishesTo(b, 'U03').some((c) => textOf(c).includes('Already')),
    );

    expect(simWrites(b).filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(threads(b)).toHaveLength(1);
    expect((await b.approvals.history(id))?.events.filter((e) => e.type === 'approved')).toHaveLength(1);
  });

  it('answers a refused Home click at the top of the clicker’s Home, and changes nothing', async () => {
    const b = await bot({ env: { APPROVERS: 'U02' } });
    const id = await propose(b, LAB, 'U01');
    await openHome(b, 'U07');

    await homeClick(b, 'approve', id, 'U07');
    await b.slack.waitFor(() =>
      publishesTo(b, 'U07').some((c) => textOf(c).includes('only members of APPROVERS')),
    );

    expect(simWrites(b)).toEqual([]);
    expect((await b.approvals.get(id))?.state).toBe('pending');
    expect(b.slack.callsOf('chat.postEphemeral')).toEqual([]);
  });

  it('cancels from Home through the same path: the channel message says cancelled', async () => {
    const b = await bot();
    const id = await propose(b, LAB, 'U01');

    await homeClick(b, 'cancel', id, 'U01');
    await b.slack.waitFor(async () => (await b.approvals.get(id))?.state === 'cancelled');
    await b.slack.waitFor(() => b.slack.callsOf('chat.update').length > 0);

    expect(JSON.stringify(b.slack.callsOf('chat.update').at(-1)?.args.blocks)).toContain('Cancelled');
    expect(simWrites(b)).toEqual([]);
  });

  it('refreshes the Home of a viewer who may approve when a request is created, and not of others', async () => {
    const b = await bot({ env: { APPROVERS: 'U02' } });
    await openHome(b, 'U02');
    await openHome(b, 'U08');
    const before = { U02: publishesTo(b, 'U02').length, U08: publishesTo(b, 'U08').length };

    const id = await propose(b, LAB, 'U01');
    await b.slack.waitFor(() => approvable(publishesTo(b, 'U02').at(-1)).includes(id));
    await new Promise((r) => setTimeout(r, 300));

    expect(publishesTo(b, 'U02').length).toBeGreaterThan(before.U02);
    expect(publishesTo(b, 'U08')).toHaveLength(before.U08);
  });

  it('gathers the changes of a burst into few refreshes of a viewer (debounced), never one per change', async () => {
    const b = await bot();
    await openHome(b, 'U02');
    const before = publishesTo(b, 'U02').length;
    const changesBefore = (await b.approvals.list()).length;

    // Three requests, each a create and a message attachment: six changes within the debounce window.
    await Promise.all([
      b.command('create_network name=A vlan_id=81 subnet=10.81.0.0/24', 'U01'),
      b.command('create_network name=B vlan_id=82 subnet=10.82.0.0/24', 'U01'),
      b.command('create_network name=C vlan_id=83 subnet=10.83.0.0/24', 'U01'),
    ]);
    await b.slack.waitFor(() => approvable(publishesTo(b, 'U02').at(-1)).length === 3, 8000);

    expect((await b.approvals.list()).length - changesBefore).toBe(3);
    expect(publishesTo(b, 'U02').length - before).toBeLessThanOrEqual(3);
  });

  it('never lets a failing views.publish touch an approval', async () => {
    const b = await bot();
    b.slack.faults['views.publish'] = 'ratelimited';
    const id = await propose(b, LAB, 'U01');
    await openHome(b, 'U02');

    await homeClick(b, 'approve', id, 'U02');
    await b.slack.waitFor(async () => (await b.approvals.get(id))?.state === 'succeeded');
    await b.slack.waitFor(() => threads(b).length > 0);

    expect(simWrites(b).filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(JSON.stringify(b.slack.callsOf('chat.update').at(-1)?.args.blocks)).toContain('Done');
  });

  it('opens a quick-action form that asks for the channel, and posts the preview there', async () => {
    const b = await bot();
    const home = await openHome(b, 'U01');
    const quick = buttonsIn(viewOf(home).blocks).filter((x) => x.action_id.startsWith('home_form:'));
    expect(quick.map((x) => x.value)).toEqual([
      'create_network',
      'create_firewall_policy',
      'create_acl_rule',
    ]);

    await homeClick(b, 'home_form:create_network', 'create_network', 'U01');
    await b.slack.waitFor(() => b.slack.callsOf('views.open').length > 0);
    const form = b.slack.callsOf('views.open')[0]?.args.view as {
      private_metadata: string;
      blocks: { block_id?: string }[];
    };
    expect(form.blocks.map((x) => x.block_id)).toContain('netops_post_channel');
    const submitted = await b.post(
      viewSubmissionBody({
        userId: 'U01',
        privateMetadata: form.private_metadata,
        values: {
          netops_post_channel: { channel: { type: 'conversations_select', selected_conversation: 'C0LAB' } },
          name: { value: { type: 'plain_text_input', value: 'Lab' } },
          vlan_id: { value: { type: 'number_input', value: '92' } },
          subnet: { value: { type: 'plain_text_input', value: '10.92.0.0/24' } },
        },
      }),
    );
    await b.slack.waitFor(() => previews(b).length > 0);

    expect(submitted.status).toBe(200);
    expect(previews(b)[0]?.args.channel).toBe('C0LAB');
    expect(simWrites(b)).toEqual([]);
  });
});

describe('history commands', () => {
  it('/net changes lists requests newest first, filtered, and /net change <id> shows the journal', async () => {
    const b = await bot();
    const first = await propose(b, LAB, 'U01');
    const second = await propose(b, 'create_network name=Lab2 vlan_id=92 subnet=10.92.0.0/24', 'U02');
    await b.click('approve', first, 'U02');
    await b.slack.waitFor(async () => (await b.approvals.get(first))?.state === 'succeeded');

    const all = await b.command('changes');
    const mine = await b.command('changes state=pending user=me', 'U02');
    const one = await b.command(`change ${first}`);
    await b.slack.waitFor(() => [all, mine, one].every((c) => responsesTo(b, c.responseUrl).length > 0));
    const answer = (c: { responseUrl: string }) => responsesTo(b, c.responseUrl)[0]?.body ?? {};
    const allText = JSON.stringify(answer(all));

    expect(answer(all).response_type).toBe('ephemeral');
    expect(allText).toContain('2 change request(s)');
    expect(allText.indexOf(second)).toBeLessThan(allText.indexOf(first));
    expect(JSON.stringify(answer(mine))).toContain(second);
    expect(JSON.stringify(answer(mine))).not.toContain(first);
    const detail = JSON.stringify(answer(one));
    for (const event of ['created', 'message', 'approved', 'executing', 'succeeded'])
      expect(detail).toContain(`*${event}*`);
    expect(detail).toContain('*Result*');
    expect(detail).toContain('10.91.0.');
  });

  it('names the field and the rule of a bad filter, and says when an id is unknown', async () => {
    const b = await bot();
    const bad = await b.command('changes since=yesterday');
    const unknown = await b.command('change cr_doesnotexist');
    await b.slack.waitFor(() => [bad, unknown].every((c) => responsesTo(b, c.responseUrl).length > 0));

    expect(String(responsesTo(b, bad.responseUrl)[0]?.body.text)).toMatch(/since.*24h/);
    expect(String(responsesTo(b, unknown.responseUrl)[0]?.body.text)).toMatch(
      /change request cr_doesnotexist not found/i,
    );
  });
});

describe('reminders', () => {
  it('reminds the approvers once in the thread after the delay, and never a decided request', async () => {
    let now = Date.now();
    const b = await bot({
      now: () => now,
      env: { APPROVERS: 'S0NETOPS,U02', APPROVAL_REMIND_SECONDS: '300' },
    });
    b.slack.userGroups.S0NETOPS = ['U03'];
    const waiting = await propose(b, LAB, 'U01');
    const decided = await propose(b, 'create_network name=Lab2 vlan_id=92 subnet=10.92.0.0/24', 'U01');
    await b.click('approve', decided, 'U02');
    await b.slack.waitFor(async () => (await b.approvals.get(decided))?.state === 'succeeded');
    const reminders = () => threads(b).filter((c) => String(c.args.text).includes(':bell:'));

    now += 299_000;
    await b.app.slack?.sweep();
    const early = reminders().length;
    now += 2_000;
    await b.app.slack?.sweep();
    await b.app.slack?.sweep();

    expect(early).toBe(0);
    expect(reminders()).toHaveLength(1);
    const reminder = reminders()[0];
    expect(reminder?.args.thread_ts).toBe((await b.approvals.get(waiting))?.message?.ts);
    expect(String(reminder?.args.text)).toContain('<!subteam^S0NETOPS>, <@U02>');
    expect(String(reminder?.args.text)).not.toContain('@channel');
    expect(String(reminder?.args.text)).toContain('Still waiting for approval after 5 min');
  });

  it('says plainly who may approve when APPROVERS is unset, and is off with 0', async () => {
    let now = Date.now();
    const plain = await bot({ now: () => now });
    const off = await bot({ now: () => now, env: { APPROVAL_REMIND_SECONDS: '0' } });
    await propose(plain, LAB, 'U01');
    await propose(off, LAB, 'U01');

    now += 301_000;
    await plain.app.slack?.sweep();
    await off.app.slack?.sweep();

    expect(threads(plain).map((c) => String(c.args.text))).toEqual([
      expect.stringContaining(
        'APPROVERS is not set, so anyone in this channel except the requester may approve it',
      ),
    ]);
    expect(threads(off)).toEqual([]);
  });
});
