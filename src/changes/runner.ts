import { diffPreviews, previewHash } from '../lib/canonical.js';
import { redactSecrets } from '../lib/redact.js';
import { type Settled, settledWithin } from '../lib/settle-within.js';
import type { Logger } from '../log.js';
import {
  type Actor,
  type ChangeImage,
  type ChangeRequest,
  type ErrorSummary,
  type JournaledDeadlineKind,
  SYSTEM_ACTOR,
  type Verification,
} from '../model/change-request.js';
import { deniedText } from '../policy/gate.js';
import { type DeadlineStore, newDeadlineId } from '../store/deadlines.js';
import type { ChangeStore } from '../store/types.js';
import type { ChangeAssessment } from '../tools/core/assess.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import { imageObject, readImage, verify } from './images.js';
import { capForJournal } from './journal-cap.js';
import { OutcomeJournal } from './outcome-journal.js';
import { type ApproveOutcome, summarize } from './outcomes.js';
import { SetRecovery } from './recovery.js';
import { newRequestId } from './request-id.js';
import { timedRevert } from './revert-deadline.js';
import { SetRunner } from './set-runner.js';
import { changeSpec, noSpecReason } from './tool-changes.js';

/**
 * What the runner asks of the side that decides (approvals/ implements it): the previews a run
 * compares with the approved one, and the request that replaces a change whose preview drifted.
 * The runner never decides whether a change may run; it runs what was claimed.
 */
export interface ChangePlans {
  /** The change's preview and policy assessment on one fresh read of the controller, as at proposal. */
  recheck(request: ChangeRequest): Promise<readonly [unknown, ChangeAssessment]>;
  /** A set's step previewed on a fresh read: its dry run, or for a revert what it undoes. */
  previewStep(step: { tool: string; args: Record<string, unknown>; revertOf?: string }): Promise<unknown>;
  /** The preview of a revert (a set's compensation), computed as at its proposal. */
  previewFor(change: { tool: string; args: Record<string, unknown>; revertOf?: string }): Promise<unknown>;
  /**
   * A new pending request with id `replacement.id`, on behalf of the original requester, in place
   * of `request`, whose preview drifted between its approval and its run.
   */
  replaceDrifted(
    request: ChangeRequest,
    replacement: { id: string; preview: unknown; assessment?: ChangeAssessment },
  ): Promise<ChangeRequest>;
}

/** How a claimed change is run. */
export interface RunOptions {
  /** Preview and assess it again before the write (not for a change whose preview was made just now). */
  recheck: boolean;
  /** The face showing that it runs; awaited a little before the write, never failing it. */
  notice?: Promise<Settled<void>>;
}

export interface ChangeRunnerOptions {
  /** The store approvals/ uses too, so its listeners hear of every step a run takes. */
  store: ChangeStore;
  registry: ToolRegistry;
  context: ToolContext;
  logger: Logger;
  now: () => number;
  /** How long a set step's own request would stay pending (it is claimed at once). */
  ttlSeconds: number;
  /** Where a timed change's automatic revert is stored; without it ChangeTimers schedules it. */
  deadlines?: DeadlineStore;
  plans: ChangePlans;
}

// A slow or failing Slack must not hold a change back for long, nor stop it.
const CLAIM_NOTICE_WAIT_MS = 2_000;

/**
 * Runs approved changes: the before-image, the write exactly once, the outcome journaled with the
 * revert deadline of a timed change, and the after-image verified; change sets step by step with
 * their compensation (set-runner.ts); sets cut off by a restart settled (recovery.ts). Deciding
 * whether and when a change runs is approvals/' part: this runs what it hands over, claimed.
 */
export class ChangeRunner {
  private readonly store: ChangeStore;
  private readonly now: () => number;
  private readonly journal: OutcomeJournal;
  private readonly sets: SetRunner;
  private readonly recovery: SetRecovery;

  constructor(private readonly options: ChangeRunnerOptions) {
    this.store = options.store;
    this.now = options.now;
    this.journal = new OutcomeJournal(options.store, options.logger, options.now);
    this.sets = new SetRunner({
      ...options,
      journal: this.journal,
      execute: (request, approver, run) => this.execute(request, approver, run),
    });
    this.recovery = new SetRecovery({ ...options, sets: this.sets, journal: this.journal });
  }

  /**
   * The request with the outcome this process knows but could not record yet (the store refused
   * it): a change approved and then not run because the disk filled is "not run", never "running".
   */
  knownTruth(request: ChangeRequest): ChangeRequest {
    return this.journal.knownTruth(request);
  }

  /** Records the outcomes of writes that ran while the store refused them. */
  async retryUnrecorded(): Promise<void> {
    await this.journal.retry();
  }

  /**
   * A set whose process stopped mid-run (now `unknown`, handed to this replica alone by the
   * store's recovery): claimed again, the step in progress settled without sending anything again,
   * then treated as a failure there: compensated, or left as it is with on_failure=stop.
   */
  async resumeSet(interrupted: ChangeRequest): Promise<ChangeRequest> {
    return this.recovery.resume(interrupted);
  }

  /**
   * A halted rollout continued: claimed again (executing, owned by this replica), it runs the
   * sites never tried, from the first of them, with its waves and soaks.
   */
  async continueRollout(request: ChangeRequest, approver: Actor, start: number): Promise<ApproveOutcome> {
    return this.sets.run(request, approver, start);
  }

  /**
   * Runs a claimed change (approved, owned by this replica): with `recheck`, its preview and policy
   * once more on a fresh read (drifted: superseded by a new request, not run; denied now: not run);
   * then the before-image, the write with confirm exactly once, its outcome with any revert
   * deadline, and the after-image compared with what was sent.
   */
  async execute(
    request: ChangeRequest,
    approver: Actor,
    options: RunOptions = { recheck: true },
  ): Promise<ApproveOutcome> {
    const { id, tool, args } = request;
    let fresh: unknown = request.preview;
    let assessed: ChangeAssessment | undefined;
    try {
      if (options.recheck) {
        // The preview and the policy once more, right before the write, on a fresh read.
        [fresh, assessed] = await this.options.plans.recheck(request);
      }
    } catch (error) {
      const found = summarize(error);
      const summary: ErrorSummary = {
        ...found,
        message: `not run, the check at approval failed: ${found.message}`,
      };
      const failed = await this.journal.record(
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
      const failed = await this.journal.record(
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
      // The before-image: read fresh right before the write; a failed read is noted, never fatal.
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
      const failed = await this.journal.record(
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
    if (executing.set) return this.sets.run(executing, approver, 0);
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
      const failed = await this.journal.record(
        executing,
        { type: 'failed', id, actor: approver, error: summary, stage: 'execute' },
        ['executing', 'unknown'],
      );
      return { kind: 'failed', request: failed, error: summary };
    }
    // A timed change's revert is part of its success: journaled in the same step, so a crash
    // right after cannot leave a change that was meant to end without its deadline.
    const deadline = this.revertDeadline(executing);
    const succeeded = await this.journal.record(
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
    if (request.revertOf) await this.journal.markReverted(request.revertOf, id);
    // Not journaled (the store that failed may be the journal): every face shows it with the result.
    const shown = unscheduled ? { ...verified, error: unscheduled } : verified;
    return { kind: 'succeeded', request: shown, result };
  }

  /** The target changed since the preview: supersede the approved request and offer a new preview. */
  private async drift(
    request: ChangeRequest,
    approver: Actor,
    fresh: unknown,
    assessed?: ChangeAssessment,
  ): Promise<ApproveOutcome> {
    const { id } = request;
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
    const replacement = await this.options.plans.replaceDrifted(request, {
      id: replacementId,
      preview: fresh,
      ...(assessed ? { assessment: assessed } : {}),
    });
    this.options.logger.info({ id, replacement: replacementId, differences }, 'preview drifted; not run');
    return { kind: 'drift', request: superseded, replacement, differences };
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
}
