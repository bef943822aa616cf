import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SIGNING_SECRET, type SlackBot, startSlackBot } from '../helpers/slack-bot.js';
import { buttonsOf } from '../helpers/slack-buttons.js';
import { buttonBody, homeOpenedBody, slackJsonHeaders } from '../helpers/slack-requests.js';

// The bot as createApp builds it, with the fake Slack and the simulator: a change made with
// revert_after= gets its deadline and a Keep button in its thread; the deadline is fired by the
// timers' tick (main.ts runs it every few seconds; here the test moves the clock and ticks).
let bot: SlackBot;
let clock = Date.now();

const threadPosts = () => bot.slack.callsOf('chat.postMessage').filter((c) => c.args.thread_ts);
const textOf = (call: { args: Record<string, unknown> } | undefined) => JSON.stringify(call?.args ?? {});
const audit = () => bot.slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'CAUDIT');
const iot = () =>
  bot.sim.state.site('default')?.networks.find((n) => n.name === 'IoT' || n.name === 'Things');

function timers() {
  const found = bot.app.timers;
  if (!found) throw new Error('the Slack bot has no change timers');
  return found;
}

async function approve(id: string) {
  const before = threadPosts().length;
  await bot.click('approve', id, 'U0ALEX');
  await bot.slack.waitFor(() => threadPosts().length > before, 15_000);
  // The outcome is said in AUDIT_CHANNEL too, after the thread: wait, so the next preview is not it.
  await bot.slack.waitFor(() => audit().some((c) => textOf(c).includes(id)), 15_000);
}

/** The Keep prompt the timers post in the change's thread once its deadline is stored. */
async function keepPrompt(id: string) {
  await bot.slack.waitFor(
    () =>
      threadPosts().some((c) => buttonsOf(c).some((b) => b.action_id === 'keep_change' && b.value === id)),
    15_000,
  );
  return threadPosts().find((c) => buttonsOf(c).some((b) => b.action_id === 'keep_change' && b.value === id));
}

/** A click on Keep by `userId` in the change's thread. */
const keep = (id: string, userId: string) =>
  bot.post(buttonBody({ actionId: 'keep_change', value: id, userId, response_url: bot.slack.responseUrl() }));

beforeAll(async () => {
  // Networks serve as the sample here on their classic path (networkconf, its faults and stored
  // fields): a 9.0 console. The official path (10.1): tools/networks-official.test.ts.
  bot = await startSlackBot({
    simulator: { apiVersion: '9.0' },
    env: { APPROVERS: 'U0ALEX', AUDIT_CHANNEL: 'CAUDIT' },
    now: () => clock,
  });
});
afterAll(async () => {
  await bot.close();
});
beforeEach(() => {
  bot.sim.reset();
  bot.sim.clearFaults();
  clock = Date.now();
});

describe('keep or revert, wired into the bot', () => {
  it('reverts a revert_after=30s change once when nobody keeps it, and says so in the thread and AUDIT_CHANNEL', async () => {
    // Arrange
    const start = structuredClone(iot());
    const { id } = await bot.propose('update_network network_id=IoT vlan_id=27 revert_after=30s');
    await approve(id);
    const prompt = await keepPrompt(id);
    expect(textOf(prompt)).toContain('reverts itself');
    expect(iot()?.vlan).toBe(27);

    // Act: the deadline passes; two ticks (two replicas would be the same claim)
    clock += 31_000;
    await timers().tick();
    await timers().tick();

    // Assert
    expect(iot()).toEqual(start);
    const reverts = (await bot.approvals.list({})).filter((r) => r.revertOf === id);
    expect(reverts).toHaveLength(1);
    expect(reverts[0]?.state).toBe('succeeded');
    await bot.slack.waitFor(() => audit().some((c) => textOf(c).includes('nobody kept it')), 15_000);
    expect(audit().some((c) => textOf(c).includes('nobody kept it before its deadline'))).toBe(true);
  });

  it('keeps the change when an approver clicks Keep before the deadline, and nothing reverts it later', async () => {
    const { id } = await bot.propose('update_network network_id=IoT vlan_id=28 revert_after=30s');
    await approve(id);
    await keepPrompt(id);

    await keep(id, 'U0ALEX');
    await bot.slack.waitFor(async () => (await timers().pendingRevert(id)) === undefined, 15_000);
    // The keep is said in AUDIT_CHANNEL too (wait for it: the next test counts the channel's posts).
    await bot.slack.waitFor(() => audit().some((c) => textOf(c).includes(`(${id}) kept by`)), 15_000);
    clock += 31_000;
    await timers().tick();

    expect(iot()?.vlan).toBe(28);
    expect((await bot.approvals.list({})).filter((r) => r.revertOf === id)).toHaveLength(0);
  });

  it('refuses Keep from someone who may not approve, and the revert still runs', async () => {
    const { id } = await bot.propose('update_network network_id=IoT vlan_id=29 revert_after=30s');
    await approve(id);
    await keepPrompt(id);

    await keep(id, 'U0MALLORY');
    clock += 31_000;
    await timers().tick();

    expect(iot()?.vlan).not.toBe(29);
    expect((await bot.approvals.list({})).filter((r) => r.revertOf === id)).toHaveLength(1);
  });

  it('lists a for=2h change on App Home as temporary, with Revert now and no Keep', async () => {
    const { id } = await bot.propose('update_network network_id=IoT vlan_id=31 for=2h');
    await approve(id);
    await bot.slack.waitFor(async () => (await timers().pendingRevert(id)) !== undefined, 15_000);

    const publishes = () => bot.slack.callsOf('views.publish').filter((c) => c.args.user_id === 'U0ALEX');
    const before = publishes().length;
    const body = homeOpenedBody('U0ALEX');
    await bot.post(body, slackJsonHeaders(SIGNING_SECRET, body));
    await bot.slack.waitFor(() => publishes().length > before, 15_000);
    const view = JSON.stringify(publishes().at(-1)?.args.view);

    expect(view).toContain('Temporary and pending-revert changes');
    expect(view).toContain(`pending_revert:${id}`);
    expect(view).toContain('"action_id":"revert_now"');
    expect(view).not.toContain(`"action_id":"keep_change","value":"${id}"`);
  });
});
