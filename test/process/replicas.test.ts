// Several replicas of the built program (`node dist/main.js`, only environment variables, as the
// Dockerfile runs it) on one PostgreSQL database, one controller (the simulator) and one fake
// Slack, in HTTP mode with signed requests.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { type FakeSlack, type SlackCall, startFakeSlack } from '../helpers/fake-slack.js';
import { SLACK_CHANGE_VERIFIED } from '../helpers/journal-events.js';
import { writePolicyFile } from '../helpers/policy-files.js';
import { useTestDatabase } from '../helpers/postgres.js';
import { type BotProcess, requireBuild, startBotProcess } from '../helpers/replica-process.js';
import { requestIdOf } from '../helpers/slack-buttons.js';

const SECRET = 'replica-test-signing-secret';
const LEASE_SECONDS = 2;

// A policy needing two approvals for networks whose name starts with "Two" (the other
// changes here keep the default of one).
const POLICY_FILE = writePolicyFile(
  'netops-replica-policy-',
  'rules:\n  - name: two-approvals\n    when: tool == "create_network" && args.name.startsWith("Two")\n    approvals: 2\n',
);

const db = useTestDatabase();
let sim: Simulator;
let slack: FakeSlack;
let a: BotProcess;
let b: BotProcess;

function replica(name: string): Promise<BotProcess> {
  return startBotProcess(
    name,
    {
      SLACK_BOT_TOKEN: 'xoxb-replica-test',
      SLACK_API_URL: slack.apiUrl,
      GATEWAY_URL: sim.url,
      GATEWAY_API_KEY: sim.apiKey,
      DATABASE_URL: db.url,
      REPLICA_LEASE_SECONDS: String(LEASE_SECONDS),
      POLICY_FILE,
    },
    SECRET,
  );
}

beforeAll(async () => {
  requireBuild();
  sim = await startSimulator();
  slack = await startFakeSlack();
  // Both at once on an empty database: the migration race of a real rolling start.
  [a, b] = await Promise.all([replica('replica-a'), replica('replica-b')]);
}, 30_000);

afterAll(async () => {
  await Promise.all([a, b].filter(Boolean).map((r) => r.kill('SIGTERM')));
  await slack?.close();
  await sim?.close();
});

const networkPosts = () => sim.requests.filter((r) => r.method === 'POST' && r.route.endsWith('/networks'));
const previews = () =>
  slack.callsOf('chat.postMessage').filter((c) => !c.args.thread_ts && c.args.channel === 'C1');
const textOf = (call: SlackCall) => `${String(call.args.text)} ${JSON.stringify(call.args.blocks ?? [])}`;

/** Proposes a change through `replica` and returns the request id from the posted preview. */
async function propose(replica: BotProcess, text: string): Promise<{ id: string; ts: string }> {
  const before = previews().length;
  expect(await replica.command(text, 'U1', slack.responseUrl())).toBe(200);
  await slack.waitFor(() => previews().length > before, 10_000);
  const preview = previews().at(-1);
  await waitForState(requestIdOf(preview), 'pending');
  // The message is recorded on the request right after posting it.
  const id = requestIdOf(preview);
  await slack.waitFor(async () => (await rowOf(id))?.message !== undefined, 5_000);
  return { id, ts: String((await rowOf(id))?.message?.ts) };
}

async function rowOf(id: string): Promise<{ state: string; message?: { ts: string } } | undefined> {
  const found = await db.query<{ data: { state: string; message?: { ts: string } } }>(
    'SELECT data FROM netops_change_requests WHERE id = $1',
    [id],
  );
  return found.rows[0]?.data;
}

async function waitForState(id: string, state: string, timeoutMs = 10_000): Promise<void> {
  await slack.waitFor(async () => (await rowOf(id))?.state === state, timeoutMs);
}

async function journalTypes(id: string): Promise<string[]> {
  const found = await db.query<{ type: string }>(
    'SELECT type FROM netops_journal WHERE request_id = $1 ORDER BY seq',
    [id],
  );
  return found.rows.map((r) => r.type);
}

const updatesOf = (ts: string) => slack.callsOf('chat.update').filter((c) => c.args.ts === ts);

/** The built audit:verify against the database: exit code and its line. */
async function auditVerify(): Promise<{ code: number; stdout: string }> {
  return promisify(execFile)(process.execPath, ['dist/store/verify-cli.js'], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: db.url },
  }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
}

describe('the console beside the replicas', () => {
  it('keeps bot data (a zone description) in the shared database, not in DATA_DIR', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'netops-console-'));
    const run = await promisify(execFile)(
      process.execPath,
      ['dist/main.js', 'create_firewall_zone', 'name=Benches', 'description=Test benches', '--yes', '--json'],
      {
        env: {
          PATH: process.env.PATH ?? '',
          GATEWAY_URL: sim.url,
          GATEWAY_API_KEY: sim.apiKey,
          DATABASE_URL: db.url,
          DATA_DIR: dataDir,
        },
      },
    );
    const zone = (JSON.parse(run.stdout) as { zone: { id: string; description: string } }).zone;
    const kept = await db.query('SELECT value FROM netops_bot_data WHERE key = $1', [
      `zone-description:default:${zone.id}`,
    ]);

    expect(zone.description).toBe('Test benches');
    expect(kept.rows).toEqual([{ value: 'Test benches' }]);
    expect(readdirSync(dataDir)).toEqual([]);
  }, 20_000);
});

describe('two replicas of the built bot on one PostgreSQL', () => {
  it('migrate the empty database once when they start together', async () => {
    const applied = [...a.logs, ...b.logs].filter((l) => l.msg === 'applied database migration');
    const recorded = await db.query('SELECT version FROM netops_schema_migrations');
    const live = await db.query('SELECT count(*)::int AS n FROM netops_replicas');

    // Each migration once, by one of the two replicas.
    expect(applied).toHaveLength(MIGRATIONS.length);
    expect(recorded.rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version })));
    expect(live.rows[0]).toEqual({ n: 2 });
  });

  it('run a change once for 20 concurrent signed Approve clicks spread over both', async () => {
    const { id, ts } = await propose(a, 'create_network name=Rep20 vlan_id=61 subnet=10.61.0.0/24');
    const urls = Array.from({ length: 20 }, () => slack.responseUrl());

    const statuses = await Promise.all(
      urls.map((url, i) => (i % 2 === 0 ? a : b).click('approve', id, `U${100 + i}`, url)),
    );

    expect(statuses).toEqual(Array(20).fill(200));
    await waitForState(id, 'succeeded');
    // Every click is answered: 19 are told it already ran (the winner sees the message change).
    await slack.waitFor(
      () => slack.responses.filter((r) => urls.some((u) => u.endsWith(r.path))).length >= 19,
    );
    await slack.waitFor(() => slack.callsOf('chat.postMessage').some((c) => c.args.thread_ts === ts));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(networkPosts()).toHaveLength(1);
    expect(sim.state.findNetworkByName('default', 'Rep20')).toMatchObject({ vlan: 61 });
    expect(updatesOf(ts).filter((c) => textOf(c).includes('*Done*'))).toHaveLength(1);
    expect(slack.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === ts)).toHaveLength(1);
    const told = slack.responses.filter((r) => urls.some((u) => u.endsWith(r.path)));
    expect(told).toHaveLength(19);
    for (const answer of told) expect(String(answer.body.text)).toMatch(/Already (running|ran)/);
    expect(await journalTypes(id)).toEqual(SLACK_CHANGE_VERIFIED);
    const audit = await auditVerify();
    expect(audit.code).toBe(0);
    expect(audit.stdout).toMatch(/^journal OK: \d+ events, chain verified \(PostgreSQL /);
  }, 30_000);

  it('with approvals: 2, record one approval per person, refuse the requester, and run on the second', async () => {
    const { id, ts } = await propose(a, 'create_network name=TwoSeq vlan_id=64 subnet=10.64.0.0/24');
    const before = networkPosts().length;
    const answer = async (replica: BotProcess, user: string) => {
      const url = slack.responseUrl();
      await replica.click('approve', id, user, url);
      await slack.waitFor(() => slack.responses.some((r) => url.endsWith(r.path)));
      return String(slack.responses.find((r) => url.endsWith(r.path))?.body.text);
    };

    expect(await answer(a, 'U1')).toContain('you requested this change');
    expect(await answer(a, 'U301')).toContain('1 of 2 approvals');
    expect(await answer(b, 'U301')).toContain('you approved this change already');
    await slack.waitFor(() => updatesOf(ts).some((c) => textOf(c).includes('1 of 2 approvals')));
    expect(networkPosts()).toHaveLength(before);
    await b.click('approve', id, 'U302', slack.responseUrl());

    await waitForState(id, 'succeeded');
    expect(networkPosts()).toHaveLength(before + 1);
    const approvals = await db.query<{ line: string }>(
      "SELECT line FROM netops_journal WHERE request_id = $1 AND type IN ('endorsed', 'approved') ORDER BY seq",
      [id],
    );
    expect(
      approvals.rows.map((r) => {
        const e = JSON.parse(r.line) as { type: string; actor: { userId: string } };
        return [e.type, e.actor.userId];
      }),
    ).toEqual([
      ['endorsed', 'U301'],
      ['approved', 'U302'],
    ]);
  }, 30_000);

  it('with approvals: 2, run a change once for 20 concurrent clicks of five people over both replicas', async () => {
    const { id, ts } = await propose(a, 'create_network name=Two20 vlan_id=65 subnet=10.65.0.0/24');
    const before = networkPosts().length;
    // The requester and four others, four clicks each, alternating between the replicas.
    const users = ['U1', 'U401', 'U402', 'U403', 'U404'];
    const clicks = Array.from({ length: 20 }, (_, i) => ({
      replica: i % 2 === 0 ? a : b,
      user: users[i % users.length] ?? 'U1',
      url: slack.responseUrl(),
    }));

    const statuses = await Promise.all(clicks.map((c) => c.replica.click('approve', id, c.user, c.url)));

    expect(statuses).toEqual(Array(20).fill(200));
    await waitForState(id, 'succeeded');
    await slack.waitFor(() => slack.callsOf('chat.postMessage').some((c) => c.args.thread_ts === ts));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(networkPosts()).toHaveLength(before + 1);
    expect(sim.state.findNetworkByName('default', 'Two20')).toMatchObject({ vlan: 65 });
    const types = await journalTypes(id);
    expect(types.filter((t) => t === 'endorsed')).toHaveLength(1);
    expect(types.filter((t) => t === 'approved')).toHaveLength(1);
    expect(types.filter((t) => t === 'executing')).toHaveLength(1);
    const rows = await db.query<{ line: string }>(
      "SELECT line FROM netops_journal WHERE request_id = $1 AND type IN ('endorsed', 'approved') ORDER BY seq",
      [id],
    );
    const approvers = rows.rows.map(
      (r) => (JSON.parse(r.line) as { actor: { userId: string } }).actor.userId,
    );
    expect(new Set(approvers).size).toBe(2);
    expect(approvers).not.toContain('U1');
    // The requester's clicks are refused as theirs, whatever the order.
    const requesterAnswers = slack.responses.filter((r) =>
      clicks.some((c) => c.user === 'U1' && c.url.endsWith(r.path)),
    );
    for (const told of requesterAnswers)
      expect(String(told.body.text)).toMatch(/you requested this change|Already (running|ran)/);
    expect((await auditVerify()).code).toBe(0);
  }, 30_000);

  it('run a change set once for 10 concurrent clicks spread over both', async () => {
    const { id, ts } = await propose(
      a,
      'plan\ncreate_network name=RepSet vlan_id=66 subnet=10.66.0.0/24\nupdate_network network_id=RepSet dhcp_dns_1=9.9.9.9',
    );
    const posts = networkPosts().length;
    const puts = () => sim.requests.filter((r) => r.method === 'PUT' && /\/networks\/[^/]+$/.test(r.route));
    const putsBefore = puts().length;
    const statuses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? a : b).click('approve', id, `U${300 + i}`, slack.responseUrl()),
      ),
    );
    expect(statuses).toEqual(Array(10).fill(200));
    await waitForState(id, 'succeeded', 20_000);
    await slack.waitFor(() => slack.callsOf('chat.postMessage').some((c) => c.args.thread_ts === ts));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(networkPosts()).toHaveLength(posts + 1);
    expect(puts()).toHaveLength(putsBefore + 1);
    expect((await journalTypes(id)).filter((t) => t === 'approved')).toHaveLength(1);
  }, 30_000);

  it('approve on replica B a request proposed on replica A', async () => {
    const { id, ts } = await propose(a, 'create_network name=RepAB vlan_id=62 subnet=10.62.0.0/24');
    const before = networkPosts().length;

    expect(await b.click('approve', id, 'U2', slack.responseUrl())).toBe(200);

    await waitForState(id, 'succeeded');
    await slack.waitFor(() => updatesOf(ts).some((c) => textOf(c).includes('*Done*')));
    expect(networkPosts()).toHaveLength(before + 1);
    expect(sim.state.findNetworkByName('default', 'RepAB')).toBeDefined();
  }, 20_000);

  it('mark a change unknown once when its replica dies mid-write, after the lease lapses, and never re-run it', async () => {
    const { id, ts } = await propose(a, 'create_network name=RepKill vlan_id=63 subnet=10.63.0.0/24');
    const before = networkPosts().length;
    // Hold the controller write long enough to kill the replica while it waits for the answer.
    sim.injectFault({ kind: 'latency', ms: 1_500, method: 'POST', route: /\/networks$/ });

    await a.click('approve', id, 'U2', slack.responseUrl());
    await slack.waitFor(() => networkPosts().length > before, 10_000);
    await waitForState(id, 'executing');
    await a.kill('SIGKILL');
    const whileLeaseHolds = (await rowOf(id))?.state;

    await waitForState(id, 'unknown', (LEASE_SECONDS + 8) * 1000);
    await slack.waitFor(() => updatesOf(ts).some((c) => textOf(c).includes('Outcome unknown')), 5_000);
    const retry = slack.responseUrl();
    await b.click('approve', id, 'U3', retry);
    await slack.waitFor(() => slack.responses.some((r) => retry.endsWith(r.path)));
    // The write A sent lands after its latency (the controller never heard A die); nothing else is sent.
    await slack.waitFor(() => sim.state.findNetworkByName('default', 'RepKill') !== undefined, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(whileLeaseHolds).toBe('executing');
    expect(networkPosts()).toHaveLength(before + 1);
    expect(await journalTypes(id)).toEqual([
      'created',
      'message',
      'approved',
      'executing',
      'outcome_unknown',
    ]);
    expect(updatesOf(ts).filter((c) => textOf(c).includes('Outcome unknown'))).toHaveLength(1);
    expect(String(slack.responses.find((r) => retry.endsWith(r.path))?.body.text)).toMatch(
      /outcome is unknown/,
    );
    expect((await auditVerify()).code).toBe(0);
  }, 40_000);
});
