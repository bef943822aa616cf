import { isMcpRequester, personOf } from '../../approvals/mcp-requester.js';
import type { Actor } from '../../approvals/types.js';

/** Slack reserves &, < and > for its own markup; controller data (names) may contain them. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Cuts `text` to `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** A Slack date token: renders in the reader's time zone, with a UTC fallback for old clients. */
export function slackDate(iso: string): string {
  const seconds = Math.floor(Date.parse(iso) / 1000);
  const fallback = new Date(seconds * 1000).toISOString().replace('T', ' ').slice(0, 16);
  return `<!date^${seconds}^{date_short_pretty} {time}|${fallback} UTC>`;
}

/** A user mention. */
export function mention(userId: string): string {
  return /^[UW][A-Z0-9]+$/.test(userId) ? `<@${userId}>` : escapeMrkdwn(userId);
}

/**
 * Who asked for a change: a Slack user as a mention; an MCP client by its name and token label,
 * with the person behind the token when its label is a Slack user id.
 */
export function requesterText(actor: Actor): string {
  if (!isMcpRequester(actor)) return mention(actor.userId);
  const person = personOf(actor);
  const behind = person === actor.userId ? '' : ` for ${mention(person)}`;
  return `${escapeMrkdwn(actor.name ?? actor.userId)}${behind}`;
}

/** "create_network" → "Create network". */
export function humanize(toolName: string): string {
  const words = toolName.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
