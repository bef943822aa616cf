import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { viewProblems } from '../../src/slack/blocks/limits.js';
// Deliberately alike: the bot-process helpers every listening-bot process test imports.
import {
  type BotProcess,
  runBot,
  slackHttpEnv,
  spawnListeningBot,
  stopAllBots,
} from '../helpers/bot-process.js';
import { type FakeSlack, type SlackCall, startFakeSlack } from '../helpers/fake-slack.js';
import { SLACK_CHANGE_VERIFIED } from '../helpers/journal-events.js';
import { BOT_SCOPE_OF, readManifest } from '../helpers/shipped-files.js';
import { buttonsIn } from '../helpers/slack-buttons.js';
import {
  buttonBody,
  commandBody,
  homeButtonBody,
  homeOpenedBody,
  slackHeaders,
  slackJsonHeaders,
} from '../helpers/slack-requests.js';

// Networks serve as the sample write on their classic path (networkconf routes and faults): a 9.0
// console. Networks through the official API (10.1): tools/networks-official.test.ts.

const SECRET = 'process-home-signing-secret';

const viewBlocks = (call: SlackCall | undefined) =>
  (call?.args.view as { blocks?: unknown[] } | undefined)?.blocks;
const approvable = (call: SlackCall | undefined) =>
  buttonsIn(viewBlocks(call))
    .filter((b) => b.action_id === 'approve')
    .map((b) => b.value);

afterAll(stopAllBots);

/** The built bot in HTTP mode against a fake Slack and the simulator, with extra environment. */
async function startBot(env: Record<string, string>) {
  const [slack, sim] = await Promise.all([startFakeSlack(), startSimulator({ apiVersion: '9.0' })]);
  const { bot, events } = await spawnListeningBot({ ...slackHttpEnv(slack, SECRET, sim), ...env });
  const post = async (body: string, headers: Record<string, string> = slackHeaders(SECRET, body)) => {
    const response = await fetch(events, { method: 'POST', headers, body });
    return response.status;
  };
  const previews = () => slack.callsOf('chat.postMessage').filter((c) => !c.args.thread_ts);
  const threads = () => slack.callsOf('chat.postMessage').filter((c) => c.args.thread_ts);
  /** `/net <text>` by `user`; resolves with the new request's id once its preview is posted. */
  const propose = async (text: string, user: string) => {
    const before = previews().length;
    await post(commandBody({ text, user_id: user, channel_id: 'C0OPS', response_url: slack.responseUrl() }));
    await slack.waitFor(() => previews().length > before, 15_000);
    const preview = previews().at(-1);
    return {
      id: buttonsIn(preview?.args.blocks).find((b) => b.action_id === 'approve')?.value ?? '',
      ts: String(preview?.answer?.ts ?? ''),
    };
  };
  const publishesTo = (user: string) => slack.callsOf('views.publish').filter((c) => c.args.user_id === user);
  const openHome = async (user: string) => {
    const before = publishesTo(user).length;
    const body = homeOpenedBody(user);
    expect(await post(body, slackJsonHeaders(SECRET, body))).toBe(200);
    await slack.waitFor(() => publishesTo(user).length > before, 10_000);
    return publishesTo(user).at(-1);
  };
  return { slack, sim, bot, post, previews, threads, propose, publishesTo, openHome };
}

describe('App Home and history, as `node dist/main.js` serves them', () => {
  let it$: Awaited<ReturnType<typeof startBot>>;
  let slack: FakeSlack;
  let sim: Simulator;
  let bot: BotProcess;
  const networkWrites = () =>
    sim.requests.filter((r) => r.method === 'POST' && r.route.endsWith('networkconf'));

  beforeAll(async () => {
    it$ = await startBot({ APPROVERS: 'U0APPR,S0NETOPS' });
    ({ slack, sim, bot } = it$);
    slack.userGroups.S0NETOPS = ['U0MEMB'];
  });

  afterAll(async () => {
    await bot?.stop('SIGKILL');
    await Promise.all([slack?.close(), sim?.close()]);
  });

  it('publishes a Home listing a pending request to an approver, and not to its requester', async () => {
    const { id } = await it$.propose('create_network name=Lab vlan_id=91 subnet=10.91.0.0/24', 'U0REQ');
    await new Promise((r) => setTimeout(r, 100));

    const approver = await it$.openHome('U0APPR');
    const member = await it$.openHome('U0MEMB');
    const requester = await it$.openHome('U0REQ');

    expect(approvable(approver)).toEqual([id]);
    expect(approvable(member)).toEqual([id]);
    expect(approvable(requester)).toEqual([]);
    expect(JSON.stringify(viewBlocks(requester))).toContain('Your requests (1)');
    // The Controller section names the offline device.
    expect(JSON.stringify(viewBlocks(requester))).toContain('*Offline devices (1)*\\n:red_circle: Garage AP');
    for (const call of slack.callsOf('views.publish')) expect(viewProblems(call.args.view)).toEqual([]);
  });

  it('runs an approval from Home once and edits the channel message', async () => {
    const { id, ts } = await it$.propose('create_network name=Lab2 vlan_id=92 subnet=10.92.0.0/24', 'U0REQ');
    const writes = networkWrites().length;

    expect(await it$.post(homeButtonBody({ actionId: 'approve', value: id, userId: 'U0APPR' }))).toBe(200);
    await slack.waitFor(() => it$.threads().some((c) => c.args.thread_ts === ts), 15_000);
    await slack.waitFor(() =>
      slack.callsOf('chat.update').some((c) => c.args.ts === ts && buttonsIn(c.args.blocks).length === 0),
    );

    expect(networkWrites().length - writes).toBe(1);
    const edited = slack
      .callsOf('chat.update')
      .filter((c) => c.args.ts === ts)
      .at(-1);
    expect(JSON.stringify(edited?.args.blocks)).toContain('Done');
  });

  it('runs a change once when a channel click and a Home click arrive together', async () => {
    const { id, ts } = await it$.propose('create_network name=Lab3 vlan_id=93 subnet=10.93.0.0/24', 'U0REQ');
    const writes = networkWrites().length;

    const statuses = await Promise.all([
      it$.post(
        buttonBody({
          actionId: 'approve',
          value: id,
          userId: 'U0MEMB',
          channel: 'C0OPS',
          messageTs: ts,
          response_url: slack.responseUrl(),
        }),
      ),
      it$.post(homeButtonBody({ actionId: 'approve', value: id, userId: 'U0APPR' })),
    ]);
    await slack.waitFor(() => it$.threads().some((c) => c.args.thread_ts === ts), 15_000);
    await new Promise((r) => setTimeout(r, 500));

    expect(statuses).toEqual([200, 200]);
    expect(networkWrites().length - writes).toBe(1);
    expect(it$.threads().filter((c) => c.args.thread_ts === ts)).toHaveLength(1);
  });

  it('answers /net changes and /net change <id> from the store, and the console gives the same answers', async () => {
    const list = slack.responseUrl();
    await it$.post(commandBody({ text: 'changes', user_id: 'U0APPR', response_url: list }));
    await slack.waitFor(() => slack.responses.some((r) => list.endsWith(r.path)), 10_000);
    const listed = JSON.stringify(slack.responses.find((r) => list.endsWith(r.path))?.body);
    const journal = join(bot.dataDir, 'approvals.jsonl');
    const journalBefore = readFileSync(journal, 'utf8');

    const consoleList = await runBot(['changes', '--json'], { env: { DATA_DIR: bot.dataDir } });
    const page = JSON.parse(consoleList.stdout) as {
      total: number;
      requests: { id: string; state: string }[];
    };
    const done = page.requests.find((r) => r.state === 'succeeded')?.id ?? '';
    const detail = slack.responseUrl();
    await it$.post(commandBody({ text: `change ${done}`, user_id: 'U0APPR', response_url: detail }));
    await slack.waitFor(() => slack.responses.some((r) => detail.endsWith(r.path)), 10_000);
    const shown = JSON.stringify(slack.responses.find((r) => detail.endsWith(r.path))?.body);
    const consoleDetail = await runBot(['change', done, '--json'], { env: { DATA_DIR: bot.dataDir } });
    const events = (JSON.parse(consoleDetail.stdout) as { events: { type: string; seq: number }[] }).events;

    expect(consoleList.code).toBe(0);
    expect(page.total).toBe(3);
    expect(listed).toContain('3 change request(s)');
    for (const request of page.requests) {
      expect(listed).toContain(request.id);
      expect(listed).toContain(request.state);
    }
    expect(consoleDetail.code).toBe(0);
    expect(events.map((e) => e.type)).toEqual(SLACK_CHANGE_VERIFIED);
    for (const event of events) expect(shown).toContain(`\`#${event.seq}\``);
    for (const event of events) expect(shown).toContain(`*${event.type}*`);
    // The console read the bot's journal beside it and appended nothing.
    expect(readFileSync(journal, 'utf8')).toBe(journalBefore);
  });

  it('called only Web API methods the manifest has scopes for', () => {
    const scopes = readManifest().oauth_config.scopes.bot;
    for (const call of slack.calls) {
      expect(Object.keys(BOT_SCOPE_OF), call.method).toContain(call.method);
      const scope = BOT_SCOPE_OF[call.method];
      if (scope) expect(scopes, call.method).toContain(scope);
    }
    expect(slack.callsOf('views.publish').length).toBeGreaterThan(0);
  });
});

describe('reminders, as `node dist/main.js` posts them', () => {
  it('posts one reminder in the thread after the delay, mentioning the approvers, and none after approval', async () => {
    // A sweep every second (a third of the lease), a reminder after 3 s of waiting.
    const ctx = await startBot({
      APPROVERS: 'S0NETOPS',
      APPROVAL_REMIND_SECONDS: '3',
      REPLICA_LEASE_SECONDS: '3',
    });
    ctx.slack.userGroups.S0NETOPS = ['U0APPR'];
    try {
      const reminders = (ts: string) =>
        ctx.threads().filter((c) => c.args.thread_ts === ts && String(c.args.text).includes(':bell:'));
      const approved = await ctx.propose('create_network name=Early vlan_id=94 subnet=10.94.0.0/24', 'U0REQ');
      await ctx.post(
        buttonBody({
          actionId: 'approve',
          value: approved.id,
          userId: 'U0APPR',
          channel: 'C0OPS',
          messageTs: approved.ts,
          response_url: ctx.slack.responseUrl(),
        }),
      );
      // The result in its thread: it ran, so it is no longer pending.
      await ctx.slack.waitFor(
        () =>
          ctx.threads().some((c) => c.args.thread_ts === approved.ts && String(c.args.text).includes('done')),
        15_000,
      );
      const waiting = await ctx.propose('create_network name=Waits vlan_id=95 subnet=10.95.0.0/24', 'U0REQ');

      await ctx.slack.waitFor(() => reminders(waiting.ts).length > 0, 20_000);
      // A later request's reminder proves several more sweeps ran after the first reminder.
      const later = await ctx.propose('create_network name=Later vlan_id=96 subnet=10.96.0.0/24', 'U0REQ');
      await ctx.slack.waitFor(() => reminders(later.ts).length > 0, 20_000);

      expect(reminders(waiting.ts)).toHaveLength(1);
      expect(reminders(approved.ts)).toEqual([]);
      expect(String(reminders(waiting.ts)[0]?.args.text)).toContain('<!subteam^S0NETOPS>');
      const journal = readFileSync(join(ctx.bot.dataDir, 'approvals.jsonl'), 'utf8');
      expect(journal.split('\n').filter((line) => line.includes('"type":"reminded"'))).toHaveLength(2);
    } finally {
      await ctx.bot.stop('SIGKILL');
      await Promise.all([ctx.slack.close(), ctx.sim.close()]);
    }
  });
});
