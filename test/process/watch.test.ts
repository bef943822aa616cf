// The network watcher through the built program (`node dist/main.js`, environment variables only):
// alerts from the watcher, Alarm Manager webhooks, and one watcher among two replicas on one
// PostgreSQL.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { bringDeviceBack, changeBehindBot, takeDeviceDown } from '../../src/simulator/scenario-controls.js';
import { JOURNAL_FILE, readCommittedEvents } from '../../src/store/file/journal.js';
import { runBot } from '../helpers/bot-process.js';
import { type FakeSlack, type SlackCall, startFakeSlack } from '../helpers/fake-slack.js';
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

/** A bot for one test (killed after it), or, `shared`, for a describe (its afterAll kills it). */
function bot(name: string, env: Record<string, string> = {}, shared = false): Promise<BotProcess> {
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
    if (!shared) bots.push(started);
    return started;
  });
}

/** Requests the simulator has had whose route ends with `suffix`. */
const readsOf = (suffix: string) => sim.requests.filter((r) => r.route.endsWith(suffix)).length;
/** Resolves once the bot has read `suffix` `count` more times (polls or sweeps seen, not slept for). */
async function moreReads(suffix: string, count: number): Promise<void> {
  const target = readsOf(suffix) + count;
  await slack.waitFor(() => readsOf(suffix) >= target, 15_000);
}

const alerts = () => slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C9ALERTS');
const alertEdits = () => slack.callsOf('chat.update').filter((c) => c.args.channel === 'C9ALERTS');
const about = (subject: string) => alerts().filter((c) => String(c.args.text).includes(`*${subject}*`));

describe('the watcher in the built program', () => {
  // One bot for these tests (each start of the built program costs seconds under load).
  let one: BotProcess;
  const dataDir = mkdtempSync(join(tmpdir(), 'netops-watch-one-'));
  beforeAll(async () => {
    one = await bot(
      'watch-one',
      {
        DATA_DIR: dataDir,
        ALERT_FLAP_SECONDS: '120',
        UNIFI_WEBHOOK_SECRET: HOOK_SECRET,
        DRIFT_CHANNEL: 'C8DRIFT',
        DRIFT_INTERVAL_SECONDS: '1',
        ALLOW_SELF_APPROVAL: 'true',
        // Accept on drift is decided by the gate like any approval: only these may.
        APPROVERS: 'U0003,U0005',
      },
      true,
    );
  }, 30_000);
  afterAll(async () => {
    await one?.kill('SIGKILL');
  });

  it('alerts once when a device goes offline, edits that message when it is back, and keeps one message while it flaps', async () => {
    await slack.waitFor(() => about('Garage AP').length === 1, 15_000);
    takeDeviceDown(sim.state, 'Living Room AP');
    await slack.waitFor(() => about('Living Room AP').length === 1, 15_000);
    const posted = about('Living Room AP')[0];
    const edits = () => alertEdits().filter((c) => c.args.ts === posted?.answer?.ts);
    const edited = (pattern: RegExp) => () => edits().some((c) => pattern.test(String(c.args.text)));
    bringDeviceBack(sim.state, 'Living Room AP');
    await slack.waitFor(edited(/back at/), 15_000);
    const edit = edits().find((c) => /back at/.test(String(c.args.text)));
    expect(String(edit?.args.text)).toMatch(/Living Room AP\* offline since \d\d:\d\d … back at \d\d:\d\d/);
    // Flapping: down and up twice more within ALERT_FLAP_SECONDS. The same message is edited each time.
    for (const round of [1, 2]) {
      takeDeviceDown(sim.state, 'Living Room AP');
      await slack.waitFor(edited(new RegExp(`^:red_circle: .*again ${round}×`)), 15_000);
      bringDeviceBack(sim.state, 'Living Room AP');
      await slack.waitFor(edited(new RegExp(`^:large_green_circle: .*back at .*again ${round}×`)), 15_000);
    }
    // Two more polls: still one message for each device.
    await moreReads('/stat/device', 2);
    expect(about('Living Room AP')).toHaveLength(1);
    expect(about('Garage AP')).toHaveLength(1);
  }, 60_000);

  it('posts an Alarm Manager webhook with the secret; refuses one without it or oversized', async () => {
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
  it('posts one message per object with the field diff; Accept records who; Revert restores the record exactly; the console prints the day', async () => {
    const wait = (msg: string) => slack.waitFor(() => one.logs.some((l) => String(l.msg) === msg), 20_000);
    await wait('watch: drift baseline taken');
    const sent = sim.requests.length;
    const policy = sim.state.site('default')?.firewallPolicies.find((p) => p.name === "Kids' bedtime");
    const original = structuredClone(policy);
    changeBehindBot(sim.state, 'policies', "Kids' bedtime", { enabled: false, action: 'ALLOW' });
    changeBehindBot(sim.state, 'policies', 'Allow Plex from WAN', { logging: true });
    const drifts = () => slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C8DRIFT');
    const driftAbout = (name: string) =>
      drifts().filter((c) => String(c.args.text).includes(`${name} was changed outside the bot`));
    await slack.waitFor(() => driftAbout("Kids' bedtime").length === 1, 20_000);
    await slack.waitFor(() => driftAbout('Allow Plex from WAN').length === 1, 20_000);
    const blocks = JSON.stringify(driftAbout("Kids' bedtime")[0]?.args.blocks);
    expect(blocks).toContain('enabled: true → false');
    // The simulator plays Network 10.1 with an API key: policies are read from the official API, so
    // the fields are the official model's, and no v2 policy list is read.
    expect(blocks).toContain('action.type: \\"BLOCK\\" → \\"ALLOW\\"');
    expect(JSON.stringify(driftAbout('Allow Plex from WAN')[0]?.args.blocks)).toContain(
      'loggingEnabled: false → true',
    );
    type Posted = { elements?: { action_id: string; value: string }[] }[];
    const buttonsOf = (call: SlackCall | undefined) =>
      ((call?.args.blocks ?? []) as Posted).flatMap((b) => b.elements ?? []).filter((e) => e.action_id);
    const click = (actionId: string, value: string, userId: string) =>
      one.post(
        buttonBody({ actionId, value, userId, channel: 'C8DRIFT', response_url: slack.responseUrl() }),
      );

    // Accept: recorded with who, and the message loses its buttons.
    const plex = driftAbout('Allow Plex from WAN')[0];
    const acceptId = buttonsOf(plex).find((b) => b.action_id === 'accept_drift')?.value ?? '';
    // Someone who may not approve is told why, privately, and the drift stays open.
    expect(await click('accept_drift', acceptId, 'U0BOB')).toBe(200);
    await slack.waitFor(
      () => slack.responses.some((r) => JSON.stringify(r.body).includes('only members of APPROVERS')),
      10_000,
    );
    expect(slack.callsOf('chat.update').filter((c) => c.args.ts === plex?.answer?.ts)).toEqual([]);
    expect(await click('accept_drift', acceptId, 'U0003')).toBe(200);
    const plexEdits = () =>
      slack
        .callsOf('chat.update')
        .filter((c) => c.args.channel === 'C8DRIFT' && c.args.ts === plex?.answer?.ts);
    await slack.waitFor(
      () => plexEdits().some((c) => JSON.stringify(c.args.blocks).includes('accepted by <@U0003>')),
      10_000,
    );
    expect(buttonsOf(plexEdits().at(-1))).toEqual([]);

    // Revert: a change request that puts the record back, previewed and approved like any other.
    const kids = driftAbout("Kids' bedtime")[0];
    const revertId = buttonsOf(kids).find((b) => b.action_id === 'revert_drift')?.value ?? '';
    expect(buttonsOf(kids).find((b) => b.action_id === 'accept_drift')?.value).toBe(revertId);
    expect(await click('revert_drift', revertId, 'U0005')).toBe(200);
    const previews = () => drifts().flatMap((c) => buttonsOf(c).filter((e) => e.action_id === 'approve'));
    await slack.waitFor(() => previews().length === 1, 20_000);
    // Approve is taken once the preview's message is journaled (the click checks what was shown).
    const requestId = previews()[0]?.value ?? '';
    const journaled = () =>
      readCommittedEvents(join(dataDir, JOURNAL_FILE)).some(
        (e) => e.id === requestId && e.type === 'message',
      );
    await slack.waitFor(journaled, 10_000);
    expect(await one.click('approve', requestId, 'U0005', slack.responseUrl())).toBe(200);
    // The write replaces the record: it is looked up again.
    const now = () => sim.state.site('default')?.firewallPolicies.find((p) => p._id === original?._id);
    await slack.waitFor(() => isDeepStrictEqual(now(), original), 20_000);
    expect(now()).toEqual(original);
    // Its own revert is not drift: still one drift message per object after two more sweeps.
    await moreReads('/firewall/policies', 2);
    expect(sim.requests.slice(sent).filter((r) => r.route.endsWith('/firewall-policies'))).toEqual([]);
    expect(drifts().filter((c) => String(c.args.text).includes('outside the bot'))).toHaveLength(2);

    // The console on the bot's DATA_DIR prints the day: the revert, both drifts, the incidents (the
    // earlier tests' too: the same bot).
    const digest = await runBot(['digest'], {
      env: {
        DATA_DIR: dataDir,
        GATEWAY_URL: sim.url,
        GATEWAY_API_KEY: sim.apiKey,
        TELEMETRY_INTERVAL_SECONDS: '0',
      },
    });
    expect(digest.code, digest.stderr).toBe(0);
    const text = digest.stdout;
    expect(text).toMatch(/^site: default$/m);
    expect(text).toMatch(/^changes:\n(.*\n)*.*update_firewall_policy +u0005 +u0005 +succeeded/im);
    expect(text).toMatch(/^drift:\n/m);
    expect(text).toMatch(/Kids' bedtime .*policies .*changed .*no$/m);
    expect(text).toMatch(/Allow Plex from WAN .*policies .*changed .*yes$/m);
    expect(text).toMatch(/^incidents:\n(.*\n)*Garage AP .*device_offline .*still open/m);
    // The flapping device's one incident, ended, with how long it lasted.
    expect(text).toMatch(/^Living Room AP +device_offline .*Z +\d+ (s|min)$/m);
    expect(text).toMatch(/^offline_now: Garage AP$/m);
    expect(text).toMatch(/^pending_approvals: \(none\)$/m);
  }, 90_000);
});

describe('two replicas on one PostgreSQL', () => {
  const db = useTestDatabase();

  it('poll one at a time; after the leader is killed the other takes over without repeating an alert', async () => {
    const env = { DATABASE_URL: db.url, REPLICA_LEASE_SECONDS: '2', WATCH_INTERVAL_SECONDS: '1' };
    const [a, b] = await Promise.all([bot('watch-a', env), bot('watch-b', env)]);
    await slack.waitFor(() => about('Garage AP').length === 1, 20_000);
    const leaderOf = () =>
      [a, b].find((r) => r?.logs.some((l) => String(l.msg) === 'watch: this replica is the watcher'));
    await slack.waitFor(() => leaderOf() !== undefined, 10_000);
    const leader = leaderOf() as BotProcess;
    const other = (leader === a ? b : a) as BotProcess;
    const deviceReads = () => readsOf('/stat/device');
    const before = deviceReads();
    await new Promise((r) => setTimeout(r, 3000));
    // One poller: each poll is one fresh read, the next starting a second after the last ended, so
    // at most four in three seconds (two pollers would make six).
    expect(deviceReads() - before).toBeLessThanOrEqual(4);
    expect(other.logs.some((l) => String(l.msg) === 'watch: this replica is the watcher')).toBe(false);

    await leader.kill('SIGKILL');
    // The lease (2 s) lapses and the other replica takes the watch over; how fast is the bench's
    // business, that it happens at all is this test's.
    await slack.waitFor(
      () => other.logs.some((l) => String(l.msg) === 'watch: this replica is the watcher'),
      20_000,
    );
    takeDeviceDown(sim.state, 'Living Room AP');
    await slack.waitFor(() => about('Living Room AP').length === 1, 15_000);
    await moreReads('/stat/device', 2);
    expect(about('Garage AP')).toHaveLength(1);
    expect(about('Living Room AP')).toHaveLength(1);
  }, 90_000);
});
