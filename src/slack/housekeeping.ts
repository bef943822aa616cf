import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { ChangePresenter } from './change-presenter.js';
import type { AppHome } from './home/app-home.js';

/**
 * What one sweep did: expired and interrupted requests (their messages edited), requests from MCP
 * clients in other processes posted, and messages of requests those processes changed edited.
 */
export type SweepCount = { expired: number; interrupted: number; announced: number; edited: number };

/**
 * The Slack front end's periodic work: sweeping expired and interrupted change requests (their
 * messages edited, reminders sent after), and the journal anchors posted to AUDIT_CHANNEL.
 */
export class SlackHousekeeping {
  private sweeper: NodeJS.Timeout | undefined;
  private anchorer: NodeJS.Timeout | undefined;
  private readonly sweepEvery: number;

  constructor(
    private readonly presenter: ChangePresenter,
    private readonly appHome: Pick<AppHome, 'reminders'>,
    private readonly config: Config,
    private readonly logger: Logger,
    sweepIntervalMs?: number,
  ) {
    this.sweepEvery =
      sweepIntervalMs ?? Math.min(15_000, Math.max(1_000, (config.store.replicaLeaseSeconds * 1000) / 3));
  }

  /** Sweeps now; a failed sweep is logged and counts nothing. */
  readonly sweep = async (): Promise<SweepCount> => {
    try {
      return await this.presenter.sweep();
    } catch (error) {
      this.logger.error({ err: error }, 'change request sweep failed');
      return { expired: 0, interrupted: 0, announced: 0, edited: 0 };
    } finally {
      // After expiry, so a request that just expired is never reminded about.
      await this.appHome.reminders.run();
    }
  };

  /** Posts a journal anchor; a failure is logged, and the next one tries again. */
  async anchor(reason: 'start' | 'periodic' | 'stop'): Promise<void> {
    try {
      await this.presenter.postAnchor(reason);
    } catch (error) {
      this.logger.warn(
        { err: error, channel: this.config.approvals.auditChannel },
        'could not post a journal anchor to AUDIT_CHANNEL; the next one tries again',
      );
    }
  }

  /** Starts the sweeps and the anchors (the first one at once). */
  start(): void {
    this.sweeper = setInterval(() => void this.sweep(), this.sweepEvery);
    this.sweeper.unref();
    void this.anchor('start');
    const minutes = this.config.approvals.anchorMinutes;
    if (minutes > 0) {
      this.anchorer = setInterval(() => void this.anchor('periodic'), minutes * 60_000);
      this.anchorer.unref();
    }
  }

  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    if (this.anchorer) clearInterval(this.anchorer);
  }
}
