import {
  CHANGE_SET_TOOL,
  combineAssessments,
  inStep,
  planSet,
  type SetProposal,
  setPreview,
  stepLines,
  validateSet,
} from '../changes/change-set.js';
import { changeSpec, noSpecReason } from '../changes/change-specs.js';
import { imageObject, readImage, verify } from '../changes/images.js';
import { capForJournal } from '../changes/journal-cap.js';
import { splitMetaArgs } from '../changes/meta-args.js';
import { type ApproveOutcome, summarize } from '../changes/outcomes.js';
import { newRequestId } from '../changes/request-id.js';
import { compareImages, inverseOf, nowRead } from '../changes/revert.js';
import { timedRevert } from '../changes/revert-deadline.js';
import { ConflictError, NotAuthorizedError, ResourceNotFoundError, ValidationError } from '../errors.js';
import { isNoOpPreview } from '../format/plain-text.js';
import { canonicalJson, diffPreviews, previewHash } from '../lib/canonical.js';
import { redactSecrets } from '../lib/redact.js';
import { type Settled, settle, settledWithin } from '../lib/settle-within.js';
import type { Logger } from '../log.js';
import { formatDuration } from '../policy/duration.js';
import { deniedText, Gate, type GateAction, type GateFace, type GateVerdict } from '../policy/gate.js';
import { DEFAULT_POLICY } from '../policy/policy.js';
import { applyEvent } from '../store/apply-event.js';
import { type DeadlineStore, newDeadlineId } from '../store/deadlines.js';
import type { TransitionEntry } from '../store/journal-format.js';
import {
  CHANGE_STATES,
  type ChangeAssessmentRecord,
  type ChangeImage,
  type ChangeSetRecord,
  type JournaledDeadlineKind,
  type SetStep,
  type SetStepStatus,
  SYSTEM_ACTOR,
  type Verification,
} from '../store/records.js';
import type {
  ChangeFilter,
  ChangeStore,
  InterruptedRequest,
  JournalHead,
  PendingFilter,
  RequestHistory,
} from '../store/types.js';
import type { ToolContext } from '../tools/define-tool.js';
import { assessChange, type ChangeAssessment } from '../tools/impact.js';
import type { ToolRegistry } from '../tools/registry.js';
import { isConsoleActor } from './console-requester.js';
import { isMcpRequester, personOf } from './mcp-requester.js';
import { type ChangeListener, observeChanges } from './observed-store.js';
import type { ApprovalPolicy } from './policy.js';
import { claimDueReminders } from './reminders.js';
import { snapshotContext } from './snapshot-context.js';
import type { Actor, CancelOutcome, ChangeRequest, ChangeState, ErrorSummary, MessageRef } from './types.js';

export { SYSTEM_ACTOR } from '../store/records.js';

/** What Approvals needs. */
export interface ApprovalsOptions {
  /** Where requests and the journal live: the file store or PostgreSQL (src/store). */
  store: ChangeStore;
  registry: ToolRegistry;
  context: ToolContext;
  policy: ApprovalPolicy;
  ttlSeconds: number;
  logger: Logger;
  /** Milliseconds since the epoch; tests pass a controllable clock. */
  now?: () => number;
  /**
   * Issue 22: where a change approved outside its policy window gets its run time (a `window`
   * deadline, fired by the ChangeTimers ticker like keep-or-revert deadlines). Without it such a
   * change is refused at its last approval rather than left waiting with nothing to run it.
   */
  deadlines?: DeadlineStore;
  /**
   * The running bot that fires deadlines for this store, if any (its name): a change confirmed at
   * the console or over MCP with a deadline runs only when one does.
   */
  timerKeeper?: () => Promise<string | undefined>;
}

/** A change as the gate is asked about it: what it does, who asked, what it has so far. */
export interface GateChange {
  tool: string;
  args: Record<string, unknown>;
  requester: Actor;
  channel?: string;
  set?: ChangeSetRecord;
  approvedBy?: Actor[];
  assessment?: ChangeAssessmentRecord;
}

/** A write's deadline as the request keeps it, and the shortest one in words for the gate. */
export interface ChangeTiming {
  revertAfterSeconds?: number;
  forSeconds?: number;
  /** The earliest deadline: what the gate weighs and every preview states. */
  first?: { seconds: number; kind: 'keep_or_revert' | 'temporary'; source: string };
}

/** What a front end wants to hear during an approval. */
export interface ApproveHooks {
  /**
   * Called once the claim is won, before the change runs (the UI edits the preview to
   * "Running…"). Awaited up to CLAIM_NOTICE_WAIT_MS before the write; a failure is logged only.
   */
  onClaimed?: (request: ChangeRequest) => Promise<void>;
}

// A slow or failing Slack must not hold a change back for long, nor stop it.
const CLAIM_NOTICE_WAIT_MS = 2_000;

/** What a sweep changed, so the UI can edit the messages of those requests (each reported once). */
export interface SweepResult {
  expired: ChangeRequest[];
  interrupted: InterruptedRequest[];
}

/** Why an approve click cannot proceed (not pending), or undefined if it can. */
function approveBlocked(request: ChangeRequest): ApproveOutcome | undefined {
  if (request.state === 'expired') return { kind: 'expired', request };
  if (request.state !== 'pending') return { kind: 'already', request };
  return undefined;
}

type Outcome = Extract<TransitionEntry, { type: 'succeeded' | 'failed' }>;

/** Why an automatic revert ran, as its note says. */
const AUTOMATIC_REASONS = {
  keep_timeout: 'nobody kept it before its deadline',
  temporary: 'its time was up (a temporary change)',
  unreachable: 'the controller could not be read after the change',
} as const;

/**
 * A preview that changes nothing (update_network to the values a network has) is answered
 * "nothing to change" on every face; nobody is asked to approve it.
 */
function refuseNoOp(tool: string, preview: unknown): void {
  if (isNoOpPreview(preview)) {
    const name = (preview as { name?: unknown }).name;
    throw new ConflictError(
      `nothing to change: ${typeof name === 'string' ? name : 'the target'} already has these settings (${tool} not proposed)`,
    );
  }
}

/** A write as a `/net` line, for a refusal that says where to propose it instead. */
function commandLine(tool: string, args: Record<string, unknown>): string {
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
  decision: { revertAfterSeconds?: number; matched: string[] },
): ChangeTiming {
  const keeps = [
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
            source: `the policy's revert_after ${formatDuration(decision.revertAfterSeconds)}`,
          },
        ]
      : []),
  ].sort((a, b) => a.seconds - b.seconds);
  const keep = keeps[0];
  const timing: ChangeTiming = {};
  if (meta.forSeconds !== undefined) timing.forSeconds = meta.forSeconds;
  // A keep deadline at or after the temporary one would never act: the change is gone by then.
  if (keep && (meta.forSeconds === undefined || keep.seconds < meta.forSeconds))
    timing.revertAfterSeconds = keep.seconds;
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
function timingFields(timing: ChangeTiming) {
  return {
    ...(timing.revertAfterSeconds !== undefined ? { revertAfterSeconds: timing.revertAfterSeconds } : {}),
    ...(timing.forSeconds !== undefined ? { forSeconds: timing.forSeconds } : {}),
  };
}

/** A verdict as a yes, or a no with the reason and how to get what is missing. */
function verdictDecision(verdict: GateVerdict): { ok: true } | { ok: false; reason: string } {
  if (verdict.verdict !== 'refuse') return { ok: true };
  return { ok: false, reason: verdict.howTo ? `${verdict.reason}; ${verdict.howTo}` : verdict.reason };
}

/** A gate refusal as the error every face words: the reason, then how to get what is missing. */
export function gateRefusal(verdict: Extract<GateVerdict, { verdict: 'refuse' }>): NotAuthorizedError {
  return new NotAuthorizedError(verdict.howTo ? `${verdict.reason}; ${verdict.howTo}` : verdict.reason);
}

/** What the request keeps of an assessment: risk, reasons, self-lockout, what the policy requires. */
function assessmentRecord({ facts, radius, decision }: ChangeAssessment): ChangeAssessmentRecord {
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
function setChange(set: ChangeSetRecord, requester: Actor): GateChange & { tool: string } {
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
function setAsProposed(set: ChangeSetRecord): ChangeSetRecord {
  return {
    ...set,
    steps: set.steps.map(({ tool, args, revertOf }) => ({ tool, args, ...(revertOf ? { revertOf } : {}) })),
  };
}

/**
 * Change requests: dry-run preview, approval by someone allowed, exactly one execution.
 * Every transition goes through the store, which journals it in the same step as it takes effect
 * and lets it happen only from the expected state: of concurrent clicks, on one replica or on
 * several, exactly one wins the claim and runs the change.
 */
export class Approvals {
  /** The clock every decision uses (injectable, so tests can move it). */
  readonly now: () => number;
  private readonly store: ChangeStore;
  // Outcomes of writes that ran but could not be recorded (store unreachable); retried by sweep().
  private readonly unrecorded = new Map<string, { entry: Outcome; from: readonly ChangeState[] }>();
  private readonly listeners = new Set<ChangeListener>();
  /** The one decision every path asks (src/approvals/gate.ts). */
  readonly gate: Gate;

  constructor(private readonly options: ApprovalsOptions) {
    this.now = options.now ?? Date.now;
    this.store = observeChanges(options.store, (request) => this.changed(request));
    this.gate = new Gate(options.policy);
  }

  /** Who may request, approve and cancel (App Home lists what a user may approve with it). */
  get policy(): ApprovalPolicy {
    return this.options.policy;
  }

  /**
   * Calls `listener` after every change this process makes to a request (proposed, decided, run,
   * expired, reminded). Listeners only schedule work: they never delay or fail the approval path.
   * Returns a function that removes the listener.
   */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Claims the one reminder of requests pending longer than `afterSeconds` (0: none); each once. */
  async claimReminders(afterSeconds: number): Promise<ChangeRequest[]> {
    return claimDueReminders(this.store, this.now(), afterSeconds);
  }

  private changed(request: ChangeRequest): void {
    for (const listener of this.listeners) {
      try {
        listener(request);
      } catch (error) {
        this.options.logger.warn({ err: error, id: request.id }, 'a change listener failed');
      }
    }
  }

  /** Builds Approvals over a store and recovers what the last run left (see sweep). */
  static async open(options: ApprovalsOptions): Promise<Approvals> {
    const approvals = new Approvals(options);
    await approvals.sweep();
    return approvals;
  }

  /**
   * Checks the requester, validates, runs the dry run, and journals a pending request. An older
   * pending request for the identical tool, site and arguments is superseded (see `replaces`).
   */
  async propose(input: {
    tool: string;
    args: Record<string, unknown>;
    requester: Actor;
    channel?: string;
    /** What the gate calls it: a proposal, or the revert of a drift. */
    action?: Extract<GateAction, 'propose' | 'revert_drift'>;
  }): Promise<ChangeRequest> {
    const { registry } = this.options;
    const asker = await this.gate.mayAsk(input.requester, input.channel);
    if (asker.verdict === 'refuse') throw gateRefusal(asker);
    if (registry.require(input.tool).access !== 'write') {
      throw new ValidationError([
        { field: 'tool', rule: `${input.tool} only reads; change requests are for writes` },
      ]);
    }
    // revert_after and for say when a change undoes itself, not what it changes.
    const meta = splitMetaArgs(input.args);
    // confirm and dry_run are how a request is run, not what it changes.
    const { confirm: _confirm, dry_run: _dryRun, ...args } = registry.validate(input.tool, meta.args);
    // The preview and its blast radius share one fresh snapshot of the controller.
    const snapshot = snapshotContext(this.options.context);
    const preview = await this.dryRun(input.tool, args, snapshot);
    refuseNoOp(input.tool, preview);
    const assessment = await this.assess({ ...input, args }, snapshot);
    await this.require({
      action: input.action ?? 'propose',
      actor: input.requester,
      change: { ...input, args },
      decision: assessment,
    });
    return this.create({
      tool: input.tool,
      args,
      requester: input.requester,
      channel: input.channel,
      preview,
      ...timingFields(timingOf(meta, assessment.decision)),
      assessment: assessmentRecord(assessment),
    });
  }

  /**
   * Asks the gate whether `actor` may do `action` on `change` now, from the face the actor acts
   * through; the policy's decision is evaluated fresh (from the controller) unless given.
   */
  async decide(input: {
    action: GateAction;
    actor: Actor;
    change: GateChange;
    face?: GateFace;
    decision?: ChangeAssessment;
    timing?: ChangeTiming;
    command?: string;
    /** Nothing to evaluate the policy on (drift the bot cannot revert). */
    unassessed?: boolean;
  }): Promise<{ verdict: GateVerdict; assessment?: ChangeAssessment }> {
    const face = input.face ?? faceOf(input.actor);
    const undecided =
      input.unassessed === true || input.action === 'cancel' || input.action === 'cancel_scheduled';
    const assessment =
      input.decision ?? (undecided ? undefined : await this.assess({ ...input.change, face }));
    const first = input.timing?.first;
    const keeper = first && input.action === 'confirm' ? await this.timerKeeper() : undefined;
    const verdict = await this.gate.decide({
      action: input.action,
      face,
      actor: input.actor,
      change: {
        requester: input.change.requester,
        ...(input.change.channel !== undefined ? { channel: input.change.channel } : {}),
        ...(input.change.approvedBy ? { approvedBy: input.change.approvedBy } : {}),
        ...(input.change.assessment ? { assessment: input.change.assessment } : {}),
      },
      ...(assessment ? { decision: assessment.decision } : {}),
      ...(first ? { timing: first } : {}),
      ...(keeper ? { timerKeeper: keeper } : {}),
      ...(input.command ? { command: input.command } : {}),
    });
    if (verdict.verdict === 'refuse') {
      this.options.logger.info(
        {
          action: input.action,
          face,
          tool: input.change.tool,
          actor: input.actor.userId,
          reason: verdict.reason,
        },
        'refused by the gate',
      );
    }
    return { verdict, ...(assessment ? { assessment } : {}) };
  }

  /** decide(), throwing the refusal (NotAuthorizedError, nothing written); the assessment it used. */
  private async require(input: Parameters<Approvals['decide']>[0]): Promise<GateVerdict> {
    const { verdict } = await this.decide(input);
    if (verdict.verdict === 'refuse') throw gateRefusal(verdict);
    return verdict;
  }

  private async timerKeeper(): Promise<string | undefined> {
    try {
      return await this.options.timerKeeper?.();
    } catch (error) {
      this.options.logger.warn({ err: error }, 'could not tell whether a bot keeps the deadlines');
      return undefined;
    }
  }

  /**
   * Issue 22: the change's blast radius and what the policy in effect requires of it, read fresh
   * from the controller now (at proposal, at each approval, right before it runs).
   */
  async assess(
    change: {
      tool: string;
      args: Record<string, unknown>;
      requester: Actor;
      channel?: string;
      set?: ChangeSetRecord;
      /** The face it is asked through (the requester's, unless someone acts on it elsewhere). */
      face?: GateFace;
    },
    context: ToolContext = snapshotContext(this.options.context),
  ): Promise<ChangeAssessment> {
    // A set is assessed step by step on the planned state, and the strictest step rules.
    if (change.set) return (await this.planSet(change.set, change, context)).assessment;
    return assessChange(
      context,
      {
        tool: change.tool,
        args: change.args,
        requester: personOf(change.requester),
        channel: change.channel ?? '',
        face: change.face ?? faceOf(change.requester),
      },
      context.guardrails?.policy ?? DEFAULT_POLICY,
      this.now(),
    );
  }

  /**
   * Proposes the change that undoes `changeId` (issue 21): a new request, previewed and approved
   * like any other, built from the change's before-image. When the object changed since the change
   * ran, the preview compares before / after / now and says so. A change that cannot be reverted
   * is refused with the reason (ConflictError).
   */
  async proposeRevert(input: {
    changeId: string;
    requester: Actor;
    channel?: string;
  }): Promise<ChangeRequest> {
    const original = await this.store.get(input.changeId);
    if (!original) throw new ResourceNotFoundError('change request', input.changeId);
    const channel = input.channel ?? original.channel;
    const asker = await this.gate.mayAsk(input.requester, channel);
    if (asker.verdict === 'refuse') throw gateRefusal(asker);
    if (original.set) return this.proposeSetRevert(original, input.requester, channel);
    const { tool, args, preview } = await this.revertPreview(original);
    const change = { tool, args, requester: input.requester, ...(channel !== undefined ? { channel } : {}) };
    const assessment = await this.assess(change);
    await this.require({ action: 'propose', actor: input.requester, change, decision: assessment });
    return this.create({
      tool,
      args,
      requester: input.requester,
      channel,
      preview,
      revertOf: original.id,
      assessment: assessmentRecord(assessment),
    });
  }

  /**
   * The change that would undo `changeId`, previewed, without proposing anything (the console shows
   * it before `approve? [y/N]`); a change that cannot be reverted is refused with the reason.
   */
  async previewRevert(
    changeId: string,
    requester: Actor = SYSTEM_ACTOR,
  ): Promise<{
    tool: string;
    args: Record<string, unknown>;
    preview: unknown;
    previewHash: string;
    assessment: ChangeAssessmentRecord;
    verdict: GateVerdict;
  }> {
    const original = await this.store.get(changeId);
    if (!original) throw new ResourceNotFoundError('change request', changeId);
    if (original.set) {
      const set = await this.setRevertOf(original);
      const planned = await this.planSet(set, { requester }, snapshotContext(this.options.context));
      const change = setChange(set, requester);
      const { verdict } = await this.decide({
        action: 'confirm',
        actor: requester,
        change,
        decision: planned.assessment,
      });
      return {
        tool: CHANGE_SET_TOOL,
        args: change.args,
        preview: planned.preview,
        previewHash: previewHash(planned.preview),
        assessment: assessmentRecord(planned.assessment),
        verdict,
      };
    }
    const plan = await this.revertPreview(original);
    const change = { tool: plan.tool, args: plan.args, requester };
    const assessment = await this.assess(change);
    const { verdict } = await this.decide({
      action: 'confirm',
      actor: requester,
      change,
      decision: assessment,
      command: `revert ${changeId}`,
    });
    return {
      ...plan,
      previewHash: previewHash(plan.preview),
      assessment: assessmentRecord(assessment),
      verdict,
    };
  }

  /** The inverse of a change with its preview; one that would change nothing is refused. */
  private async revertPreview(
    original: ChangeRequest,
  ): Promise<{ tool: string; args: Record<string, unknown>; preview: unknown }> {
    const { tool, args } = this.inverse(original);
    const preview = await this.previewFor({ tool, args, revertOf: original.id });
    refuseNoOp(tool, preview);
    return { tool, args, preview };
  }

  /**
   * Runs the inverse of `changeId` at once, without a new approval (the original approval covered
   * it): a Keep deadline passed, a temporary change ended, or the controller was unreachable after
   * the change. Journaled as a new change approved by the system actor with that note; run once,
   * never retried. A change that cannot be reverted is refused with the reason (ConflictError).
   */
  async revertAutomatically(input: {
    changeId: string;
    reason: 'keep_timeout' | 'temporary' | 'unreachable';
    /** Someone clicked Revert now: the gate decides for them; without one, the timer asks as the bot. */
    actor?: Actor;
  }): Promise<ApproveOutcome> {
    const original = await this.store.get(input.changeId);
    if (!original) return { kind: 'not_found', id: input.changeId };
    const { tool, args } = this.inverse(original);
    const actor = input.actor ?? SYSTEM_ACTOR;
    const face = faceOf(actor);
    // The revert is a write: the policy is asked about it now, as the one who makes it happen.
    const { verdict } = await this.decide({
      action: input.actor ? 'revert_now' : 'timer_fire',
      actor,
      face,
      change: {
        tool,
        args,
        requester: original.requester,
        ...(original.channel !== undefined ? { channel: original.channel } : {}),
        ...(original.assessment ? { assessment: original.assessment } : {}),
      },
      decision: await this.assess({ tool, args, requester: actor, face, channel: original.channel }),
    });
    if (verdict.verdict === 'refuse') {
      return {
        kind: 'refused',
        request: original,
        reason: verdict.howTo ? `${verdict.reason}; ${verdict.howTo}` : verdict.reason,
      };
    }
    const preview = await this.previewFor({ tool, args, revertOf: original.id });
    const request = await this.create({
      tool,
      args,
      requester: SYSTEM_ACTOR,
      channel: original.channel,
      preview,
      revertOf: original.id,
    });
    const note = input.actor
      ? `reverted now by ${input.actor.name ?? input.actor.userId} before its deadline, under the approval of ${original.id}`
      : `${AUTOMATIC_REASONS[input.reason]}: reverted without a new approval, the approval of ${original.id} covered it`;
    const claimed = await this.store.transition(
      request.id,
      { type: 'approved', id: request.id, actor, previewHash: request.previewHash, note },
      { from: ['pending'], at: this.now() },
    );
    if (!claimed) return { kind: 'already', request: (await this.store.get(request.id)) ?? request };
    this.options.logger.info(
      { id: request.id, revertOf: original.id, reason: input.reason, actor: actor.userId },
      'automatic revert',
    );
    return this.execute(claimed, actor, { recheck: false });
  }

  /** Keep (the gate's `keep`): someone the policy lets approve the change, from their face. */
  async mayKeep(change: ChangeRequest, actor: Actor): Promise<{ ok: true } | { ok: false; reason: string }> {
    const face = faceOf(actor);
    const { verdict } = await this.decide({
      action: 'keep',
      actor,
      face,
      change,
      decision: await this.assess({ ...change, face }),
    });
    return verdictDecision(verdict);
  }

  /**
   * Accept on drift (the gate's `accept_drift`): someone who may approve the change that would
   * revert it (its policy evaluated now, when the bot can make that change; APPROVERS otherwise).
   */
  async mayAcceptDrift(
    revert: { tool: string; args: Record<string, unknown> } | undefined,
    site: string,
    actor: Actor,
  ): Promise<{ ok: true } | { ok: false; reason: string }> {
    const change = revert ?? { tool: 'accept_drift', args: { site_id: site } };
    const { verdict } = await this.decide({
      action: 'accept_drift',
      actor,
      change: { ...change, requester: SYSTEM_ACTOR },
      // A change the bot cannot make has no policy decision: the approver lists of APPROVERS decide.
      ...(revert ? {} : { unassessed: true }),
    });
    return verdictDecision(verdict);
  }

  /** Revert now (the gate's `revert_now`): asked before the deadline is claimed, again as it runs. */
  async mayRevertNow(
    change: ChangeRequest,
    actor: Actor,
  ): Promise<{ ok: true } | { ok: false; reason: string }> {
    const { tool, args } = this.inverse(change);
    const face = faceOf(actor);
    const { verdict } = await this.decide({
      action: 'revert_now',
      actor,
      face,
      change: {
        tool,
        args,
        requester: change.requester,
        ...(change.assessment ? { assessment: change.assessment } : {}),
      },
      decision: await this.assess({ tool, args, requester: actor, face, channel: change.channel }),
    });
    return verdictDecision(verdict);
  }

  /**
   * The console's y on `revert <id>` and MCP's revert_change in confirm mode: the revert of
   * `changeId` run at once on its requester's own authority, where the gate allows that.
   */
  async runRevertNow(input: {
    changeId: string;
    requester: Actor;
    /** The hash of the revert preview the requester saw (the console's y/N): another is not run. */
    shownHash?: string;
  }): Promise<Extract<ApproveOutcome, { kind: 'succeeded' | 'failed' | 'already' }>> {
    const original = await this.store.get(input.changeId);
    if (!original) throw new ResourceNotFoundError('change request', input.changeId);
    if (original.set) {
      const set = await this.setRevertOf(original);
      return this.runSetOnOwnAuthority(set, { ...input, revertOf: original.id });
    }
    const { tool, args, preview } = await this.revertPreview(original);
    const change = { tool, args, requester: input.requester };
    const assessment = await this.assess(change);
    await this.require({ action: 'confirm', actor: input.requester, change, decision: assessment });
    const request = await this.create({
      ...change,
      ...(original.channel !== undefined ? { channel: original.channel } : {}),
      preview,
      revertOf: original.id,
      assessment: assessmentRecord(assessment),
    });
    await this.refuseUnlessShown(
      request,
      input,
      `the revert of ${input.changeId} is no longer the one shown: the object changed since the preview, so nothing was run; run revert ${input.changeId} again to see what it would do now`,
    );
    return this.runOnOwnAuthority(request, input.requester);
  }

  /**
   * What runs must be what the requester saw (the console's y/N): a request whose preview hash is
   * not the one shown is cancelled, and the requester told why; nothing runs.
   */
  private async refuseUnlessShown(
    request: ChangeRequest,
    input: { requester: Actor; shownHash?: string },
    why: string,
  ): Promise<void> {
    if (input.shownHash === undefined || input.shownHash === request.previewHash) return;
    await this.store.transition(
      request.id,
      { type: 'cancelled', id: request.id, actor: input.requester },
      { from: ['pending'], at: this.now() },
    );
    throw new ConflictError(why);
  }

  /** A request just created, approved by its own requester and run (no recheck: its preview is fresh). */
  private async runOnOwnAuthority(
    request: ChangeRequest,
    requester: Actor,
  ): Promise<Extract<ApproveOutcome, { kind: 'succeeded' | 'failed' | 'already' }>> {
    const claimed = await this.store.transition(
      request.id,
      { type: 'approved', id: request.id, actor: requester, previewHash: request.previewHash },
      { from: ['pending'], at: this.now(), live: true },
    );
    if (!claimed) return { kind: 'already', request: (await this.store.get(request.id)) ?? request };
    const outcome = await this.execute(claimed, requester, { recheck: false });
    if (outcome.kind === 'succeeded' || outcome.kind === 'failed' || outcome.kind === 'already')
      return outcome;
    throw new Error(`a change run at once ended as ${outcome.kind}`);
  }

  /** The inverse of a change, validated, or a ConflictError saying why there is none. */
  private inverse(original: ChangeRequest): { tool: string; args: Record<string, unknown> } {
    const plan = inverseOf(original);
    if ('reason' in plan) throw new ConflictError(`change ${original.id} cannot be reverted: ${plan.reason}`);
    const { confirm: _c, dry_run: _d, ...args } = this.options.registry.validate(plan.tool, plan.args);
    return { tool: plan.tool, args };
  }

  /**
   * Runs a write at once on its requester's own authority (MCP_WRITES=confirm: the client's
   * `confirm: true` is the approval), journaled as a request that its requester approved: created,
   * approved, executing, then succeeded or failed, like any change approved in Slack. The preview
   * was computed a moment ago, so it is not computed again before the write.
   */
  async runNow(input: {
    tool: string;
    args: Record<string, unknown>;
    requester: Actor;
    /** The hash of the preview the requester saw (the console's y/N): another is not run. */
    shownHash?: string;
  }): Promise<Extract<ApproveOutcome, { kind: 'succeeded' | 'failed' | 'already' }>> {
    const planned = await this.previewChange(input);
    if (planned.verdict.verdict === 'refuse') throw gateRefusal(planned.verdict);
    const request = await this.create({
      tool: planned.tool,
      args: planned.args,
      requester: input.requester,
      preview: planned.preview,
      ...timingFields(planned.timing),
      assessment: planned.assessment,
    });
    await this.refuseUnlessShown(
      request,
      input,
      'the change is no longer the one shown: the controller changed since the preview, so nothing was run; run it again to see what it would do now',
    );
    return this.runOnOwnAuthority(request, input.requester);
  }

  /**
   * What a change confirmed at the console or over MCP would do, without proposing or sending
   * anything: its preview, risk and blast radius, its deadlines, and the gate's verdict on the
   * requester's own confirmation (who must approve it when that is not enough). Every face shows
   * these same fields for the same change.
   */
  async previewChange(input: { tool: string; args: Record<string, unknown>; requester: Actor }): Promise<{
    tool: string;
    args: Record<string, unknown>;
    preview: unknown;
    previewHash: string;
    assessment: ChangeAssessmentRecord;
    timing: ChangeTiming;
    verdict: GateVerdict;
  }> {
    const { registry } = this.options;
    if (registry.require(input.tool).access !== 'write') {
      throw new ValidationError([
        { field: 'tool', rule: `${input.tool} only reads; it needs no change request` },
      ]);
    }
    const meta = splitMetaArgs(input.args);
    const { confirm: _confirm, dry_run: _dryRun, ...args } = registry.validate(input.tool, meta.args);
    const snapshot = snapshotContext(this.options.context);
    const preview = await this.dryRun(input.tool, args, snapshot);
    refuseNoOp(input.tool, preview);
    const change = { tool: input.tool, args, requester: input.requester };
    const assessment = await this.assess(change, snapshot);
    const timing = timingOf(meta, assessment.decision);
    const { verdict } = await this.decide({
      action: 'confirm',
      actor: input.requester,
      change,
      decision: assessment,
      timing,
      command: commandLine(input.tool, input.args),
    });
    return {
      tool: input.tool,
      args,
      preview,
      previewHash: previewHash(preview),
      assessment: assessmentRecord(assessment),
      timing,
      verdict,
    };
  }

  /**
   * Records the message that shows a request, unless one is recorded already: of several processes
   * that posted the same request (the MCP front end's and the Slack bot's sweep), exactly one is
   * kept. Returns the request with its message, or undefined when another message was first.
   */
  async announce(id: string, message: MessageRef): Promise<ChangeRequest | undefined> {
    return this.store.transition(
      id,
      { type: 'message', id, actor: SYSTEM_ACTOR, message },
      { from: CHANGE_STATES, at: this.now(), unannounced: true },
    );
  }

  /**
   * Pending requests from MCP clients that no message shows yet, older than `graceMs`: those an
   * MCP process without Slack (`netops mcp` over stdio) left for the Slack bot to post. The grace
   * leaves a request proposed in a bot's own process to that process's front end.
   */
  async unannounced(graceMs: number): Promise<ChangeRequest[]> {
    const before = this.now() - graceMs;
    const pending = await this.store.list({ state: 'pending' });
    return pending
      .filter((r) => r.message === undefined && r.channel !== undefined && isMcpRequester(r.requester))
      .filter((r) => Date.parse(r.createdAt) <= before)
      .reverse();
  }

  /**
   * Records which Slack message shows the request, so expiry and outcomes can edit it after a
   * restart. Returns the request as it is now: it may have been decided or expired meanwhile.
   */
  async attachMessage(id: string, message: MessageRef): Promise<ChangeRequest> {
    const done = await this.store.transition(
      id,
      { type: 'message', id, actor: SYSTEM_ACTOR, message },
      { from: CHANGE_STATES, at: this.now() },
    );
    if (!done) throw new ResourceNotFoundError('change request', id);
    return done;
  }

  /**
   * Approves and, unless the preview drifted, runs the change; exactly once however often it is
   * clicked. `shownHash` is the preview hash of the message that was clicked: when it is not the
   * stored request's, nothing runs (the stored request is not what the approver saw).
   */
  async approve(
    id: string,
    approver: Actor,
    hooks: ApproveHooks = {},
    shownHash?: string,
  ): Promise<ApproveOutcome> {
    const found = await this.store.get(id);
    if (!found) return { kind: 'not_found', id };
    if (shownHash !== undefined && shownHash !== found.previewHash) {
      this.options.logger.warn(
        { id, shown: shownHash.slice(0, 12), stored: found.previewHash.slice(0, 12) },
        'an approval named a preview hash the stored change request does not have; not run',
      );
      return { kind: 'mismatch', request: found, shownHash };
    }
    let request = this.knownTruth(await this.settle(found));
    const early = approveBlocked(request);
    if (early) return early;
    // Issue 24: a step's own request is the set's to run; approved on its own it would run outside
    // the set's order and compensation (it is pending only between its creation and its run).
    if (request.setOf !== undefined) {
      return {
        kind: 'refused',
        request,
        reason: `this is step ${request.setStep ?? '?'} of change set ${request.setOf}; the set runs it`,
      };
    }
    // The policy on a fresh read of the controller, before anything is recorded.
    let assessed: ChangeAssessment;
    try {
      assessed = await this.assess(request);
    } catch (error) {
      const current = await this.current(request);
      return (
        approveBlocked(current) ?? {
          kind: 'refused',
          request: current,
          reason: `the policy could not be checked on a fresh read, so your approval was not recorded: ${summarize(error).message}`,
        }
      );
    }
    // Concurrent clicks: each step below is one guarded transition, so of the clicks that would be
    // the last approval exactly one records it; a click that lost a race looks again (a few times).
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const { verdict } = await this.decide({
        action: request.set ? 'approve_set' : 'approve',
        actor: approver,
        face: 'slack',
        change: request,
        decision: assessed,
      });
      if (verdict.verdict === 'refuse') {
        // The policy refuses the change itself: it never runs, and the request says why.
        if (verdict.deny) return this.refusedByPolicy(request, approver, verdict.deny);
        // The gate awaited: another click may have claimed or cancelled it meanwhile.
        const current = await this.current(request);
        return approveBlocked(current) ?? { kind: 'refused', request: current, reason: verdict.reason };
      }
      const needed = verdict.needed;
      const given = request.approvedBy ?? [];
      const at = this.now();
      const guard = { from: ['pending'] as const, at, live: true, notApprovedBy: approver.userId };
      if (verdict.verdict === 'endorse') {
        const endorsed = await this.store.transition(
          id,
          { type: 'endorsed', id, actor: approver, previewHash: request.previewHash },
          { ...guard, approvalsBelow: needed - 1 },
        );
        if (endorsed) {
          this.options.logger.info(
            { id, approver: approver.userId, given: given.length + 1, needed },
            'change request approval recorded; more needed',
          );
          return { kind: 'endorsed', request: endorsed, needed };
        }
      } else if (verdict.runAt !== undefined) {
        const scheduled = await this.schedule(request, approver, verdict.runAt, {
          ...guard,
          approvalsAtLeast: needed - 1,
        });
        if (scheduled) return scheduled;
      } else {
        // The claim: pending and not past expiry → approved and owned by this replica, atomically.
        const claimed = await this.store.transition(
          id,
          { type: 'approved', id, actor: approver, previewHash: request.previewHash },
          { ...guard, approvalsAtLeast: needed - 1 },
        );
        if (claimed) {
          this.options.logger.info(
            { id, tool: request.tool, approver: approver.userId },
            'change request approved',
          );
          const notice = hooks.onClaimed ? settle(hooks.onClaimed(claimed)) : undefined;
          return this.execute(claimed, approver, { recheck: true, ...(notice ? { notice } : {}) });
        }
      }
      request = this.knownTruth(await this.current(request));
      const blocked = approveBlocked(request);
      if (blocked) return blocked;
    }
    return { kind: 'already', request };
  }

  /**
   * Issue 22: the last approval of a change whose window is closed: the request becomes
   * `scheduled` and a `window` deadline is stored for the opening (the timers' ticker fires it).
   */
  private async schedule(
    request: ChangeRequest,
    approver: Actor,
    runAt: number,
    guard: Parameters<ChangeStore['transition']>[2],
  ): Promise<ApproveOutcome | undefined> {
    const { id } = request;
    const deadlines = this.options.deadlines;
    if (!deadlines) {
      return {
        kind: 'refused',
        request,
        reason:
          'this change may only run in its window, which is closed, and this process cannot schedule it',
      };
    }
    const scheduled = await this.store.transition(
      id,
      {
        type: 'scheduled',
        id,
        actor: approver,
        previewHash: request.previewHash,
        runAt: new Date(runAt).toISOString(),
      },
      guard,
    );
    if (!scheduled) return undefined;
    await deadlines.schedule({ kind: 'window', changeId: id, dueAt: runAt, at: this.now() });
    this.options.logger.info(
      { id, tool: request.tool, approver: approver.userId, runAt: scheduled.scheduledFor },
      'change request approved outside its window; scheduled',
    );
    return { kind: 'scheduled', request: scheduled };
  }

  /**
   * Issue 22: runs a scheduled change (its window opened, or Run now): claimed from `scheduled`
   * exactly once across replicas, then checked afresh like any approved change (drift: the target
   * changed since the approval, so it does not run; the policy: denied now, so it does not run).
   */
  async runScheduled(id: string, actor: Actor = SYSTEM_ACTOR): Promise<ApproveOutcome> {
    const request = await this.store.get(id);
    if (!request) return { kind: 'not_found', id };
    if (request.state !== 'scheduled') return { kind: 'already', request };
    if (actor === SYSTEM_ACTOR) {
      // The bot runs it as the window opens: a freeze or a refusal that now applies stops it.
      const { verdict } = await this.decide({
        action: 'window_open',
        actor: SYSTEM_ACTOR,
        face: 'system',
        change: request,
      });
      if (verdict.verdict === 'refuse') {
        return this.refusedByPolicy(
          request,
          SYSTEM_ACTOR,
          verdict.deny ?? { rule: 'freeze', reason: verdict.reason },
        );
      }
    }
    const claimed = await this.store.transition(
      id,
      {
        type: 'approved',
        id,
        actor: request.approver ?? actor,
        previewHash: request.previewHash,
        note:
          actor === SYSTEM_ACTOR
            ? `its window opened (scheduled for ${request.scheduledFor ?? 'its opening'})`
            : `run now by ${actor.name ?? actor.userId} (scheduled for ${request.scheduledFor ?? 'its opening'})`,
      },
      { from: ['scheduled'], at: this.now() },
    );
    if (!claimed) return { kind: 'already', request: (await this.store.get(id)) ?? request };
    this.options.logger.info({ id, tool: request.tool }, 'scheduled change request runs');
    return this.execute(claimed, claimed.approver ?? actor, { recheck: true });
  }

  /**
   * Issue 22, App Home's Run now: a scheduled change runs before its window only if the policy,
   * evaluated now on a fresh read, allows it (no window required now, or the window is open), and
   * only for someone who may approve it.
   */
  async runScheduledNow(id: string, actor: Actor): Promise<ApproveOutcome> {
    const request = await this.store.get(id);
    if (!request) return { kind: 'not_found', id };
    if (request.state !== 'scheduled') return { kind: 'already', request };
    const { verdict } = await this.decide({ action: 'run_scheduled_now', actor, change: request });
    if (verdict.verdict === 'refuse') return { kind: 'refused', request, reason: verdict.reason };
    return this.runScheduled(id, actor);
  }

  /** A change the policy denies at approval: never run; the request ends as "not run" with the rule's reason. */
  private async refusedByPolicy(
    request: ChangeRequest,
    approver: Actor,
    deny: { rule: string; reason: string },
  ): Promise<ApproveOutcome> {
    const summary: ErrorSummary = {
      code: 'not_authorized',
      message: `not run: the policy refuses it now, ${deniedText(deny)}`,
    };
    const failed = await this.store.transition(
      request.id,
      { type: 'failed', id: request.id, actor: approver, error: summary, stage: 'recheck' },
      { from: ['pending', 'scheduled'], at: this.now() },
    );
    if (!failed) {
      const current = await this.current(request);
      return approveBlocked(current) ?? { kind: 'already', request: current };
    }
    return { kind: 'failed', request: failed, error: summary };
  }

  /** Cancels a pending request; the requester or anyone allowed to approve it may. */
  async cancel(id: string, actor: Actor): Promise<CancelOutcome> {
    const found = await this.store.get(id);
    if (!found) return { kind: 'not_found', id };
    const request = await this.settle(found);
    // Issue 22: a scheduled change can be cancelled until its window opens.
    const scheduled = request.state === 'scheduled';
    if (request.state !== 'pending' && !scheduled) return { kind: 'already', request };
    const { verdict } = await this.decide({
      action: scheduled ? 'cancel_scheduled' : 'cancel',
      actor,
      face: 'slack',
      change: request,
    });
    if (verdict.verdict === 'refuse') {
      const current = await this.current(request);
      if (current.state !== 'pending' && current.state !== 'scheduled')
        return { kind: 'already', request: current };
      return { kind: 'refused', request: current, reason: verdict.reason };
    }
    const cancelled = await this.store.transition(
      id,
      { type: 'cancelled', id, actor },
      scheduled ? { from: ['scheduled'], at: this.now() } : { from: ['pending'], at: this.now(), live: true },
    );
    if (!cancelled) return { kind: 'already', request: await this.current(request) };
    if (scheduled) await this.dropWindowDeadline(id, actor);
    return { kind: 'cancelled', request: cancelled };
  }

  /** The `window` deadline of a cancelled scheduled change, cancelled too (its run would find it cancelled anyway). */
  private async dropWindowDeadline(id: string, actor: Actor): Promise<void> {
    const deadlines = this.options.deadlines;
    if (!deadlines) return;
    try {
      for (const d of await deadlines.list({ changeId: id, kind: 'window', state: 'scheduled' }))
        await deadlines.cancel(d.id, this.now(), actor.userId);
    } catch (error) {
      this.options.logger.warn(
        { err: error, id },
        'could not cancel the window deadline of a cancelled change',
      );
    }
  }

  /**
   * Scheduled changes whose `window` deadline is missing (the process stopped between recording
   * the approval and storing the deadline) get it now: scheduling is idempotent per change.
   */
  private async rescheduleOrphans(): Promise<void> {
    const deadlines = this.options.deadlines;
    if (!deadlines) return;
    for (const request of await this.store.list({ state: 'scheduled' })) {
      const found = await deadlines.list({ changeId: request.id, kind: 'window' });
      if (found.length > 0 || !request.scheduledFor) continue;
      await deadlines.schedule({
        kind: 'window',
        changeId: request.id,
        dueAt: Date.parse(request.scheduledFor),
        at: this.now(),
      });
    }
  }

  /** Scheduled changes (issue 22), soonest first: App Home lists them with Run now and Cancel. */
  async scheduledChanges(): Promise<ChangeRequest[]> {
    const found = await this.store.list({ state: 'scheduled' });
    return found.sort((a, b) => Date.parse(a.scheduledFor ?? '') - Date.parse(b.scheduledFor ?? ''));
  }

  /**
   * Cancels, as the system, a pending request no message shows: its front end could not post it
   * (Slack refused), so nobody should approve it unseen. Undefined when it was decided, or shown
   * by another process's message, meanwhile.
   */
  async withdraw(id: string): Promise<ChangeRequest | undefined> {
    return this.store.transition(
      id,
      { type: 'cancelled', id, actor: SYSTEM_ACTOR },
      { from: ['pending'], at: this.now(), unannounced: true },
    );
  }

  /** Expires pending requests past their time and returns them (each to one caller, on one replica). */
  async expireDue(): Promise<ChangeRequest[]> {
    return this.store.expireDue(this.now());
  }

  /** Marks runs whose replica is gone as `unknown` (never re-run) and returns them, each once. */
  async recoverInterrupted(): Promise<InterruptedRequest[]> {
    const recovered = await this.store.recoverInterrupted(this.now());
    for (const { request, previous } of recovered) {
      this.options.logger.warn(
        { id: request.id, tool: request.tool, previous },
        'change request was interrupted (its bot process stopped); outcome unknown, verify on the controller',
      );
    }
    return recovered;
  }

  /**
   * What runs at start and then periodically: outcomes not yet recorded are recorded, runs cut off
   * by a dead process become unknown, and overdue requests expire.
   */
  async sweep(): Promise<SweepResult> {
    await this.retryUnrecorded();
    await this.rescheduleOrphans().catch((error: unknown) => {
      this.options.logger.warn({ err: error }, 'could not check the deadlines of scheduled changes');
    });
    const interrupted = await this.recoverInterrupted();
    // Issue 24: a set cut off mid-run is settled here, once (the recovery hands it to one caller).
    for (const entry of interrupted) {
      if (!entry.request.set || entry.request.state !== 'unknown') continue;
      try {
        entry.request = await this.resumeSet(entry.request);
      } catch (error) {
        this.options.logger.error(
          { err: error, id: entry.request.id },
          'could not settle an interrupted change set',
        );
      }
    }
    const expired = await this.expireDue();
    return { expired, interrupted };
  }

  /** One request, or undefined for an id never seen (the UI says "expired or unknown, not run"). */
  async get(id: string): Promise<ChangeRequest | undefined> {
    return this.store.get(id);
  }

  /** Requests newest first, filtered (state, requester, tool, since) and paged. */
  async list(filter: ChangeFilter = {}): Promise<ChangeRequest[]> {
    return this.store.list(filter);
  }

  /** How many requests match. */
  async count(filter: Omit<ChangeFilter, 'limit' | 'offset'> = {}): Promise<number> {
    return this.store.count(filter);
  }

  /** Issue 26: pending requests live at `filter.liveAt`, soonest expiry first, a page at a time. */
  async pendingByExpiry(filter: PendingFilter): Promise<ChangeRequest[]> {
    return this.store.pendingByExpiry(filter);
  }

  /** Issue 26: how many pending requests `pendingByExpiry` would list without paging. */
  async countPending(filter: Omit<PendingFilter, 'limit' | 'offset'>): Promise<number> {
    return this.store.countPending(filter);
  }

  /** One request with every journal event about it. */
  async history(id: string): Promise<RequestHistory | undefined> {
    return this.store.history(id);
  }

  /** The journal's event count and last hash. */
  async journalHead(): Promise<JournalHead> {
    return this.store.journalHead();
  }

  private async dryRun(
    tool: string,
    args: Record<string, unknown>,
    context: ToolContext = this.options.context,
  ): Promise<unknown> {
    return redactSecrets(await this.options.registry.run(tool, { ...args, dry_run: true }, context));
  }

  /**
   * The preview of a request: the tool's dry run, and for a revert what it undoes, its notes, and
   * (when the object changed since the change ran) before / after / now side by side. Computed the
   * same way at proposal and at approval, so the drift check compares like with like.
   */
  private async previewFor(
    request: {
      tool: string;
      args: Record<string, unknown>;
      revertOf?: string;
    },
    context?: ToolContext,
  ): Promise<unknown> {
    const dry = await this.dryRun(request.tool, request.args, context);
    if (!request.revertOf) return dry;
    const original = await this.store.get(request.revertOf);
    if (!original) throw new ResourceNotFoundError('change request', request.revertOf);
    const plan = inverseOf({ ...original, revertedBy: undefined });
    const notes = 'reason' in plan ? [] : plan.notes;
    const read = nowRead(original);
    const now: ChangeImage = read
      ? await readImage(read, this.options.registry, this.options.context, this.now)
      : { at: new Date(this.now()).toISOString(), error: 'the object is not read back' };
    const compared = compareImages(original.before, original.after, now);
    const base =
      typeof dry === 'object' && dry !== null && !Array.isArray(dry)
        ? (dry as Record<string, unknown>)
        : { dry_run: true, preview: dry };
    const warnings = Array.isArray(base.warnings) ? [...(base.warnings as unknown[])] : [];
    if (compared.changedSince) {
      warnings.unshift(
        `${Object.keys(original.after?.objects ?? { object: 0 })[0]} changed since ${original.id} ran: ` +
          'reverting puts back the values from before it, over what was changed since (compare before / after / now)',
      );
    }
    return {
      ...base,
      revert_of: original.id,
      reverts: `${original.tool} ${Object.entries(original.args)
        .filter(([key]) => key !== 'site_id')
        .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
        .join(' ')}`.trim(),
      ...(notes.length > 0 ? { revert_notes: notes } : {}),
      ...(compared.changedSince ? { changed_since: true, before_after_now: compared.rows } : {}),
      ...(compared.unreadable ? { now_unreadable: compared.unreadable } : {}),
      warnings,
    };
  }

  /**
   * The request with the outcome this process knows but could not record yet (the store refused
   * it): a change approved and then not run because the disk filled is "not run", never "running".
   */
  private knownTruth(request: ChangeRequest): ChangeRequest {
    const owed = this.unrecorded.get(request.id);
    if (!owed?.from.includes(request.state)) return request;
    return applyEvent(request, { ...owed.entry, seq: 0, at: new Date(this.now()).toISOString(), prev: '' });
  }

  /** The request as stored now, expired first if it is pending past its time. */
  private async current(known: ChangeRequest): Promise<ChangeRequest> {
    return this.settle((await this.store.get(known.id)) ?? known);
  }

  /** Expires a pending request that is past its time (once, whoever gets there first). */
  private async settle(request: ChangeRequest): Promise<ChangeRequest> {
    const at = this.now();
    if (request.state !== 'pending' || at < Date.parse(request.expiresAt)) return request;
    const expired = await this.store.transition(
      request.id,
      { type: 'expired', id: request.id, actor: SYSTEM_ACTOR },
      { from: ['pending'], at, overdue: true },
    );
    return expired ?? (await this.store.get(request.id)) ?? request;
  }

  /**
   * Journals a new pending request, superseding older pending ones for the identical change that
   * the new requester may cancel (their own, or any if they may approve them); someone else's
   * stays pending beside the new one, so nobody retires a request they could not cancel.
   */
  private async create(input: {
    tool: string;
    args: Record<string, unknown>;
    requester: Actor;
    channel?: string;
    preview: unknown;
    id?: string;
    replaces?: string;
    revertAfterSeconds?: number;
    forSeconds?: number;
    revertOf?: string;
    assessment?: ChangeAssessmentRecord;
    set?: ChangeSetRecord;
  }): Promise<ChangeRequest> {
    const id = input.id ?? newRequestId();
    const key = canonicalJson([input.tool, input.args]);
    const pending = await this.store.list({ state: 'pending', tool: input.tool });
    const same = pending
      .filter((r) => r.id !== input.replaces && canonicalJson([r.tool, r.args]) === key)
      .reverse();
    const stale: ChangeRequest[] = [];
    for (const old of same) {
      const mayCancel =
        old.requester.userId === input.requester.userId ||
        (await this.decide({ action: 'cancel', actor: input.requester, face: 'slack', change: old })).verdict
          .verdict === 'allow';
      if (mayCancel) stale.push(old);
    }
    let replaced: string | undefined;
    for (const old of stale) {
      const differences = diffPreviews(old.preview, input.preview);
      const superseded = await this.store.transition(
        old.id,
        { type: 'superseded', id: old.id, actor: input.requester, supersededBy: id, differences },
        { from: ['pending'], at: this.now() },
      );
      if (superseded) replaced = old.id;
    }
    const created = this.now();
    const request: ChangeRequest = {
      id,
      tool: input.tool,
      site: typeof input.args.site_id === 'string' ? input.args.site_id : '',
      args: input.args,
      requester: input.requester,
      channel: input.channel,
      preview: input.preview,
      previewHash: previewHash(input.preview),
      createdAt: new Date(created).toISOString(),
      expiresAt: new Date(created + this.options.ttlSeconds * 1000).toISOString(),
      state: 'pending',
      replaces: input.replaces ?? replaced,
    };
    if (input.revertAfterSeconds !== undefined) request.revertAfterSeconds = input.revertAfterSeconds;
    if (input.forSeconds !== undefined) request.forSeconds = input.forSeconds;
    if (input.revertOf !== undefined) request.revertOf = input.revertOf;
    if (input.assessment !== undefined) request.assessment = input.assessment;
    if (input.set !== undefined) request.set = input.set;
    if (request.channel === undefined) delete request.channel;
    if (request.replaces === undefined) delete request.replaces;
    const stored = await this.store.create(request, input.requester, created);
    this.options.logger.info({ id, tool: request.tool, site: request.site }, 'change request proposed');
    return stored;
  }

  /** After a won claim: re-run the dry run, compare, then run with confirm exactly once. */
  private async execute(
    request: ChangeRequest,
    approver: Actor,
    options: { recheck: boolean; notice?: Promise<Settled<void>> } = { recheck: true },
  ): Promise<ApproveOutcome> {
    const { id, tool, args } = request;
    let fresh: unknown = request.preview;
    // Issue 24: the preview of a set is every step's, computed on the planned state.
    const previewNow: (snapshot: ToolContext) => Promise<readonly [unknown, ChangeAssessment]> = request.set
      ? async (snapshot: ToolContext) => {
          const planned = await this.planSet(request.set as ChangeSetRecord, request, snapshot);
          return [planned.preview, planned.assessment] as const;
        }
      : (snapshot: ToolContext) =>
          Promise.all([this.previewFor(request, snapshot), this.assess(request, snapshot)]);
    let assessed: ChangeAssessment | undefined;
    try {
      if (options.recheck) {
        // Issue 22: the policy once more, right before the write, on a fresh read.
        [fresh, assessed] = await previewNow(snapshotContext(this.options.context));
      }
    } catch (error) {
      const found = summarize(error);
      const summary: ErrorSummary = {
        ...found,
        message: `not run, the check at approval failed: ${found.message}`,
      };
      const failed = await this.recordOutcome(
        request,
        { type: 'failed', id, actor: approver, error: summary, stage: 'recheck' },
        // Not run either way; if a sweep already called it unknown, this is the truth.
        ['approved', 'unknown'],
      );
      return { kind: 'failed', request: failed, error: summary };
    }
    const deny = assessed?.decision.deny;
    if (deny) {
      const summary: ErrorSummary = {
        code: 'not_authorized',
        message: `not run: the policy refuses it now, ${deniedText(deny)}`,
      };
      const failed = await this.recordOutcome(
        request,
        { type: 'failed', id, actor: approver, error: summary, stage: 'recheck' },
        ['approved', 'unknown'],
      );
      return { kind: 'failed', request: failed, error: summary };
    }
    let executing: ChangeRequest | undefined;
    try {
      if (previewHash(fresh) !== request.previewHash)
        return await this.drift(request, approver, fresh, assessed);
      // The before-image (issue 21): read fresh right before the write; a failed read is noted, never fatal.
      // A set has none of its own: each step reads its own before its write.
      const before = request.set ? undefined : await this.readBefore(tool, args);
      executing = await this.store.transition(
        id,
        { type: 'executing', id, actor: approver, ...(before ? { before } : {}) },
        { from: ['approved'], at: this.now(), ownedBySelf: true },
      );
    } catch (error) {
      // The store failed between the claim and the write: nothing ran, and the record must say so.
      const summary = { code: 'internal_error', message: `not run: ${summarize(error).message}` };
      this.options.logger.error(
        { err: error, id },
        'could not record a step before running a change; not run',
      );
      const failed = await this.recordOutcome(
        request,
        { type: 'failed', id, actor: approver, error: summary, stage: 'recheck' },
        ['approved', 'executing', 'unknown'],
      );
      return { kind: 'failed', request: failed, error: summary };
    }
    if (!executing) {
      // Recovered as unknown meanwhile (this replica's lease lapsed): never run it now.
      const current = (await this.store.get(id)) ?? request;
      this.options.logger.warn({ id, state: current.state }, 'claimed change request changed state; not run');
      return { kind: 'already', request: current };
    }
    if (options.notice) {
      const shown = await settledWithin(options.notice, CLAIM_NOTICE_WAIT_MS);
      if (shown && !shown.ok) {
        this.options.logger.warn({ err: shown.error, id }, 'could not show that a change is running');
      }
    }
    if (executing.set) return this.runSteps(executing, approver, 0);
    let result: unknown;
    try {
      result = await this.options.registry.run(
        tool,
        { ...args, confirm: true },
        { ...this.options.context, actor: approver },
      );
    } catch (error) {
      const summary = summarize(error);
      this.options.logger.warn({ id, tool, error: summary }, 'change request failed');
      const failed = await this.recordOutcome(
        executing,
        { type: 'failed', id, actor: approver, error: summary, stage: 'execute' },
        ['executing', 'unknown'],
      );
      return { kind: 'failed', request: failed, error: summary };
    }
    // A timed change's revert is part of its success: journaled in the same step, so a crash
    // right after cannot leave a change that was meant to end without its deadline.
    const deadline = this.revertDeadline(executing);
    const succeeded = await this.recordOutcome(
      executing,
      {
        type: 'succeeded',
        id,
        actor: approver,
        result: capForJournal(redactSecrets(result)),
        ...(deadline ? { deadline } : {}),
      },
      ['executing', 'unknown'],
    );
    this.options.logger.info({ id, tool }, 'change request succeeded');
    const unscheduled = deadline ? await this.storeRevertDeadline(id, deadline) : undefined;
    const verified = await this.verifyAfter(succeeded, result);
    if (request.revertOf) await this.markReverted(request.revertOf, id);
    // Not journaled (the store that failed may be the journal): every face shows it with the result.
    const shown = unscheduled ? { ...verified, error: unscheduled } : verified;
    return { kind: 'succeeded', request: shown, result };
  }

  /**
   * Issue 24: proposes a change set: several writes previewed on the planned state (the controller
   * now plus the steps before each), assessed together (the strictest step's approvals, approvers
   * and window) and approved as one request. A step that fails its preview is refused, naming the
   * step and the argument; nothing is proposed or sent.
   */
  async proposeSet(
    input: SetProposal & { requester: Actor; channel?: string; revertOf?: string },
  ): Promise<ChangeRequest> {
    const asker = await this.gate.mayAsk(input.requester, input.channel);
    if (asker.verdict === 'refuse') throw gateRefusal(asker);
    const set = validateSet(this.options.registry, input);
    return this.createSet(set, input);
  }

  /** A validated set previewed, assessed (a denied step refuses the whole set) and journaled pending. */
  private async createSet(
    set: ChangeSetRecord,
    input: { requester: Actor; channel?: string; revertOf?: string },
  ): Promise<ChangeRequest> {
    const planned = await this.planSet(set, input, snapshotContext(this.options.context));
    await this.require({
      action: 'propose',
      actor: input.requester,
      change: {
        ...setChange(set, input.requester),
        ...(input.channel !== undefined ? { channel: input.channel } : {}),
      },
      decision: planned.assessment,
    });
    return this.createPlannedSet(set, planned, input);
  }

  private async createPlannedSet(
    set: ChangeSetRecord,
    planned: { preview: unknown; assessment: ChangeAssessment },
    input: { requester: Actor; channel?: string; revertOf?: string },
  ): Promise<ChangeRequest> {
    return this.create({
      ...setChange(set, input.requester),
      ...(input.channel !== undefined ? { channel: input.channel } : {}),
      preview: planned.preview,
      assessment: assessmentRecord(planned.assessment),
      ...(input.revertOf ? { revertOf: input.revertOf } : {}),
      set,
    });
  }

  /**
   * A set's preview without proposing it (the console shows it before `approve? [y/N]`), with the
   * gate's verdict on the requester's own confirmation.
   */
  async previewSet(input: SetProposal & { requester: Actor; channel?: string }): Promise<{
    preview: unknown;
    previewHash: string;
    assessment: ChangeAssessmentRecord;
    verdict: GateVerdict;
  }> {
    const set = validateSet(this.options.registry, input);
    const planned = await this.planSet(set, input, snapshotContext(this.options.context));
    const { verdict } = await this.decide({
      action: 'confirm',
      actor: input.requester,
      change: setChange(set, input.requester),
      decision: planned.assessment,
    });
    return {
      preview: planned.preview,
      previewHash: previewHash(planned.preview),
      assessment: assessmentRecord(planned.assessment),
      verdict,
    };
  }

  /** MCP_WRITES=confirm and the console's y: a set run at once on its requester's own authority. */
  async runSetNow(
    input: SetProposal & { requester: Actor; shownHash?: string },
  ): Promise<Extract<ApproveOutcome, { kind: 'succeeded' | 'failed' | 'already' }>> {
    return this.runSetOnOwnAuthority(validateSet(this.options.registry, input), input);
  }

  /** A set (or a set's revert) confirmed by its requester: the gate decides, then it runs once. */
  private async runSetOnOwnAuthority(
    set: ChangeSetRecord,
    input: { requester: Actor; shownHash?: string; revertOf?: string },
  ): Promise<Extract<ApproveOutcome, { kind: 'succeeded' | 'failed' | 'already' }>> {
    const planned = await this.planSet(set, input, snapshotContext(this.options.context));
    await this.require({
      action: 'confirm',
      actor: input.requester,
      change: setChange(set, input.requester),
      decision: planned.assessment,
    });
    const request = await this.createPlannedSet(set, planned, input);
    await this.refuseUnlessShown(
      request,
      input,
      'the change set is no longer the one shown: the controller changed since the preview, so nothing was run; propose it again to see what it would do now',
    );
    return this.runOnOwnAuthority(request, input.requester);
  }

  /** A set's preview (each step's dry run on the planned state) and its combined assessment. */
  private async planSet(
    set: ChangeSetRecord,
    change: { requester: Actor; channel?: string },
    context: ToolContext,
  ): Promise<{ preview: unknown; assessment: ChangeAssessment }> {
    const assessed: ChangeAssessment[] = [];
    const steps = await planSet(
      this.options.registry,
      context,
      set,
      async (step, _n, planned) => {
        assessed.push(
          await this.assess({ ...step, requester: change.requester, channel: change.channel }, planned),
        );
      },
      // The steps of a set's revert show what each undoes, with before / after / now when it drifted.
      (step, planned) =>
        step.revertOf
          ? this.previewFor({ tool: step.tool, args: step.args, revertOf: step.revertOf }, planned)
          : this.dryRun(step.tool, step.args, planned),
    );
    return {
      preview: redactSecrets(setPreview(set, steps)),
      assessment: combineAssessments(assessed),
    };
  }

  /**
   * Issue 24: the revert of a whole set: one new set whose steps undo the original's steps that are
   * done, in reverse order, each previewed as a single revert is (before / after / now on drift).
   */
  private async proposeSetRevert(
    original: ChangeRequest,
    requester: Actor,
    channel: string | undefined,
  ): Promise<ChangeRequest> {
    const revert = await this.setRevertOf(original);
    return this.createSet(revert, { requester, ...(channel ? { channel } : {}), revertOf: original.id });
  }

  /**
   * The revert of a whole set: one new set whose steps undo the original's steps that are done, in
   * reverse order, each previewed as a single revert is (before / after / now on drift).
   */
  private async setRevertOf(original: ChangeRequest): Promise<ChangeSetRecord> {
    const set = original.set as ChangeSetRecord;
    if (original.revertedBy) {
      throw new ConflictError(
        `change set ${original.id} cannot be reverted: it was reverted already by ${original.revertedBy}`,
      );
    }
    const steps: SetStep[] = [];
    for (const step of [...set.steps].reverse()) {
      if (step.status !== 'done' || !step.changeId) continue;
      const child = await this.store.get(step.changeId);
      if (!child) continue;
      const plan = inverseOf(child);
      if ('reason' in plan) {
        throw new ConflictError(
          `change set ${original.id} cannot be reverted: its step ${child.setStep ?? '?'} (${child.tool}) cannot: ${plan.reason}`,
        );
      }
      const { confirm: _c, dry_run: _d, ...args } = this.options.registry.validate(plan.tool, plan.args);
      steps.push({ tool: plan.tool, args, revertOf: child.id });
    }
    if (steps.length === 0) {
      throw new ConflictError(
        `change set ${original.id} cannot be reverted: none of its steps is in place (${original.state})`,
      );
    }
    const revert: ChangeSetRecord = {
      title: `revert of ${set.title ? `"${set.title}" ` : ''}${original.id}`,
      onFailure: set.onFailure,
      steps,
    };
    return revert;
  }

  /**
   * Runs the steps of a claimed set from `start`, in order, each as a change request of its own
   * (approved with the set): dry run, before-image, write, outcome, verification, exactly as a
   * single change. The set's own record says `running` before each step's write is sent and
   * `done` or `failed` once it answered, so a restart knows where it stopped.
   */
  private async runSteps(parent: ChangeRequest, approver: Actor, start: number): Promise<ApproveOutcome> {
    let request = parent;
    const steps = (parent.set as ChangeSetRecord).steps;
    for (let index = start; index < steps.length; index += 1) {
      try {
        const ran = await this.runSetStep(request, index, approver);
        request = ran.parent;
        if (!ran.ok) return this.finishSet(request, index);
      } catch (error) {
        // The set's record could not be kept: stop here; what is known is reported and compensated.
        this.options.logger.error(
          { err: error, id: parent.id, step: index + 1 },
          'a change set could not record a step; stopped',
        );
        return this.finishSet(request, index, summarize(error));
      }
    }
    return this.finishSet(request, undefined);
  }

  /** One step of a set: previewed now (the steps before it ran), then run as its own request. */
  private async runSetStep(
    parent: ChangeRequest,
    index: number,
    approver: Actor,
  ): Promise<{ parent: ChangeRequest; ok: boolean }> {
    const n = index + 1;
    const step = (parent.set as ChangeSetRecord).steps[index] as SetStep;
    let preview: unknown;
    try {
      preview = step.revertOf
        ? await this.previewFor(
            { tool: step.tool, args: step.args, revertOf: step.revertOf },
            snapshotContext(this.options.context),
          )
        : await this.dryRun(step.tool, step.args, snapshotContext(this.options.context));
    } catch (error) {
      const failed = await this.recordStep(parent, n, {
        status: 'failed',
        error: summarize(inStep(error, n, step.tool)),
      });
      return { parent: failed, ok: false };
    }
    const child = await this.createStep(parent, n, step, preview, step.revertOf);
    let current = await this.recordStep(parent, n, { status: 'running', changeId: child.id });
    const outcome = await this.runChild(
      child,
      approver,
      `step ${n} of change set ${parent.id}, approved with it`,
    );
    if (outcome.kind === 'succeeded') {
      current = await this.recordStep(current, n, { status: 'done', changeId: child.id });
      return { parent: current, ok: true };
    }
    const error =
      outcome.kind === 'failed'
        ? outcome.error
        : {
            code: 'conflict',
            message: `not run: its request is ${'request' in outcome ? outcome.request.state : 'gone'}`,
          };
    current = await this.recordStep(current, n, { status: 'failed', changeId: child.id, error });
    return { parent: current, ok: false };
  }

  /** A step's own request, pending for a moment: never superseding anything, never posted on its own. */
  private async createStep(
    parent: ChangeRequest,
    n: number,
    step: { tool: string; args: Record<string, unknown> },
    preview: unknown,
    revertOf?: string,
  ): Promise<ChangeRequest> {
    const created = this.now();
    const request: ChangeRequest = {
      id: newRequestId(),
      tool: step.tool,
      site: typeof step.args.site_id === 'string' ? step.args.site_id : '',
      args: step.args,
      requester: parent.requester,
      preview,
      previewHash: previewHash(preview),
      createdAt: new Date(created).toISOString(),
      expiresAt: new Date(created + this.options.ttlSeconds * 1000).toISOString(),
      state: 'pending',
      setOf: parent.id,
      setStep: n,
      ...(revertOf ? { revertOf } : {}),
    };
    return this.store.create(request, parent.requester, created);
  }

  /** Claims a step's request for `actor` (the set's approval covered it) and runs it once. */
  private async runChild(child: ChangeRequest, actor: Actor, note: string): Promise<ApproveOutcome> {
    const claimed = await this.store.transition(
      child.id,
      { type: 'approved', id: child.id, actor, previewHash: child.previewHash, note },
      { from: ['pending'], at: this.now() },
    );
    if (!claimed) return { kind: 'already', request: (await this.store.get(child.id)) ?? child };
    return this.execute(claimed, actor, { recheck: false });
  }

  /** Journals where a step of a set is; only the replica running the set may. */
  private async recordStep(
    parent: ChangeRequest,
    step: number,
    fields: { status: SetStepStatus; changeId?: string; revertId?: string; error?: ErrorSummary },
  ): Promise<ChangeRequest> {
    const recorded = await this.store.transition(
      parent.id,
      { type: 'set_step', id: parent.id, actor: SYSTEM_ACTOR, step, ...fields },
      { from: ['executing'], at: this.now(), ownedBySelf: true },
    );
    if (!recorded) throw new ConflictError(`change set ${parent.id} is no longer run by this process`);
    return recorded;
  }

  /**
   * The end of a set's run. All done: succeeded. A step failed at `failedAt`: with on_failure
   * rollback the steps done before it are reverted in reverse order (each a change request approved
   * by the set's approval), with stop they stay; the set ends failed, each step saying what became
   * of it.
   */
  private async finishSet(
    parent: ChangeRequest,
    failedAt: number | undefined,
    cause?: ErrorSummary,
  ): Promise<ApproveOutcome> {
    let request = parent;
    const set = () => request.set as ChangeSetRecord;
    if (failedAt === undefined) {
      const result = { change_set: parent.id, steps: stepLines(set()) };
      const succeeded = await this.recordOutcome(
        request,
        { type: 'succeeded', id: parent.id, actor: parent.approver ?? SYSTEM_ACTOR, result },
        ['executing', 'unknown'],
      );
      this.options.logger.info({ id: parent.id, steps: set().steps.length }, 'change set succeeded');
      if (parent.revertOf) await this.markReverted(parent.revertOf, parent.id);
      return { kind: 'succeeded', request: succeeded, result };
    }
    const failedStep = set().steps[failedAt];
    if (set().onFailure === 'rollback') {
      for (let index = failedAt - 1; index >= 0; index -= 1) {
        if (set().steps[index]?.status !== 'done') continue;
        try {
          request = (await this.compensate(request, index)).parent;
        } catch (error) {
          this.options.logger.error(
            { err: error, id: parent.id, step: index + 1 },
            'a step of a change set could not be reverted',
          );
        }
      }
    }
    // Counted from what the set records (a resumed compensation reverted some before the restart).
    const before = set().steps.slice(0, failedAt);
    const reverted = before.filter((s) => s.status === 'reverted').length;
    const notReverted = before.filter((s) => s.status === 'done' || s.status === 'unknown').length;
    const why = cause ?? failedStep?.error ?? { code: 'internal_error', message: 'it did not run' };
    const done = set().steps.filter((s) => s.status === 'done').length;
    const tail =
      set().onFailure === 'stop'
        ? `on_failure=stop: the ${done} step(s) done before it stay`
        : notReverted > 0
          ? `${reverted} step(s) done before it were reverted, ${notReverted} could not be: check the steps`
          : `the ${reverted} step(s) done before it were reverted in reverse order`;
    const error: ErrorSummary = {
      code: why.code,
      message: `step ${failedAt + 1} (${failedStep?.tool ?? '?'}) failed: ${why.message.replace(/^step \d+ \([^)]*\): /, '')}; ${tail}`,
      ...(why.controllerCode ? { controllerCode: why.controllerCode } : {}),
    };
    const failed = await this.recordOutcome(
      request,
      { type: 'failed', id: parent.id, actor: parent.approver ?? SYSTEM_ACTOR, error, stage: 'execute' },
      ['executing', 'unknown'],
    );
    this.options.logger.warn(
      { id: parent.id, step: failedAt + 1, reverted, notReverted },
      'change set failed',
    );
    return { kind: 'failed', request: failed, error };
  }

  /** Reverts one done step of a set (compensation): its inverse, run at once, recorded on the set. */
  private async compensate(
    parent: ChangeRequest,
    index: number,
  ): Promise<{ parent: ChangeRequest; ok: boolean }> {
    const n = index + 1;
    const step = (parent.set as ChangeSetRecord).steps[index] as SetStep;
    const original = step.changeId ? await this.store.get(step.changeId) : undefined;
    const plan = original ? inverseOf(original) : { reason: 'its change request is not found' };
    const notUndone = async (reason: string) => ({
      parent: await this.recordStep(parent, n, {
        status: 'done',
        error: { code: 'conflict', message: `could not be reverted: ${reason}` },
      }),
      ok: false,
    });
    if (!original || 'reason' in plan) return notUndone('reason' in plan ? plan.reason : 'unknown');
    let child: ChangeRequest;
    try {
      const { confirm: _c, dry_run: _d, ...args } = this.options.registry.validate(plan.tool, plan.args);
      const preview = await this.previewFor({ tool: plan.tool, args, revertOf: original.id });
      child = await this.createStep(parent, n, { tool: plan.tool, args }, preview, original.id);
    } catch (error) {
      return notUndone(summarize(error).message);
    }
    let current = await this.recordStep(parent, n, { status: 'done', revertId: child.id });
    const outcome = await this.runChild(
      child,
      SYSTEM_ACTOR,
      `compensation of change set ${parent.id}: a later step failed; reverted without a new approval, the approval of the set covered it`,
    );
    if (outcome.kind === 'succeeded') {
      current = await this.recordStep(current, n, { status: 'reverted', revertId: child.id });
      return { parent: current, ok: true };
    }
    const reason =
      outcome.kind === 'failed'
        ? outcome.error.message
        : `its revert is ${'request' in outcome ? outcome.request.state : 'gone'}`;
    return {
      parent: await this.recordStep(current, n, {
        status: 'done',
        revertId: child.id,
        error: { code: 'conflict', message: `could not be reverted: ${reason}` },
      }),
      ok: false,
    };
  }

  /**
   * A set whose process stopped mid-run (now `unknown`, handed to this replica alone by the
   * recovery): claimed again, the step that was in progress settled (a write whose outcome is not
   * recorded is read back on the controller, never sent again), then treated as a failure there:
   * compensated, or left as it is with on_failure=stop.
   */
  private async resumeSet(interrupted: ChangeRequest): Promise<ChangeRequest> {
    const reclaimed = await this.store.transition(
      interrupted.id,
      {
        type: 'approved',
        id: interrupted.id,
        actor: interrupted.approver ?? SYSTEM_ACTOR,
        previewHash: interrupted.previewHash,
        note: 'the bot stopped while this change set ran; resumed after the restart to settle it (no step is run again)',
      },
      { from: ['unknown'], at: this.now() },
    );
    if (!reclaimed) return interrupted;
    let parent = await this.store.transition(
      interrupted.id,
      { type: 'executing', id: interrupted.id, actor: SYSTEM_ACTOR },
      { from: ['approved'], at: this.now(), ownedBySelf: true },
    );
    if (!parent) return (await this.store.get(interrupted.id)) ?? interrupted;
    const steps = (parent.set as ChangeSetRecord).steps;
    // Failed before the restart (the compensation was under way): that failure is the one reported.
    const failedBefore = steps.findIndex((s) => s.status === 'failed');
    for (const [index, step] of steps.entries()) {
      if (step.status === 'done' && step.revertId) {
        // Its undoing write may have been in flight: read back, never sent again.
        const undone = await this.settleInterruptedStep(step.revertId);
        if (undone === 'done') {
          await this.markReverted(step.changeId ?? '', step.revertId);
          parent = await this.recordStep(parent, index + 1, { status: 'reverted', revertId: step.revertId });
        } else if (undone === 'unknown') {
          parent = await this.recordStep(parent, index + 1, {
            status: 'unknown',
            revertId: step.revertId,
            error: {
              code: 'interrupted',
              message:
                'the bot stopped while this step was being reverted and the controller does not tell whether the revert happened: verify it by hand',
            },
          });
        }
        continue;
      }
      if (step.status !== 'running' || !step.changeId) continue;
      const status = await this.settleInterruptedStep(step.changeId);
      parent = await this.recordStep(parent, index + 1, {
        status,
        changeId: step.changeId,
        ...(status === 'done'
          ? {}
          : {
              error: {
                code: 'interrupted',
                message:
                  status === 'unknown'
                    ? 'the bot stopped while this step ran and the controller does not tell whether it happened: verify it by hand'
                    : 'the bot stopped before this step was applied',
              },
            }),
      });
    }
    const after = (parent.set as ChangeSetRecord).steps;
    const unsettled = after.findIndex((s) => s.status !== 'done' && s.status !== 'reverted');
    const stoppedAt = failedBefore >= 0 ? failedBefore : unsettled;
    this.options.logger.warn(
      { id: parent.id, step: stoppedAt + 1 },
      'change set interrupted by a restart; settling it',
    );
    const interruptedHere = after[stoppedAt];
    const outcome = await this.finishSet(
      parent,
      stoppedAt < 0 ? undefined : stoppedAt,
      stoppedAt < 0 || failedBefore >= 0
        ? undefined
        : {
            code: 'interrupted',
            message: `the bot stopped during this step${interruptedHere?.error ? ` (${interruptedHere.error.message})` : ''}`,
          },
    );
    return outcome.kind === 'succeeded' || outcome.kind === 'failed' ? outcome.request : parent;
  }

  /**
   * What became of a step whose process stopped: its request's outcome when recorded; for one
   * caught mid-write, the object read now compared with its before-image (unchanged: not applied;
   * changed: applied, recorded so it can be reverted); `unknown` when that cannot tell.
   */
  private async settleInterruptedStep(changeId: string): Promise<SetStepStatus> {
    const child = await this.store.get(changeId);
    if (!child) return 'failed';
    if (child.state === 'succeeded') return 'done';
    if (child.state === 'pending') {
      await this.withdraw(child.id).catch(() => undefined);
      await this.store.transition(
        child.id,
        { type: 'cancelled', id: child.id, actor: SYSTEM_ACTOR },
        { from: ['pending'], at: this.now() },
      );
      return 'failed';
    }
    if (child.state !== 'unknown') return 'failed';
    const spec = changeSpec(child.tool);
    if (spec?.kind === 'create') return this.settleInterruptedCreate(child);
    const read = spec?.beforeRead?.(child.args);
    const before = imageObject(child.before);
    if (!read || before === undefined) return 'unknown';
    const now = await readImage(read, this.options.registry, this.options.context, this.now);
    if (now.error) return 'unknown';
    if (canonicalJson(imageObject(now)) === canonicalJson(before)) return 'failed';
    return this.recordRecovered(child, now, {});
  }

  /**
   * A create cut off by a restart has no before-image. When its tool refuses a taken name, the
   * object found by that name now is the one it made: holding what was sent, applied (recorded with
   * a result naming it, so the set's compensation deletes it); absent, not applied. Anything else
   * (no such lookup, a read that fails, an object that differs) stays `unknown` for a person.
   */
  private async settleInterruptedCreate(child: ChangeRequest): Promise<SetStepStatus> {
    const spec = changeSpec(child.tool);
    const read = spec?.createdByName?.read(child.args);
    if (!spec?.createdByName || !read) return 'unknown';
    const now = await readImage(read, this.options.registry, this.options.context, this.now);
    if (now.error) return 'unknown';
    const object = imageObject(now);
    if (object === null) return 'failed';
    if (!object || verify(spec.expected?.(child.args, child.preview, undefined), now).status !== 'verified')
      return 'unknown';
    return this.recordRecovered(child, now, spec.createdByName.result(object) as Record<string, unknown>);
  }

  /** An interrupted write found applied: recorded as the late outcome it is, the object now as its after-image. */
  private async recordRecovered(
    child: ChangeRequest,
    now: ChangeImage,
    result: Record<string, unknown>,
  ): Promise<SetStepStatus> {
    const at = this.now();
    const done = await this.store.transition(
      child.id,
      {
        type: 'succeeded',
        id: child.id,
        actor: SYSTEM_ACTOR,
        result: {
          ...result,
          recovered: 'the bot stopped while it ran; read back after the restart: applied',
        },
      },
      { from: ['unknown'], at },
    );
    if (!done) return 'unknown';
    await this.store.transition(
      child.id,
      {
        type: 'verified',
        id: child.id,
        actor: SYSTEM_ACTOR,
        after: now,
        verification: { status: 'unverified', reason: 'read back after a restart: the object changed' },
      },
      { from: ['succeeded'], at },
    );
    return 'done';
  }

  /** The before-image of a write, or undefined for a tool with nothing to read before (a create). */
  private async readBefore(tool: string, args: Record<string, unknown>): Promise<ChangeImage | undefined> {
    const read = changeSpec(tool)?.beforeRead?.(args);
    if (!read) return undefined;
    return readImage(read, this.options.registry, this.options.context, this.now);
  }

  /**
   * Reads the after-image right after a write and compares it with what was sent, then journals
   * both (`verified`). Nothing here can fail or repeat the write: a read that fails is recorded as
   * "not verified: why", and a store that refuses the record is logged.
   */
  private async verifyAfter(request: ChangeRequest, result: unknown): Promise<ChangeRequest> {
    const spec = changeSpec(request.tool);
    const at = new Date(this.now()).toISOString();
    let after: ChangeImage;
    let verification: Verification;
    const read = spec?.afterRead?.(request.args, result, imageObject(request.before));
    if (!spec) {
      after = { at, error: noSpecReason(request.tool) };
      verification = {
        status: 'unverified',
        reason: `the bot does not read back ${request.tool} changes yet`,
      };
    } else if (!read) {
      after = { at, error: 'nothing to read back' };
      verification = { status: 'unverified', reason: 'nothing the change sends can be read back' };
    } else {
      after = await readImage(read, this.options.registry, this.options.context, this.now);
      verification = verify(spec.expected?.(request.args, request.preview, result), after);
    }
    const entry = { type: 'verified' as const, id: request.id, actor: SYSTEM_ACTOR, after, verification };
    try {
      const recorded = await this.store.transition(request.id, entry, {
        from: ['succeeded'],
        at: this.now(),
      });
      if (recorded) return recorded;
    } catch (error) {
      this.options.logger.warn(
        { err: error, id: request.id },
        'could not record the verification of a change',
      );
    }
    return { ...request, after, verification };
  }

  /**
   * The automatic revert a timed change gets when it succeeds, due its seconds from now; none
   * without a deadline store (ChangeTimers then schedules it when it hears of the success).
   */
  private revertDeadline(
    request: ChangeRequest,
  ): { id: string; kind: JournaledDeadlineKind; dueAt: string } | undefined {
    const timed = timedRevert(request);
    if (!timed || !this.options.deadlines) return undefined;
    return {
      id: newDeadlineId(),
      kind: timed.kind,
      dueAt: new Date(this.now() + timed.seconds * 1000).toISOString(),
    };
  }

  /**
   * Stores the revert deadline journaled with a change's success, the id the journal gave it. Why
   * it could not be, as the error a succeeded change shows (undefined once stored): a change meant
   * to end whose revert is not in place must say so, not only log it.
   */
  private async storeRevertDeadline(
    changeId: string,
    deadline: { id: string; kind: JournaledDeadlineKind; dueAt: string },
  ): Promise<ErrorSummary | undefined> {
    const store = this.options.deadlines;
    let why: string;
    let later: string;
    try {
      const journaled = (await this.store.get(changeId))?.deadlines?.some((d) => d.id === deadline.id);
      if (!journaled) {
        why = 'the change’s outcome could not be recorded in the journal';
        later = 'the bot schedules it once the outcome is recorded (at a later sweep)';
      } else {
        const stored = await store?.schedule({
          id: deadline.id,
          kind: deadline.kind,
          changeId,
          dueAt: Date.parse(deadline.dueAt),
          at: this.now(),
        });
        if (stored?.id === deadline.id) return undefined;
        why = `the deadline store holds another deadline (${stored?.id ?? 'none'}) for this change`;
        later = 'the bot does not act on a deadline the journal does not record';
      }
    } catch (error) {
      why = summarize(error).message;
      later = 'the bot stores it again from the journal at its next sweep';
    }
    this.options.logger.error(
      { id: changeId, deadline: deadline.id, why },
      'the automatic revert of a timed change could not be scheduled',
    );
    return {
      code: 'revert_not_scheduled',
      message: `the change was made, but its automatic revert (due ${deadline.dueAt}) could not be scheduled: ${why}; ${later}. Until then it does not revert itself: check it, and revert it by hand if it must end on time.`,
    };
  }

  /** Records on a change that a revert undid it (so it offers no second Revert). */
  private async markReverted(originalId: string, revertId: string): Promise<void> {
    try {
      await this.store.transition(
        originalId,
        { type: 'reverted', id: originalId, actor: SYSTEM_ACTOR, revertedBy: revertId },
        { from: ['succeeded'], at: this.now() },
      );
    } catch (error) {
      this.options.logger.warn(
        { err: error, id: originalId, revertId },
        'could not record that a change was reverted',
      );
    }
  }

  /** The target changed since the preview: supersede the approved request and offer a new preview. */
  private async drift(
    request: ChangeRequest,
    approver: Actor,
    fresh: unknown,
    assessed?: ChangeAssessment,
  ): Promise<ApproveOutcome> {
    const { id, tool, args } = request;
    const found = diffPreviews(request.preview, fresh);
    const differences = found.length > 0 ? found : ['the preview changed'];
    const replacementId = newRequestId();
    const superseded = await this.store.transition(
      id,
      { type: 'superseded', id, actor: approver, supersededBy: replacementId, differences },
      { from: ['approved'], at: this.now(), ownedBySelf: true },
    );
    if (!superseded) return { kind: 'already', request: (await this.store.get(id)) ?? request };
    // On behalf of the original requester: the approver clicked; they did not ask for a change.
    const replacement = await this.create({
      tool,
      args,
      requester: request.requester,
      channel: request.channel,
      preview: fresh,
      id: replacementId,
      replaces: id,
      ...(assessed ? { assessment: assessmentRecord(assessed) } : {}),
      ...(request.set ? { set: setAsProposed(request.set) } : {}),
    });
    this.options.logger.info({ id, replacement: replacementId, differences }, 'preview drifted; not run');
    return { kind: 'drift', request: superseded, replacement, differences };
  }

  /**
   * Records the outcome of a write that already ran (or never will). If the store cannot take it
   * now, the answer still tells the truth, and the outcome is recorded by a later sweep; should
   * this process die first, the request shows "outcome unknown", which is then the honest answer.
   */
  private async recordOutcome(
    request: ChangeRequest,
    entry: Outcome,
    from: readonly ChangeState[],
  ): Promise<ChangeRequest> {
    const at = this.now();
    try {
      const recorded = await this.store.transition(entry.id, entry, { from, at, ownedBySelf: true });
      if (recorded) return recorded;
      this.options.logger.error(
        { id: entry.id, outcome: entry.type },
        'the outcome of a change could not be recorded: the request is no longer in a state this replica owns',
      );
    } catch (error) {
      this.unrecorded.set(entry.id, { entry, from });
      this.options.logger.error(
        { err: error, id: entry.id },
        'could not record the outcome of a change; retrying with the next sweep',
      );
    }
    return applyEvent(request, { ...entry, seq: 0, at: new Date(at).toISOString(), prev: '' });
  }

  private async retryUnrecorded(): Promise<void> {
    for (const [id, { entry, from }] of this.unrecorded) {
      try {
        await this.store.transition(id, entry, { from, at: this.now(), ownedBySelf: true });
        this.unrecorded.delete(id);
        this.options.logger.info({ id, outcome: entry.type }, 'recorded a delayed change outcome');
      } catch (error) {
        this.options.logger.warn({ err: error, id }, 'still cannot record the outcome of a change');
      }
    }
  }
}
