import { z } from 'zod';
import { ValidationError } from '../../errors.js';
import { noticeMessage } from '../blocks/notice.js';
import { READ_MORE_ACTION, readResultMessage, type SlackMessage } from '../blocks/read-result.js';
import type { SlackDeps } from '../deps.js';
import { slackErrorText } from '../error-text.js';
import { type ButtonClick, buttonClickSchema, parsePayload } from '../payloads.js';
import { answerPrivately } from '../private-answer.js';
import { respondTo } from '../response-url.js';
import type { SlackRoutes } from '../slack-routes.js';

// What the button carries (read-result.ts moreButton); anything else is refused, never run.
const moreValueSchema = z.object({
  tool: z.string().min(1).max(100),
  args: z.record(z.string(), z.unknown()),
  ids: z.boolean().optional(),
});

/**
 * "More" under a paged read: runs the same read tool from the next offset and answers the clicker
 * privately with the next page (which has its own "More" while pages remain). Only read tools:
 * a button value is client input, so a write named in one is refused, never proposed.
 */
export function registerReadMore(routes: SlackRoutes, deps: SlackDeps): void {
  routes.action(READ_MORE_ACTION, async ({ ack, body, client }) => {
    await ack();
    const respond = respondTo(body);
    let click: ButtonClick | undefined;
    const answer = (message: SlackMessage) =>
      answerPrivately(
        {
          respond,
          client,
          channel: click?.channel?.id ?? click?.container?.channel_id,
          user: click?.user.id ?? '',
          logger: deps.logger,
        },
        message,
      );
    try {
      click = parsePayload(buttonClickSchema, body, 'action');
      let raw: unknown;
      try {
        raw = JSON.parse(click.actions[0]?.value ?? '');
      } catch {
        raw = undefined;
      }
      const more = parsePayload(moreValueSchema, raw, 'value');
      if (deps.registry.require(more.tool).access !== 'read') {
        throw new ValidationError([
          { field: 'tool', rule: `"More" pages read tools only, not ${more.tool}` },
        ]);
      }
      const validated = deps.registry.validate(more.tool, more.args);
      const site = String(validated.site_id ?? deps.defaultSite);
      const result = await deps.registry.run(more.tool, validated, deps.context);
      const identifiers = deps.registry.get(more.tool)?.identifierColumns ?? [];
      await answer(
        readResultMessage(more.tool, site, result, more, { identifiers, ...(more.ids ? { ids: true } : {}) }),
      );
    } catch (error) {
      if (!click) return;
      await answer(noticeMessage(slackErrorText(error, deps.logger)));
    }
  });
}
