import { combineAssessments, planSet, setPreview } from '../changes/change-set.js';
import { readImage } from '../changes/images.js';
import { compareImages, inverseOf, nowRead } from '../changes/revert.js';
import { ConflictError, ResourceNotFoundError } from '../errors.js';
import { redactSecrets } from '../lib/redact.js';
import type { ChangeImage, ChangeSetRecord, SetStep } from '../model/change-request.js';
import type { ChangeStore } from '../store/types.js';
import type { ChangeAssessment } from '../tools/core/assess.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import { type AssessStep, planRollout } from './rollout-plans.js';
import { refuseNoOp } from './terms.js';
import type { Actor, ChangeRequest } from './types.js';

export interface PreviewsOptions {
  store: ChangeStore;
  registry: ToolRegistry;
  context: ToolContext;
  now: () => number;
  /** The policy's assessment of one step of a set on the planned state (Approvals.assess). */
  assess: AssessStep;
}

/**
 * What a change would do, without doing it: a write's dry run, a revert's inverse with before /
 * after / now, a set's steps on the planned state. Computed the same way at proposal, at approval
 * and right before the run, so the drift check compares like with like.
 */
export class Previews {
  constructor(private readonly options: PreviewsOptions) {}

  /** The tool's dry run, secrets redacted: what a write would send, nothing sent. */
  async dryRun(
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
  async previewFor(
    request: {
      tool: string;
      args: Record<string, unknown>;
      revertOf?: string;
    },
    context?: ToolContext,
  ): Promise<unknown> {
    const dry = await this.dryRun(request.tool, request.args, context);
    if (!request.revertOf) return dry;
    const original = await this.options.store.get(request.revertOf);
    if (!original) throw new ResourceNotFoundError('change request', request.revertOf);
    const plan = inverseOf({ ...original, revertedBy: undefined });
    const notes = 'reason' in plan ? [] : plan.notes;
    const read = nowRead(original);
    const now: ChangeImage = read
      ? await readImage(read, this.options.registry, this.options.context, this.options.now)
      : { at: new Date(this.options.now()).toISOString(), error: 'the object is not read back' };
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

  /** The inverse of a change with its preview; one that would change nothing is refused. */
  async revertPreview(
    original: ChangeRequest,
  ): Promise<{ tool: string; args: Record<string, unknown>; preview: unknown }> {
    const { tool, args } = this.inverse(original);
    const preview = await this.previewFor({ tool, args, revertOf: original.id });
    refuseNoOp(tool, preview);
    return { tool, args, preview };
  }

  /** The inverse of a change, validated, or a ConflictError saying why there is none. */
  inverse(original: ChangeRequest): { tool: string; args: Record<string, unknown> } {
    const plan = inverseOf(original);
    if ('reason' in plan) throw new ConflictError(`change ${original.id} cannot be reverted: ${plan.reason}`);
    const { confirm: _c, dry_run: _d, ...args } = this.options.registry.validate(plan.tool, plan.args);
    return { tool: plan.tool, args };
  }

  /** A set's preview (each step's dry run on the planned state) and its combined assessment. */
  async planSet(
    set: ChangeSetRecord,
    change: { requester: Actor; channel?: string },
    context: ToolContext,
  ): Promise<{ preview: unknown; assessment: ChangeAssessment }> {
    // A rollout is planned site by site, each on its own console and planned state.
    if (set.rollout) {
      const planner = {
        registry: this.options.registry,
        assess: this.options.assess,
        dryRun: (step: SetStep, planned: ToolContext) => this.dryRun(step.tool, step.args, planned),
      };
      return planRollout(planner, set, change, context);
    }
    const assessed: ChangeAssessment[] = [];
    const steps = await planSet(
      this.options.registry,
      context,
      set,
      async (step, _n, planned) => {
        assessed.push(
          await this.options.assess(
            { ...step, requester: change.requester, channel: change.channel },
            planned,
          ),
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
   * The revert of a whole set: one new set whose steps undo the original's steps that are done, in
   * reverse order, each previewed as a single revert is (before / after / now on drift).
   */
  async setRevertOf(original: ChangeRequest): Promise<ChangeSetRecord> {
    const set = original.set as ChangeSetRecord;
    if (original.revertedBy) {
      throw new ConflictError(
        `change set ${original.id} cannot be reverted: it was reverted already by ${original.revertedBy}`,
      );
    }
    const steps: SetStep[] = [];
    for (const step of [...set.steps].reverse()) {
      if (step.status !== 'done' || !step.changeId) continue;
      const child = await this.options.store.get(step.changeId);
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
}
