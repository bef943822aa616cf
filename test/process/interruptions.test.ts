import { appendFileSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/store/file/journal.js';
import {
  type BotProcess,
  runAuditVerify,
  slackHttpEnv,
  spawnListeningBot,
  stopAllBots,
} from '../helpers/bot-process.js';
import { callText } from '../helpers/fake-slack.js';
import { SLACK_CHANGE_VERIFIED } from '../helpers/journal-events.js';
import { networkPostsWhere } from '../helpers/network-writes.js';
import { buttonsOf } from '../helpers/slack-buttons.js';
import { buttonBody, commandBody, slackHeaders } from '../helpers/slack-requests.js';
import { useSlackRig } from '../helpers/slack-rig.js';

// Networks serve as the sample write on their classic path (networkconf routes and faults): a 9.0
// console. Networks through the official API (10.1): tools/networks-official.test.ts.

const SECRET = 'interruptions-signing-secret';

const rig = useSlackRig({ apiVersion: '9.0' });
afterEach(async () => {
  await stopAllBots();
  rig.sim.clearFaults();
});

/** The bot in HTTP mode on `dataDir`, with the port it listens on. */
function start(dataDir: string): Promise<{ bot: BotProcess; url: string }> {
  return spawnListeningBot({ ...slackHttpEnv(rig.slack, SECRET, rig.sim), DATA_DIR: dataDir });
}

async function post(url: string, body: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}/slack/events`, {
    method: 'POST',
    headers: slackHeaders(SECRET, body),
    body,
  });
  return { status: response.status, text: await response.text() };
}

const updatesOf = (ts: string) => rig.slack.callsOf('chat.update').filter((c) => c.args.ts === ts);
const networkPosts = (name: string) => networkPostsWhere(rig.sim, 'name', name);

/** Proposes a network through the bot; the request id, and the preview's ts once the bot recorded it. */
async function propose(
  url: string,
  dataDir: string,
  name: string,
  vlan: number,
): Promise<{ id: string; ts: string }> {
  const before = rig.slack.callsOf('chat.postMessage').length;
  const text = `create_network name=${name} vlan_id=${vlan} subnet=10.${vlan}.0.0/24`;
  await post(
    url,
    commandBody({ text, user_id: 'U1', channel_id: 'C1', response_url: rig.slack.responseUrl() }),
  );
  const preview = () =>
    rig.slack
      .callsOf('chat.postMessage')
      .slice(before)
      .find((c) => callText(c).includes(name));
  await rig.slack.waitFor(() => preview() !== undefined, 10_000);
  const id = buttonsOf(preview()).find((b) => b.action_id === 'approve')?.value ?? '';
  const recorded = () =>
    journalEvents(dataDir).find((e) => e.id === id && e.type === 'message') as
      | { message: { ts: string } }
      | undefined;
  await rig.slack.waitFor(() => recorded() !== undefined, 5_000);
  return { id, ts: recorded()?.message.ts ?? '' };
}

function journalEvents(dataDir: string): { id: string; type: string }[] {
  return readFileSync(join(dataDir, 'approvals.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: string; type: string });
}

function approve(url: string, id: string, user = 'U2'): Promise<{ status: number; text: string }> {
  return post(
    url,
    buttonBody({ actionId: 'approve', value: id, userId: user, response_url: rig.slack.responseUrl() }),
  );
}

function journalTypes(dataDir: string, id: string): string[] {
  return journalEvents(dataDir)
    .filter((event) => event.id === id)
    .map((event) => event.type);
}

/** The built audit:verify on a DATA_DIR, with nothing else in its environment. */
const auditVerifyOf = (dataDir: string) => runAuditVerify({ DATA_DIR: dataDir });

describe('the built bot after a crash tore the journal’s last line', () => {
  it('moves the torn line aside with a warning, starts with its pending request, and audit:verify passes', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'netops-torn-'));
    const now = Date.now();
    // Deliberately alike: a journal written by hand is data: the record a crash left, whole.
    const { journal } = Journal.open(join(dataDir, 'approvals.jsonl'));
    const request = {
      id: 'cr_tornlinetestaaaaaaaaa',
      tool: 'create_network',
      site: 'default',
      args: { site_id: 'default', name: 'Torn', vlan_id: 77, subnet: '10.77.0.0/24' },
      requester: { userId: 'U1' },
      channel: 'C1',
      preview: { dry_run: true, would_create: { name: 'Torn' }, warnings: [] },
      previewHash: 'a'.repeat(64),
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + 900_000).toISOString(),
      state: 'pending' as const,
    };
    journal.append({ type: 'created', id: request.id, actor: { userId: 'U1' }, request });
    journal.close();
    appendFileSync(join(dataDir, 'approvals.jsonl'), '{"seq":2,"at":"2026-01-01T00:00:00.000Z","pr');

    const { bot, url } = await start(dataDir);
    const health = (await (await fetch(`${url}/healthz`)).json()) as Record<string, unknown>;
    const audit = await auditVerifyOf(dataDir);

    const warning = bot.logs().find((l) => /was torn/.test(l.msg));
    expect(warning).toMatchObject({ level: 40, line: 2 });
    expect(String(warning?.moved_to)).toMatch(/approvals\.jsonl\.torn-/);
    expect(readdirSync(dataDir).filter((f) => f.startsWith('approvals.jsonl.torn-'))).toHaveLength(1);
    expect(health).toMatchObject({ status: 'ok', pending_changes: 1 });
    expect(audit.code).toBe(0);
    expect(audit.stdout).toMatch(/^journal OK: 1 event, chain verified/);
    expect(await bot.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  });
});

describe('SIGTERM while a change is being written', () => {
  it('refuses new work, waits for the write, records it once, says Done, and exits 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'netops-sigterm-'));
    const { bot, url } = await start(dataDir);
    const { id, ts } = await propose(url, dataDir, 'Sigterm', 78);
    rig.sim.injectFault({ kind: 'latency', ms: 1_500, method: 'POST', route: 'rest/networkconf' });
    await approve(url, id);
    await rig.slack.waitFor(() => networkPosts('Sigterm').length === 1, 10_000);

    const exit = bot.stop('SIGTERM');
    await bot.waitForLog((l) => l.msg.startsWith('stopping: waiting for running work'));
    const refused = await post(
      url,
      commandBody({ text: 'list_vlans', user_id: 'U3', response_url: rig.slack.responseUrl() }),
    );

    expect(await exit).toEqual({ code: 0, signal: null });
    expect(refused.status).toBe(200);
    expect(JSON.parse(refused.text).text).toMatch(/^:hourglass: The bot is restarting and takes no new work/);
    expect(networkPosts('Sigterm')).toHaveLength(1);
    expect(rig.sim.state.findNetworkByName('default', 'Sigterm')).toMatchObject({ vlan: 78 });
    expect(callText(updatesOf(ts)[0])).toContain('*Running…*');
    expect(callText(updatesOf(ts).at(-1))).toContain('*Done*');
    expect(buttonsOf(updatesOf(ts).at(-1))).toEqual([]);
    expect(rig.slack.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === ts)).toHaveLength(1);
    expect(journalTypes(dataDir, id)).toEqual(SLACK_CHANGE_VERIFIED);
    expect(bot.logs().map((l) => l.msg)).toContain('stopped');
    expect((await auditVerifyOf(dataDir)).code).toBe(0);
  }, 30_000);
});

describe('SIGKILL while a change is being written', () => {
  it('at the restart, edits the message to "outcome unknown" without buttons, and never runs it again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'netops-sigkill-'));
    const first = await start(dataDir);
    const { id, ts } = await propose(first.url, dataDir, 'Sigkill', 79);
    rig.sim.injectFault({ kind: 'latency', ms: 1_500, method: 'POST', route: 'rest/networkconf' });
    await approve(first.url, id);
    await rig.slack.waitFor(() => networkPosts('Sigkill').length === 1, 10_000);
    await first.bot.stop('SIGKILL');

    const second = await start(dataDir);
    await rig.slack.waitFor(() => updatesOf(ts).some((c) => callText(c).includes('Outcome unknown')), 10_000);
    const retry = await approve(second.url, id, 'U3');
    await rig.slack.waitFor(() => rig.sim.state.findNetworkByName('default', 'Sigkill') !== undefined, 5_000);

    const unknown = updatesOf(ts).find((c) => callText(c).includes('Outcome unknown'));
    expect(callText(unknown)).toContain('may or may not have reached the controller');
    expect(buttonsOf(unknown)).toEqual([]);
    expect(retry.status).toBe(200);
    expect(networkPosts('Sigkill')).toHaveLength(1);
    expect(journalTypes(dataDir, id)).toEqual([
      'created',
      'message',
      'approved',
      'executing',
      'outcome_unknown',
    ]);
    expect((await auditVerifyOf(dataDir)).code).toBe(0);
    expect(await second.bot.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  }, 30_000);
});
