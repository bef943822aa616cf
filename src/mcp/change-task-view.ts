import type { CallToolResult, Task } from '@modelcontextprotocol/sdk/types.js';
import type { ChangeRequest } from '../approvals/types.js';
import { stepLines } from '../changes/change-set.js';
import { timingText, verificationText } from '../changes/describe.js';
import { isRecord } from '../lib/is-record.js';
import { SYSTEM_ACTOR } from '../model/change-request.js';
import { toolErrorResult } from './error-text.js';
import { CHANGE_REQUEST_META, toolResult } from './tool-calls.js';

/*
 * A change request seen as an MCP task (specification 2025-11-25): the task id is the change id,
 * and its status, message and result are read from the request as stored, every time. Nothing
 * here is kept in memory, so a task survives a restart and reads the same on every replica.
 */

/** How often a client is asked to poll: approvals take minutes; a run takes seconds. */
export const TASK_POLL_MS = 2000;

/** What the view of a task needs beside the request. */
export interface TaskContext {
  /** Milliseconds since the epoch: a pending request past its expiry reads as expired. */
  now: number;
  /** The Slack thread's permalink, when Slack in this process gave one. */
  link?: string;
  /** APPROVERS: who may approve when the policy names nobody (empty: anyone but the requester). */
  approvers: readonly string[];
}

type TaskStatus = Task['status'];

const who = (actor: { userId: string; name?: string } | undefined): string =>
  actor ? (actor.name ?? actor.userId) : 'someone';

/** Who must approve, in words: the policy's approvers, else APPROVERS, else anyone else. */
function approversText(request: ChangeRequest, approvers: readonly string[]): string {
  const named = request.assessment?.approvers ?? approvers;
  return named.length > 0 ? `from ${named.join(' or ')}` : 'from anyone but the requester';
}

/** Where approvers see it: the thread's link, the message, or that it is not posted yet. */
function whereText(request: ChangeRequest, link: string | undefined): string {
  if (link) return `thread: ${link}`;
  if (request.message) return `message ${request.message.ts} in channel ${request.message.channel}`;
  return `not yet posted in Slack${request.channel ? ` (channel ${request.channel})` : ''}`;
}

/** A pending request: how many approvals are still needed, from whom, and where to give them. */
function waitingText(request: ChangeRequest, context: TaskContext): string {
  const needed = request.assessment?.approvals ?? 1;
  const given = request.approvedBy ?? [];
  const more = Math.max(needed - given.length, 1);
  const parts = [
    `waiting for approval in Slack: ${more} more approval${more === 1 ? '' : 's'} needed (${given.length} of ${needed} given) ${approversText(request, context.approvers)}`,
    ...(given.length > 0 ? [`approved so far by ${given.map(who).join(', ')}`] : []),
    whereText(request, context.link),
    `expires at ${request.expiresAt}`,
    'nobody can approve it over MCP',
  ];
  return parts.join('; ');
}

/** Why a request that never ran or did not finish ended, one line. */
function endedText(request: ChangeRequest): string {
  const error = request.error?.message;
  switch (request.state) {
    case 'failed':
      if (!error) return 'failed';
      return /^not run\b/.test(error) ? error : `the run failed: ${error}`;
    case 'unknown':
      return 'the bot stopped while it ran: its outcome is unknown; verify it on the controller';
    case 'cancelled':
      return request.cancelledBy?.userId === SYSTEM_ACTOR.userId && !request.message
        ? 'withdrawn by the bot: Slack would not post its preview; not run'
        : `cancelled by ${who(request.cancelledBy)}; not run`;
    case 'expired':
      return `expired at ${request.expiresAt} before enough people approved it; not run`;
    case 'superseded':
      return `replaced by change request ${request.supersededBy ?? '(unknown)'}; not run (follow it with get_change_request)`;
    default:
      return request.state;
  }
}

/** The task status and message of a change request now. */
export function taskStatusOf(
  request: ChangeRequest,
  context: TaskContext,
): { status: TaskStatus; statusMessage: string } {
  const approver = who(request.approver);
  switch (request.state) {
    case 'pending':
      if (context.now >= Date.parse(request.expiresAt))
        return { status: 'cancelled', statusMessage: endedText({ ...request, state: 'expired' }) };
      return { status: 'working', statusMessage: waitingText(request, context) };
    case 'scheduled':
      return {
        status: 'working',
        statusMessage: `approved by ${approver}; runs when its change window opens${request.scheduledFor ? ` at ${request.scheduledFor}` : ''}`,
      };
    case 'approved':
      return { status: 'working', statusMessage: `approved by ${approver}; about to run` };
    case 'executing':
      return { status: 'working', statusMessage: `approved by ${approver}; running now` };
    case 'succeeded': {
      const verification = verificationText(request.verification);
      return {
        status: 'completed',
        statusMessage: `approved by ${approver} and run${verification ? `; ${verification}` : ''}`,
      };
    }
    case 'failed':
    case 'unknown':
      return { status: 'failed', statusMessage: endedText(request) };
    case 'cancelled':
    case 'expired':
    case 'superseded':
      return { status: 'cancelled', statusMessage: endedText(request) };
  }
}

/** When the request last moved, as far as the request itself tells. */
function lastUpdated(request: ChangeRequest): string {
  const times = [request.createdAt, request.decidedAt, request.before?.at, request.after?.at].filter(
    (t): t is string => t !== undefined && !Number.isNaN(Date.parse(t)),
  );
  return times.reduce((a, b) => (Date.parse(b) > Date.parse(a) ? b : a));
}

/** The change request as an MCP task. */
export function taskOf(request: ChangeRequest, context: TaskContext): Task {
  return {
    taskId: request.id,
    ...taskStatusOf(request, context),
    // The journal keeps every request: the task lives as long as it does.
    ttl: null,
    createdAt: request.createdAt,
    lastUpdatedAt: lastUpdated(request),
    pollInterval: TASK_POLL_MS,
  };
}

/**
 * What tasks/result answers for a task that ended: for one that ran, the tool's result with
 * `change_id` and the verification, as a write run at once answers (and as its Slack thread
 * shows it); for one that failed or never ran, a tool error with the reason.
 */
export function taskResultOf(request: ChangeRequest, context: TaskContext): CallToolResult {
  const meta = { [CHANGE_REQUEST_META]: request.id };
  const { status, statusMessage } = taskStatusOf(request, context);
  if (status === 'completed') {
    const verification = verificationText(request.verification);
    const deadline = timingText(request);
    const extra = {
      change_id: request.id,
      ...(verification ? { verification } : {}),
      ...(deadline ? { deadline } : {}),
      ...(request.set ? { steps: stepLines(request.set) } : {}),
      // The change ran but its automatic revert could not be scheduled.
      ...(request.error ? { warning: request.error.message } : {}),
    };
    const result = isRecord(request.result)
      ? { ...request.result, ...extra }
      : { ...(request.result !== undefined ? { result: request.result } : {}), ...extra };
    return toolResult(result, meta);
  }
  const failed = toolErrorResult({
    code: status === 'failed' ? (request.error?.code ?? 'failed') : request.state,
    message: statusMessage,
    fields: [],
  });
  return {
    ...failed,
    structuredContent: {
      ...failed.structuredContent,
      change_id: request.id,
      state: request.state,
      ...(request.set ? { steps: stepLines(request.set) } : {}),
    },
    _meta: meta,
  };
}
