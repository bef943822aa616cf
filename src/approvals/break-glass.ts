import type { ApproveOutcome } from '../changes/outcomes.js';
import { ConflictError, ResourceNotFoundError } from '../errors.js';
import { settle } from '../lib/settle-within.js';
import {
  CHANGE_STATES,
  LEGACY_BREAKGLASS_REVIEWS_KEY,
  OPEN_BREAKGLASS_REVIEW_PREFIX,
  openBreakGlassReviewIds,
} from '../model/change-request.js';
import type { ApproveHooks } from './approvals-core.js';
import { RolloutApprovals } from './rollouts.js';
import {
  approveBlocked,
  askedRequestFields,
  assessmentRecord,
  commandLine,
  type GateChange,
  gateRefusal,
} from './terms.js';
import type { Actor, ChangeRequest } from './types.js';

/** A break-glass request as asked: its change (pending), and the gate's notes. */
export interface BreakGlassOutcome {
  request: ChangeRequest;
  /** The gate's notes: how many approvals instead, who reviews it and by when. */
  notes: string[];
}

/**
 * Break-glass: a change asked under the policy's `breakglass:` terms. The gate decides who may and
 * how many approvals it needs instead (never past a `deny`); the request records the reason and the
 * review it owes; when the terms ask no approval its requester runs it at once (`runOnWord`). A reviewer acknowledges it
 * afterwards; until one does it is listed as open, and overdue after its deadline.
 */
export class BreakGlassApprovals extends RolloutApprovals {
  async breakGlass(input: {
    tool: string;
    args: Record<string, unknown>;
    requester: Actor;
    channel?: string;
    reason: string;
  }): Promise<BreakGlassOutcome> {
    const asked = await this.askedWrite(input, 'only reads; break-glass is for writes');
    const { args } = asked;
    const change: GateChange = {
      tool: input.tool,
      args,
      requester: input.requester,
      ...(input.channel ? { channel: input.channel } : {}),
    };
    const assessment = await this.assess({ ...change, face: 'slack' }, asked.snapshot);
    const { verdict } = await this.decide({
      action: 'break_glass',
      actor: input.requester,
      face: 'slack',
      change,
      decision: assessment,
      command: commandLine(input.tool, args),
    });
    if (verdict.verdict === 'refuse') throw gateRefusal(verdict);
    if (verdict.verdict !== 'allow') throw new ConflictError('break-glass asks no endorsement');
    const terms = assessment.decision.breakGlass;
    if (!terms)
      throw new ConflictError(
        'the policy changed while the request was checked: it lets nobody break glass now',
      );
    const request = await this.create({
      ...askedRequestFields(input, asked, assessment.decision),
      // The one approval shown is the requester's own word when the terms ask none.
      assessment: { ...assessmentRecord(assessment), approvals: Math.max(1, verdict.needed) },
      breakGlass: {
        reason: input.reason,
        approvals: verdict.needed,
        reviewers: terms.reviewers,
        reviewDueAt: new Date(this.now() + terms.reviewWithinSeconds * 1000).toISOString(),
      },
    });
    await this.listOpenReview(request.id);
    this.options.logger.warn(
      { id: request.id, tool: request.tool, requester: input.requester.userId, approvals: verdict.needed },
      'break-glass change requested',
    );
    return { request, notes: verdict.notes };
  }

  /**
   * Runs a break-glass change whose terms ask no approval, on its requester's word: only theirs,
   * only while it is pending, once (the claim is the store's guarded transition), and only while the
   * gate, asked again on a fresh read, still lets it run with no approval. With an identity provider
   * the gate asks for the requester's sign-in first: the answer is then a one-time link, and the
   * sign-in comes back here (`afterSignIn`) with their identity and the preview hash it was bound to.
   */
  async runOnWord(
    id: string,
    requester: Actor,
    shownHash?: string,
    hooks: ApproveHooks = {},
  ): Promise<ApproveOutcome> {
    const found = await this.store.get(id);
    if (!found?.breakGlass) return { kind: 'not_found', id };
    if (shownHash !== undefined && shownHash !== found.previewHash) {
      return { kind: 'mismatch', request: found, shownHash };
    }
    // Ran, cancelled or expired already (a sign-in handed in twice): nothing to read or ask.
    const request = await this.settle(found);
    const blocked = approveBlocked(request);
    if (blocked) return blocked;
    if (
      request.breakGlass === undefined ||
      request.breakGlass.approvals > 0 ||
      request.requester.userId !== requester.userId
    ) {
      return {
        kind: 'refused',
        request,
        reason: 'only its requester runs a break-glass change that needs no approval',
      };
    }
    const { verdict } = await this.decide({
      action: 'break_glass',
      actor: requester,
      face: 'slack',
      change: request,
      decision: await this.assess({ ...request, face: 'slack' }),
    });
    if (verdict.verdict === 'refuse') {
      if (verdict.deny) return this.refusedByPolicy(request, requester, verdict.deny);
      if (verdict.stepUp && this.options.stepUp)
        return this.signInFirst(request, requester, verdict.stepUp, 'run_on_word');
      return { kind: 'refused', request, reason: verdict.reason };
    }
    if (verdict.verdict !== 'allow' || verdict.needed > 0) {
      return { kind: 'refused', request, reason: 'the policy now asks an approval for this change' };
    }
    if (!requester.identity) return this.runOnOwnAuthority(request, requester);
    // Signed in a while after the ask: the target may have moved meanwhile, so the run checks again.
    const claimed = await this.store.transition(
      id,
      { type: 'approved', id, actor: requester, previewHash: request.previewHash },
      { from: ['pending'], at: this.now(), live: true },
    );
    if (!claimed) {
      const current = (await this.store.get(id)) ?? request;
      return approveBlocked(current) ?? { kind: 'already', request: current };
    }
    const notice = hooks.onClaimed ? settle(hooks.onClaimed(claimed)) : undefined;
    return this.runner.execute(claimed, requester, { recheck: true, ...(notice ? { notice } : {}) });
  }

  /**
   * A step-up sign-in that came back and maps to the person it was made for: what its link was
   * made for, done again with their identity and the preview hash bound at the click (or the ask).
   */
  async afterSignIn(
    signIn: {
      changeId: string;
      previewHash: string;
      approver: Actor;
      purpose: 'approve' | 'run_on_word';
    },
    hooks: ApproveHooks = {},
  ): Promise<ApproveOutcome> {
    if (signIn.purpose === 'run_on_word')
      return this.runOnWord(signIn.changeId, signIn.approver, signIn.previewHash, hooks);
    return this.approve(signIn.changeId, signIn.approver, hooks, signIn.previewHash);
  }

  /** A reviewer acknowledges a break-glass change: journaled once; anyone else is refused. */
  async reviewBreakGlass(id: string, reviewer: Actor): Promise<ChangeRequest> {
    const request = await this.store.get(id);
    if (!request?.breakGlass) throw new ResourceNotFoundError('break-glass change', id);
    const glass = request.breakGlass;
    if (glass.reviewedBy) {
      throw new ConflictError(
        `reviewed already by ${glass.reviewedBy.name ?? glass.reviewedBy.userId} at ${glass.reviewedAt ?? '?'}`,
      );
    }
    const listed = await this.options.policy.canApproveAs(
      reviewer,
      glass.reviewers,
      "the policy's breakglass: reviewers",
      'review this break-glass change',
    );
    if (!listed.ok) throw gateRefusal({ verdict: 'refuse', reason: listed.reason });
    const reviewed = await this.store.transition(
      id,
      { type: 'reviewed', id, actor: reviewer },
      {
        from: CHANGE_STATES,
        at: this.now(),
      },
    );
    if (!reviewed) throw new ConflictError('the change moved on while the review was recorded; try again');
    await this.closeOpenReview(id);
    return reviewed;
  }

  /** Break-glass changes still owing their review, soonest due first; `overdue` marks those past it. */
  async openReviews(now = this.now()): Promise<{ request: ChangeRequest; overdue: boolean }[]> {
    const data = this.options.context.store;
    const ids = openBreakGlassReviewIds(
      await data.keys(OPEN_BREAKGLASS_REVIEW_PREFIX),
      await data.get<string[]>(LEGACY_BREAKGLASS_REVIEWS_KEY),
    );
    const open: { request: ChangeRequest; overdue: boolean }[] = [];
    for (const id of ids) {
      const request = await this.store.get(id);
      const due =
        request?.breakGlass && !request.breakGlass.reviewedBy
          ? Date.parse(request.breakGlass.reviewDueAt)
          : undefined;
      if (request && due !== undefined) open.push({ request, overdue: due <= now });
    }
    return open.sort((a, b) =>
      (a.request.breakGlass?.reviewDueAt ?? '').localeCompare(b.request.breakGlass?.reviewDueAt ?? ''),
    );
  }

  private async listOpenReview(id: string): Promise<void> {
    await this.options.context.store.set(`${OPEN_BREAKGLASS_REVIEW_PREFIX}${id}`, true);
  }

  private async closeOpenReview(id: string): Promise<void> {
    const data = this.options.context.store;
    await data.delete(`${OPEN_BREAKGLASS_REVIEW_PREFIX}${id}`);
    const legacy = await data.get<string[]>(LEGACY_BREAKGLASS_REVIEWS_KEY);
    if (legacy?.includes(id))
      await data.set(
        LEGACY_BREAKGLASS_REVIEWS_KEY,
        legacy.filter((each) => each !== id),
      );
  }
}
