import { CHANGE_SET_TOOL, type SetProposal, validateSet } from '../changes/change-set.js';
import { splitMetaArgs } from '../changes/meta-args.js';
import { ResourceNotFoundError, ValidationError } from '../errors.js';
import { previewHash } from '../lib/canonical.js';
import { type ChangeAssessmentRecord, type ChangeSetRecord, SYSTEM_ACTOR } from '../model/change-request.js';
import type { GateAction, GateVerdict } from '../policy/gate.js';
import type { ChangeAssessment } from '../tools/core/assess.js';
import { ApprovalsCore } from './approvals-core.js';
import { snapshotContext } from './snapshot-context.js';
import {
  askedRequestFields,
  assessmentRecord,
  type ChangeTiming,
  commandLine,
  refuseNoOp,
  setChange,
  timingOf,
} from './terms.js';
import type { Actor, ChangeRequest } from './types.js';

/** Proposing: a change, a revert or a set previewed and journaled pending, and previews for the faces. */
export class ProposingApprovals extends ApprovalsCore {
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
    const asked = await this.askedWrite(input, 'only reads; change requests are for writes');
    const { args } = asked;
    const assessment = await this.assess({ ...input, args }, asked.snapshot);
    await this.require({
      action: input.action ?? 'propose',
      actor: input.requester,
      change: { ...input, args },
      decision: assessment,
    });
    return this.create({
      ...askedRequestFields(input, asked, assessment.decision),
      assessment: assessmentRecord(assessment),
    });
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
   * The first steps of proposing or previewing a write: refuses a tool that only reads (`readRule`
   * says why), splits the timing arguments off, validates, and dry-runs on one fresh snapshot.
   */
  /** A write someone asks for: who may ask is checked before anything reads the controller. */
  protected async askedWrite(
    input: { tool: string; args: Record<string, unknown>; requester: Actor; channel?: string },
    readRule: string,
  ) {
    await this.requireAsker(input.requester, input.channel);
    return this.dryRunWrite(input.tool, input.args, readRule);
  }

  protected async dryRunWrite(tool: string, input: Record<string, unknown>, readRule: string) {
    const { registry } = this.options;
    if (registry.require(tool).access !== 'write') {
      throw new ValidationError([{ field: 'tool', rule: `${tool} ${readRule}` }]);
    }
    // revert_after and for say when a change undoes itself, not what it changes.
    const meta = splitMetaArgs(input);
    // confirm and dry_run are how a request is run, not what it changes.
    const { confirm: _confirm, dry_run: _dryRun, ...args } = registry.validate(tool, meta.args);
    // The preview and its blast radius share one fresh snapshot of the controller.
    const snapshot = snapshotContext(this.options.context);
    const preview = await this.previews.dryRun(tool, args, snapshot);
    refuseNoOp(tool, preview);
    return { meta, args, snapshot, preview };
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
    const { meta, args, snapshot, preview } = await this.dryRunWrite(
      input.tool,
      input.args,
      'only reads; it needs no change request',
    );
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
  protected async createSet(
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

  protected async createPlannedSet(
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
    return this.previewPlannedSet(validateSet(this.options.registry, input), input);
  }

  /** A set's preview on its planned state and the gate's verdict on the requester's own confirmation. */
  protected async previewPlannedSet(
    set: ChangeSetRecord,
    input: { requester: Actor; channel?: string },
  ): Promise<{
    preview: unknown;
    previewHash: string;
    assessment: ChangeAssessmentRecord;
    verdict: GateVerdict;
  }> {
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

  /**
   * The revert of a whole set: one new set whose steps undo the original's steps that are
   * done, in reverse order, each previewed as a single revert is (before / after / now on drift).
   */
  protected async proposeSetRevert(
    original: ChangeRequest,
    requester: Actor,
    channel: string | undefined,
  ): Promise<ChangeRequest> {
    const revert = await this.previews.setRevertOf(original);
    return this.createSet(revert, { requester, ...(channel ? { channel } : {}), revertOf: original.id });
  }
}
