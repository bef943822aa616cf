// Issue 23 through the built program (`node dist/main.js`, environment variables only): alerts from
// the watcher, Alarm Manager webhooks, and one watcher among two replicas on one PostgreSQL.
import { isDeepStrictEqual } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { bringDeviceBack, changeBehindBot, takeDeviceDown } from '../../src/simulator/scenario-controls.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';
import { useTestDatabase } from '../helpers/postgres.js';
import { type BotProcess, requireBuild, startBotProcess } from '../helpers/replica-process.js';
import { buttonBody } from '../helpers/slack-requests.js';

const SECRET = 'watch-process-signing-secret';
const HOOK_SECRET = 'watch-process-hook-secret-0123';

let sim: Simulator;
let slack: FakeSlack;
const bots: BotProcess[] = [];

beforeAll(async () => {
  requireBuild();
  sim = await startSimulator();
  slack = await startFakeSlack();
});
afterEach(async () => {
  await Promise.all(bots.splice(0).map((bot) => bot.kill('SIGKILL')));
  slack.calls.length = 0;
  sim.reset();
});
afterAll(async () => {
  await slack?.close();
  await sim?.close();
});

function bot(name: string, env: Record<string, string> = {}): Promise<BotProcess> {
  return startBotProcess(
    name,
    {
      SLACK_BOT_TOKEN: 'xoxb-watch-test',
      SLACK_API_URL: slack.apiUrl,
      GATEWAY_URL: sim.url,
      GATEWAY_API_KEY: sim.apiKey,
      ALERT_CHANNEL: 'C9ALERTS',
      WATCH_INTERVAL_SECONDS: '1',
      TELEMETRY_INTERVAL_SECONDS: '0',
      ...env,
    },
    SECRET,
  ).then((started) => {
    bots.push(started);
    return started;
  });
}

const alerts = () => slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C9ALERTS');
const alertEdits = () => slack.callsOf('chat.update').filter((c) => c.args.channel === 'C9ALERTS');
const about = (subject: string) => alerts().filter((c) => String(c.args.text).includes(`*${subject}*`));

describe('the watcher in the built program', () => {
  it('alerts once when a device goes offline and edits that message when it is back', async () => {
    await bot('watch-one');
    await slack.waitFor(() => about('Garage AP').length === 1, 15_000);
    takeDeviceDown(sim.state, 'Living Room AP');
    await slack.waitFor(() => about('Living Room AP').length === 1, 15_000);
    const posted = about('Living Room AP')[0];
    bringDeviceBack(sim.state, 'Living Room AP');
    await slack.waitFor(() => alertEdits().some((c) => c.args.ts === posted?.answer?.ts), 15_000);
    const edit = alertEdits().find((c) => c.args.ts === posted?.answer?.ts);
    expect(String(edit?.args.text)).toMatch(/Living Room AP\* offline since \d\d:\d\d … back at \d\d:\d\d/);
    // Several more polls: still one message for each device.
    await new Promise((r) => setTimeout(r, 2500));
    expect(about('Living Room AP')).toHaveLength(1);
    expect(about('Garage AP')).toHaveLength(1);
  }, 60_000);

  it('posts an Alarm Manager webhook with the secret; refuses one without it or oversized', async () => {
    const one = await bot('watch-hook', { UNIFI_WEBHOOK_SECRET: HOOK_SECRET, ALERT_CHANNEL: 'C9ALERTS' });
    const url = `http://127.0.0.1:${one.port}/webhooks/unifi`;
    const send = async (body: string, headers: Record<string, string>) =>
      (
        await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
        })
      ).status;
    const alarm = JSON.stringify({ alarm: 'High latency detected', message: 'latency 450 ms on WAN1' });
    expect(await send(alarm, {})).toBe(401);
    expect(
      await send(`{"message":"${'y'.repeat(100_000)}"}`, { authorization: `Bearer ${HOOK_SECRET}` }),
    ).toBe(413);
    expect(await send('nonsense', { authorization: `Bearer ${HOOK_SECRET}` })).toBe(400);
    await new Promise((r) => setTimeout(r, 300));
    expect(alerts().filter((c) => String(c.args.text).includes('latency'))).toHaveLength(0);
    expect(await send(alarm, { authorization: `Bearer ${HOOK_SECRET}` })).toBe(202);
    await slack.waitFor(() => alerts().some((c) => String(c.args.text).includes('latency 450 ms')), 10_000);
    expect(one.logs.some((l) => String(l.msg).includes('the body is not JSON'))).toBe(true);
  }, 60_000);
});

describe('drift in the built program', () => {
  it('posts one message with the field diff; Revert proposes a change that restores the record exactly', async () => {
    const one = await bot('watch-drift', {
      ALERT_CHANNEL: '',
      DRIFT_CHANNEL: 'C8DRIFT',
      DRIFT_INTERVAL_SECONDS: '1',
      ALLOW_SELF_APPROVAL: 'true',
    });
    const wait = (msg: string) => slack.waitFor(() => one.logs.some((l) => String(l.msg) === msg), 20_000);
    await wait('watch: drift baseline taken');
    const policy = sim.state.site('default')?.firewallPolicies.find((p) => p.name === "Kids' bedtime");
    const original = structuredClone(policy);
    changeBehindBot(sim.state, 'policies', "Kids' bedtime", { enabled: false, action: 'ALLOW' });
    const drifts = () => slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C8DRIFT');
    await slack.waitFor(() => drifts().length === 1, 20_000);
    const blocks = JSON.stringify(drifts()[0]?.args.blocks);
    expect(blocks).toContain('enabled: true → false');
    expect(blocks).toContain('action: \\"BLOCK\\" → \\"ALLOW\\"');
    const posted = (drifts()[0]?.args.blocks ?? []) as {
      elements?: { action_id: string; value: string }[];
    }[];
    const buttons = posted.flatMap((b) => b.elements ?? []);
    const revertId = buttons.find((b) => b.action_id === 'revert_drift')?.value ?? '';
    expect(buttons.find((b) => b.action_id === 'accept_drift')?.value).toBe(revertId);
    const click = (actionId: string, value: string) =>
      one.post(
        buttonBody({ actionId, value, userId: 'U5', channel: 'C8DRIFT', response_url: slack.responseUrl() }),
      );
    expect(await click('revert_drift', revertId)).toBe(200);
    const previews = () =>
      drifts().flatMap((c) =>
        ((c.args.blocks ?? []) as { elements?: { action_id: string; value: string }[] }[])
          .flatMap((b) => b.elements ?? [])
          .filter((e) => e.action_id === 'approve'),
      );
    await slack.waitFor(() => previews().length === 1, 20_000);
    // The preview is recorded before the click is taken.
    await new Promise((r) => setTimeout(r, 500));
    expect(await one.click('approve', previews()[0]?.value ?? '', 'U5', slack.responseUrl())).toBe(200);
    // The write replaces the record: it is looked up again.
    const now = () => sim.state.site('default')?.firewallPolicies.find((p) => p._id === original?._id);
    await slack.waitFor(() => isDeepStrictEqual(now(), original), 20_000);
    expect(now()).toEqual(original);
    // Its own revert is not drift: still one drift message after more sweeps.
    await new Promise((r) => setTimeout(r, 3000));
    expect(drifts().filter((c) => String(c.args.text).includes('outside the bot'))).toHaveLength(1);
  }, 90_000);
});

describe('two replicas on one PostgreSQL', () => {
  const db = useTestDatabase();

  it('poll one at a time; after the leader is killed the other takes over without repeating an alert', async () => {
    const env = { DATABASE_URL: db.url, REPLICA_LEASE_SECONDS: '2', WATCH_INTERVAL_SECONDS: '2' };
    const [a, b] = await Promise.all([bot('watch-a', env), bot('watch-b', env)]);
    await slack.waitFor(() => about('Garage AP').length === 1, 20_000);
    const leaderOf = () =>
      [a, b].find((r) => r?.logs.some((l) => String(l.msg) === 'watch: this replica is the watcher'));
    await slack.waitFor(() => leaderOf() !== undefined, 10_000);
    const leader = leaderOf() as BotProcess;
    const other = (leader === a ? b : a) as BotProcess;
    const deviceReads = () => sim.requests.filter((r) => r.route.endsWith('/stat/device')).length;
    const before = deviceReads();
    await new Promise((r) => setTimeout(r, 3000));
    // One poller: about one read every 2 s, not two.
    expect(deviceReads() - before).toBeLessThanOrEqual(3);
    expect(other.logs.some((l) => String(l.msg) === 'watch: this replica is the watcher')).toBe(false);

    await leader.kill('SIGKILL');
    const killedAt = Date.now();
    await slack.waitFor(
      () => other.logs.some((l) => String(l.msg) === 'watch: this replica is the watcher'),
      10_000,
    );
    // Within WATCH_INTERVAL_SECONDS × 3 (plus the machine's slack).
    expect(Date.now() - killedAt).toBeLessThan(9_000);
    takeDeviceDown(sim.state, 'Living Room AP');
    await slack.waitFor(() => about('Living Room AP').length === 1, 15_000);
    await new Promise((r) => setTimeout(r, 2000));
    expect(about('Garage AP')).toHaveLength(1);
    expect(about('Living Room AP')).toHaveLength(1);
  }, 90_000);
});
