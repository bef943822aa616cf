import { describe, expect, it } from 'vitest';
import type { ChangeRequest } from '../../src/approvals/types.js';
import {
  TASK_POLL_MS,
  type TaskContext,
  taskOf,
  taskResultOf,
  taskStatusOf,
} from '../../src/mcp/change-task-view.js';
import { CHANGE_REQUEST_META } from '../../src/mcp/tool-calls.js';
import { SYSTEM_ACTOR } from '../../src/model/change-request.js';
import { textOf } from '../helpers/mcp.js';

// A change request as every MCP task status shows it: the state mapping, the status message and
// the result tasks/result answers.

const CREATED = '2026-03-01T10:00:00.000Z';
const EXPIRES = '2026-03-01T10:15:00.000Z';
const BEFORE_EXPIRY = Date.parse('2026-03-01T10:05:00.000Z');
const context: TaskContext = { now: BEFORE_EXPIRY, approvers: ['U0BOB', 'U0CAROL'] };

function request(over: Partial<ChangeRequest> = {}): ChangeRequest {
  return {
    id: 'cr_aaaaaaaaaaaaaaaaaaaa',
    tool: 'create_network',
    site: 'default',
    args: { name: 'Lab', vlan_id: 45 },
    requester: { userId: 'mcp:U0AGENT', name: '“agent 1.0” via MCP (token U0AGENT)' },
    channel: 'C0NETOPS',
    preview: { action: 'create' },
    previewHash: 'f'.repeat(64),
    createdAt: CREATED,
    expiresAt: EXPIRES,
    state: 'pending',
    ...over,
  };
}

const assessment = (approvals: number, approvers?: string[]) => ({
  risk: 'medium' as const,
  reasons: ['new network'],
  approvals,
  rules: [],
  ...(approvers ? { approvers } : {}),
});

describe('taskStatusOf: a change request’s state as a task status', () => {
  it('pending is working: how many approvals are missing, from whom, and the thread’s link', () => {
    const { status, statusMessage } = taskStatusOf(
      request({ assessment: assessment(2), approvedBy: [{ userId: 'U0BOB', name: 'Bob' }] }),
      { ...context, link: 'https://slack.test/archives/C0NETOPS/p1' },
    );
    expect(status).toBe('working');
    expect(statusMessage).toContain('1 more approval needed (1 of 2 given) from U0BOB or U0CAROL');
    expect(statusMessage).toContain('approved so far by Bob');
    expect(statusMessage).toContain('thread: https://slack.test/archives/C0NETOPS/p1');
    expect(statusMessage).toContain(`expires at ${EXPIRES}`);
    expect(statusMessage).toContain('nobody can approve it over MCP');
  });

  it('names the policy’s approvers before APPROVERS, and anyone else when neither names someone', () => {
    const policy = taskStatusOf(request({ assessment: assessment(1, ['S0NETADMINS']) }), context);
    expect(policy.statusMessage).toContain('1 more approval needed (0 of 1 given) from S0NETADMINS;');
    const anyone = taskStatusOf(request(), { now: BEFORE_EXPIRY, approvers: [] });
    expect(anyone.statusMessage).toContain('from anyone but the requester');
  });

  it('says where the preview is when Slack gave no link, or that it is not posted yet', () => {
    const posted = taskStatusOf(
      request({ message: { channel: 'C0NETOPS', ts: '1700000000.000100' } }),
      context,
    );
    expect(posted.statusMessage).toContain('message 1700000000.000100 in channel C0NETOPS');
    expect(taskStatusOf(request(), context).statusMessage).toContain(
      'not yet posted in Slack (channel C0NETOPS)',
    );
  });

  it('a pending request past its expiry reads cancelled (expired) before any sweep recorded it', () => {
    const late = taskStatusOf(request(), { ...context, now: Date.parse(EXPIRES) });
    expect(late).toEqual({
      status: 'cancelled',
      statusMessage: `expired at ${EXPIRES} before enough people approved it; not run`,
    });
  });

  it('approved, executing and scheduled stay working, naming the approver', () => {
    const approver = { userId: 'U0BOB', name: 'Bob' };
    expect(taskStatusOf(request({ state: 'approved', approver }), context)).toEqual({
      status: 'working',
      statusMessage: 'approved by Bob; about to run',
    });
    expect(taskStatusOf(request({ state: 'executing', approver }), context).statusMessage).toBe(
      'approved by Bob; running now',
    );
    const scheduled = taskStatusOf(
      request({ state: 'scheduled', approver, scheduledFor: '2026-03-01T22:00:00.000Z' }),
      context,
    );
    expect(scheduled).toEqual({
      status: 'working',
      statusMessage: 'approved by Bob; runs when its change window opens at 2026-03-01T22:00:00.000Z',
    });
  });

  it('succeeded completes with the verification', () => {
    const done = taskStatusOf(
      request({ state: 'succeeded', approver: { userId: 'U0BOB' }, verification: { status: 'verified' } }),
      context,
    );
    expect(done).toEqual({ status: 'completed', statusMessage: 'approved by U0BOB and run; verified' });
  });

  it('failed, refused by the policy and unknown fail with the reason', () => {
    const run = taskStatusOf(
      request({ state: 'failed', error: { code: 'controller_error', message: 'VLAN 45 is in use' } }),
      context,
    );
    expect(run).toEqual({ status: 'failed', statusMessage: 'the run failed: VLAN 45 is in use' });
    const denied = taskStatusOf(
      request({
        state: 'failed',
        notRun: true,
        error: { code: 'not_authorized', message: 'not run: the policy refuses it now, rule no-wan' },
      }),
      context,
    );
    expect(denied.statusMessage).toBe('not run: the policy refuses it now, rule no-wan');
    const halted = taskStatusOf(request({ state: 'unknown' }), context);
    expect(halted.status).toBe('failed');
    expect(halted.statusMessage).toMatch(/bot stopped while it ran: its outcome is unknown/);
  });

  it('cancelled, expired, withdrawn and superseded are cancelled with the reason', () => {
    expect(
      taskStatusOf(request({ state: 'cancelled', cancelledBy: { userId: 'U0BOB', name: 'Bob' } }), context),
    ).toEqual({ status: 'cancelled', statusMessage: 'cancelled by Bob; not run' });
    expect(taskStatusOf(request({ state: 'expired' }), context).statusMessage).toBe(
      `expired at ${EXPIRES} before enough people approved it; not run`,
    );
    expect(
      taskStatusOf(request({ state: 'cancelled', cancelledBy: SYSTEM_ACTOR }), context).statusMessage,
    ).toBe('withdrawn by the bot: Slack would not post its preview; not run');
    const replaced = taskStatusOf(
      request({ state: 'superseded', supersededBy: 'cr_bbbbbbbbbbbbbbbbbbbb' }),
      context,
    );
    expect(replaced.status).toBe('cancelled');
    expect(replaced.statusMessage).toContain('replaced by change request cr_bbbbbbbbbbbbbbbbbbbb');
  });
});

describe('taskOf', () => {
  it('is the change request’s id, times and poll interval, kept as long as the journal keeps it', () => {
    const task = taskOf(
      request({
        state: 'succeeded',
        decidedAt: '2026-03-01T10:04:00.000Z',
        after: { at: '2026-03-01T10:04:02.000Z' },
      }),
      context,
    );
    expect(task).toMatchObject({
      taskId: 'cr_aaaaaaaaaaaaaaaaaaaa',
      status: 'completed',
      ttl: null,
      createdAt: CREATED,
      lastUpdatedAt: '2026-03-01T10:04:02.000Z',
      pollInterval: TASK_POLL_MS,
    });
  });
});

describe('taskResultOf', () => {
  it('a change that ran: the tool’s result with change_id and verification, as text too', () => {
    const result = taskResultOf(
      request({
        state: 'succeeded',
        result: { success: true, network: { name: 'Lab', vlan_id: 45 } },
        verification: {
          status: 'not_as_sent',
          mismatches: [{ object: 'network Lab', field: 'vlan', sent: 45, holds: 1 }],
        },
      }),
      context,
    );
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({
      success: true,
      network: { name: 'Lab', vlan_id: 45 },
      change_id: 'cr_aaaaaaaaaaaaaaaaaaaa',
      verification: 'applied, not as sent: sent vlan 45, controller holds 1',
    });
    expect(textOf(result)).toContain('applied, not as sent');
    expect(result._meta).toEqual({ [CHANGE_REQUEST_META]: 'cr_aaaaaaaaaaaaaaaaaaaa' });
  });

  it('a change that failed or never ran: a tool error with the reason and the change id', () => {
    const failed = taskResultOf(
      request({ state: 'failed', error: { code: 'controller_error', message: 'VLAN 45 is in use' } }),
      context,
    );
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toMatchObject({
      error: { code: 'controller_error', message: 'the run failed: VLAN 45 is in use' },
      change_id: 'cr_aaaaaaaaaaaaaaaaaaaa',
      state: 'failed',
    });
    const expired = taskResultOf(request({ state: 'expired' }), context);
    expect(expired.isError).toBe(true);
    expect(textOf(expired)).toMatch(/^expired at .* before enough people approved it; not run$/);
  });
});
