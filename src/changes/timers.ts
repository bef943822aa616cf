import { hostname } from 'node:os';
import { kindReason } from './timer-core.js';
import { WindowTimers } from './window-openings.js';

export type {
  ChangeTimersOptions,
  KeepGate,
  PendingRevert,
  RevertOutcome,
  RevertPort,
  RevertReason,
  TimerEvent,
  TimerNotifier,
} from './timer-core.js';
export { timeLeftText, timerEventText } from './timer-core.js';

/**
 * Keep-or-revert and temporary changes: a timed change that succeeded gets
 * a deadline in the store; one ticker per process claims due deadlines (each fires on one replica,
 * once, also after a restart) and has the change reverted; Keep cancels the deadline before it is
 * due. An automatic revert that fails is reported and never retried.
 *
 * Built in layers, one file each: the journal steps and reports (timer-core.ts), keep-or-revert
 * (keep-or-revert.ts), window openings (window-openings.ts), and here the ticker.
 */
export class ChangeTimers extends WindowTimers {
  /** Subscribes to changes, and claims what fell due while nothing ran at once, then every tick. */
  start(): void {
    if (this.timer) return;
    this.follow();
    this.firing = true;
    this.timer = setInterval(() => void this.tick(), this.options.tickMs ?? 5_000);
    this.timer.unref();
    void this.tick();
  }

  /** Tells the store this process fires its deadlines, for a while longer than the next tick. */
  protected async announceKeeper(): Promise<void> {
    const keepers = this.options.keepers;
    if (!keepers || !this.firing) return;
    const ttl = Math.max(30_000, 3 * (this.options.tickMs ?? 5_000));
    await keepers.announce(this.keeperName(), ttl).catch((error: unknown) => {
      this.options.logger.warn({ err: error }, 'could not tell the store that this bot fires its deadlines');
    });
  }

  protected keeperName(): string {
    return `${hostname()} pid ${process.pid} (replica ${this.options.replicaId})`;
  }

  /**
   * Only schedules the deadlines of this process's own timed changes (a console run, an MCP stdio
   * server): the long-running bot sharing the store fires them. `stop()` waits for the scheduling.
   */
  follow(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.options.onChange?.((request) => {
      const work = this.noticeChange(request).catch((error: unknown) => {
        this.options.logger.error(
          { err: error, id: request.id },
          'could not schedule the revert of a timed change',
        );
      });
      this.scheduling.add(work);
      void work.finally(() => this.scheduling.delete(work));
    });
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.firing) {
      this.firing = false;
      await this.options.keepers?.withdraw(this.keeperName()).catch(() => undefined);
    }
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await Promise.allSettled([...this.scheduling]);
    await this.ticking;
  }

  /** One look: probes of keep-or-revert changes that are due, then every due deadline, claimed and fired. */
  async tick(): Promise<void> {
    if (this.ticking) return this.ticking;
    this.ticking = (async () => {
      try {
        await this.announceKeeper();
        await this.probeDue();
        await this.rebuildIfDue();
        const due = await this.options.deadlines.claimDue(this.now(), this.options.replicaId);
        for (const deadline of due) {
          if (deadline.kind === 'window') await this.runWindow(deadline);
          else await this.fire(deadline, kindReason(deadline.kind));
        }
      } catch (error) {
        this.options.logger.error(
          { err: error },
          'the deadline ticker failed; trying again at the next tick',
        );
      } finally {
        this.ticking = undefined;
      }
    })();
    return this.ticking;
  }
}
