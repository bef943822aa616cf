import type { ChangeRequest } from '../../approvals/types.js';
import { duration } from './home.js';
import type { SlackMessage } from './read-result.js';
import { actorText, code, humanize, mention, mrkdwn, slackDate } from './text.js';

/** Who is asked: APPROVERS' groups and users as mentions, or a plain sentence when it is unset. */
export function approversCall(approvers: readonly string[]): string {
  if (approvers.length === 0) {
    // No @channel: the bot does not page a whole channel; it says who may act.
    return 'APPROVERS is not set, so anyone in this channel except the requester may approve it.';
  }
  const names = approvers.map((id) => (id.startsWith('S') ? `<!subteam^${id}>` : mention(id)));
  return `${names.join(', ')}: please review it.`;
}

/** The one reminder, posted in the thread of a request still pending after APPROVAL_REMIND_SECONDS. */
export function reminderMessage(request: ChangeRequest, approvers: readonly string[]): SlackMessage {
  // Counted to the claim of the reminder (the approvals clock), not to whenever it is posted.
  const waited = duration(
    Date.parse(request.remindedAt ?? request.createdAt) - Date.parse(request.createdAt),
  );
  const text =
    `:bell: Still waiting for approval after ${waited}: *${mrkdwn(humanize(request.tool))}* on ` +
    `${code(request.site)}, requested by ${actorText(request.requester)}. ` +
    `${approversCall(approvers)} It expires ${slackDate(request.expiresAt)}; this is the only reminder.`;
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}
