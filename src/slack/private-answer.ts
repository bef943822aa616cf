import type { Logger } from '../log.js';
import type { SlackMessage } from './blocks/read-result.js';
import type { SlackClient } from './deps.js';
import type { Respond } from './response-url.js';

/** Where a private answer goes: the request's response_url, else an ephemeral message in its channel. */
export interface PrivateAnswerTo {
  respond: Respond | undefined;
  client: SlackClient;
  channel: string | undefined;
  user: string;
  logger: Logger;
}

/**
 * Answers one user privately. Through response_url first: it reaches the user even where the bot
 * is not a member. When that fails (expired, used up, unreachable) or there is none, with
 * chat.postEphemeral in the channel instead, so the answer is not lost; with neither, the
 * response_url's failure is the caller's.
 */
export async function answerPrivately(to: PrivateAnswerTo, message: SlackMessage): Promise<void> {
  if (to.respond) {
    try {
      await to.respond({ response_type: 'ephemeral', replace_original: false, ...message });
      return;
    } catch (error) {
      if (!to.channel) throw error;
      to.logger.warn({ err: error }, 'response_url failed; answering with chat.postEphemeral');
    }
  }
  if (to.channel) await to.client.chat.postEphemeral({ channel: to.channel, user: to.user, ...message });
}
