import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import type { Approvals } from '../../src/approvals/approvals.js';
import { mcpRequester } from '../../src/approvals/mcp-requester.js';
import type { ChangeRequest } from '../../src/approvals/types.js';
import { NotAuthorizedError, ResourceNotFoundError, ValidationError } from '../../src/errors.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { DEMO_NETWORKS } from '../../src/simulator/index.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { Journal, JournalIntegrityError } from '../../src/store/file/journal.js';
import { CHANGE_VERIFIED } from '../helpers/journal-events.js';
import { useTestBot } from '../helpers/tool-test.js';
import { appFor, openApprovals } from './bot-harness.js';
import { ALEX, Clock, journalEvents, policyWith, RITA, STAN, START, tempDataDir } from './harness.js';

const LAB = { name: 'Lab', vlan_id: '44', subnet: '10.44.0.0/24' };

// Networks serve as the sample here on their classic path (networkconf, its faults and stored
// fields): a 9.0 console. The official path (10.1): tools/networks-official.test.ts.
const bot = useTestBot({ simulator: { apiVersion: '9.0' } });
let data: ReturnType<typeof tempDataDir>;
let clock: Clock;
const opened = new Map<Approvals, FileStore>();
const extraApps: App[] = [];

/** Opens Approvals on a file store in this test's DATA_DIR (closed after the test, or by `close`). */
async function open(
  options: { policy?: ReturnType<typeof policyWith>; app?: App; ttl?: number } = {},
): Promise<Approvals> {
  const store = new FileStore(data.dir, { data: new MemoryStore() });
  try {
    const approvals = await openApprovals(
      options.app ?? bot.app,
      store.changes(),
      clock,
      options.policy,
      options.ttl,
    );
    opened.set(approvals, store);
    return approvals;
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** Rita proposes under `policy`; Stan, then Alex, approve: the two outcomes, in that order. */
async function stanThenAlex(policy: ReturnType<typeof policyWith>) {
  const approvals = await open({ policy });
  const request = await approvals.propose({ tool: 'create_network', args: LAB, requester: RITA });
  const refused = await approvals.approve(request.id, STAN);
  const accepted = await approvals.approve(request.id, ALEX);
  return { refused, accepted };
}

/** Closes the store under `approvals`, as a stopping bot does. */
async function close(approvals: Approvals): Promise<void> {
  await opened.get(approvals)?.close();
  opened.delete(approvals);
}

function posts() {
  return bot.writes().filter((r) => r.method === 'POST');
}

beforeEach(() => {
  bot.sim.clearFaults();
  data = tempDataDir();
  clock = new Clock();
});
afterEach(async () => {
  for (const store of opened.values()) await store.close();
  opened.clear();
  for (const app of extraApps.splice(0)) await app.close();
  data.remove();
});

describe('propose', () => {
  // Deliberately alike: each approvals test proposes its own request; the requester and channel are what it checks.
  it('journals a pending request with the dry-run preview and its hash, and changes nothing', async () => {
    const approvals = await open();

    const request = await approvals.propose({
      tool: 'create_network',
      args: LAB,
      requester: RITA,
      channel: 'C0OPS',
    });

    expect(request.id).toMatch(/^cr_[a-z2-7]{20}$/);
    expect(request).toMatchObject({
      tool: 'create_network',
      site: 'default',
      args: { site_id: 'default', name: 'Lab', vlan_id: 44, subnet: '10.44.0.0/24' },
      requester: RITA,
      channel: 'C0OPS',
      state: 'pending',
      createdAt: '2030-01-01T00:00:00.000Z',
      expiresAt: '2030-01-01T00:15:00.000Z',
      preview: { dry_run: true, would_create: { name: 'Lab', vlan: 44, vlan_enabled: true } },
    });
    expect(request.args).not.toHaveProperty('dry_run');
    expect(request.previewHash).toMatch(/^[0-9a-f]{64}$/);
    expect(bot.writes()).toEqual([]);
    expect(journalEvents(data.journal).map((e) => [e.type, e.id])).toEqual([['created', request.id]]);
    expect(await approvals.get(request.id)).toEqual(request);
  });

  it('drops confirm and dry_run from the stored arguments', async () => {
    const approvals = await open();

    const request = await approvals.propose({
      tool: 'create_network',
      args: { ...LAB, confirm: true, dry_run: false },
      requester: RITA,
    });

    expect(request.args).not.toHaveProperty('confirm');
    expect(request.args).not.toHaveProperty('dry_run');
    expect(bot.writes()).toEqual([]);
  });

  it('refuses a read tool, naming `tool`, and journals nothing', async () => {
    const approvals = await open();

    const error = await approvals.propose({ tool: 'list_vlans', args: {}, requester: RITA }).catch((e) => e);

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      { field: 'tool', rule: 'list_vlans only reads; change requests are for writes' },
    ]);
    expect(existsSync(data.journal) ? readFileSync(data.journal, 'utf8') : '').toBe('');
  });

  it('lets validation and dry-run errors through unchanged and journals nothing', async () => {
    const approvals = await open();

    const invalid = await approvals
      .propose({ tool: 'create_network', args: { ...LAB, vlan: '44' }, requester: RITA })
      .catch((e) => e);
    const missing = await approvals
      .propose({ tool: 'delete_network', args: { network_id: 'Nope' }, requester: RITA })
      .catch((e) => e);

    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).issues[0]?.field).toBe('vlan');
    expect(missing).toBeInstanceOf(ResourceNotFoundError);
    expect(await approvals.list()).toEqual([]);
    expect(existsSync(data.journal) ? readFileSync(data.journal, 'utf8') : '').toBe('');
    expect(bot.writes()).toEqual([]);
  });

  it('supersedes an older pending request for the identical change', async () => {
    const approvals = await open();
    const first = await approvals.propose({ tool: 'create_network', args: LAB, requester: RITA });

    const second = await approvals.propose({ tool: 'create_network', args: LAB, requester: STAN });

    expect(second.replaces).toBe(first.id);
    expect(await approvals.get(first.id)).toMatchObject({ state: 'superseded', supersededBy: second.id });
    expect(await approvals.approve(first.id, ALEX)).toMatchObject({ kind: 'already' });
    expect((await approvals.list({ state: 'pending' })).map((r) => r.id)).toEqual([second.id]);
    expect(bot.writes()).toEqual([]);
  });

  it('keeps secrets in the stored record out of the preview and the journal', async () => {
    const guest = bot.site().networks.find((n) => n.name === 'Guest');
    if (!guest) throw new Error('no Guest network');
    guest.x_passphrase = 'correct horse battery';
    const approvals = await open();

    const request = await approvals.propose({
      tool: 'update_network',
      args: { network_id: 'Guest', dhcp_dns_1: '1.1.1.1' },
      requester: RITA,
    });

    expect(request.preview).toMatchObject({ would_send: { x_passphrase: '[redacted]' } });
    expect(readFileSync(data.journal, 'utf8')).not.toContain('correct horse');
  });
});

describe('approve', () => {
  it('runs the change once approved by a second user and keeps the result', async () => {
    const approvals = await open();
    const request = await approvals.propose({ tool: 'create_network', args: LAB, requester: RITA });
    clock.advance(60);

    const outcome = await approvals.approve(request.id, ALEX);

    expect(outcome.kind).toBe('succeeded');
    if (outcome.kind !== 'succeeded') return;
    expect(outcome.result).toMatchObject({ success: true, network: { name: 'Lab', vlan_id: 44 } });
    expect(outcome.request).toMatchObject({
      state: 'succeeded',
      approver: ALEX,
      decidedAt: '2030-01-01T00:01:00.000Z',
      result: { success: true, network: { name: 'Lab', vlan_id: 44 } },
    });
    expect(bot.site().networks.find((n) => n.name === 'Lab')).toMatchObject({ vlan_enabled: true, vlan: 44 });
    expect(posts()).toHaveLength(1);
    expect(journalEvents(data.journal).map((e) => e.type)).toEqual([...CHANGE_VERIFIED]);
    expect((await approvals.get(request.id))?.state).toBe('succeeded');
  });

  it('says `already` to a late click on a finished request and runs nothing more', async () => {
    const approvals = await open();
    const request = await approvals.propose({ tool: 'create_network', args: LAB, requester: RITA });
    await approvals.approve(request.id, ALEX);

    const late = await approvals.approve(request.id, STAN);

    expect(late).toMatchObject({ kind: 'already', request: { state: 'succeeded' } });
    expect(posts()).toHaveLength(1);
  });

  it('answers not_found for an id it has never seen', async () => {
    const approvals = await open();

    expect(await approvals.approve('cr_aaaaaaaaaaaaaaaaaaaa', ALEX)).toEqual({
      kind: 'not_found',
      id: 'cr_aaaaaaaaaaaaaaaaaaaa',
    });
    expect(await approvals.cancel('cr_aaaaaaaaaaaaaaaaaaaa', ALEX)).toEqual({
      kind: 'not_found',
      id: 'cr_aaaaaaaaaaaaaaaaaaaa',
    });
  });

  it('refuses self-approval by default, saying why, and leaves the request pending', async () => {
    const approvals = await open();
    const request = await approvals.propose({ tool: 'create_network', args: LAB, requester: RITA });

    const outcome = await approvals.approve(request.id, { userId: RITA.userId });

    expect(outcome).toMatchObject({
      kind: 'refused',
      reason: 'you requested this change; someone else must approve it (ALLOW_SELF_APPROVAL is off)',
      request: { state: 'pending' },
    });
    expect(bot.writes()).toEqual([]);
    expect(journalEvents(data.journal).map((e) => e.type)).toEqual(['created']);
  });

  it('allows self-approval when ALLOW_SELF_APPROVAL is on', async () => {
    const approvals = await open({ policy: policyWith({ allowSelfApproval: true }) });
    const request = await approvals.propose({ tool: 'create_network', args: LAB, requester: RITA });

    const outcome = await approvals.approve(request.id, RITA);

    expect(outcome).toMatchObject({ kind: 'succeeded', request: { approver: RITA } });
    expect(posts()).toHaveLength(1);
  });

  it('with APPROVERS listing a user: refuses others by name of the list, accepts the user', async () => {
    const { refused, accepted } = await stanThenAlex(policyWith({ approvers: [ALEX.userId] }));

    expect(refused).toMatchObject({
      kind: 'refused',
      reason: 'only members of APPROVERS (<@U0ALEX>) may approve',
    });
    expect(accepted.kind).toBe('succeeded');
    expect(posts()).toHaveLength(1);
  });

  it('with APPROVERS listing a user group: accepts a member, refuses a non-member', async () => {
    const asked: string[] = [];
    const policy = policyWith({
      approvers: ['U0BOSS', 'S0NETOPS'],
      groupMembers: async (group) => {
        asked.push(group);
        return group === 'S0NETOPS' ? [ALEX.userId] : [];
      },
    });
    const { refused, accepted } = await stanThenAlex(policy);

    expect(refused).toMatchObject({
      kind: 'refused',
      reason: 'only members of APPROVERS (<@U0BOSS>, <!subteam^S0NETOPS>) may approve',
    });
    expect(accepted.kind).toBe('succeeded');
    expect(asked).toEqual(['S0NETOPS', 'S0NETOPS']);
  });

  it('refuses (fails closed) when the user group cannot be resolved', async () => {
    const policy = policyWith({
      approvers: ['S0NETOPS'],
      groupMembers: async () => {
        throw new Error('usergroups.users.list: missing_scope');
      },
    });
    const approvals = await open({ policy });
    const request = await approvals.propose({ tool: 'create_network', args: LAB, requester: RITA });

    const outcome = await approvals.approve(request.id, ALEX);

    expect(outcome).toMatchObject({ kind: 'refused', request: { state: 'pending' } });
    expect(outcome.kind === 'refused' && outcome.reason).toBe(
      'only members of APPROVERS (<!subteam^S0NETOPS>) may approve; membership of <!subteam^S0NETOPS> ' +
        'could not be checked right now, try again later',
    );
    expect(bot.writes()).toEqual([]);
  });

  it('runs exactly once when two approvers click at the same moment', async () => {
    const approvals = await open();
    const request = await approvals.propose({ tool: 'create_network', args: LAB, requester: RITA });

    const outcomes = await Promise.all([
      approvals.approve(request.id, ALEX),
      approvals.approve(request.id, STAN),
      approvals.approve(request.id, ALEX),
    ]);

    expect(outcomes.map((o) => o.kind).sort()).toEqual(['already', 'already', 'succeeded']);
    expect(posts()).toHaveLength(1);
    expect(bot.site().networks.filter((n) => n.name === 'Lab')).toHaveLength(1);
    expect(journalEvents(data.journal).filter((e) => e.type === 'approved')).toHaveLength(1);
  });

  it('records a failed write with its code, and never retries it', async () => {
    bot.sim.injectFault({ kind: 'status', status: 503, method: 'POST', route: 'rest/networkconf' });
    const approvals = await open();
    const request = await approvals.propose({ tool: 'create_network', args: LAB, requester: RITA });

    const outcome = await approvals.approve(request.id, ALEX);
    const again = await approvals.approve(request.id, ALEX);

    expect(outcome).toMatchObject({
      kind: 'failed',
      error: { code: 'gateway_unavailable' },
      request: { state: 'failed', error: { code: 'gateway_unavailable' } },
    });
    expect(again).toMatchObject({ kind: 'already', request: { state: 'failed' } });
    expect(posts()).toHaveLength(1);
    const failed = journalEvents(data.journal).at(-1);
    expect(failed).toMatchObject({
      type: 'failed',
      stage: 'execute',
      error: { code: 'gateway_unavailable' },
    });
    expect(JSON.stringify(failed)).not.toMatch(/\bat .*\.ts:\d+/);
  });

  it("keeps the controller's own code of a refused write, for the messages and the journal", async () => {
    bot.sim.injectFault({ kind: 'status', status: 400, method: 'POST', route: 'rest/networkconf' });
    const approvals = await open();
    const request = await approvals.propose({ tool: 'create_network', args: LAB, requester: RITA });

    const outcome = await approvals.approve(request.id, ALEX);

    expect(outcome).toMatchObject({
      kind: 'failed',
      error: { code: 'gateway_rejected', controllerCode: 'api.err.Invalid' },
    });
    expect(journalEvents(data.journal).at(-1)).toMatchObject({
      type: 'failed',
      error: { code: 'gateway_rejected', controllerCode: 'api.err.Invalid' },
    });
  });

  it('fails without sending anything when the approval-time dry run fails', async () => {
    const approvals = await open();
    const request = await approvals.propose({ tool: 'create_network', args: LAB, requester: RITA });
    await bot.run('create_network', { name: 'Other', vlan_id: 44, subnet: '10.45.0.0/24', confirm: true });
    bot.sim.clearRequests();

    const outcome = await approvals.approve(request.id, ALEX);

    expect(outcome).toMatchObject({ kind: 'failed', error: { code: 'conflict' } });
    expect(outcome.kind === 'failed' && outcome.error.message).toMatch(
      /^not run, the check at approval failed: VLAN 44 is already used by Other/,
    );
    expect(bot.writes()).toEqual([]);
    expect(journalEvents(data.journal).map((e) => e.type)).toEqual(['created', 'approved', 'failed']);
  });
});

describe('expiry', () => {
  it('says expired at click time once the TTL has passed, and runs nothing', async () => {
    const approvals = await open({ ttl: 60 });
    const request = await approvals.propose({ tool: 'create_network', args: LAB, requester: RITA });
    clock.advance(60);

    const outcome = await approvals.approve(request.id, ALEX);

    expect(outcome).toMatchObject({ kind: 'expired', request: { state: 'expired' } });
    expect(bot.writes()).toEqual([]);
    expect(journalEvents(data.journal).map((e) => e.type)).toEqual(['created', 'expired']);
  });

  it('expireDue returns exactly the overdue pending requests, once', async () => {
    const approvals = await open({ ttl: 60 });
    const old = await approvals.propose({ tool: 'create_network', args: LAB, requester: RITA });
    clock.advance(30);
    const young = await approvals.propose({
      tool: 'delete_network',
      args: { network_id: 'Cameras' },
      requester: RITA,
    });
    clock.advance(31);

    const first = await approvals.expireDue();
    const second = await approvals.expireDue();

    expect(first.map((r) => [r.id, r.state])).toEqual([[old.id, 'expired']]);
    expect(second).toEqual([]);
    expect((await approvals.get(young.id))?.state).toBe('pending');
    expect(await approvals.cancel(old.id, RITA)).toMatchObject({
      kind: 'already',
      request: { state: 'expired' },
    });
  });
});

describe('drift', () => {
  it('runs nothing when the network changed since the preview, and offers a new preview', async () => {
    const approvals = await open();
    const request = await approvals.propose({
      tool: 'update_network',
      args: { network_id: 'Guest', vlan_id: 31 },
      requester: RITA,
    });
    const guest = bot.site().networks.find((n) => n.name === 'Guest');
    if (!guest) throw new Error('no Guest network');
    guest.vlan = 32;
    clock.advance(10);

    const outcome = await approvals.approve(request.id, ALEX);

    expect(outcome.kind).toBe('drift');
    if (outcome.kind !== 'drift') return;
    expect(bot.writes()).toEqual([]);
    expect(outcome.differences).toContain('changes.vlan.from: 30 → 32');
    expect(outcome.request).toMatchObject({ state: 'superseded', supersededBy: outcome.replacement.id });
    expect(outcome.replacement).toMatchObject({
      state: 'pending',
      requester: RITA,
      replaces: request.id,
      preview: { changes: { vlan: { from: 32, to: 31 } } },
      createdAt: '2030-01-01T00:00:10.000Z',
    });
    expect(outcome.replacement.previewHash).not.toBe(request.previewHash);

    const second = await approvals.approve(outcome.replacement.id, ALEX);

    expect(second.kind).toBe('succeeded');
    expect(bot.writes().map((r) => r.method)).toEqual(['PUT']);
    expect(bot.site().networks.find((n) => n.name === 'Guest')?.vlan).toBe(31);
  });

  it('ignores changes that only touch warnings (volatile facts such as client counts)', async () => {
    const approvals = await open();
    const request = await approvals.propose({
      tool: 'update_network',
      args: { network_id: 'Guest', vlan_id: 31 },
      requester: RITA,
    });
    bot.site().clients.push({
      _id: 'c-new',
      mac: '02:00:00:00:99:01',
      is_wired: false,
      network_id: DEMO_NETWORKS.guest.id,
    });

    const outcome = await approvals.approve(request.id, ALEX);

    expect(outcome.kind).toBe('succeeded');
    expect(bot.writes().map((r) => r.method)).toEqual(['PUT']);
  });
});

describe('restart', () => {
  it('brings a pending request back with its expiry, and runs it once when approved after the restart', async () => {
    const before = await open();
    const request = await before.propose({ tool: 'create_network', args: LAB, requester: RITA });
    await before.attachMessage(request.id, { channel: 'C0OPS', ts: '1700000000.000100' });
    await close(before);
    const app = appFor(bot.sim);
    extraApps.push(app);
    clock.advance(120);

    const after = await open({ app });
    const restored = await after.get(request.id);
    const outcome = await after.approve(request.id, ALEX);

    expect(restored).toEqual({ ...request, message: { channel: 'C0OPS', ts: '1700000000.000100' } });
    expect(outcome.kind).toBe('succeeded');
    expect(posts()).toHaveLength(1);
    expect(await after.approve(request.id, STAN)).toMatchObject({ kind: 'already' });
    expect(posts()).toHaveLength(1);
  });

  it('expires at open what expired while the bot was down', async () => {
    const before = await open({ ttl: 60 });
    const request = await before.propose({ tool: 'create_network', args: LAB, requester: RITA });
    await close(before);
    clock.advance(61);

    const after = await open({ ttl: 60 });

    expect((await after.get(request.id))?.state).toBe('expired');
    expect(journalEvents(data.journal).map((e) => e.type)).toEqual(['created', 'expired']);
  });

  it('marks a request caught executing by a crash as unknown and never re-runs it', async () => {
    const before = await open();
    const request = await before.propose({ tool: 'create_network', args: LAB, requester: RITA });
    await close(before);
    const { journal } = Journal.open(data.journal, { now: clock.now });
    journal.append({ type: 'approved', id: request.id, actor: ALEX, previewHash: request.previewHash });
    journal.append({ type: 'executing', id: request.id, actor: ALEX });
    journal.close();

    const after = await open();
    const outcome = await after.approve(request.id, ALEX);

    expect(await after.get(request.id)).toMatchObject({
      state: 'unknown',
      error: { code: 'outcome_unknown' },
    });
    expect(outcome).toMatchObject({ kind: 'already', request: { state: 'unknown' } });
    expect(await after.cancel(request.id, RITA)).toMatchObject({ kind: 'already' });
    expect(bot.writes()).toEqual([]);
    expect(journalEvents(data.journal).at(-1)).toMatchObject({
      type: 'outcome_unknown',
      id: request.id,
      previous: 'executing',
    });
  });

  it('refuses to open a journal that does not verify, naming the line, and changes nothing', async () => {
    const before = await open();
    const request = await before.propose({ tool: 'create_network', args: LAB, requester: RITA });
    await before.attachMessage(request.id, { channel: 'C0OPS', ts: '1.2' });
    await before.cancel(request.id, RITA);
    await close(before);
    const lines = readFileSync(data.journal, 'utf8').split('\n');
    lines[0] = (lines[0] ?? '').replace('"name":"Lab"', '"name":"Lap"');
    writeFileSync(data.journal, lines.join('\n'));

    const error = await open().then(
      () => undefined,
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(JournalIntegrityError);
    expect((error as Error).message).toMatch(/fails verification at line 1: /);
    expect(readFileSync(data.journal, 'utf8')).toBe(lines.join('\n'));
    expect(bot.writes()).toEqual([]);
  });

  it('refuses a second Approvals on the same journal in one process', async () => {
    await open();

    await expect(open()).rejects.toThrow(/already open in this process/);
  });
});

describe('cancel', () => {
  it('lets the requester cancel; a later approve says already and runs nothing', async () => {
    const approvals = await open();
    const request = await approvals.propose({ tool: 'create_network', args: LAB, requester: RITA });

    const cancelled = await approvals.cancel(request.id, RITA);
    const approve = await approvals.approve(request.id, ALEX);

    expect(cancelled).toMatchObject({
      kind: 'cancelled',
      request: { state: 'cancelled', cancelledBy: RITA },
    });
    expect(approve).toMatchObject({ kind: 'already', request: { state: 'cancelled' } });
    expect(bot.writes()).toEqual([]);
  });

  it('refuses a stranger when APPROVERS is set, and lets an approver cancel', async () => {
    const approvals = await open({ policy: policyWith({ approvers: [ALEX.userId] }) });
    const request = await approvals.propose({ tool: 'create_network', args: LAB, requester: RITA });

    const refused = await approvals.cancel(request.id, STAN);
    const state = (await approvals.get(request.id))?.state;
    const cancelled = await approvals.cancel(request.id, ALEX);

    expect(refused).toMatchObject({ kind: 'refused' });
    expect(refused.kind === 'refused' && refused.reason).toBe(
      'only the requester (<@U0RITA>) or someone who may approve can cancel it: ' +
        'only members of APPROVERS (<@U0ALEX>) may approve',
    );
    expect(state).toBe('pending');
    expect(cancelled.kind).toBe('cancelled');
  });
});

describe('who may request', () => {
  it('refuses a requester outside REQUESTERS, and journals nothing', async () => {
    const approvals = await open({ policy: policyWith({ requesters: [ALEX.userId] }) });

    const error = await approvals
      .propose({ tool: 'create_network', args: LAB, requester: RITA })
      .catch((e) => e);

    expect(error).toBeInstanceOf(NotAuthorizedError);
    expect((error as Error).message).toBe('only members of REQUESTERS (<@U0ALEX>) may request changes');
    expect(await approvals.list()).toEqual([]);
    expect(bot.sim.requests).toEqual([]);
  });

  it('accepts a member of a REQUESTERS user group', async () => {
    const policy = policyWith({ requesters: ['S0NETOPS'], groupMembers: async () => [RITA.userId] });
    const approvals = await open({ policy });

    const request: ChangeRequest = await approvals.propose({
      tool: 'create_network',
      args: LAB,
      requester: RITA,
    });

    expect(request.state).toBe('pending');
  });

  it('refuses outside WRITE_CHANNELS, and a request from no channel', async () => {
    const approvals = await open({ policy: policyWith({ writeChannels: ['C0OPS'] }) });

    const elsewhere = await approvals
      .propose({ tool: 'create_network', args: LAB, requester: RITA, channel: 'C0RANDOM' })
      .catch((e) => e);
    const nowhere = await approvals
      .propose({ tool: 'create_network', args: LAB, requester: RITA })
      .catch((e) => e);
    const allowed = await approvals.propose({
      tool: 'create_network',
      args: LAB,
      requester: RITA,
      channel: 'C0OPS',
    });

    expect(elsewhere).toBeInstanceOf(NotAuthorizedError);
    expect((elsewhere as Error).message).toBe(
      'changes may only be requested in WRITE_CHANNELS (<#C0OPS>); not in <#C0RANDOM>',
    );
    expect((nowhere as Error).message).toBe(
      'changes may only be requested in WRITE_CHANNELS (<#C0OPS>); this request came from no channel',
    );
    expect(allowed.state).toBe('pending');
    expect((await approvals.list()).map((r) => r.id)).toEqual([allowed.id]);
  });
});

describe('clock', () => {
  it('stamps journal events with the injected clock', async () => {
    const approvals = await open();

    await approvals.propose({ tool: 'create_network', args: LAB, requester: RITA });

    expect(journalEvents(data.journal)[0]?.at).toBe(new Date(START).toISOString());
  });
});

describe('changes from MCP clients', () => {
  const CLIENT = mcpRequester('ci', { name: 'Claude', version: '1.0' });

  it('runNow runs a write once, journaled as a request its requester approved, with the result', async () => {
    const approvals = await open();

    const outcome = await approvals.runNow({
      tool: 'create_network',
      args: { ...LAB, confirm: true },
      requester: CLIENT,
    });

    expect(outcome.kind).toBe('succeeded');
    expect(posts().filter((r) => r.route.endsWith('networkconf'))).toHaveLength(1);
    expect(journalEvents(data.journal).map((e) => e.type)).toEqual([...CHANGE_VERIFIED]);
    expect(outcome.request).toMatchObject({ state: 'succeeded', requester: CLIENT, approver: CLIENT });
    expect(outcome.request.args).not.toHaveProperty('confirm');
  });

  it('runNow records a failed write, and refuses a read', async () => {
    const approvals = await open();
    bot.sim.injectFault({ kind: 'status', status: 503, method: 'POST', route: 'rest/networkconf' });

    const outcome = await approvals.runNow({ tool: 'create_network', args: LAB, requester: CLIENT });

    expect(outcome).toMatchObject({ kind: 'failed', request: { state: 'failed' } });
    expect(journalEvents(data.journal).map((e) => e.type)).toEqual([
      'created',
      'approved',
      'executing',
      'failed',
    ]);
    await expect(
      approvals.runNow({ tool: 'list_vlans', args: {}, requester: CLIENT }),
    ).rejects.toBeInstanceOf(ValidationError);
  });

  it('lists pending MCP requests that no message shows yet, past a grace, for the bot to post once', async () => {
    const approvals = await open();
    const fromMcp = await approvals.propose({
      tool: 'create_network',
      args: LAB,
      requester: CLIENT,
      channel: 'C0NETOPS',
    });
    await approvals.propose({
      tool: 'delete_network',
      args: { network_id: 'Guest' },
      requester: RITA,
      channel: 'C0OPS',
    });

    expect(await approvals.unannounced(3000)).toEqual([]);
    clock.advance(4);
    expect((await approvals.unannounced(3000)).map((r) => r.id)).toEqual([fromMcp.id]);

    const first = await approvals.announce(fromMcp.id, { channel: 'C0NETOPS', ts: '1.1' });
    const second = await approvals.announce(fromMcp.id, { channel: 'C0NETOPS', ts: '1.2' });
    expect(first?.message).toEqual({ channel: 'C0NETOPS', ts: '1.1' });
    expect(second).toBeUndefined();
    expect(await approvals.unannounced(3000)).toEqual([]);
  });
});

describe('reminders', () => {
  const remindable = async (approvals: Approvals) => {
    const request = await approvals.propose({ tool: 'create_network', args: LAB, requester: RITA });
    await approvals.attachMessage(request.id, { channel: 'C0OPS', ts: '1.1' });
    return request;
  };

  it('claims the reminder of a request still pending after the delay once, journaled first', async () => {
    const approvals = await open();
    const request = await remindable(approvals);

    clock.advance(299);
    const early = await approvals.claimReminders(300);
    clock.advance(1);
    const due = await approvals.claimReminders(300);
    clock.advance(60);
    const later = await approvals.claimReminders(300);

    expect(early).toEqual([]);
    expect(due.map((r) => [r.id, r.state, r.remindedAt])).toEqual([
      [request.id, 'pending', '2030-01-01T00:05:00.000Z'],
    ]);
    expect(later).toEqual([]);
    expect(journalEvents(data.journal).map((e) => e.type)).toEqual(['created', 'message', 'reminded']);
  });

  it('claims none after approval or cancellation, none without a message, none past expiry, none with 0', async () => {
    const approvals = await open({ ttl: 600 });
    const approved = await remindable(approvals);
    const cancelled = await remindable(approvals);
    const waiting = await remindable(approvals);
    await approvals.propose({
      tool: 'create_network',
      args: { ...LAB, name: 'NoMsg', vlan_id: '45', subnet: '10.45.0.0/24' },
      requester: RITA,
    });
    await approvals.approve(approved.id, ALEX);
    await approvals.cancel(cancelled.id, RITA);

    clock.advance(300);
    const off = await approvals.claimReminders(0);
    const due = await approvals.claimReminders(300);
    const late = await remindable(approvals);
    clock.advance(600);
    const afterExpiry = await approvals.claimReminders(300);

    expect(off).toEqual([]);
    expect(due.map((r) => r.id)).toEqual([waiting.id]);
    expect(afterExpiry).toEqual([]);
    expect((await approvals.get(late.id))?.remindedAt).toBeUndefined();
  });

  it('is claimed once across a restart on the same journal', async () => {
    const first = await open();
    const request = await remindable(first);
    clock.advance(301);
    expect(await first.claimReminders(300)).toHaveLength(1);
    await close(first);

    const second = await open();

    expect(await second.claimReminders(300)).toEqual([]);
    expect((await second.get(request.id))?.remindedAt).toBe('2030-01-01T00:05:01.000Z');
  });
});

describe('change listeners', () => {
  it('hears every change this process makes, in order, and a failing listener changes nothing', async () => {
    const approvals = await open();
    const heard: string[] = [];
    approvals.onChange(() => {
      throw new Error('listener bug');
    });
    const stop = approvals.onChange((r) => heard.push(`${r.id.slice(0, 3)}:${r.state}`));

    const request = await approvals.propose({ tool: 'create_network', args: LAB, requester: RITA });
    const outcome = await approvals.approve(request.id, ALEX);
    stop();
    await approvals.propose({
      tool: 'create_network',
      args: { ...LAB, name: 'Lab2', vlan_id: '46', subnet: '10.46.0.0/24' },
      requester: RITA,
    });

    expect(outcome.kind).toBe('succeeded');
    expect(heard).toEqual([
      'cr_:pending',
      'cr_:approved',
      'cr_:executing',
      'cr_:succeeded',
      // The verification is recorded after the outcome (still succeeded).
      'cr_:succeeded',
    ]);
  });
});
