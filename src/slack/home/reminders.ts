import type { webApi } from '@slack/bolt';
import type { Approvals } from '../../approvals/approvals.js';
import type { Logger } from '../../log.js';
import { reminderMessage } from '../blocks/reminder.js';

/** What reminders need: APPROVAL_REMIND_SECONDS (0: none) and APPROVERS. */
export interface ReminderOptions {
  afterSeconds: number;
  approvers: string[];
}

/**
 * Posts the one reminder of each request still pending after the delay, in its thread. The store
 * hands each reminder to exactly one sweep (on any replica, across restarts) before it is posted;
 * a post that fails is logged and not repeated, so nobody is reminded twice.
 */
export class Reminders {
  constructor(
    private readonly client: webApi.WebClient,
    private readonly approvals: Approvals,
    private readonly logger: Logger,
    private readonly options: ReminderOptions,
  ) {}

  /** Claims and posts the reminders due now; returns how many were posted. Never throws. */
  async run(): Promise<number> {
    if (this.options.afterSeconds <= 0) return 0;
    let claimed: Awaited<ReturnType<Approvals['claimReminders']>>;
    try {
      claimed = await this.approvals.claimReminders(this.options.afterSeconds);
    } catch (error) {
      this.logger.error({ err: error }, 'could not check for change requests to remind about');
      return 0;
    }
    let posted = 0;
    for (const request of claimed) {
      if (!request.message) continue;
      try {
        await this.client.chat.postMessage({
          channel: request.message.channel,
          thread_ts: request.message.ts,
          ...reminderMessage(request, this.options.approvers),
        });
        posted += 1;
        this.logger.info({ id: request.id }, 'reminded the approvers of a pending change request');
      } catch (error) {
        this.logger.warn(
          { err: error, id: request.id, channel: request.message.channel },
          'could not post a reminder; it is not repeated',
        );
      }
    }
    return posted;
  }
}
