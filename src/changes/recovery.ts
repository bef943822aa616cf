import { canonicalJson } from '../lib/canonical.js';
import type { Logger } from '../log.js';
import {
  type ChangeImage,
  type ChangeRequest,
  type ChangeSetRecord,
  type SetStepStatus,
  SYSTEM_ACTOR,
} from '../model/change-request.js';
import type { ChangeStore } from '../store/types.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import { imageObject, readImage, verify } from './images.js';
import type { OutcomeJournal } from './outcome-journal.js';
import type { SetRunner } from './set-runner.js';
import { changeSpec } from './tool-changes.js';

export interface SetRecoveryOptions {
  store: ChangeStore;
  registry: ToolRegistry;
  context: ToolContext;
  logger: Logger;
  now: () => number;
  sets: SetRunner;
  journal: OutcomeJournal;
}

/**
 * Settles a change set whose process stopped while it ran. Nothing is sent twice: a step whose
 * outcome was never recorded is read back on the controller, and what cannot be told is left
 * `unknown` for a person.
 */
export class SetRecovery {
  constructor(private readonly options: SetRecoveryOptions) {}

  /**
   * A set whose process stopped mid-run (now `unknown`, handed to this replica alone by the
   * recovery): claimed again, the step that was in progress settled (a write whose outcome is not
   * recorded is read back on the controller, never sent again), then treated as a failure there:
   * compensated, or left as it is with on_failure=stop.
   */
  async resume(interrupted: ChangeRequest): Promise<ChangeRequest> {
    const reclaimed = await this.options.store.transition(
      interrupted.id,
      {
        type: 'approved',
        id: interrupted.id,
        actor: interrupted.approver ?? SYSTEM_ACTOR,
        previewHash: interrupted.previewHash,
        note: 'the bot stopped while this change set ran; resumed after the restart to settle it (no step is run again)',
      },
      { from: ['unknown'], at: this.options.now() },
    );
    if (!reclaimed) return interrupted;
    let parent = await this.options.store.transition(
      interrupted.id,
      { type: 'executing', id: interrupted.id, actor: SYSTEM_ACTOR },
      { from: ['approved'], at: this.options.now(), ownedBySelf: true },
    );
    if (!parent) return (await this.options.store.get(interrupted.id)) ?? interrupted;
    const steps = (parent.set as ChangeSetRecord).steps;
    const rollout = parent.set?.rollout !== undefined;
    // Failed before the restart (the compensation was under way): that failure is the one reported.
    // A rollout compensates nothing: a site that failed before a Continue is history, not the stop.
    const failedBefore = rollout ? -1 : steps.findIndex((s) => s.status === 'failed');
    const settled: number[] = [];
    for (const [index, step] of steps.entries()) {
      if (step.status === 'done' && step.revertId) {
        // Its undoing write may have been in flight: read back, never sent again.
        const undone = await this.settleInterruptedStep(step.revertId);
        if (undone === 'done') {
          await this.options.journal.markReverted(step.changeId ?? '', step.revertId);
          parent = await this.options.sets.recordStep(parent, index + 1, {
            status: 'reverted',
            revertId: step.revertId,
          });
        } else if (undone === 'unknown') {
          parent = await this.options.sets.recordStep(parent, index + 1, {
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
      settled.push(index);
      parent = await this.options.sets.recordStep(parent, index + 1, {
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
    // A rollout stops at the site cut off (when it did not apply), else at the first site never tried.
    const cutOff = settled.find((index) => after[index]?.status !== 'done');
    const unsettled = rollout
      ? (cutOff ?? after.findIndex((s) => s.status === undefined || s.status === 'not_run'))
      : after.findIndex((s) => s.status !== 'done' && s.status !== 'reverted');
    const stoppedAt = failedBefore >= 0 ? failedBefore : unsettled;
    this.options.logger.warn(
      { id: parent.id, step: stoppedAt + 1 },
      'change set interrupted by a restart; settling it',
    );
    const interruptedHere = after[stoppedAt];
    const outcome = await this.options.sets.finish(
      parent,
      stoppedAt < 0 ? undefined : stoppedAt,
      stoppedAt < 0 || failedBefore >= 0
        ? undefined
        : {
            code: 'interrupted',
            message: parent.set?.rollout
              ? 'the bot stopped while the rollout ran; the write in flight was read back on the controller, never sent again'
              : `the bot stopped during this step${interruptedHere?.error ? ` (${interruptedHere.error.message})` : ''}`,
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
    const child = await this.options.store.get(changeId);
    if (!child) return 'failed';
    if (child.state === 'succeeded') return 'done';
    if (child.state === 'pending') {
      // Withdrawn as a request nobody was shown, then cancelled whatever the store says of that.
      await this.options.store
        .transition(
          child.id,
          { type: 'cancelled', id: child.id, actor: SYSTEM_ACTOR },
          { from: ['pending'], at: this.options.now(), unannounced: true },
        )
        .catch(() => undefined);
      await this.options.store.transition(
        child.id,
        { type: 'cancelled', id: child.id, actor: SYSTEM_ACTOR },
        { from: ['pending'], at: this.options.now() },
      );
      return 'failed';
    }
    if (child.state !== 'unknown') return 'failed';
    const spec = changeSpec(child.tool);
    if (spec?.kind === 'create') return this.settleInterruptedCreate(child);
    const read = spec?.beforeRead?.(child.args);
    const before = imageObject(child.before);
    if (!read || before === undefined) return 'unknown';
    const now = await readImage(read, this.options.registry, this.options.context, this.options.now);
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
    const now = await readImage(read, this.options.registry, this.options.context, this.options.now);
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
    const at = this.options.now();
    const done = await this.options.store.transition(
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
    await this.options.store.transition(
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
}
