import type { webApi } from '@slack/bolt';
import type { ChangeTimers, TimerNotifier } from '../changes/timers.js';
import type { Logger } from '../log.js';
import { keepPromptMessage, timerEventMessage } from './blocks/keep-prompt.js';
import type { SlackMessage } from './blocks/read-result.js';

/**
 * Timer events in the change's thread (a new deadline with its Keep button; kept, reverted or a
 * failed revert) and, except the prompt, in AUDIT_CHANNEL. A post that fails is logged: the
 * deadline itself is in the store either way.
 */
export function slackTimerNotifier(
  client: webApi.WebClient,
  logger: Logger,
  auditChannel: string | undefined,
  timers: Pick<ChangeTimers, 'pendingRevert'> | undefined,
): TimerNotifier {
  const post = async (channel: string, message: SlackMessage, threadTs?: string) => {
    try {
      await client.chat.postMessage({ channel, ...message, ...(threadTs ? { thread_ts: threadTs } : {}) });
    } catch (error) {
      logger.warn({ err: error, channel }, 'could not post a change timer event');
    }
  };
  return {
    async report(event) {
      const thread = event.change?.message;
      if (event.kind === 'scheduled') {
        const pending = await timers?.pendingRevert(event.deadline.changeId);
        // A temporary change is meant to end: its thread hears when, without a Keep button.
        const message =
          pending && event.deadline.kind === 'keep_or_revert'
            ? keepPromptMessage(pending)
            : timerEventMessage(event);
        if (thread) await post(thread.channel, message, thread.ts);
        return;
      }
      const message = timerEventMessage(event);
      if (thread) await post(thread.channel, message, thread.ts);
      if (auditChannel) await post(auditChannel, message);
    },
  };
}
