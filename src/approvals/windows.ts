import type { Logger } from '../log.js';
import type { DeadlineStore } from '../store/deadlines.js';
import type { ChangeStore } from '../store/types.js';
import type { Actor, ApproveOutcome, ChangeRequest } from './types.js';

export interface WindowsOptions {
  store: ChangeStore;
  /** Where a `window` deadline is stored; without it no change can wait for its window. */
  deadlines?: DeadlineStore;
  logger: Logger;
  now: () => number;
}

/**
 * Changes approved while their policy window is closed: the `scheduled` request and the `window`
 * deadline the timers fire at the opening, kept in step (stored, cancelled, restored after a crash).
 */
export class Windows {
  constructor(private readonly options: WindowsOptions) {}

  /**
   * The last approval of a change whose window is closed: the request becomes
   * `scheduled` and a `window` deadline is stored for the opening (the timers' ticker fires it).
   */
  async schedule(
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
    const scheduled = await this.options.store.transition(
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
    await deadlines.schedule({ kind: 'window', changeId: id, dueAt: runAt, at: this.options.now() });
    this.options.logger.info(
      { id, tool: request.tool, approver: approver.userId, runAt: scheduled.scheduledFor },
      'change request approved outside its window; scheduled',
    );
    return { kind: 'scheduled', request: scheduled };
  }

  /** The `window` deadline of a cancelled scheduled change, cancelled too (its run would find it cancelled anyway). */
  async drop(id: string, actor: Actor): Promise<void> {
    const deadlines = this.options.deadlines;
    if (!deadlines) return;
    try {
      for (const d of await deadlines.list({ changeId: id, kind: 'window', state: 'scheduled' }))
        await deadlines.cancel(d.id, this.options.now(), actor.userId);
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
  async rescheduleOrphans(): Promise<void> {
    const deadlines = this.options.deadlines;
    if (!deadlines) return;
    for (const request of await this.options.store.list({ state: 'scheduled' })) {
      const found = await deadlines.list({ changeId: request.id, kind: 'window' });
      if (found.length > 0 || !request.scheduledFor) continue;
      await deadlines.schedule({
        kind: 'window',
        changeId: request.id,
        dueAt: Date.parse(request.scheduledFor),
        at: this.options.now(),
      });
    }
  }
}
