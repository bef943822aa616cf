import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { guardrailFields } from '../approvals/guardrail-view.js';
import type { Actor, ChangeRequest } from '../approvals/types.js';
import { MAX_SET_STEPS, type SetProposal, stepLines } from '../changes/change-set.js';
import { verificationText } from '../changes/describe.js';
import { ResourceNotFoundError, ValidationError } from '../errors.js';

/** The MCP-only tool that follows a change request (listed when MCP_WRITES=approval). */
export const GET_CHANGE_REQUEST = 'get_change_request';

const argsSchema = z
  .object({
    change_request_id: z
      .string({ error: 'must be a change request id (cr_…)' })
      .trim()
      .regex(/^cr_[a-z2-7]{20}$/, { error: 'must be a change request id (cr_…)' })
      .describe('The id a write returned (cr_…)'),
  })
  .strict();

/** A tool's arguments as MCP lists them: the JSON Schema of what the caller sends, without `$schema`. */
function inputSchemaOf(args: z.ZodType): Tool['inputSchema'] {
  const { $schema: _schema, ...schema } = z.toJSONSchema(args, { io: 'input' }) as Record<string, unknown>;
  return schema as Tool['inputSchema'];
}

/** get_change_request as MCP lists it. */
export const changeRequestTool: Tool = {
  name: GET_CHANGE_REQUEST,
  description:
    'The state of a change request a write through this token proposed (pending, approved, executing, succeeded, failed, cancelled, expired, superseded, unknown) and, once it ran, its result. A superseded request names the one that replaced it.',
  inputSchema: inputSchemaOf(argsSchema),
  annotations: {
    title: 'Get change request',
    readOnlyHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
};

/** The validated id, or a ValidationError naming the field. */
export function changeRequestIdOf(raw: Record<string, unknown>): string {
  const parsed = argsSchema.safeParse(raw);
  if (parsed.success) return parsed.data.change_request_id;
  throw new ValidationError(
    parsed.error.issues.map((issue) => ({
      field: issue.path.length > 0 ? issue.path.map(String).join('.') : 'arguments',
      rule: issue.code === 'unrecognized_keys' ? 'takes only change_request_id' : issue.message,
    })),
  );
}

/** What each state means for the caller, in a sentence. */
const STATE_TEXT: Record<ChangeRequest['state'], string> = {
  pending: 'waiting for a person to approve it in Slack',
  approved: 'approved; about to run',
  executing: 'running now',
  succeeded: 'approved and run',
  failed: 'approved, and it failed',
  cancelled: 'cancelled; not run',
  expired: 'expired before anyone approved it; not run',
  superseded: 'replaced by a newer request (superseded_by); not run',
  unknown: 'the bot stopped while it ran; its outcome is unknown, verify on the controller',
  scheduled: 'approved; scheduled to run when its change window opens (scheduled_for)',
};

/** Cancelled by the bot itself before any message showed it: Slack refused to post the preview. */
function withdrawn(request: ChangeRequest): boolean {
  return (
    request.state === 'cancelled' && request.cancelledBy?.userId === 'system:approvals' && !request.message
  );
}

/** A change request as get_change_request and a proposing write answer it. */
export function changeRequestView(
  request: ChangeRequest,
  messageLink: string | undefined,
): Record<string, unknown> {
  return {
    change_request_id: request.id,
    state: request.state,
    status: withdrawn(request)
      ? 'withdrawn by the bot: Slack would not post its preview; not run'
      : STATE_TEXT[request.state],
    tool: request.tool,
    site: request.site,
    arguments: request.args,
    requested_by: request.requester.name ?? request.requester.userId,
    created_at: request.createdAt,
    expires_at: request.expiresAt,
    preview: request.preview,
    ...(request.channel ? { channel: request.channel } : {}),
    message_link: messageLink ?? null,
    // Where the preview is, also when this process has no Slack to ask for its link.
    ...(request.message
      ? { slack_message: { channel: request.message.channel, ts: request.message.ts } }
      : {}),
    ...(request.approver ? { approved_by: request.approver.name ?? request.approver.userId } : {}),
    ...(request.cancelledBy ? { cancelled_by: request.cancelledBy.name ?? request.cancelledBy.userId } : {}),
    ...(request.decidedAt ? { decided_at: request.decidedAt } : {}),
    ...(request.result !== undefined ? { result: request.result } : {}),
    ...(request.error ? { error: request.error } : {}),
    ...(request.supersededBy ? { superseded_by: request.supersededBy } : {}),
    // What the controller held before and after, and how it compares with what was sent.
    ...(request.verification ? { verification: verificationText(request.verification) } : {}),
    ...(request.before ? { before: request.before } : {}),
    ...(request.after ? { after: request.after } : {}),
    ...(request.revertOf ? { revert_of: request.revertOf } : {}),
    // A change set's steps, each with what became of it.
    ...(request.set ? { steps: stepLines(request.set) } : {}),
    ...(request.setOf ? { step_of: request.setOf, step: request.setStep } : {}),
    ...(request.revertedBy ? { reverted_by: request.revertedBy } : {}),
    ...(request.revertAfterSeconds !== undefined ? { revert_after_seconds: request.revertAfterSeconds } : {}),
    ...(request.forSeconds !== undefined ? { for_seconds: request.forSeconds } : {}),
    // Risk, self-lockout, approvals needed and given, window.
    ...guardrailFields(request),
  };
}

/**
 * The request, when it was proposed through MCP under the caller's own token label (the requester
 * `mcp:<label>`); anything else, a person's Slack request or another token's, is "not found", the
 * same answer as an id that does not exist, so a token cannot learn what others asked for.
 */
export function requireRequest(request: ChangeRequest | undefined, id: string, caller: Actor): ChangeRequest {
  if (!request || request.requester.userId !== caller.userId) {
    throw new ResourceNotFoundError(
      'change request',
      id,
      `change request ${id} not found among this token's requests (an MCP token reads only the change requests it proposed)`,
    );
  }
  return request;
}

/** The tool that proposes (approval) or runs (confirm) the change undoing an earlier one. */
export const REVERT_CHANGE = 'revert_change';

// Deliberately alike: each MCP change tool declares its own zod arguments; the shared part is inputSchemaOf.
const revertArgsSchema = z
  .object({
    change_id: z
      .string({ error: 'must be a change id (cr_…)' })
      .trim()
      .regex(/^cr_[a-z2-7]{20}$/, { error: 'must be a change id (cr_…)' })
      .describe('The change to undo: the change_id a write answered (cr_…)'),
    confirm: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe('true runs the revert (MCP_WRITES=confirm)'),
  })
  .strict();

/** revert_change as MCP lists it. */
export const revertChangeTool: Tool = {
  name: REVERT_CHANGE,
  description:
    'Undo a change that ran, from its before-image: an update puts back the fields it changed, a create deletes what it created, a delete re-creates the object (a new id). The revert is a new change (with MCP_WRITES=approval a person approves it in Slack; with confirm it runs when confirm is true). A change that cannot be reverted (a restart) answers why.',
  inputSchema: inputSchemaOf(revertArgsSchema),
  annotations: { title: 'Revert change', readOnlyHint: false, destructiveHint: true, openWorldHint: true },
};

/** The validated arguments of revert_change, or a ValidationError naming the field. */
export function revertArgsOf(raw: Record<string, unknown>): { changeId: string; confirm: boolean } {
  const parsed = revertArgsSchema.safeParse(raw);
  if (parsed.success) return { changeId: parsed.data.change_id, confirm: parsed.data.confirm === true };
  throw new ValidationError(
    parsed.error.issues.map((issue) => ({
      field: issue.path.length > 0 ? issue.path.map(String).join('.') : 'arguments',
      rule: issue.code === 'unrecognized_keys' ? 'takes only change_id and confirm' : issue.message,
    })),
  );
}

/** The tool that proposes several writes as one change set. */
export const PROPOSE_CHANGE_SET = 'propose_change_set';

const setArgsSchema = z
  .object({
    steps: z
      .array(
        z
          .object({
            tool: z
              .string({ error: 'must be a write tool name' })
              .min(1)
              .describe('A write tool, e.g. create_network'),
            arguments: z
              .record(z.string(), z.unknown(), { error: 'must be an object of the tool’s arguments' })
              .default({})
              .describe('The tool’s arguments (no confirm or dry_run); may name what earlier steps create'),
          })
          .strict(),
        { error: 'must be a list of {tool, arguments}' },
      )
      .min(1, { error: 'must hold at least one step' })
      .max(MAX_SET_STEPS, { error: `must hold at most ${MAX_SET_STEPS} steps` })
      .describe('The writes, in the order they run'),
    title: z.string().trim().min(1).max(120).optional().describe('What the set is for, shown to approvers'),
    on_failure: z
      .enum(['rollback', 'stop'], { error: 'must be rollback or stop' })
      .optional()
      .describe('rollback (default): a failed step reverts the steps done before it; stop: they stay'),
    confirm: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe('true runs the set (MCP_WRITES=confirm)'),
  })
  .strict();

/** propose_change_set as MCP lists it. */
export const proposeChangeSetTool: Tool = {
  name: PROPOSE_CHANGE_SET,
  description:
    'Propose several writes as one change set: every step is previewed against the planned state (the controller now plus the steps before it, so later steps may name what earlier ones create), approved once, and run in order. If a step fails, the steps done before it are reverted in reverse order (on_failure=rollback, the default) or left in place (stop). With MCP_WRITES=approval a person approves it in Slack; with confirm it runs when confirm is true. At most 50 steps, writes only.',
  inputSchema: inputSchemaOf(setArgsSchema),
  annotations: {
    title: 'Propose change set',
    readOnlyHint: false,
    destructiveHint: true,
    openWorldHint: true,
  },
};

/** The validated arguments of propose_change_set, or a ValidationError naming the field. */
export function setArgsOf(raw: Record<string, unknown>): SetProposal & { confirm: boolean } {
  const parsed = setArgsSchema.safeParse(raw);
  if (parsed.success) {
    const { steps, title, on_failure, confirm } = parsed.data;
    return {
      steps: steps.map((step) => ({ tool: step.tool, args: step.arguments })),
      ...(title ? { title } : {}),
      ...(on_failure ? { onFailure: on_failure } : {}),
      confirm: confirm === true,
    };
  }
  throw new ValidationError(
    parsed.error.issues.map((issue) => ({
      field: issue.path.length > 0 ? issue.path.map(String).join('.') : 'arguments',
      rule:
        issue.code === 'unrecognized_keys'
          ? `takes only ${issue.path.length > 0 ? 'tool and arguments' : 'steps, title, on_failure and confirm'}`
          : issue.message,
    })),
  );
}
