// A tampered journal, as an attacker with access to DATA_DIR or the database does it: the built
// program, signed Slack requests against the fake Slack, the built audit:verify, and a DATA_DIR
// edited or remounted behind the bot's back.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { previewHash } from '../../src/approvals/canonical.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { Journal } from '../../src/store/file/journal.js';
import { chainEvent } from '../../src/store/journal-format.js';
import {
  type BotProcess,
  runAuditVerify,
  slackHttpEnv,
  spawnBot,
  spawnListeningBot,
  stopAllBots,
} from '../helpers/bot-process.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';
import { networkPostsWhere } from '../helpers/network-writes.js';
import { useTestDatabase } from '../helpers/postgres.js';
import { buttonBody, commandBody, slackHeaders } from '../helpers/slack-requests.js';

// Networks serve as the sample write on their classic path (networkconf routes and faults): a 9.0
// console. Networks through the official API (10.1): tools/networks-official.test.ts.

const SECRET = 'journal-tampering-signing-secret';
const KEY = 'journal-tampering-key-0123456789abcdef0123';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

let sim: Simulator;
let slack: FakeSlack;
const db = useTestDatabase();

beforeAll(async () => {
  [sim, slack] = await Promise.all([startSimulator({ apiVersion: '9.0' }), startFakeSlack()]);
});
afterEach(stopAllBots);
afterAll(async () => {
  await Promise.all([sim?.close(), slack?.close()]);
});

interface Running {
  bot: BotProcess;
  url: string;
  post(body: string): Promise<number>;
  /** `/net <text>` by `user` in C1; what the user read on response_url, if anything within the wait. */
  command(text: string, user: string): Promise<void>;
  /** `/net <text>` by `user` in C1 for a write: the preview it posted. */
  propose(text: string, user: string): Promise<Shown>;
  /** A click on Approve or Cancel; the text the clicker read. */
  click(action: 'approve' | 'cancel', id: string, user: string, blockId?: string): Promise<string>;
  /** Approve clicked by `user` on the message that showed `shown` (its block_id); no wait for an answer. */
  approve(shown: Shown, user: string): Promise<number>;
}

/** The built bot on `dataDir` with `env` on top of the Slack and controller variables. */
async function startBot(dataDir: string, env: Record<string, string> = {}): Promise<Running> {
  const { bot, url } = await spawnListeningBot({
    ...slackHttpEnv(slack, SECRET, sim),
    DATA_DIR: dataDir,
    ...env,
  });
  await slack.waitFor(async () => (await fetch(`${url}/healthz`)).status === 200, 10_000);
  const post = async (body: string) =>
    (await fetch(`${url}/slack/events`, { method: 'POST', headers: slackHeaders(SECRET, body), body }))
      .status;
  const command = async (text: string, user: string) => {
    await post(commandBody({ text, user_id: user, channel_id: 'C1', response_url: slack.responseUrl() }));
  };
  return {
    bot,
    url,
    post,
    command,
    async propose(text, user) {
      const before = previewCount();
      await command(text, user);
      return nextPreview(before);
    },
    approve: (shown, user) =>
      post(
        buttonBody({
          actionId: 'approve',
          value: shown.id,
          userId: user,
          response_url: slack.responseUrl(),
          blockId: shown.blockId,
        }),
      ),
    async click(action, id, user, blockId) {
      const responseUrl = slack.responseUrl();
      await post(
        buttonBody({
          actionId: action,
          value: id,
          userId: user,
          response_url: responseUrl,
          ...(blockId ? { blockId } : {}),
        }),
      );
      await slack.waitFor(() => slack.responses.some((r) => responseUrl.endsWith(r.path)), 10_000);
      return String(slack.responses.find((r) => responseUrl.endsWith(r.path))?.body.text);
    },
  };
}

interface Shown {
  id: string;
  blockId: string;
}

/** The preview the bot posted last in C1: its request id and the block_id of its buttons. */
async function nextPreview(before: number): Promise<Shown> {
  const previews = () =>
    slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C1' && !c.args.thread_ts);
  await slack.waitFor(() => previews().length > before, 10_000);
  const blocks = previews().at(-1)?.args.blocks as {
    type: string;
    block_id?: string;
    elements?: { value?: string }[];
  }[];
  const actions = blocks.find((b) => b.type === 'actions');
  return { id: String(actions?.elements?.[0]?.value), blockId: String(actions?.block_id) };
}
const previewCount = () =>
  slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C1' && !c.args.thread_ts).length;

const journalPath = (dir: string) => join(dir, 'approvals.jsonl');
const journalLines = (dir: string) => readFileSync(journalPath(dir), 'utf8').split('\n').filter(Boolean);
const events = (dir: string) => journalLines(dir).map((l) => JSON.parse(l) as Record<string, unknown>);
/** Resolves once the file journal in `dir` has request `id`'s message event (its preview is on record). */
const messageJournaled = (dir: string, id: string) =>
  slack.waitFor(() => events(dir).some((e) => e.type === 'message' && e.id === id), 10_000);
const vlanWrites = (vlan: number) => networkPostsWhere(sim, 'vlan', vlan);

type JournalEvent = Record<string, unknown> & { request?: Record<string, unknown> };

/** A journal line as an event, its MAC dropped: what an attacker without the key starts from. */
function withoutMac(line: string): JournalEvent {
  const event = JSON.parse(line) as JournalEvent;
  delete event.mac;
  return event;
}

/** Swaps request `id`'s VLAN 802 for 999 in its created event, preview and hash to match; the request, if swapped. */
function swapVlan(event: JournalEvent, id: string): Record<string, unknown> | undefined {
  if (event.type !== 'created' || event.id !== id || !event.request) return undefined;
  const request = event.request;
  request.args = { ...(request.args as object), vlan_id: 999 };
  request.preview = JSON.parse(JSON.stringify(request.preview).replaceAll('802', '999'));
  request.previewHash = previewHash(request.preview);
  return request;
}

/** What the attacker without the key did: every MAC removed, one request's change swapped, the chain rebuilt. */
function forge(dir: string, id: string): void {
  const out: string[] = [];
  for (const line of journalLines(dir)) {
    const event = withoutMac(line);
    swapVlan(event, id);
    event.prev = out.length === 0 ? '0'.repeat(64) : sha256(out.at(-1) ?? '');
    out.push(JSON.stringify(event));
  }
  writeFileSync(journalPath(dir), `${out.join('\n')}\n`);
}

describe('a journal forged without JOURNAL_KEY', () => {
  it('is rejected by audit:verify, the bot with the key refuses to start on it, and a click on the message that showed 802 never runs 999', async () => {
    // Arrange: a pending VLAN 802 request, proposed on the built bot with JOURNAL_KEY.
    const dir = mkdtempSync(join(tmpdir(), 'netops-attack-forged-'));
    const keyed = await startBot(dir, { JOURNAL_KEY: KEY });
    const shown = await keyed.propose('create_network name=Attack802 vlan_id=802 subnet=10.82.0.0/24', 'U1');
    await messageJournaled(dir, shown.id);
    await keyed.bot.stop('SIGTERM');

    // Act 1: the forgery, then audit:verify with the key and the bot with the key.
    forge(dir, shown.id);
    const verified = await runAuditVerify({ DATA_DIR: dir, JOURNAL_KEY: KEY });
    const refused = spawnBot({
      ...slackHttpEnv(slack, SECRET, sim),
      DATA_DIR: dir,
      JOURNAL_KEY: KEY,
    });
    const refusedExit = await refused.exited;

    // Act 2: a bot without the key serves the forged journal; the approver clicks the 802 message.
    const keyless = await startBot(dir);
    const answer = await keyless.click('approve', shown.id, 'U2', shown.blockId);
    const stateAfter = events(dir)
      .filter((e) => e.id === shown.id)
      .map((e) => e.type);

    // Act 3: the "first events predate the key" escape: a signed event after the stripped ones.
    await keyless.bot.stop('SIGTERM');
    const lines = journalLines(dir);
    const last = JSON.parse(lines.at(-1) ?? '{}') as { seq: number };
    const { line: signed } = chainEvent(
      { type: 'cancelled', id: shown.id, actor: { userId: 'U1' } },
      { seq: last.seq + 1, at: new Date().toISOString(), prev: sha256(lines.at(-1) ?? '') },
      KEY,
    );
    writeFileSync(journalPath(dir), `${[...lines, signed].join('\n')}\n`);
    const predated = await runAuditVerify({ DATA_DIR: dir, JOURNAL_KEY: KEY });
    const keyless2 = await runAuditVerify({ DATA_DIR: dir });

    // Assert
    expect(shown.blockId).toMatch(/[0-9a-f]{64}$/);
    expect(verified.code).toBe(1);
    expect(verified.stdout).toMatch(
      /^journal TAMPERED at line 1: JOURNAL_KEY is set but no event carries a MAC/,
    );
    expect(refusedExit.code).not.toBe(0);
    expect(refused.stderr()).toMatch(
      /approvals journal .* fails verification at line 1: JOURNAL_KEY is set but no event carries a MAC/,
    );
    expect(refused.logs().some((l) => l.msg.startsWith('listening on port'))).toBe(false);
    expect(answer).toMatch(
      /^:no_entry: Not run: this message shows preview `[0-9a-f]{8}`, but the stored change request has preview `[0-9a-f]{8}`/,
    );
    expect(vlanWrites(999)).toEqual([]);
    expect(vlanWrites(802)).toEqual([]);
    expect(stateAfter).toEqual(['created', 'message']);
    expect(predated.code).toBe(1);
    expect(predated.stdout).toMatch(
      /^journal TAMPERED at line 1: it has no MAC although line \d+ after it has one/,
    );
    expect(keyless2.code).toBe(1);
  }, 60_000);

  it('runs a click whose block_id carries the preview hash it showed, once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'netops-attack-honest-'));
    const bot = await startBot(dir, { JOURNAL_KEY: KEY });
    const shown = await bot.propose('create_network name=Honest803 vlan_id=803 subnet=10.83.0.0/24', 'U1');
    await messageJournaled(dir, shown.id);

    await bot.approve(shown, 'U2');
    await slack.waitFor(() => events(dir).some((e) => e.type === 'succeeded' && e.id === shown.id), 10_000);
    const verified = await runAuditVerify({ DATA_DIR: dir, JOURNAL_KEY: KEY });

    const stored = events(dir)[0]?.request as { previewHash: string } | undefined;
    expect(shown.blockId).toBe(`decide-${shown.id}.h${stored?.previewHash}`);
    expect(vlanWrites(803)).toHaveLength(1);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/every event's MAC verified/);
  }, 30_000);
});

/** The attacker's edit on a database: every row's MAC removed, one request's change swapped, re-chained. */
async function forgeRows(id: string): Promise<void> {
  const rows = await db.query<{ seq: string; line: string }>(
    'SELECT seq, line FROM netops_journal ORDER BY seq',
  );
  const out: string[] = [];
  let forged: Record<string, unknown> | undefined;
  for (const row of rows.rows) {
    const event = withoutMac(row.line);
    forged = swapVlan(event, id) ?? forged;
    event.prev = out.length === 0 ? '0'.repeat(64) : sha256(out.at(-1) ?? '');
    out.push(JSON.stringify(event));
    await db.query('UPDATE netops_journal SET line = $1 WHERE seq = $2', [out.at(-1), row.seq]);
  }
  await db.query('UPDATE netops_journal_head SET hash = $1', [sha256(out.at(-1) ?? '')]);
  await db.query(
    `UPDATE netops_change_requests SET data = data || jsonb_build_object('args', $2::jsonb, 'preview', $3::jsonb, 'previewHash', $4::text) WHERE id = $1`,
    [id, JSON.stringify(forged?.args), JSON.stringify(forged?.preview), forged?.previewHash],
  );
}

describe('with PostgreSQL: a journal forged without JOURNAL_KEY', () => {
  it('is rejected by audit:verify, a replica with the key refuses to start on it, and a click on the 802 message never runs 999', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'netops-attack-pg-'));
    const keyed = await startBot(dir, { DATABASE_URL: db.url, JOURNAL_KEY: KEY });
    const shown = await keyed.propose(
      'create_network name=AttackPg802 vlan_id=802 subnet=10.82.0.0/24',
      'U1',
    );
    const types = async () =>
      (
        await db.query<{ type: string }>(
          'SELECT type FROM netops_journal WHERE request_id = $1 ORDER BY seq',
          [shown.id],
        )
      ).rows.map((r) => r.type);
    await slack.waitFor(async () => (await types()).includes('message'), 10_000);
    await keyed.bot.stop('SIGTERM');

    await forgeRows(shown.id);
    const verified = await runAuditVerify({ DATABASE_URL: db.url, JOURNAL_KEY: KEY });
    const refused = spawnBot({
      ...slackHttpEnv(slack, SECRET, sim),
      DATA_DIR: dir,
      DATABASE_URL: db.url,
      JOURNAL_KEY: KEY,
    });
    const refusedExit = await refused.exited;
    const keyless = await startBot(dir, { DATABASE_URL: db.url });
    const answer = await keyless.click('approve', shown.id, 'U2', shown.blockId);
    const after = await types();
    await keyless.bot.stop('SIGTERM');

    expect(verified.code).toBe(1);
    expect(verified.stdout).toMatch(
      /^journal TAMPERED at entry 1: JOURNAL_KEY is set but no event carries a MAC/,
    );
    expect(refusedExit.code).not.toBe(0);
    expect(`${refused.stdout()}${refused.stderr()}`).toMatch(
      /the PostgreSQL journal fails verification: at entry 1: JOURNAL_KEY is set but no event carries a MAC/,
    );
    expect(refused.logs().some((l) => l.msg.startsWith('listening on port'))).toBe(false);
    expect(answer).toMatch(/^:no_entry: Not run: this message shows preview/);
    expect(vlanWrites(999)).toEqual([]);
    expect(after).toEqual(['created', 'message']);
  }, 60_000);
});

describe('the same command typed by someone else', () => {
  it('leaves the first requester’s request pending beside a separate one, so they cannot approve their own change', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'netops-attack-supersede-'));
    const bot = await startBot(dir, { APPROVERS: 'U0RITA,U0ALEX' });
    const command = 'create_network name=Twice804 vlan_id=804 subnet=10.84.0.0/24';
    const first = await bot.propose(command, 'U0RITA');
    const second = await bot.propose(command, 'U0MALLORY');
    await messageJournaled(dir, second.id);

    const own = await bot.click('approve', first.id, 'U0RITA', first.blockId);
    const byType = (id: string) =>
      events(dir)
        .filter((e) => e.id === id)
        .map((e) => e.type);
    const created = events(dir).find((e) => e.type === 'created' && e.id === second.id)?.request as {
      requester: { userId: string };
      replaces?: string;
    };

    expect(second.id).not.toBe(first.id);
    expect(byType(first.id)).toEqual(['created', 'message']);
    expect(created.requester.userId).toBe('U0MALLORY');
    expect(created.replaces).toBeUndefined();
    expect(own).toMatch(/^:no_entry: /);
    expect(vlanWrites(804)).toEqual([]);
  }, 30_000);
});

describe('what is provable after a run was cut off before it started', () => {
  it('shows a request killed after `approved` as not run, in the message and to the next click', async () => {
    // What a bot killed between recording the approval and recording `executing` leaves behind.
    const dir = mkdtempSync(join(tmpdir(), 'netops-attack-killed-'));
    // Deliberately alike: a journal written by hand is data: the record a killed run left, whole.
    const { journal } = Journal.open(journalPath(dir));
    const request = {
      id: 'cr_killedafterapproval0000',
      tool: 'create_network',
      site: 'default',
      args: { site_id: 'default', name: 'Killed805', vlan_id: 805, subnet: '10.85.0.0/24' },
      requester: { userId: 'U1' },
      channel: 'C1',
      preview: { dry_run: true, would_create: { name: 'Killed805', vlan: 805 }, warnings: [] },
      previewHash: 'b'.repeat(64),
      createdAt: new Date().toISOString(),
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      state: 'pending' as const,
    };
    journal.append({ type: 'created', id: request.id, actor: request.requester, request });
    journal.append({
      type: 'message',
      id: request.id,
      actor: { userId: 'system:approvals' },
      message: { channel: 'C1', ts: '805.1' },
    });
    journal.append({
      type: 'approved',
      id: request.id,
      actor: { userId: 'U2' },
      previewHash: request.previewHash,
    });
    journal.close();

    const bot = await startBot(dir);
    await slack.waitFor(() => slack.callsOf('chat.update').some((c) => c.args.ts === '805.1'), 10_000);
    const edited = JSON.stringify(
      slack
        .callsOf('chat.update')
        .filter((c) => c.args.ts === '805.1')
        .at(-1)?.args.blocks,
    );
    const answer = await bot.click('approve', request.id, 'U2');
    const recorded = events(dir)
      .filter((e) => e.id === request.id)
      .at(-1);

    expect(recorded).toMatchObject({ type: 'failed', stage: 'recheck', error: { code: 'interrupted' } });
    expect(edited).toContain('*Not run*');
    expect(edited).toContain('nothing was sent to the controller');
    expect(edited).not.toContain('may or may not have reached the controller');
    expect(answer).toMatch(
      /^:no_entry_sign: Approved \(approved by <@U2>\) but not run: not run: the bot stopped after the approval/,
    );
    expect(vlanWrites(805)).toEqual([]);
  }, 30_000);
});

describe('a journal tail cut without anchors', () => {
  it('is found with the anchor the AUDIT_CHANNEL line of the last change carries, even after a crash', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'netops-attack-tail-'));
    const bot = await startBot(dir, { AUDIT_CHANNEL: 'C9AUDIT' });
    const shown = await bot.propose('create_network name=Tail809 vlan_id=809 subnet=10.89.0.0/24', 'U1');
    await messageJournaled(dir, shown.id);
    await bot.approve(shown, 'U2');
    const auditLines = () =>
      slack
        .callsOf('chat.postMessage')
        .filter((c) => c.args.channel === 'C9AUDIT' && String(c.args.text).includes(shown.id));
    await slack.waitFor(() => auditLines().length > 0, 10_000);
    // A crash: no anchor at stop. Then the tail (the run and its outcome) is cut off.
    await bot.bot.stop('SIGKILL');
    const anchors = join(dir, '..', `${shown.id}-anchors.txt`);
    writeFileSync(anchors, String(auditLines()[0]?.args.text));
    const intact = await runAuditVerify({ DATA_DIR: dir }, ['--anchor-file', anchors]);
    const total = journalLines(dir).length;
    writeFileSync(journalPath(dir), `${journalLines(dir).slice(0, -2).join('\n')}\n`);
    const cut = await runAuditVerify({ DATA_DIR: dir }, ['--anchor-file', anchors]);
    const plain = await runAuditVerify({ DATA_DIR: dir });

    // created, message, approved, executing, succeeded, and verified when it was
    // appended before the line was posted: the anchor names the head as it was then.
    const anchor = /; journal anchor `(\d+):[0-9a-f]{64}`$/.exec(String(auditLines()[0]?.args.text));
    const count = Number(anchor?.[1]);
    expect([5, 6]).toContain(count);
    expect(intact.code).toBe(0);
    expect(cut.code).toBe(1);
    expect(cut.stdout).toMatch(
      new RegExp(
        `the anchor ${count}:[0-9a-f]{12}… records ${count} events but the journal has ${total - 2}`,
      ),
    );
    // Without the anchor the chain alone cannot tell: that is why the line carries one.
    expect(plain.code).toBe(0);
  }, 30_000);
});

/** Whether this process may bind-mount (root with CAP_SYS_ADMIN, as the suite runs here). */
function bindReadOnly(source: string, target: string): void {
  mkdirSync(target, { recursive: true });
  execFileSync('mount', ['--bind', source, target]);
  execFileSync('mount', ['-o', 'remount,bind,ro', target]);
}

describe('a read-only DATA_DIR with a journal in it', () => {
  it('starts degraded: lookups answered, a change refused with EROFS, /healthz says so', async () => {
    const source = mkdtempSync(join(tmpdir(), 'netops-attack-rw-'));
    const seeded = await startBot(source);
    const seed = await seeded.propose('create_network name=Seed806 vlan_id=806 subnet=10.86.0.0/24', 'U1');
    await messageJournaled(source, seed.id);
    await seeded.bot.stop('SIGTERM');
    const target = mkdtempSync(join(tmpdir(), 'netops-attack-ro-'));
    bindReadOnly(source, target);
    try {
      const bot = await startBot(target);
      const health = (await (await fetch(`${bot.url}/healthz`)).json()) as Record<string, unknown>;
      const lookup = slack.responseUrl();
      await bot.post(commandBody({ text: 'list_vlans', user_id: 'U1', response_url: lookup }));
      await slack.waitFor(() => slack.responses.some((r) => lookup.endsWith(r.path)), 10_000);
      const change = slack.responseUrl();
      await bot.post(
        commandBody({
          text: 'create_network name=Ro807 vlan_id=807 subnet=10.87.0.0/24',
          user_id: 'U1',
          response_url: change,
        }),
      );
      await slack.waitFor(() => slack.responses.some((r) => change.endsWith(r.path)), 10_000);
      const exit = await bot.bot.stop('SIGTERM');

      expect(health).toMatchObject({
        status: 'degraded',
        store: { kind: 'file', ok: false, read_only: true },
        pending_changes: 1,
      });
      expect(String((health.store as { error: string }).error)).toMatch(/EROFS/);
      expect(JSON.stringify(slack.responses.find((r) => lookup.endsWith(r.path))?.body)).toContain('Default');
      expect(String(slack.responses.find((r) => change.endsWith(r.path))?.body.text)).toMatch(
        /^:floppy_disk: Not recorded: the approvals journal cannot be written \(the file system is read-only, EROFS\)/,
      );
      expect(vlanWrites(807)).toEqual([]);
      expect(exit).toEqual({ code: 0, signal: null });
    } finally {
      execFileSync('umount', [target]);
    }
  }, 60_000);
});
