import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Approvals } from '../../src/approvals/approvals.js';
import { NotAuthorizedError } from '../../src/errors.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { writePolicyFile } from '../helpers/policy-files.js';
import { startTestBot, type TestBot } from '../helpers/test-bot.js';
import { openApprovals } from './bot-harness.js';
import { ALEX, Clock, journalEvents, RITA, STAN, tempDataDir } from './harness.js';

// Rita may break glass; Stan reviews. Networks need two approvals, and deleting Guest is denied.
const policyFile = writePolicyFile(
  'netops-break-glass-',
  `rules:
  - name: two-for-networks
    when: tool.endsWith("_network")
    approvals: 2
  - name: keep-guest
    when: tool == "delete_network" && has(target.name) && target.name == "Guest"
    deny: Guest stays
breakglass:
  allowed: [U0RITA]
  approvals: 1
  reviewers: [U0STAN]
  review_within: 2h
`,
);

let bot: TestBot;
let approvals: Approvals;
let store: FileStore;
let clock: Clock;
const data = tempDataDir();

beforeAll(async () => {
  bot = await startTestBot({ env: { POLICY_FILE: policyFile }, simulator: { apiVersion: '9.0' } });
});
beforeEach(async () => {
  await store?.close();
  bot.sim.reset();
  bot.sim.clearRequests();
  store = new FileStore(mkdtempSync(join(data.dir, 'run-')), { data: new MemoryStore() });
  clock = new Clock();
  approvals = await openApprovals(bot.app, store.changes(), clock);
});
// Deliberately alike: a fresh file store per suite in its own temp dir, opened and closed by the suite that uses it.
afterAll(async () => {
  await store.close();
  await bot.close();
  data.remove();
});

describe('break-glass', () => {
  it('asks one approval instead of two from a person the terms allow, and records the reason and the review', async () => {
    const { request, notes } = await approvals.breakGlass({
      tool: 'create_network',
      args: { name: 'Hotfix', vlan_id: 77, subnet: '10.77.0.0/24' },
      requester: RITA,
      channel: 'C0OPS',
      reason: 'uplink down at the branch',
    });
    expect(notes).toEqual([
      'break-glass: 1 approval instead of 2',
      'reviewed afterwards by <@U0STAN> within 2h',
    ]);
    expect(request.breakGlass).toMatchObject({
      reason: 'uplink down at the branch',
      approvals: 1,
      reviewers: ['U0STAN'],
    });
    expect(Date.parse(request.breakGlass?.reviewDueAt ?? '') - clock.now()).toBe(2 * 3600 * 1000);

    // One approval is still asked: the requester's word alone does not run it.
    expect((await approvals.runOnWord(request.id, RITA)).kind).toBe('refused');
    const approved = await approvals.approve(request.id, ALEX);
    expect(approved.kind).toBe('succeeded');
    expect(bot.site().networks.some((n) => n.name === 'Hotfix')).toBe(true);
  });

  it('refuses a person the terms do not allow, and a deny whatever the terms, sending nothing', async () => {
    const asked = (requester: typeof RITA, tool: string, args: Record<string, unknown>) =>
      approvals.breakGlass({ tool, args, requester, reason: 'now' }).catch((e: unknown) => e);
    const alex = await asked(ALEX, 'create_network', { name: 'X', vlan_id: 78, subnet: '10.78.0.0/24' });
    expect(alex).toBeInstanceOf(NotAuthorizedError);
    expect((alex as Error).message).toMatch(
      /only the policy's breakglass: allowed \(<@U0RITA>\) may break glass/,
    );
    const guest = await asked(RITA, 'delete_network', { network_id: 'Guest' });
    expect((guest as Error).message).toBe(
      'break-glass never overrides a deny: refused by policy rule "keep-guest": Guest stays',
    );
    expect(await store.changes().list()).toEqual([]);
    expect(bot.writes()).toEqual([]);
  });

  it('owes a review until a named reviewer acknowledges it, overdue after its deadline', async () => {
    const { request } = await approvals.breakGlass({
      tool: 'create_network',
      args: { name: 'Hotfix2', vlan_id: 79, subnet: '10.79.0.0/24' },
      requester: RITA,
      reason: 'outage',
    });
    expect(await approvals.openReviews()).toEqual([
      { request: expect.objectContaining({ id: request.id }), overdue: false },
    ]);
    clock.advance(2 * 3600);
    expect((await approvals.openReviews()).map((r) => r.overdue)).toEqual([true]);

    await expect(approvals.reviewBreakGlass(request.id, ALEX)).rejects.toThrow(
      /only the policy's breakglass: reviewers \(<@U0STAN>\) may review this break-glass change/,
    );
    const reviewed = await approvals.reviewBreakGlass(request.id, STAN);
    expect(reviewed.breakGlass?.reviewedBy).toEqual(STAN);
    expect(await approvals.openReviews()).toEqual([]);
    await expect(approvals.reviewBreakGlass(request.id, STAN)).rejects.toThrow(/reviewed already by stan/);
    expect(journalEvents(join(store.dataDir, 'approvals.jsonl')).map((e) => e.type)).toEqual([
      'created',
      'reviewed',
    ]);
  });

  it('keeps both reviews opened at once, and reads and closes one an earlier version kept in its list', async () => {
    const open = (name: string, vlan: number) =>
      approvals.breakGlass({
        tool: 'create_network',
        args: { name, vlan_id: vlan, subnet: `10.${vlan}.0.0/24` },
        requester: RITA,
        reason: 'outage',
      });
    // Opened together, as two replicas would: neither may drop the other's.
    const [first, second] = await Promise.all([open('Hotfix3', 81), open('Hotfix4', 82)]);
    const openIds = async () => (await approvals.openReviews()).map((r) => r.request.id).sort();
    expect(await openIds()).toEqual([first.request.id, second.request.id].sort());

    const data = bot.app.context.store;
    await data.delete(`breakglass-review:${second.request.id}`);
    await data.set('breakglass-reviews', [second.request.id]);
    expect(await openIds()).toEqual([first.request.id, second.request.id].sort());
    await approvals.reviewBreakGlass(second.request.id, STAN);
    expect(await data.get('breakglass-reviews')).toEqual([]);
    expect(await openIds()).toEqual([first.request.id]);
  });
});
