import { describe, expect, it } from 'vitest';
import { writePolicyFile } from '../helpers/policy-files.js';
import { useTestBot } from '../helpers/tool-test.js';
import { useFreshApprovals } from './bot-harness.js';
import { RITA } from './harness.js';

// Break-glass on the requester's word asks the gate again right before it runs: a change the
// policy denies by then does not run, and says why.

// Deliberately alike: each break-glass suite writes its own policy file; the denied network differs.
const policyFile = writePolicyFile(
  'netops-break-glass-word-',
  `rules:
  - name: keep-archive
    when: tool == "delete_network" && has(target.name) && target.name == "Archive"
    deny: Archive stays
breakglass:
  allowed: [U0RITA]
  approvals: 0
  reviewers: [U0STAN]
`,
);

const bot = useTestBot({ env: { POLICY_FILE: policyFile }, simulator: { apiVersion: '9.0' } });
const its = useFreshApprovals(bot);

describe('break-glass on the requester’s word', () => {
  it('runs once the gate, asked again, still lets it run with no approval', async () => {
    await bot.run('create_network', { name: 'Lab', vlan_id: 45, subnet: '10.45.0.0/24', confirm: true });
    const { request } = await its.approvals.breakGlass({
      tool: 'delete_network',
      args: { network_id: 'Lab' },
      requester: RITA,
      reason: 'loop on the lab switch',
    });
    const outcome = await its.approvals.runOnWord(request.id, RITA);
    expect(outcome.kind).toBe('succeeded');
    expect(bot.site().networks.some((n) => n.name === 'Lab')).toBe(false);
  });

  it('does not run a change the policy denies by the time it would run', async () => {
    await bot.run('create_network', { name: 'Lab', vlan_id: 46, subnet: '10.46.0.0/24', confirm: true });
    const lab = bot.site().networks.find((n) => n.name === 'Lab');
    const { request } = await its.approvals.breakGlass({
      tool: 'delete_network',
      args: { network_id: lab?._id },
      requester: RITA,
      reason: 'loop on the lab switch',
    });
    // Renamed behind the bot between the ask and the run: the deny rule now matches.
    if (lab) lab.name = 'Archive';
    const outcome = await its.approvals.runOnWord(request.id, RITA);
    expect(outcome.kind).toBe('failed');
    expect(outcome.kind === 'failed' && outcome.error.message).toMatch(
      /refused by policy rule "keep-archive": Archive stays/,
    );
    expect(bot.site().networks.some((n) => n.name === 'Archive')).toBe(true);
  });
});
