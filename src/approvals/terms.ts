/**
 * The terms a change is decided on: how it is put to the gate, the deadlines it gets, what its
 * request keeps of its assessment. Pure: Approvals asks with these, the gate answers.
 */
import { CHANGE_SET_TOOL } from '../changes/change-set.js';
import type { ApproveOutcome } from '../changes/outcomes.js';
import { ConflictError, NotAuthorizedError } from '../errors.js';
import { isNoOpPreview } from '../format/plain-text.js';
import type { BreakGlassRecord, ChangeAssessmentRecord, ChangeSetRecord } from '../model/change-request.js';
import { formatDuration } from '../policy/duration.js';
import { type GateFace, type GateVerdict, refusalText } from '../policy/gate.js';
import type { ChangeAssessment } from '../tools/core/assess.js';
import { isConsoleActor } from './console-requester.js';
import { isMcpRequester } from './mcp-requester.js';
import type { Actor, ChangeRequest } from './types.js';

/** A change as the gate is asked about it: what it does, who asked, what it has so far. */
export interface GateChange {
  tool: string;
  args: Record<string, unknown>;
  requester: Actor;
  channel?: string;
  set?: ChangeSetRecord;
  approvedBy?: Actor[];
  assessment?: ChangeAssessmentRecord;
  breakGlass?: BreakGlassRecord;
}

/** A write's deadline as the request keeps it, and the shortest one in words for the gate. */
export interface ChangeTiming {
  revertAfterSeconds?: number;
  /** The policy rule whose `revert_after` set `revertAfterSeconds` (unset: the request's own). */
  revertAfterRule?: string;
  forSeconds?: number;
  /** The earliest deadline: what the gate weighs and every preview states. */
  first?: { seconds: number; kind: 'keep_or_revert' | 'temporary'; source: string };
}

/** Why an approve click cannot proceed (not pending), or undefined if it can. */
export function approveBlocked(request: ChangeRequest): ApproveOutcome | undefined {
  if (request.state === 'expired') return { kind: 'expired', request };
  if (request.state !== 'pending') return { kind: 'already', request };
  return undefined;
}

/** Why an automatic revert ran, as its note says. */
export const AUTOMATIC_REASONS = {
  keep_timeout: 'nobody kept it before its deadline',
  temporary: 'its time was up (a temporary change)',
  unreachable: 'the controller could not be read after the change',
} as const;

/**
 * Who an automatic revert is done by: the timer or the policy rule that set its deadline, named
 * as the change was asked for (`timer: revert_after 10m`, `timer: for 1h`, `policy rule "Lab
 * changes": revert_after 10m`), so every history shows what caused it rather than the bot.
 */
export function automaticActor(
  original: Pick<ChangeRequest, 'revertAfterSeconds' | 'revertAfterRule' | 'forSeconds'>,
  reason: keyof typeof AUTOMATIC_REASONS,
): Actor {
  const keep = original.revertAfterSeconds;
  const temporary = reason === 'temporary' || keep === undefined;
  const rule = temporary ? undefined : original.revertAfterRule;
  const cause = temporary
    ? `timer: for ${formatDuration(original.forSeconds ?? 0)}`
    : rule
      ? `policy rule "${rule}": revert_after ${formatDuration(keep)}`
      : `timer: revert_after ${formatDuration(keep)}`;
  return {
    userId: rule ? 'system:policy' : 'system:timer',
    name: reason === 'unreachable' ? `${cause}, controller unreachable` : cause,
  };
}

/**
 * A preview that changes nothing (update_network to the values a network has) is answered
 * "nothing to change" on every face; nobody is asked to approve it.
 */
export function refuseNoOp(tool: string, preview: unknown): void {
  if (isNoOpPreview(preview)) {
    const name = (preview as { name?: unknown }).name;
    throw new ConflictError(
      `nothing to change: ${typeof name === 'string' ? name : 'the target'} already has these settings (${tool} not proposed)`,
    );
  }
}

/** A write as a `/net` line, for a refusal that says where to propose it instead. */
export function commandLine(tool: string, args: Record<string, unknown>): string {
  const words = Object.entries(args)
    .filter(([key]) => key !== 'confirm' && key !== 'dry_run')
    .map(([key, value]) => {
      const text = Array.isArray(value) ? value.join(',') : String(value);
      return `${key}=${/[\s"]/.test(text) ? JSON.stringify(text) : text}`;
    });
  return [tool, ...words].join(' ');
}

/** Through which face an actor acts (the CEL variable `face` of what they ask). */
export function faceOf(actor: Actor): GateFace {
  if (isMcpRequester(actor)) return 'mcp';
  if (isConsoleActor(actor)) return 'console';
  if (actor.userId.startsWith('system:')) return 'system';
  return 'slack';
}

/**
 * The deadlines a write gets: the request's `for=` and `revert_after=` and the policy's
 * `revert_after`, the shortest of each kind; a temporary change under a shorter keep-or-revert
 * rule gets both (the earlier one applies first).
 */
export function timingOf(
  meta: { revertAfterSeconds?: number; forSeconds?: number },
  decision: { revertAfterSeconds?: number; revertAfterRule?: string; matched: string[] },
): ChangeTiming {
  const keeps: { seconds: number; source: string; rule?: string }[] = [
    ...(meta.revertAfterSeconds !== undefined
      ? [
          {
            seconds: meta.revertAfterSeconds,
            source: `revert_after=${formatDuration(meta.revertAfterSeconds)}`,
          },
        ]
      : []),
    ...(decision.revertAfterSeconds !== undefined
      ? [
          {
            seconds: decision.revertAfterSeconds,
            source: `the policy's revert_after ${formatDuration(decision.revertAfterSeconds)}${decision.revertAfterRule ? ` (rule "${decision.revertAfterRule}")` : ''}`,
            ...(decision.revertAfterRule ? { rule: decision.revertAfterRule } : {}),
          },
        ]
      : []),
  ].sort((a, b) => a.seconds - b.seconds);
  const keep = keeps[0];
  const timing: ChangeTiming = {};
  if (meta.forSeconds !== undefined) timing.forSeconds = meta.forSeconds;
  // A keep deadline at or after the temporary one would never act: the change is gone by then.
  if (keep && (meta.forSeconds === undefined || keep.seconds < meta.forSeconds)) {
    timing.revertAfterSeconds = keep.seconds;
    if (keep.rule !== undefined) timing.revertAfterRule = keep.rule;
  }
  if (timing.revertAfterSeconds !== undefined && keep) {
    timing.first = { seconds: keep.seconds, kind: 'keep_or_revert', source: keep.source };
  } else if (timing.forSeconds !== undefined) {
    timing.first = {
      seconds: timing.forSeconds,
      kind: 'temporary',
      source: `for=${formatDuration(timing.forSeconds)}`,
    };
  }
  return timing;
}

/** The timing fields a request keeps. */
export function timingFields(timing: ChangeTiming) {
  return {
    ...(timing.revertAfterSeconds !== undefined ? { revertAfterSeconds: timing.revertAfterSeconds } : {}),
    ...(timing.revertAfterRule !== undefined ? { revertAfterRule: timing.revertAfterRule } : {}),
    ...(timing.forSeconds !== undefined ? { forSeconds: timing.forSeconds } : {}),
  };
}

/**
 * The request fields of a write someone asked for in their own words (proposed, or broken glass
 * on): what they asked, where, its dry run, and the deadlines its arguments and the policy give it.
 */
export function askedRequestFields(
  input: { tool: string; requester: Actor; channel?: string },
  asked: { meta: Parameters<typeof timingOf>[0]; args: Record<string, unknown>; preview: unknown },
  decision: Parameters<typeof timingOf>[1],
) {
  return {
    tool: input.tool,
    args: asked.args,
    requester: input.requester,
    channel: input.channel,
    preview: asked.preview,
    ...timingFields(timingOf(asked.meta, decision)),
  };
}

/** A verdict as a yes, or a no with the reason and how to get what is missing. */
export function verdictDecision(verdict: GateVerdict): { ok: true } | { ok: false; reason: string } {
  if (verdict.verdict !== 'refuse') return { ok: true };
  return { ok: false, reason: refusalText(verdict) };
}

/** A gate refusal as the error every face words: the reason, then how to get what is missing. */
export function gateRefusal(verdict: Extract<GateVerdict, { verdict: 'refuse' }>): NotAuthorizedError {
  return new NotAuthorizedError(refusalText(verdict));
}

/** What the request keeps of an assessment: risk, reasons, self-lockout, what the policy requires. */
export function assessmentRecord({ facts, radius, decision }: ChangeAssessment): ChangeAssessmentRecord {
  return {
    risk: radius.risk,
    reasons: decision.reasons,
    ...(radius.selfLockoutWarning ? { selfLockout: radius.selfLockoutWarning } : {}),
    ...(facts.target ? { target: facts.target } : {}),
    approvals: decision.approvals,
    ...(decision.approvers ? { approvers: decision.approvers } : {}),
    rules: decision.matched,
    ...(decision.window
      ? {
          window: {
            name: decision.window.name,
            open: decision.window.open,
            ...(decision.window.nextOpening ? { nextOpening: decision.window.nextOpening } : {}),
          },
        }
      : {}),
  };
}

/** A set as the gate and the journal see it: one write of the change-set tool. */
export function setChange(set: ChangeSetRecord, requester: Actor): GateChange & { tool: string } {
  const site = set.steps.find((s) => typeof s.args.site_id === 'string')?.args.site_id;
  return {
    tool: CHANGE_SET_TOOL,
    args: {
      ...(typeof site === 'string' ? { site_id: site } : {}),
      ...(set.title ? { title: set.title } : {}),
      on_failure: set.onFailure,
      steps: set.steps.map((step) => ({ tool: step.tool, args: step.args })),
    },
    requester,
    set,
  };
}

/** A set as proposed again (a drifted set's replacement): the steps without any progress. */
export function setAsProposed(set: ChangeSetRecord): ChangeSetRecord {
  return {
    ...set,
    steps: set.steps.map(({ tool, args, revertOf }) => ({ tool, args, ...(revertOf ? { revertOf } : {}) })),
  };
}
