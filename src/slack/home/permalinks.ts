import type { webApi } from '@slack/bolt';
import type { MessageRef } from '../../approvals/types.js';
import type { Logger } from '../../log.js';

// A message's permalink never changes; a few thousand cover any Home and history page.
const MAX_CACHED = 5000;

/**
 * Links to change-request messages (their threads), for App Home and the history answers.
 * `chat.getPermalink` needs no scope; it is asked once, and every other link is built from the
 * workspace address it returned (`https://<team>.slack.com/archives/<channel>/p<ts without dot>`,
 * the form Slack documents for permalinks), so a Home of 40 requests costs no extra call.
 */
export class Permalinks {
  private readonly cache = new Map<string, string>();
  private base: string | undefined;
  private asking: Promise<void> | undefined;

  constructor(
    private readonly client: webApi.WebClient,
    private readonly logger: Logger,
  ) {}

  /** The links of the given messages (those it cannot tell are left out; never throws). */
  async of(messages: readonly MessageRef[]): Promise<Map<string, string>> {
    const first = messages.find((m) => !this.cache.has(key(m)));
    if (first && this.base === undefined) await this.learn(first);
    const links = new Map<string, string>();
    for (const message of messages) {
      const link = this.cache.get(key(message)) ?? this.built(message);
      if (link) links.set(key(message), link);
    }
    return links;
  }

  private built(message: MessageRef): string | undefined {
    if (this.base === undefined) return undefined;
    const link = `${this.base}/archives/${message.channel}/p${message.ts.replace('.', '')}`;
    this.remember(message, link);
    return link;
  }

  private async learn(message: MessageRef): Promise<void> {
    this.asking ??= this.ask(message).finally(() => {
      this.asking = undefined;
    });
    await this.asking;
  }

  private async ask(message: MessageRef): Promise<void> {
    try {
      const answer = await this.client.chat.getPermalink({
        channel: message.channel,
        message_ts: message.ts,
      });
      const link = answer.permalink;
      if (!link) return;
      this.remember(message, link);
      this.base = /^(https:\/\/[^/]+)\/archives\//.exec(link)?.[1];
    } catch (error) {
      // Links are a convenience: the channel is shown instead, and the next build asks again.
      this.logger.warn({ err: error }, 'could not get a message permalink from Slack');
    }
  }

  private remember(message: MessageRef, link: string): void {
    if (this.cache.size >= MAX_CACHED) this.cache.clear();
    this.cache.set(key(message), link);
  }
}

/** How links are looked up: by channel and ts. */
export function key(message: MessageRef): string {
  return `${message.channel}/${message.ts}`;
}
