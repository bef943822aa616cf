import { describe, expect, it } from 'vitest';
import { isMcpRequester, mcpRequester, personOf } from '../../src/approvals/mcp-requester.js';
import type { ChangeRequest } from '../../src/approvals/types.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { ALEX, policyWith, RITA, STAN } from './harness.js';

const request: ChangeRequest = {
  id: 'cr_aaaaaaaaaaaaaaaaaaaa',
  tool: 'delete_network',
  site: 'default',
  args: { site_id: 'default', network_id: 'Guest' },
  requester: RITA,
  preview: { dry_run: true },
  previewHash: '0'.repeat(64),
  createdAt: '2030-01-01T00:00:00.000Z',
  expiresAt: '2030-01-01T00:15:00.000Z',
  state: 'pending',
};

describe('ApprovalPeople', () => {
  it('with APPROVERS unset lets anyone but the requester approve', async () => {
    const policy = policyWith();

    expect(await policy.canApprove(request, ALEX)).toEqual({ ok: true });
    expect(await policy.canApprove(request, STAN)).toEqual({ ok: true });
    expect(await policy.canApprove(request, RITA)).toMatchObject({ ok: false });
  });

  it('does not let self-approval bypass APPROVERS', async () => {
    const policy = policyWith({ approvers: [ALEX.userId], allowSelfApproval: true });

    expect(await policy.canApprove(request, RITA)).toEqual({
      ok: false,
      reason: 'only members of APPROVERS (<@U0ALEX>) may approve',
    });
  });

  it('accepts a direct listing without asking for group members', async () => {
    let asked = 0;
    const policy = policyWith({
      approvers: [ALEX.userId, 'S0NETOPS'],
      groupMembers: async () => {
        asked++;
        return [];
      },
    });

    expect(await policy.canApprove(request, ALEX)).toEqual({ ok: true });
    expect(asked).toBe(0);
  });

  it('never takes a user-group id for a user listed in APPROVERS (a forged click found by test/fuzz)', async () => {
    const policy = policyWith({ approvers: ['S0NETOPS'], groupMembers: async () => [ALEX.userId] });

    expect(await policy.canApprove(request, { userId: 'S0NETOPS' })).toMatchObject({ ok: false });
    expect(await policy.canApprove(request, ALEX)).toEqual({ ok: true });
  });

  it('accepts a member of one group even when another group cannot be read', async () => {
    const policy = policyWith({
      approvers: ['S0BROKEN', 'S0NETOPS'],
      groupMembers: async (group) => {
        if (group === 'S0BROKEN') throw new Error('ratelimited');
        return [ALEX.userId];
      },
    });

    expect(await policy.canApprove(request, ALEX)).toEqual({ ok: true });
  });

  it('logs a group lookup failure and refuses', async () => {
    const { lines, logger } = captureLogger('info');
    const policy = policyWith({
      approvers: ['S0NETOPS'],
      logger,
      groupMembers: async () => {
        throw new Error('missing_scope');
      },
    });

    const decision = await policy.canApprove(request, ALEX);

    expect(decision.ok).toBe(false);
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toMatchObject({
      level: 50,
      group: 'S0NETOPS',
      err: { message: 'missing_scope' },
    });
  });

  it('checks REQUESTERS before WRITE_CHANNELS and allows anyone anywhere when both are unset', async () => {
    const open = policyWith();
    const strict = policyWith({ requesters: [ALEX.userId], writeChannels: ['C0OPS'] });

    expect(await open.canRequest(STAN, undefined)).toEqual({ ok: true });
    expect(await strict.canRequest(STAN, 'C0OPS')).toEqual({
      ok: false,
      reason: 'only members of REQUESTERS (<@U0ALEX>) may request changes',
    });
    expect(await strict.canRequest(ALEX, 'C0OPS')).toEqual({ ok: true });
  });

  it('shows a channel that is no Slack id as escaped text, hidden characters visible', async () => {
    const policy = policyWith({ writeChannels: ['C0OPS'] });

    const decision = await policy.canRequest(ALEX, '<!channel>\u202Eops');

    expect(decision).toEqual({
      ok: false,
      reason: 'changes may only be requested in WRITE_CHANNELS (<#C0OPS>); not in &lt;!channel&gt;\\u202Eops',
    });
  });

  it('lets the requester cancel even without approval rights', async () => {
    const policy = policyWith({ approvers: [ALEX.userId] });

    expect(await policy.canCancel(request, RITA)).toEqual({ ok: true });
    expect(await policy.canCancel(request, ALEX)).toEqual({ ok: true });
    expect(await policy.canCancel(request, STAN)).toMatchObject({ ok: false });
  });

  it('decides which of many requests a user may approve with the same rules as canApprove', async () => {
    let lookups = 0;
    const policy = policyWith({
      approvers: ['S0NETOPS'],
      groupMembers: async () => {
        lookups++;
        return [ALEX.userId, RITA.userId];
      },
    });
    const byAlex = { ...request, id: 'cr_byalex', requester: ALEX };
    const requests = [request, byAlex];

    const alexMay = await policy.approvableBy(ALEX);
    const stanMay = await policy.approvableBy(STAN);
    const answers = requests.map((r) => alexMay(r));

    expect(answers).toEqual([true, false]);
    expect(requests.map((r) => stanMay(r))).toEqual([false, false]);
    for (const [index, r] of requests.entries()) {
      expect((await policy.canApprove(r, ALEX)).ok).toBe(answers[index]);
    }
    expect(lookups).toBeGreaterThan(0);
    const selfAllowed = await policyWith({ allowSelfApproval: true }).approvableBy(RITA);
    expect(selfAllowed(request)).toBe(true);
  });
});

describe('ApprovalPeople and requests from MCP clients', () => {
  const fromToken = (label: string): ChangeRequest => ({
    ...request,
    requester: mcpRequester(label, { name: 'Claude', version: '1.0' }),
  });

  it('names the client and the token: mcp:<label>, and the person behind a Slack-id label', () => {
    const actor = mcpRequester('U0RITA', { name: 'Claude', version: '1.0' });
    expect(actor).toEqual({ userId: 'mcp:U0RITA', name: '“Claude 1.0” via MCP (token U0RITA)' });
    expect(isMcpRequester(actor)).toBe(true);
    expect(isMcpRequester(RITA)).toBe(false);
    expect(personOf(actor)).toBe('U0RITA');
    expect(personOf(mcpRequester('ci'))).toBe('mcp:ci');
    expect(personOf(RITA)).toBe('U0RITA');
  });

  it('keeps four eyes: the holder of a token labelled with their user id may not approve its requests', async () => {
    const policy = policyWith();
    expect(await policy.canApprove(fromToken('U0RITA'), RITA)).toEqual({
      ok: false,
      reason:
        'your MCP client requested this change; someone else must approve it (ALLOW_SELF_APPROVAL is off)',
    });
    expect(await policy.canApprove(fromToken('U0RITA'), ALEX)).toEqual({ ok: true });
    expect(await policy.canApprove(fromToken('ci'), RITA)).toEqual({ ok: true });
    expect(await policy.canCancel(fromToken('U0RITA'), RITA)).toEqual({ ok: true });
    expect(await policy.canCancel(fromToken('ci'), STAN)).toEqual({ ok: true });
  });

  it('applies WRITE_CHANNELS to MCP requests, and REQUESTERS (Slack users) only to people', async () => {
    const policy = policyWith({ requesters: [ALEX.userId], writeChannels: ['C0NETOPS'] });
    const client = mcpRequester('ci');
    expect(await policy.canRequest(client, 'C0NETOPS')).toEqual({ ok: true });
    expect(await policy.canRequest(client, 'C0OTHER')).toMatchObject({ ok: false });
    expect(await policy.canRequest(RITA, 'C0NETOPS')).toMatchObject({ ok: false });
  });
});
