import { CHANGE_SET_TOOL, type SetProposal, validateSet } from '../changes/change-set.js';
import { splitMetaArgs } from '../changes/meta-args.js';
import { type ApproveOutcome, summarize } from '../changes/outcomes.js';
import { newRequestId } from '../changes/request-id.js';
import { type ChangePlans, ChangeRunner } from '../changes/runner.js';
import { ConflictError, ResourceNotFoundError, ValidationError } from '../errors.js';
import { canonicalJson, diffPreviews, previewHash } from '../lib/canonical.js';
import { settle } from '../lib/settle-within.js';
import type { Logger } from '../log.js';
import {
  CHANGE_STATES,
  type ChangeAssessmentRecord,
  type ChangeSetRecord,
  SYSTEM_ACTOR,
} from '../model/change-request.js';
import {
  deniedText,
  Gate,
  type GateAction,
  type GateFace,
  type GateVerdict,
  refusalText,
} from '../policy/gate.js';
import { DEFAULT_POLICY } from '../policy/policy.js';
import type { DeadlineStore } from '../store/deadlines.js';
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
import { isMcpRequester, personOf } from './mcp-requester.js';
import { type ChangeListener, observeChanges } from './observed-store.js';
import type { ApprovalPeople } from './people.js';
import { Previews } from './previews.js';
import { claimDueReminders } from './reminders.js';
import { snapshotContext } from './snapshot-context.js';
import {
  AUTOMATIC_REASONS,
  approveBlocked,
  assessmentRecord,
  automaticActor,
  type ChangeTiming,
  commandLine,
  faceOf,
  type GateChange,
  gateRefusal,
  refuseNoOp,
  setAsProposed,
  setChange,
  timingFields,
  timingOf,
  verdictDecision,
} from './terms.js';
import type { Actor, CancelOutcome, ChangeRequest, ErrorSummary, MessageRef } from './types.js';
import { Windows } from './windows.js';

export { SYSTEM_ACTOR } from '../model/change-request.js';
export { type ChangeTiming, faceOf, type GateChange, gateRefusal, timingOf } from './terms.js';

/** What Approvals needs. */
export interface ApprovalsOptions {
  /** Where requests and the journal live: the file store or PostgreSQL (src/store). */
  store: ChangeStore;
  registry: ToolRegistry;
  context: ToolContext;
  policy: ApprovalPeople;
  ttlSeconds: number;
  logger: Logger;
  /** Milliseconds since the epoch; tests pass a controllable clock. */
  now?: () => number;
  /**
   * Where a change approved outside its policy window gets its run time (a `window`
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

/** What a front end wants to hear during an approval. */
export interface ApproveHooks {
  /**
   * Called once the claim is won, before the change runs (the UI edits the preview to
   * "Running…"). The runner awaits it a little before the write; a failure is logged only.
   */
  onClaimed?: (request: ChangeRequest) => Promise<void>;
}

/** What a sweep changed, so the UI can edit the messages of those requests (each reported once). */
export interface SweepResult {
  expired: ChangeRequest[];
  interrupted: InterruptedRequest[];
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
  private readonly listeners = new Set<ChangeListener>();
  /** The one decision every path asks (src/policy/gate.ts). */
  readonly gate: Gate;
  /** What a change would do: dry runs, reverts, sets on the planned state. */
  private readonly previews: Previews;
  /** Changes waiting for their window, and the deadlines that run them. */
  private readonly windows: Windows;
  /** What runs a change once it is claimed (src/changes/runner.ts). */
  private readonly runner: ChangeRunner;

  constructor(private readonly options: ApprovalsOptions) {
    this.now = options.now ?? Date.now;
    this.store = observeChanges(options.store, (request) => this.changed(request));
    this.gate = new Gate(options.policy);
    this.previews = new Previews({
      store: this.store,
      registry: options.registry,
      context: options.context,
      now: this.now,
      assess: (change, context) => this.assess(change, context),
    });
    this.windows = new Windows({
      store: this.store,
      ...(options.deadlines ? { deadlines: options.deadlines } : {}),
      logger: options.logger,
      now: this.now,
    });
    this.runner = new ChangeRunner({
      store: this.store,
      registry: options.registry,
      context: options.context,
      logger: options.logger,
      now: this.now,
      ttlSeconds: options.ttlSeconds,
      ...(options.deadlines ? { deadlines: options.deadlines } : {}),
      plans: this.plans(),
    });
  }

  /** What the runner asks of approvals while it runs a change: previews, and a drifted change's replacement. */
  private plans(): ChangePlans {
    return {
      recheck: async (request) => {
        const snapshot = snapshotContext(this.options.context);
        // The preview of a set is every step's, computed on the planned state.
        if (request.set) {
          const planned = await this.previews.planSet(request.set, request, snapshot);
          return [planned.preview, planned.assessment] as const;
        }
        return Promise.all([this.previews.previewFor(request, snapshot), this.assess(request, snapshot)]);
      },
      previewStep: (step) => {
        const snapshot = snapshotContext(this.options.context);
        return step.revertOf
          ? this.previews.previewFor({ tool: step.tool, args: step.args, revertOf: step.revertOf }, snapshot)
          : this.previews.dryRun(step.tool, step.args, snapshot);
      },
      previewFor: (change) => this.previews.previewFor(change),
      // On behalf of the original requester: the approver clicked; they did not ask for a change.
      replaceDrifted: (request, replacement) =>
        this.create({
          tool: request.tool,
          args: request.args,
          requester: request.requester,
          channel: request.channel,
          preview: replacement.preview,
          id: replacement.id,
          replaces: request.id,
          ...(replacement.assessment ? { assessment: assessmentRecord(replacement.assessment) } : {}),
          ...(request.set ? { set: setAsProposed(request.set) } : {}),
        }),
    };
  }

  /** Who may request, approve and cancel (App Home lists what a user may approve with it). */
  get policy(): ApprovalPeople {
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
    await this.requireAsker(input.requester, input.channel);
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
    const preview = await this.previews.dryRun(input.tool, args, snapshot);
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

  /** The gate's REQUESTERS and WRITE_CHANNELS part, asked before anything reads the controller. */
  private async requireAsker(requester: Actor, channel: string | undefined): Promise<void> {
    const asker = await this.gate.mayAsk(requester, channel);
    if (asker.verdict === 'refuse') throw gateRefusal(asker);
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
   * The change's blast radius and what the policy in effect requires of it, read fresh
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
    if (change.set) return (await this.previews.planSet(change.set, change, context)).assessment;
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
   * Proposes the change that undoes `changeId`: a new request, previewed and approved
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
    await this.requireAsker(input.requester, channel);
    if (original.set) return this.proposeSetRevert(original, input.requester, channel);
    const { tool, args, preview } = await this.previews.revertPreview(original);
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
      const set = await this.previews.setRevertOf(original);
      const planned = await this.previews.planSet(set, { requester }, snapshotContext(this.options.context));
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
    const plan = await this.previews.revertPreview(original);
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
    const { tool, args } = this.previews.inverse(original);
    // Without a person, the revert is the timer's or the policy rule's doing, and is shown as theirs.
    const actor = input.actor ?? automaticActor(original, input.reason);
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
        reason: refusalText(verdict),
      };
    }
    const preview = await this.previews.previewFor({ tool, args, revertOf: original.id });
    const request = await this.create({
      tool,
      args,
      requester: actor,
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
    return this.runner.execute(claimed, actor, { recheck: false });
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
    const { tool, args } = this.previews.inverse(change);
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
      const set = await this.previews.setRevertOf(original);
      return this.runSetOnOwnAuthority(set, { ...input, revertOf: original.id });
    }
    const { tool, args, preview } = await this.previews.revertPreview(original);
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
    const outcome = await this.runner.execute(claimed, requester, { recheck: false });
    if (outcome.kind === 'succeeded' || outcome.kind === 'failed' || outcome.kind === 'already')
      return outcome;
    throw new Error(`a change run at once ended as ${outcome.kind}`);
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
    const preview = await this.previews.dryRun(input.tool, args, snapshot);
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
    let request = this.runner.knownTruth(await this.settle(found));
    const early = approveBlocked(request);
    if (early) return early;
    // A step's own request is the set's to run; approved on its own it would run outside
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
        const scheduled = await this.windows.schedule(request, approver, verdict.runAt, {
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
          return this.runner.execute(claimed, approver, { recheck: true, ...(notice ? { notice } : {}) });
        }
      }
      request = this.runner.knownTruth(await this.current(request));
      const blocked = approveBlocked(request);
      if (blocked) return blocked;
    }
    return { kind: 'already', request };
  }

  /**
   * Runs a scheduled change (its window opened, or Run now): claimed from `scheduled`
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
        // The change as it was asked for (its requester's face), now: the bot only carries it out.
        decision: await this.assess(request),
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
    return this.runner.execute(claimed, claimed.approver ?? actor, { recheck: true });
  }

  /**
   * App Home's Run now: a scheduled change runs before its window only if the policy,
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
    // A scheduled change can be cancelled until its window opens.
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
    if (scheduled) await this.windows.drop(id, actor);
    return { kind: 'cancelled', request: cancelled };
  }

  /** Scheduled changes, soonest first: App Home lists them with Run now and Cancel. */
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
    await this.runner.retryUnrecorded();
    await this.windows.rescheduleOrphans().catch((error: unknown) => {
      this.options.logger.warn({ err: error }, 'could not check the deadlines of scheduled changes');
    });
    const interrupted = await this.recoverInterrupted();
    // A set cut off mid-run is settled here, once (the recovery hands it to one caller).
    for (const entry of interrupted) {
      if (!entry.request.set || entry.request.state !== 'unknown') continue;
      try {
        entry.request = await this.runner.resumeSet(entry.request);
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

  /** Pending requests live at `filter.liveAt`, soonest expiry first, a page at a time. */
  async pendingByExpiry(filter: PendingFilter): Promise<ChangeRequest[]> {
    return this.store.pendingByExpiry(filter);
  }

  /** How many pending requests `pendingByExpiry` would list without paging. */
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
    revertAfterRule?: string;
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
    if (input.revertAfterRule !== undefined) request.revertAfterRule = input.revertAfterRule;
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
  /**
   * Proposes a change set: several writes previewed on the planned state (the controller
   * now plus the steps before each), assessed together (the strictest step's approvals, approvers
   * and window) and approved as one request. A step that fails its preview is refused, naming the
   * step and the argument; nothing is proposed or sent.
   */
  async proposeSet(
    input: SetProposal & { requester: Actor; channel?: string; revertOf?: string },
  ): Promise<ChangeRequest> {
    await this.requireAsker(input.requester, input.channel);
    const set = validateSet(this.options.registry, input);
    return this.createSet(set, input);
  }

  /** A validated set previewed, assessed (a denied step refuses the whole set) and journaled pending. */
  private async createSet(
    set: ChangeSetRecord,
    input: { requester: Actor; channel?: string; revertOf?: string },
  ): Promise<ChangeRequest> {
    const planned = await this.previews.planSet(set, input, snapshotContext(this.options.context));
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
    const planned = await this.previews.planSet(set, input, snapshotContext(this.options.context));
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
    const planned = await this.previews.planSet(set, input, snapshotContext(this.options.context));
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

  /**
   * The revert of a whole set: one new set whose steps undo the original's steps that are
   * done, in reverse order, each previewed as a single revert is (before / after / now on drift).
   */
  private async proposeSetRevert(
    original: ChangeRequest,
    requester: Actor,
    channel: string | undefined,
  ): Promise<ChangeRequest> {
    const revert = await this.previews.setRevertOf(original);
    return this.createSet(revert, { requester, ...(channel ? { channel } : {}), revertOf: original.id });
  }
}
