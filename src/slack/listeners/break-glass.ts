import type { Intent } from '../../commands/router.js';
import { breakGlassMessage, REVIEW_BREAKGLASS_ACTION } from '../blocks/break-glass.js';
import { noticeMessage } from '../blocks/notice.js';
import type { SlackMessage } from '../blocks/read-result.js';
import type { SlackClient, SlackDeps } from '../deps.js';
import { slackErrorText } from '../error-text.js';
import { type ButtonClick, buttonClickSchema, parsePayload, type SlashCommand } from '../payloads.js';
import { answerPrivately } from '../private-answer.js';
import { respondTo } from '../response-url.js';
import type { SlackRoutes } from '../slack-routes.js';

/**
 * `/net breakglass <write> reason="…"`: asked under the policy's terms (the gate decides), posted
 * in the channel like any change, the alarm in the audit channel at once, and, when the terms ask
 * no approval, run on the requester's word right away.
 */
export async function breakGlassCommand(
  intent: Extract<Intent, { kind: 'breakglass' }>,
  command: SlashCommand,
  deps: SlackDeps,
  requester: { userId: string; name?: string },
  reply: (message: SlackMessage) => Promise<void>,
): Promise<void> {
  const { request, notes } = await deps.approvals.breakGlass({
    tool: intent.tool,
    args: intent.args,
    requester,
    channel: command.channel_id,
    reason: intent.reason,
  });
  await deps.presenter.postProposal(request, command.channel_id);
  await deps.presenter.postBreakGlass(request, command.channel_id);
  if (request.breakGlass?.approvals === 0) {
    const outcome = await deps.approvals.runOnWord(request.id, requester);
    await deps.presenter.showApproval(outcome, (text) => reply(noticeMessage(text)));
  }
  await reply(noticeMessage(`Break-glass change ${request.id}: ${notes.join('; ')}.`));
}

/** Reviewed, on the alarm: only a reviewer the policy names records it; the alarm then says who. */
export function registerBreakGlassButtons(routes: SlackRoutes, deps: SlackDeps): void {
  routes.action(REVIEW_BREAKGLASS_ACTION, async ({ ack, body, client }) => {
    await ack();
    const respond = respondTo(body);
    let click: ButtonClick | undefined;
    const whisper = async (text: string) => {
      // A click on App Home: the answer goes on top of the clicker's refreshed Home.
      if (click?.container?.type === 'view' && deps.home) return deps.home.notify(click.user.id, text);
      return answerPrivately(
        {
          respond,
          client: client as SlackClient,
          channel: click?.channel?.id ?? click?.container?.channel_id,
          user: click?.user.id ?? '',
          logger: deps.logger,
        },
        noticeMessage(text),
      );
    };
    try {
      click = parsePayload(buttonClickSchema, body, 'action');
      const reviewer = { userId: click.user.id, ...(click.user.name ? { name: click.user.name } : {}) };
      const reviewed = await deps.approvals.reviewBreakGlass(click.actions[0]?.value ?? '', reviewer);
      const channel = click.channel?.id ?? click.container?.channel_id;
      const ts = click.container?.message_ts;
      if (channel && ts) {
        await client.chat.update({ channel, ts, ...breakGlassMessage(reviewed, reviewed.channel) });
      }
      await deps.home?.refresh(reviewer.userId);
      await whisper(`Recorded: you reviewed break-glass change ${reviewed.id}.`);
    } catch (error) {
      await whisper(slackErrorText(error, deps.logger));
    }
  });
}
