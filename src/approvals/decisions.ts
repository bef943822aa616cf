import { type ApproveOutcome, summarize } from '../changes/outcomes.js';
import { settle } from '../lib/settle-within.js';
import { SYSTEM_ACTOR } from '../model/change-request.js';
import { deniedText } from '../policy/gate.js';
import type { ChangeAssessment } from '../tools/core/assess.js';
import type { ApproveHooks } from './approvals-core.js';
import { ProposingApprovals } from './proposals.js';
import { approveBlocked, faceOf, verdictDecision } from './terms.js';
import type { Actor, CancelOutcome, ChangeRequest, ErrorSummary } from './types.js';

/** Deciding: approving (one or several approvals) and cancelling, and who may keep, accept or revert. */
export class DecidingApprovals extends ProposingApprovals {
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
        if (verdict.stepUp && this.options.stepUp) return this.signInFirst(request, approver, verdict.stepUp);
        // The gate awaited: another click may have claimed or cancelled it meanwhile.
        const current = await this.current(request);
        return approveBlocked(current) ?? { kind: 'refused', request: current, reason: verdict.reason };
      }
      const needed = verdict.needed;
      const given = request.approvedBy ?? [];
      const at = this.now();
      const guard = { from: ['pending'] as const, at, live: true, notApprovedBy: approver.userId };
      // Deliberately alike: endorse and approve are separate journal transitions, each with its own guard, log line and answer.
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
   * The approval (or the run on the word) counts only after a step-up sign-in: nothing is recorded
   * now; the actor gets a one-time link bound to this change, to them and to the stored preview hash.
   */
  protected async signInFirst(
    request: ChangeRequest,
    approver: Actor,
    why: string,
    purpose: 'approve' | 'run_on_word' = 'approve',
  ): Promise<ApproveOutcome> {
    const stepUp = this.options.stepUp;
    if (!stepUp) return { kind: 'refused', request, reason: 'step-up sign-in is not configured' };
    try {
      const link = await stepUp.begin({
        changeId: request.id,
        approver,
        previewHash: request.previewHash,
        purpose,
      });
      this.options.logger.info(
        { id: request.id, approver: approver.userId, why, purpose },
        purpose === 'approve'
          ? 'approval waits for a step-up sign-in'
          : 'break-glass waits for a step-up sign-in',
      );
      return { kind: 'sign_in', request, url: link.url, expiresAt: link.expiresAt, why };
    } catch (error) {
      this.options.logger.warn({ err: error, id: request.id }, 'step-up sign-in link could not be made');
      return {
        kind: 'refused',
        request,
        reason: `this change needs step-up sign-in (${why}), and the identity provider cannot be reached now; ${purpose === 'approve' ? 'your approval was not recorded' : 'nothing ran'}`,
      };
    }
  }

  /** A change the policy denies at approval: never run; the request ends as "not run" with the rule's reason. */
  protected async refusedByPolicy(
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
}
