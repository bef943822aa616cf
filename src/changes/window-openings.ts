import type { Deadline } from '../store/deadlines.js';
import { KeepOrRevertTimers } from './keep-or-revert.js';
import type { RevertOutcome } from './timer-core.js';

/** Changes approved outside their window: run when a `window` deadline comes due. */
export class WindowTimers extends KeepOrRevertTimers {
  /** A due `window` deadline runs its scheduled change once; the outcome is recorded on the deadline. */
  protected async runWindow(deadline: Deadline): Promise<void> {
    let outcome: RevertOutcome;
    try {
      outcome = this.options.runScheduled
        ? await this.options.runScheduled(deadline.changeId)
        : {
            kind: 'failed',
            error: { code: 'not_supported', message: 'nothing runs scheduled changes here' },
          };
    } catch (error) {
      outcome = {
        kind: 'failed',
        error: { code: 'internal_error', message: error instanceof Error ? error.message : String(error) },
      };
    }
    const ok = outcome.kind === 'succeeded';
    const note = ok ? undefined : (outcome.error?.message ?? outcome.request?.error?.message ?? outcome.kind);
    await this.options.deadlines
      .finish(deadline.id, ok ? 'fired' : 'failed', this.now(), note)
      .catch((error: unknown) => {
        this.options.logger.error({ err: error, id: deadline.id }, 'could not record what a deadline did');
      });
  }
}
