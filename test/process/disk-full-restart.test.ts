import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { runAuditVerify, slackHttpEnv, spawnBot, stopAllBots } from '../helpers/bot-process.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';
import { faultyFs } from '../helpers/faulty-fs.js';
import { SLACK_CHANGE_VERIFIED } from '../helpers/journal-events.js';
import { networkPostsWhere } from '../helpers/network-writes.js';
import { type SlackBot, startSlackBot } from '../helpers/slack-bot.js';
import { buttonsOf } from '../helpers/slack-buttons.js';
import { buttonBody, slackHeaders } from '../helpers/slack-requests.js';

// Networks serve as the sample write on their classic path (networkconf routes and faults): a 9.0
// console. Networks through the official API (10.1): tools/networks-official.test.ts.

const SECRET = 'disk-full-restart-signing-secret';
const FLOPPY =
  ':floppy_disk: Not recorded: the approvals journal cannot be written (the disk is full, ENOSPC), so nothing was recorded. ' +
  "Nothing was run; ask an admin to check the bot's storage (/healthz says why), then try again.";

let sim: Simulator;
let slack: FakeSlack;
let first: SlackBot | undefined;

beforeAll(async () => {
  [sim, slack] = await Promise.all([startSimulator({ apiVersion: '9.0' }), startFakeSlack()]);
});
afterEach(async () => {
  await first?.close();
  first = undefined;
  await stopAllBots();
});
afterAll(async () => {
  await Promise.all([sim?.close(), slack?.close()]);
});

const networkPosts = (name: string) => networkPostsWhere(sim, 'name', name);
const threadOf = (ts: string) => slack.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === ts);
const journalOf = (dataDir: string) => readFileSync(join(dataDir, 'approvals.jsonl'), 'utf8');
const journalTypes = (dataDir: string, id: string) =>
  journalOf(dataDir)
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: string; type: string })
    .filter((event) => event.id === id)
    .map((event) => event.type);

/** What the user read on response_url after `/net <text>` or a click on the in-process bot. */
async function readOn(b: SlackBot, responseUrl: string): Promise<string> {
  await b.slack.waitFor(() => b.slack.responses.some((r) => responseUrl.endsWith(r.path)));
  return String(b.slack.responses.find((r) => responseUrl.endsWith(r.path))?.body.text);
}

/** The built audit:verify on a DATA_DIR, with nothing else in its environment. */
const auditVerifyOf = (dataDir: string) => runAuditVerify({ DATA_DIR: dataDir });

// Deliberately alike: each disk-full scenario starts a bot on its own faulty disk.
describe('the built bot after the disk filled up during appends', () => {
  it('starts healthy on the same DATA_DIR, the pending request still pending and run once, the refused one left no trace, audit:verify exits 0', async () => {
    // Arrange: one pending request, recorded with its message, on a bot whose disk then fills up.
    const dataDir = mkdtempSync(join(tmpdir(), 'netops-full-restart-'));
    const disk = faultyFs();
    first = await startSlackBot({
      dataDir,
      sim,
      store: new FileStore(dataDir, { data: new MemoryStore(), fs: disk.seam }),
    });
    const b = first;
    await b.command('create_network name=Kept vlan_id=83 subnet=10.83.0.0/24', 'U1');
    await b.slack.waitFor(() => b.slack.callsOf('chat.postMessage').length === 1);
    const id =
      buttonsOf(b.slack.callsOf('chat.postMessage')[0]).find((x) => x.action_id === 'approve')?.value ?? '';
    await b.slack.waitFor(async () => (await b.approvals.get(id))?.message !== undefined);
    const ts = String((await b.approvals.get(id))?.message?.ts);
    const beforeFaults = journalOf(dataDir);

    // Act 1: the disk fills up mid-line while a second change is requested, then while the first
    // is approved (10 bytes of each line reach the file before ENOSPC).
    disk.faults.enospcAfter = 10;
    const refused = await b.command('create_network name=Lost vlan_id=84 subnet=10.84.0.0/24', 'U1');
    const refusedRead = await readOn(b, refused.responseUrl);
    disk.faults.enospcAfter = 10;
    const click = await b.click('approve', id, 'U2');
    const clickRead = await readOn(b, click.responseUrl);
    const afterFaults = journalOf(dataDir);
    const stateBeforeClose = (await b.approvals.get(id))?.state;
    const postedBeforeClose = b.slack.callsOf('chat.postMessage').length;
    await b.close();
    first = undefined;

    // Act 2: the built program on the same DATA_DIR, no faults; the first request approved there.
    const bot = spawnBot({
      ...slackHttpEnv(slack, SECRET, sim),
      DATA_DIR: dataDir,
    });
    const listening = await bot.waitForLog((l) => l.msg.startsWith('listening on port'));
    const url = `http://127.0.0.1:${String(listening.port)}`;
    await slack.waitFor(async () => (await fetch(`${url}/healthz`)).status === 200, 10_000);
    const health = (await (await fetch(`${url}/healthz`)).json()) as Record<string, unknown>;
    const body = buttonBody({
      actionId: 'approve',
      value: id,
      userId: 'U2',
      response_url: slack.responseUrl(),
    });
    const approved = await fetch(`${url}/slack/events`, {
      method: 'POST',
      headers: slackHeaders(SECRET, body),
      body,
    });
    await slack.waitFor(() => journalTypes(dataDir, id).includes('succeeded'), 10_000);
    await slack.waitFor(() => threadOf(ts).length > 0);
    const audit = await auditVerifyOf(dataDir);
    const exit = await bot.stop('SIGTERM');

    // Assert: the users were told; the file was cut back to its last whole line both times.
    expect(refusedRead).toBe(FLOPPY);
    expect(clickRead).toBe(FLOPPY);
    expect(stateBeforeClose).toBe('pending');
    expect(postedBeforeClose).toBe(1);
    expect(afterFaults).toBe(beforeFaults);
    // The restart: healthy, one pending request, nothing moved aside as torn.
    expect(health).toMatchObject({ status: 'ok', store: { kind: 'file', ok: true }, pending_changes: 1 });
    expect(bot.logs().filter((l) => /torn/.test(l.msg))).toEqual([]);
    expect(readdirSync(dataDir).filter((f) => f.startsWith('approvals.jsonl.torn-'))).toEqual([]);
    // The kept request ran once; the refused one never reached the journal or the controller.
    expect(approved.status).toBe(200);
    expect(journalTypes(dataDir, id)).toEqual(SLACK_CHANGE_VERIFIED);
    expect(networkPosts('Kept')).toHaveLength(1);
    expect(threadOf(ts).map((c) => c.args.text)).toEqual([':white_check_mark: Create network done.']);
    expect(sim.state.findNetworkByName('default', 'Kept')).toMatchObject({ vlan: 83 });
    expect(networkPosts('Lost')).toEqual([]);
    expect(journalOf(dataDir)).not.toContain('Lost');
    expect(audit.code).toBe(0);
    // The change's `verified` event is the sixth.
    expect(audit.stdout).toMatch(/^journal OK: 6 events, chain verified/);
    expect(exit).toEqual({ code: 0, signal: null });
  }, 30_000);
});
