import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEADLINES_FILE } from '../../src/store/file/deadline-file.js';
import { type BotProcess, slackHttpEnv, spawnListeningBot, stopAllBots } from '../helpers/bot-process.js';
import type { FakeSlack, SlackCall } from '../helpers/fake-slack.js';
import { network, putsTo } from '../helpers/network-writes.js';
import { useTestDatabase } from '../helpers/postgres.js';
import { type BotProcess as Replica, startBotProcess } from '../helpers/replica-process.js';
import { clickApprove, keepPromptPosted, proposeInC1 } from '../helpers/slack-buttons.js';
import { buttonBody, slackHeaders } from '../helpers/slack-requests.js';
import { useSlackRig } from '../helpers/slack-rig.js';

// Networks serve as the sample write on their classic path (networkconf routes and faults): a 9.0
// console. Networks through the official API (10.1): tools/networks-official.test.ts.

// Timed reverts (revert_after=) through the built program (`node dist/main.js`, env only) with the
// fake Slack and the simulator: a change made with revert_after= reverts itself once when nobody
// keeps it, not at all when someone does, once at start when its deadline passed while the bot
// was killed, and once with two replicas on one PostgreSQL. The bot ticks every 5 s.
// The two describes share nothing (each has its own fake Slack, simulator, bots and store), so they
// run side by side: most of this file is waiting out deadlines (5 s at least), not work. The tests
// inside each describe run one after the other (the second kills and restarts the first's bot).

afterAll(stopAllBots);

const SECRET = 'revert-timers-secret';
const textOf = (call: SlackCall | undefined) => JSON.stringify(call?.args ?? {});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface FileDeadline {
  changeId: string;
  state: string;
  dueAt: string;
}
const deadlinesIn = (dataDir: string) =>
  (JSON.parse(readFileSync(join(dataDir, DEADLINES_FILE), 'utf8')) as { deadlines: FileDeadline[] })
    .deadlines;

/** Slack's side of a bot: propose with /net, approve, keep, all as signed HTTP requests. */
function slackSide(slack: FakeSlack, post: () => (body: string) => Promise<unknown>) {
  const audit = () => slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'CAUDIT');
  return {
    audit,
    /** Proposes as U1 and approves as U2; resolves once the Keep prompt is in the thread. */
    async run(text: string): Promise<string> {
      const id = await proposeInC1(slack, post(), text);
      await clickApprove(slack, post(), id);
      await keepPromptPosted(slack, id);
      return id;
    },
    async keep(id: string) {
      await post()(
        buttonBody({ actionId: 'keep_change', value: id, userId: 'U2', response_url: slack.responseUrl() }),
      );
      await slack.waitFor(() => audit().some((c) => textOf(c).includes(`(${id}) kept by`)), 20_000);
    },
    /** Resolves once AUDIT_CHANNEL says the change was reverted automatically. */
    async reverted(id: string, timeoutMs = 30_000) {
      await slack.waitFor(
        () => audit().some((c) => textOf(c).includes(`(${id}) reverted automatically`)),
        timeoutMs,
      );
    },
    revertedPosts: (id: string) =>
      audit().filter((c) => textOf(c).includes(`(${id}) reverted automatically`)),
  };
}

describe.concurrent('keep or revert, the built bot on files', () => {
  const rig = useSlackRig({ apiVersion: '9.0' });
  let bot: BotProcess;
  let events = '';
  const dataDir = mkdtempSync(join(tmpdir(), 'netops-revert-timers-'));
  const post = (body: string) => fetch(events, { method: 'POST', headers: slackHeaders(SECRET, body), body });
  const side = () => slackSide(rig.slack, () => post);

  async function start() {
    ({ bot, events } = await spawnListeningBot(
      {
        ...slackHttpEnv(rig.slack, SECRET, rig.sim),
        AUDIT_CHANNEL: 'CAUDIT',
        DATA_DIR: dataDir,
        // A tick a second: deadlines fire within a second, and "one more tick" is a short wait.
        CHANGE_TIMER_TICK_SECONDS: '1',
      },
      20_000,
    ));
  }

  beforeAll(async () => {
    await start();
  }, 30_000);
  afterAll(async () => {
    await bot?.stop('SIGKILL');
  });

  it.sequential('revert_after=5s with no Keep reverts once; another kept before its deadline is never reverted', async () => {
    const iotStart = network(rig.sim, 'IoT');
    const camerasStart = network(rig.sim, 'Cameras');
    // The kept one first: the lapsed one's 5 s then run out about when the kept one's 10 s do.
    const kept = await side().run('update_network network_id=Cameras vlan_id=34 revert_after=10s');
    await side().keep(kept);
    expect(deadlinesIn(dataDir).find((d) => d.changeId === kept)?.state).toBe('cancelled');
    const lapsed = await side().run('update_network network_id=IoT vlan_id=24 revert_after=5s');

    await side().reverted(lapsed);
    // Past the kept change's deadline and two more ticks: nothing else happens.
    const due = Date.parse(deadlinesIn(dataDir).find((d) => d.changeId === kept)?.dueAt ?? '');
    await sleep(Math.max(0, due - Date.now()) + 2_500);

    expect(network(rig.sim, 'IoT')).toEqual(iotStart);
    expect(putsTo(rig.sim, iotStart?._id)).toBe(2);
    expect(side().revertedPosts(lapsed)).toHaveLength(1);
    expect(deadlinesIn(dataDir).find((d) => d.changeId === lapsed)?.state).toBe('fired');

    expect(network(rig.sim, 'Cameras')).toEqual({ ...camerasStart, vlan: 34 });
    expect(putsTo(rig.sim, camerasStart?._id)).toBe(1);
    expect(side().revertedPosts(kept)).toHaveLength(0);
  }, 90_000);

  it.sequential('killed (SIGKILL) before the deadline and started after it, the bot reverts the change once at start', async () => {
    const guestStart = network(rig.sim, 'Guest');
    const id = await side().run('update_network network_id=Guest vlan_id=35 revert_after=5s');
    await bot.stop('SIGKILL');
    const due = Date.parse(deadlinesIn(dataDir).find((d) => d.changeId === id)?.dueAt ?? '');
    expect(deadlinesIn(dataDir).find((d) => d.changeId === id)?.state).toBe('scheduled');
    await sleep(Math.max(0, due - Date.now()) + 1_000);
    expect(network(rig.sim, 'Guest')?.vlan).toBe(35);

    await start();
    await side().reverted(id);
    await sleep(2_500);

    expect(network(rig.sim, 'Guest')).toEqual(guestStart);
    expect(putsTo(rig.sim, guestStart?._id)).toBe(2);
    expect(side().revertedPosts(id)).toHaveLength(1);
    expect(deadlinesIn(dataDir).find((d) => d.changeId === id)?.state).toBe('fired');
  }, 90_000);
});

describe.concurrent('keep or revert, two replicas of the built bot on one PostgreSQL', () => {
  const db = useTestDatabase();
  const rig = useSlackRig({ apiVersion: '9.0' });
  let a: Replica;
  let b: Replica;
  let next = 0;

  beforeAll(async () => {
    const env = {
      SLACK_BOT_TOKEN: 'xoxb-timers-replicas',
      SLACK_API_URL: rig.slack.apiUrl,
      GATEWAY_URL: rig.sim.url,
      GATEWAY_API_KEY: rig.sim.apiKey,
      DATABASE_URL: db.url,
      AUDIT_CHANNEL: 'CAUDIT',
      CHANGE_TIMER_TICK_SECONDS: '1',
    };
    a = await startBotProcess('timers-a', env, SECRET);
    b = await startBotProcess('timers-b', env, SECRET);
  }, 40_000);
  afterAll(async () => {
    await Promise.all([a, b].filter(Boolean).map((r) => r.kill('SIGTERM')));
  });

  it.sequential('a revert_after=5s change proposed on one and approved on the other reverts once', async () => {
    // Requests alternate between the replicas: the proposal on A, the approval on B.
    const side = slackSide(rig.slack, () => (body) => (next++ % 2 === 0 ? a : b).post(body));
    const start = network(rig.sim, 'IoT');
    const id = await side.run('update_network network_id=IoT vlan_id=26 revert_after=5s');

    await side.reverted(id);
    await sleep(2_500);

    expect(network(rig.sim, 'IoT')).toEqual(start);
    expect(putsTo(rig.sim, start?._id)).toBe(2);
    expect(side.revertedPosts(id)).toHaveLength(1);
    const rows = await db.query<{ state: string; claimed_by: string }>(
      'SELECT state, claimed_by FROM netops_deadlines WHERE change_id = $1',
      [id],
    );
    expect(rows.rows).toEqual([{ state: 'fired', claimed_by: expect.any(String) }]);
    const reverts = await db.query("SELECT id FROM netops_change_requests WHERE data->>'revertOf' = $1", [
      id,
    ]);
    expect(reverts.rows).toHaveLength(1);
  }, 90_000);
});
