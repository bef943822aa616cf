import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackCall } from '../helpers/fake-slack.js';
import { type SlackBot, startSlackBot } from '../helpers/slack-bot.js';
import { buttonsOf } from '../helpers/slack-buttons.js';
import { buttonBody } from '../helpers/slack-requests.js';

// The Slack app has no token of its own (Bolt's `authorize` hands one to each request): a click's
// answer sent through anything but the request's own client reached Slack without a token, was
// refused `not_authed`, and the clicker never learned why nothing happened.
const TOKEN = 'xoxb-test-token';
let bot: SlackBot;
const clock = Date.now();

beforeAll(async () => {
  bot = await startSlackBot({
    simulator: { apiVersion: '9.0' },
    env: { APPROVERS: 'U0ALEX', ALERT_CHANNEL: 'C9ALERTS', DRIFT_CHANNEL: 'C8DRIFT' },
    now: () => clock,
  });
});
afterAll(async () => {
  await bot.close();
});

const ephemeralsTo = (user: string) =>
  bot.slack.callsOf('chat.postEphemeral').filter((c) => c.args.user === user);
const textOf = (call: SlackCall | undefined) => JSON.stringify(call?.args ?? {});
/** A response_url that no longer answers (expired): the answer falls back to chat.postEphemeral. */
const deadResponseUrl = () => `${bot.slack.url}/expired/${Math.random().toString(36).slice(2)}`;

/** A change approved with revert_after=30s: its Keep prompt is in its thread. */
async function timedChange(vlan: number): Promise<string> {
  const { id } = await bot.propose(`update_network network_id=IoT vlan_id=${vlan} revert_after=30s`);
  await bot.click('approve', id, 'U0ALEX');
  await bot.slack.waitFor(
    () =>
      bot.slack
        .callsOf('chat.postMessage')
        .some((c) => buttonsOf(c).some((b) => b.action_id === 'keep_change' && b.value === id)),
    15_000,
  );
  return id;
}

async function clickAs(user: string, actionId: string, value: string, responseUrl: string, channel = 'C1') {
  const body = buttonBody({ actionId, value, userId: user, channel, response_url: responseUrl });
  expect((await bot.post(body)).status).toBe(200);
}

describe('answers to Keep and Revert now', () => {
  it('a refused Keep reaches the clicker through chat.postEphemeral with the bot token when the response_url fails', async () => {
    const id = await timedChange(41);

    await clickAs('U0MALLORY', 'keep_change', id, deadResponseUrl());
    await bot.slack.waitFor(() => ephemeralsTo('U0MALLORY').length > 0, 15_000);

    const [answer, ...more] = ephemeralsTo('U0MALLORY');
    expect(more).toEqual([]);
    expect(answer?.token).toBe(TOKEN);
    expect(answer?.answer).toMatchObject({ ok: true });
    expect(answer?.args.channel).toBe('C1');
    expect(textOf(answer)).toContain('only someone who may approve this change can keep it');
    expect((await bot.app.timers?.pendingRevert(id))?.change?.id).toBe(id);
  });

  it('a refused Revert now reaches the clicker through the response_url', async () => {
    const id = await timedChange(42);
    const responseUrl = bot.slack.responseUrl();
    const path = new URL(responseUrl).pathname;

    await clickAs('U0MALLORY', 'revert_now', id, responseUrl);
    await bot.slack.waitFor(() => bot.slack.responses.some((r) => r.path === path), 15_000);

    const answer = bot.slack.responses.find((r) => r.path === path);
    expect(answer?.body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(JSON.stringify(answer?.body)).toContain(
      'only someone who may approve this change can revert it now',
    );
    expect((await bot.app.timers?.pendingRevert(id))?.change?.id).toBe(id);
  });

  it('Keep by an approver is confirmed to them with the bot token', async () => {
    const id = await timedChange(43);
    const before = ephemeralsTo('U0ALEX').length;

    await clickAs('U0ALEX', 'keep_change', id, deadResponseUrl());
    await bot.slack.waitFor(() => ephemeralsTo('U0ALEX').length > before, 15_000);

    const answer = ephemeralsTo('U0ALEX').at(-1);
    expect(answer?.token).toBe(TOKEN);
    expect(textOf(answer)).toContain(`Kept: change ${id} will not be reverted.`);
  });
});

describe('answers to the watch buttons', () => {
  it.each([
    ['ack_incident', 'C9ALERTS', 'That incident is no longer tracked.'],
    ['accept_drift', 'C8DRIFT', 'That change is no longer tracked.'],
    ['revert_drift', 'C8DRIFT', 'That change is no longer tracked.'],
  ])('%s on something no longer tracked says so with the bot token', async (actionId, channel, text) => {
    const user = `U0${actionId.toUpperCase().replace('_', '')}`;

    await clickAs(user, actionId, 'gone_123', deadResponseUrl(), channel);
    await bot.slack.waitFor(() => ephemeralsTo(user).length > 0, 15_000);

    const [answer] = ephemeralsTo(user);
    expect(answer?.token).toBe(TOKEN);
    expect(answer?.args.channel).toBe(channel);
    expect(textOf(answer)).toContain(text);
  });
});
