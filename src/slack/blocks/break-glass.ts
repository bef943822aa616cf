import type { types } from '@slack/bolt';
import { requestSummary } from '../../approvals/history.js';
import type { ChangeRequest } from '../../approvals/types.js';
import type { SlackMessage } from './read-result.js';
import { actorText, code, mention, mrkdwn, mrkdwnSection, requesterText, slackDate } from './text.js';

/** The Review button of a break-glass alarm; its value is the change id. */
export const REVIEW_BREAKGLASS_ACTION = 'review_breakglass';

const who = (id: string) => (id.startsWith('S') ? `<!subteam^${id}>` : mention(id));

/**
 * The alarm posted to the audit channel the moment someone breaks glass: who, what, why, where the
 * change is, and who must review it by when, with the Review button; once reviewed, who did.
 */
export function breakGlassMessage(request: ChangeRequest, channel: string | undefined): SlackMessage {
  const glass = request.breakGlass;
  if (!glass) throw new Error(`change ${request.id} was not asked under break-glass terms`);
  const what = `${code(requestSummary(request))} on ${code(request.site)}`;
  const where = channel ? ` in <#${channel}>` : '';
  const headline = `:rotating_light: *Break-glass* by ${requesterText(request.requester)}${where}: ${what}`;
  const count =
    glass.approvals === 0
      ? "runs on the requester's word"
      : `needs ${glass.approvals} approval${glass.approvals === 1 ? '' : 's'} instead of the policy's`;
  const review = glass.reviewedBy
    ? `:white_check_mark: Reviewed by ${actorText(glass.reviewedBy)}${glass.reviewedAt ? ` ${slackDate(glass.reviewedAt)}` : ''}`
    : `Review by ${glass.reviewers.map(who).join(', ')} due ${slackDate(glass.reviewDueAt)}`;
  const blocks: types.KnownBlock[] = [
    mrkdwnSection(
      `${headline}\n*Why:* ${mrkdwn(glass.reason)}\n${count} · change ${code(request.id)}\n${review}`,
    ),
  ];
  if (!glass.reviewedBy) {
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          action_id: REVIEW_BREAKGLASS_ACTION,
          text: { type: 'plain_text', text: 'Reviewed' },
          value: request.id,
        },
      ],
    });
  }
  return {
    text: `Break-glass by ${request.requester.name ?? request.requester.userId}: ${requestSummary(request)} (${glass.reason})`,
    blocks,
  };
}
