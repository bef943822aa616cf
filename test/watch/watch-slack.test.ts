import { afterEach, describe, expect, it } from 'vitest';
import {
  bringDeviceBack,
  changeBehindBot,
  failWanOver,
  restoreWan,
  takeDeviceDown,
} from '../../src/simulator/scenario-controls.js';
import type { Watcher } from '../../src/watch/index.js';
import { type SlackBot, startSlackBot } from '../helpers/slack-bot.js';
import { buttonsOf } from '../helpers/slack-buttons.js';
import { buttonBody } from '../helpers/slack-requests.js';

const POLICY = '65b3c8e1f4a9d20c7e5a1604'; // Kids' bedtime

let bot: SlackBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

async function start(env: Record<string, string> = {}, apiVersion?: string) {
  let now = Date.parse('2026-11-26T02:14:00Z');
  bot = await startSlackBot({
    ...(apiVersion ? { simulator: { apiVersion } } : {}),
    env: {
      ALERT_CHANNEL: 'C9ALERTS',
      DRIFT_CHANNEL: 'C8DRIFT',
      TZ: 'UTC',
      ALLOW_SELF_APPROVAL: 'true',
      ...env,
    },
    now: () => now,
  });
  const watcher = bot.app.watcher as Watcher;
  expect(watcher).toBeDefined();
  return {
    bot,
    watcher,
    advance(ms: number) {
      now += ms;
    },
  };
}

const posts = (b: SlackBot, channel: string) =>
  b.slack.callsOf('chat.postMessage').filter((c) => c.args.channel === channel);
const edits = (b: SlackBot, channel: string) =>
  b.slack.callsOf('chat.update').filter((c) => c.args.channel === channel);
/** A signed click on `actionId` (value `value`) by `userId` on a message in `channel`. */
const clickIn = (b: SlackBot, channel: string, actionId: string, value: string, userId: string) =>
  b.post(buttonBody({ actionId, value, userId, channel, response_url: b.slack.responseUrl() }));
/** The first edit of a message in `channel`, once the bot has made it. */
async function firstEdit(b: SlackBot, channel: string) {
  await b.slack.waitFor(() => edits(b, channel).length === 1);
  return edits(b, channel)[0];
}

describe('alerts', () => {
  it('posts one alert when a device goes offline and edits it when it comes back', async () => {
    const { bot, watcher, advance } = await start({ ALERT_MENTION: 'S0ONCALL' });
    await watcher.poll();
    // The demo's Garage AP is offline from the start: that is an incident too.
    expect(posts(bot, 'C9ALERTS').map((c) => String(c.args.text))).toEqual([
      expect.stringContaining('Garage AP* offline since 02:14'),
    ]);
    takeDeviceDown(bot.sim.state, 'Living Room AP');
    advance(30_000);
    await watcher.poll();
    const alerts = posts(bot, 'C9ALERTS');
    expect(alerts).toHaveLength(2);
    expect(String(alerts[1]?.args.text)).toContain('<!subteam^S0ONCALL>');
    expect(String(alerts[1]?.args.text)).toContain('Living Room AP* offline since 02:14');
    bringDeviceBack(bot.sim.state, 'Living Room AP');
    advance(17 * 60_000);
    await watcher.poll();
    expect(posts(bot, 'C9ALERTS')).toHaveLength(2);
    const edited = edits(bot, 'C9ALERTS');
    expect(edited).toHaveLength(1);
    expect(edited[0]?.args.ts).toBe(alerts[1]?.answer?.ts);
    expect(String(edited[0]?.args.text)).toMatch(
      /Living Room AP\* offline since 02:14 … back at 02:31, 17 min/,
    );
    expect(String(edited[0]?.args.text)).not.toContain('subteam');
  });

  it('gives a flapping device one message', async () => {
    const { bot, watcher, advance } = await start({ ALERT_FLAP_SECONDS: '120' });
    await watcher.poll();
    const before = posts(bot, 'C9ALERTS').length;
    for (let i = 0; i < 3; i++) {
      takeDeviceDown(bot.sim.state, 'Living Room AP');
      advance(20_000);
      await watcher.poll();
      bringDeviceBack(bot.sim.state, 'Living Room AP');
      advance(20_000);
      await watcher.poll();
    }
    expect(posts(bot, 'C9ALERTS')).toHaveLength(before + 1);
    const last = edits(bot, 'C9ALERTS').at(-1);
    expect(String(last?.args.text)).toContain('again 2×');
    // Past the flap window a new failure is a new incident.
    advance(200_000);
    takeDeviceDown(bot.sim.state, 'Living Room AP');
    await watcher.poll();
    expect(posts(bot, 'C9ALERTS')).toHaveLength(before + 2);
  });

  it('reports a WAN failover and its end in one message', async () => {
    const { bot, watcher, advance } = await start();
    await watcher.poll();
    failWanOver(bot.sim.state);
    advance(30_000);
    await watcher.poll();
    const failover = posts(bot, 'C9ALERTS').at(-1);
    expect(String(failover?.args.text)).toContain('Dream Machine Pro WAN* failed over since');
    expect(String(failover?.args.text)).toContain('WAN2');
    restoreWan(bot.sim.state);
    advance(60_000);
    await watcher.poll();
    expect(String(edits(bot, 'C9ALERTS').at(-1)?.args.text)).toContain('back on the primary WAN');
  });

  it('records who acknowledged an incident and drops the button', async () => {
    const { bot, watcher } = await start();
    await watcher.poll();
    const alert = posts(bot, 'C9ALERTS')[0];
    const ack = buttonsOf(alert).find((b) => b.action_id === 'ack_incident');
    expect(ack?.value).toBeTruthy();
    expect((await clickIn(bot, 'C9ALERTS', 'ack_incident', String(ack?.value), 'U7')).status).toBe(200);
    const edited = await firstEdit(bot, 'C9ALERTS');
    expect(JSON.stringify(edited?.args.blocks)).toContain('acknowledged by <@U7>');
    expect(buttonsOf(edited).map((b) => b.action_id)).not.toContain('ack_incident');
  });
});

// Policies read from v2 `firewall-policies` (a 9.0 console): the 10.1 official reads are in
// test/watch/drift-official.test.ts.
describe('drift (v2 policies, Network 9.0)', () => {
  it('takes a baseline silently, then posts one message per outside change with each field', async () => {
    const { bot, watcher, advance } = await start({}, '9.0');
    expect(await watcher.sweepDrift()).toEqual([]);
    expect(posts(bot, 'C8DRIFT')).toHaveLength(0);
    changeBehindBot(bot.sim.state, 'policies', POLICY, { action: 'ALLOW', enabled: false });
    advance(300_000);
    const drifts = await watcher.sweepDrift();
    expect(drifts.map((d) => d.objectName)).toEqual(["Kids' bedtime"]);
    expect(drifts[0]?.fields).toHaveLength(2);
    expect(drifts[0]?.fields).toEqual(
      expect.arrayContaining([
        { field: 'action', before: 'BLOCK', after: 'ALLOW' },
        { field: 'enabled', before: true, after: false },
      ]),
    );
    const message = posts(bot, 'C8DRIFT');
    expect(message).toHaveLength(1);
    const text = JSON.stringify(message[0]?.args.blocks);
    expect(text).toContain('action: \\"BLOCK\\" → \\"ALLOW\\"');
    expect(text).toContain('enabled: true → false');
    expect(text).toContain('changed by unknown');
    // Seen once: the next sweep has nothing new.
    advance(300_000);
    expect(await watcher.sweepDrift()).toEqual([]);
    expect(posts(bot, 'C8DRIFT')).toHaveLength(1);
  });

  it('is not fooled by the bot’s own changes', async () => {
    const { bot, watcher, advance } = await start({}, '9.0');
    await watcher.sweepDrift();
    const { id } = await bot.propose(`update_firewall_policy policy_id=${POLICY} enabled=false`);
    await bot.click('approve', id, 'U1');
    await bot.slack.waitFor(async () => (await bot.approvals.get(id))?.state === 'succeeded');
    advance(300_000);
    expect(await watcher.sweepDrift()).toEqual([]);
    expect(posts(bot, 'C8DRIFT')).toHaveLength(0);
  });

  // Deliberately alike: each drift case starts from a baseline sweep and ends with a later sweep that must find nothing new.
  it('Accept records who; Revert proposes a change that restores the record exactly once approved', async () => {
    const { bot, watcher, advance } = await start({}, '9.0');
    await watcher.sweepDrift();
    const site = bot.sim.state.site('default');
    const original = structuredClone(site?.firewallPolicies.find((p) => p._id === POLICY));
    changeBehindBot(bot.sim.state, 'policies', POLICY, { action: 'ALLOW', name: 'Kids anytime' });
    advance(300_000);
    await watcher.sweepDrift();
    const message = posts(bot, 'C8DRIFT')[0];
    const buttons = buttonsOf(message);
    expect(buttons.map((b) => b.action_id)).toEqual(['accept_drift', 'revert_drift']);
    const driftId = String(buttons[0]?.value);

    expect((await clickIn(bot, 'C8DRIFT', 'revert_drift', driftId, 'U5')).status).toBe(200);
    const previews = () =>
      posts(bot, 'C8DRIFT').filter((c) => buttonsOf(c).some((b) => b.action_id === 'approve'));
    await bot.slack.waitFor(() => previews().length === 1);
    const requestId = String(buttonsOf(previews()[0]).find((b) => b.action_id === 'approve')?.value);
    const request = await bot.approvals.get(requestId);
    expect(request).toMatchObject({
      tool: 'update_firewall_policy',
      requester: { userId: 'U5' },
      args: expect.objectContaining({ policy_id: POLICY, action: 'BLOCK', name: "Kids' bedtime" }),
    });
    await bot.slack.waitFor(() => edits(bot, 'C8DRIFT').length >= 1);
    expect(JSON.stringify(edits(bot, 'C8DRIFT').at(-1)?.args.blocks)).toContain('revert proposed by <@U5>');
    await bot.slack.waitFor(async () => (await bot.approvals.get(requestId))?.message !== undefined);
    await bot.click('approve', requestId, 'U5');
    await bot.slack.waitFor(async () => (await bot.approvals.get(requestId))?.state === 'succeeded');
    expect(site?.firewallPolicies.find((p) => p._id === POLICY)).toEqual(original);
    // The revert is the bot's own change: no new drift.
    advance(300_000);
    expect(await watcher.sweepDrift()).toEqual([]);
  });

  it('Accept records who accepted it', async () => {
    const { bot, watcher, advance } = await start();
    await watcher.sweepDrift();
    changeBehindBot(bot.sim.state, 'wifi', 'Guest WiFi', { enabled: false });
    advance(300_000);
    const [drift] = await watcher.sweepDrift();
    expect(drift?.kind).toBe('wifi');
    expect((await clickIn(bot, 'C8DRIFT', 'accept_drift', String(drift?.id), 'U3')).status).toBe(200);
    const edited = await firstEdit(bot, 'C8DRIFT');
    expect(JSON.stringify(edited?.args.blocks)).toContain('accepted by <@U3>');
    expect(buttonsOf(edited)).toEqual([]);
  });

  it('Accept is decided like the revert it replaces: only an approver may, the others are told why', async () => {
    const { bot, watcher, advance } = await start({ APPROVERS: 'U0CAROL' });
    await watcher.sweepDrift();
    changeBehindBot(bot.sim.state, 'wifi', 'Guest WiFi', { enabled: false });
    advance(300_000);
    const [drift] = await watcher.sweepDrift();
    const click = (userId: string) => clickIn(bot, 'C8DRIFT', 'accept_drift', String(drift?.id), userId);
    await click('U0BOB');
    await bot.slack.waitFor(() =>
      bot.slack.responses.some((r) => JSON.stringify(r.body).includes('only members of APPROVERS')),
    );
    expect(edits(bot, 'C8DRIFT')).toHaveLength(0);
    await click('U0CAROL');
    await bot.slack.waitFor(() => edits(bot, 'C8DRIFT').length === 1);
    expect(JSON.stringify(edits(bot, 'C8DRIFT')[0]?.args.blocks)).toContain('accepted by <@U0CAROL>');
  });
});

describe('alerts Slack refused', () => {
  it('are posted at the next poll once Slack takes them', async () => {
    const { bot, watcher, advance } = await start();
    bot.slack.channelFaults.C9ALERTS = 'not_in_channel';
    await watcher.poll();
    expect(
      posts(bot, 'C9ALERTS').filter((c) => (c.answer as { ok?: boolean } | undefined)?.ok === true),
    ).toHaveLength(0);
    delete bot.slack.channelFaults.C9ALERTS;
    advance(30_000);
    await watcher.poll();
    const ok = posts(bot, 'C9ALERTS').filter((c) => (c.answer as { ok?: boolean } | undefined)?.ok === true);
    expect(ok.map((c) => String(c.args.text))).toEqual([
      expect.stringContaining('Garage AP* offline since 02:14'),
    ]);
  });
});
