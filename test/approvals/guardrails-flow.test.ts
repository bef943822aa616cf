import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Approvals } from '../../src/approvals/approvals.js';
import { guardrailFields, guardrailLines } from '../../src/approvals/guardrail-view.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { writePolicyFile } from '../helpers/policy-files.js';
import { startTestBot, type TestBot } from '../helpers/test-bot.js';
import { openApprovals } from './bot-harness.js';
import { ALEX, Clock, journalEvents, RITA, STAN, tempDataDir } from './harness.js';

// The policy in process: it is evaluated again, on a fresh read, at each approval; a change
// it now denies is not run and says why.
// Deliberately alike: a policy file is data; each file writes the rules its own tests need.
const policyFile = writePolicyFile(
  'netops-flow-policy-',
  `rules:
  - name: no-delete-with-clients
    when: tool == "delete_network" && blast_radius.clients.count > 0
    deny: Move the clients off the network first
  - name: two-for-deletes
    when: tool == "delete_network"
    approvals: 2
`,
);

let bot: TestBot;
let approvals: Approvals;
let store: FileStore;
const data = tempDataDir();

beforeAll(async () => {
  bot = await startTestBot({ env: { POLICY_FILE: policyFile } });
  store = new FileStore(data.dir, { data: new MemoryStore() });
  approvals = await openApprovals(bot.app, store.changes(), new Clock());
});
afterAll(async () => {
  await store.close();
  await bot.close();
  data.remove();
});

describe('the policy again at approval', () => {
  it('does not run a change the policy denies since it was proposed, and records why', async () => {
    await bot.run('create_network', { name: 'Lab', vlan_id: 44, subnet: '10.44.0.0/24', confirm: true });
    const lab = bot.site().networks.find((n) => n.name === 'Lab');
    const request = await approvals.propose({
      tool: 'delete_network',
      args: { network_id: 'Lab' },
      requester: RITA,
    });
    // Its risk and what it needs are kept on the request, and every face words them the same.
    // An empty network only a zone lists: medium (the zone loses it); the rule asks for two.
    expect(request.assessment).toMatchObject({ risk: 'medium', approvals: 2 });
    expect(guardrailFields(request)).toMatchObject({
      risk: 'medium',
      approvals_needed: 2,
      approvals_given: 0,
    });
    expect(guardrailLines(request)[1]).toBe('needs 2 approvals from people other than the requester');

    const first = await approvals.approve(request.id, ALEX);
    expect(first.kind).toBe('endorsed');
    // A client joins Lab before the second approval.
    const client = bot.site().clients[0];
    // stat/sta names the network by classic id and by name (the official path matches the name).
    if (client && lab) Object.assign(client, { network_id: lab._id, network: lab.name });
    const second = await approvals.approve(request.id, STAN);

    expect(second.kind).toBe('failed');
    expect(second.kind === 'failed' && second.request.notRun).toBe(true);
    expect(second.kind === 'failed' && second.error.message).toBe(
      'not run: the policy refuses it now, refused by policy rule "no-delete-with-clients": Move the clients off the network first',
    );
    expect(bot.writes().filter((w) => w.method === 'DELETE')).toEqual([]);
    expect(
      journalEvents(data.journal)
        .filter((e) => e.id === request.id)
        .map((e) => e.type),
    ).toEqual(['created', 'endorsed', 'failed']);
  });
});
