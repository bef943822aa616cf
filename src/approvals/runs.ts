import { type SetProposal, validateSet } from '../changes/change-set.js';
import type { ApproveOutcome } from '../changes/outcomes.js';
import { ConflictError, ResourceNotFoundError } from '../errors.js';
import { type ChangeSetRecord, SYSTEM_ACTOR } from '../model/change-request.js';
import { refusalText } from '../policy/gate.js';
import { DecidingApprovals } from './decisions.js';
import { snapshotContext } from './snapshot-context.js';
import {
  AUTOMATIC_REASONS,
  assessmentRecord,
  automaticActor,
  faceOf,
  gateRefusal,
  setChange,
  timingFields,
} from './terms.js';
import type { Actor, ChangeRequest } from './types.js';

/** Running: changes confirmed where they are asked (console, MCP), automatic reverts, and scheduled changes at their window. */
export class RunningApprovals extends DecidingApprovals {
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
  protected async refuseUnlessShown(
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
  protected async runOnOwnAuthority(
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

  /** MCP_WRITES=confirm and the console's y: a set run at once on its requester's own authority. */
  async runSetNow(
    input: SetProposal & { requester: Actor; shownHash?: string },
  ): Promise<Extract<ApproveOutcome, { kind: 'succeeded' | 'failed' | 'already' }>> {
    return this.runSetOnOwnAuthority(validateSet(this.options.registry, input), input);
  }

  /** A set (or a set's revert) confirmed by its requester: the gate decides, then it runs once. */
  protected async runSetOnOwnAuthority(
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
}
