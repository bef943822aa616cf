import type { Logger } from '../log.js';
import { type ChangeRequest, type ChangeState, SYSTEM_ACTOR } from '../model/change-request.js';
import { applyEvent } from '../store/apply-event.js';
import type { TransitionEntry } from '../store/journal-format.js';
import type { ChangeStore } from '../store/types.js';

/** The last word on a run: it succeeded or it failed. */
export type Outcome = Extract<TransitionEntry, { type: 'succeeded' | 'failed' }>;

/**
 * Where a run's outcome is journaled. A write that ran cannot be taken back, so when the store
 * refuses its outcome this keeps it, answers with it, and records it at a later sweep.
 */
export class OutcomeJournal {
  // Outcomes of writes that ran but could not be recorded (store unreachable); retried by retry().
  private readonly unrecorded = new Map<string, { entry: Outcome; from: readonly ChangeState[] }>();

  constructor(
    private readonly store: ChangeStore,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {}

  /**
   * Records the outcome of a write that already ran (or never will). If the store cannot take it
   * now, the answer still tells the truth, and the outcome is recorded by a later sweep; should
   * this process die first, the request shows "outcome unknown", which is then the honest answer.
   */
  async record(request: ChangeRequest, entry: Outcome, from: readonly ChangeState[]): Promise<ChangeRequest> {
    const at = this.now();
    try {
      const recorded = await this.store.transition(entry.id, entry, { from, at, ownedBySelf: true });
      if (recorded) return recorded;
      this.logger.error(
        { id: entry.id, outcome: entry.type },
        'the outcome of a change could not be recorded: the request is no longer in a state this replica owns',
      );
    } catch (error) {
      this.unrecorded.set(entry.id, { entry, from });
      this.logger.error(
        { err: error, id: entry.id },
        'could not record the outcome of a change; retrying with the next sweep',
      );
    }
    return applyEvent(request, { ...entry, seq: 0, at: new Date(at).toISOString(), prev: '' });
  }

  /** Records the outcomes the store refused earlier; those it still refuses wait for the next call. */
  async retry(): Promise<void> {
    for (const [id, { entry, from }] of this.unrecorded) {
      try {
        await this.store.transition(id, entry, { from, at: this.now(), ownedBySelf: true });
        this.unrecorded.delete(id);
        this.logger.info({ id, outcome: entry.type }, 'recorded a delayed change outcome');
      } catch (error) {
        this.logger.warn({ err: error, id }, 'still cannot record the outcome of a change');
      }
    }
  }

  /**
   * The request with the outcome this process knows but could not record yet (the store refused
   * it): a change approved and then not run because the disk filled is "not run", never "running".
   */
  knownTruth(request: ChangeRequest): ChangeRequest {
    const owed = this.unrecorded.get(request.id);
    if (!owed?.from.includes(request.state)) return request;
    return applyEvent(request, { ...owed.entry, seq: 0, at: new Date(this.now()).toISOString(), prev: '' });
  }

  /** Records on a change that a revert undid it (so it offers no second Revert). */
  async markReverted(originalId: string, revertId: string): Promise<void> {
    try {
      await this.store.transition(
        originalId,
        { type: 'reverted', id: originalId, actor: SYSTEM_ACTOR, revertedBy: revertId },
        // A set that stopped part-way (a halted rollout, on_failure=stop) is failed with steps in place.
        { from: ['succeeded', 'failed'], at: this.now() },
      );
    } catch (error) {
      this.logger.warn(
        { err: error, id: originalId, revertId },
        'could not record that a change was reverted',
      );
    }
  }
}
