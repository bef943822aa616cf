import type { types } from '@slack/bolt';
import { isMcpRequester, personOf } from '../../approvals/mcp-requester.js';
import type { Actor } from '../../approvals/types.js';
import { code, mrkdwn, plain } from '../../lib/slack-escape.js';

/*
 * The one place where text becomes Slack text. Whatever its source (what a user typed, controller
 * data, an error message, a drift note), raw text reaches a message or a view only through
 * mrkdwn(), code(), codeBlock() or plain() (and the text objects built from them), exactly once:
 * composed mrkdwn is never escaped again. The rules (docs/decisions.md, "Slack text"):
 *
 * - mrkdwn: `&`, `<`, `>` become `&amp;`, `&lt;`, `&gt;`, so data never becomes a mention, a
 *   channel ping or a link.
 * - A backtick from data is shown as `\u0060`, in prose and in code alike, so a value can neither
 *   end the inline code or code block it is shown in nor open one.
 * - Characters that are invisible or reorder text (bidi overrides and isolates, zero-width
 *   characters, other format characters \p{Cf}, default-ignorable code points, control
 *   characters, lone surrogates, line and paragraph separators) are shown as `\uXXXX`
 *   (`\u{XXXXX}` above U+FFFF): "Ser\u200Bvers" must not read as "Servers". Newlines stay line
 *   breaks, except in inline code, where a value is one line.
 * - A backslash in data that would read as one of those escapes (`\u200B` typed literally) is
 *   doubled, so `\u0060` on screen always means a backtick and `\\u0060` the six characters.
 * - plain_text needs no mrkdwn escaping (Slack does not parse it), only the visible characters.
 */

// The escaping itself lives in lib/slack-escape.ts (the approvals policy needs it too).
export { code, mrkdwn, plain };

/** Raw multi-line text as a code block whose content cannot close it. */
export function codeBlock(text: string): string {
  return `\`\`\`\n${mrkdwn(text)}\n\`\`\``;
}

// What a cut can leave half-written at the end of plain text: a \u escape or half a surrogate
// pair; in mrkdwn also an entity, an unclosed <…> token, or some of the backticks of a fence.
const PLAIN_TAIL = /(?:\\(?:u(?:[0-9A-Fa-f]{0,3}|\{[0-9A-Fa-f]*))?|[\uD800-\uDBFF])$/;
const MRKDWN_TAIL = /(?:&(?:a|am|amp|l|lt|g|gt)?|<[^>]*|`+)$/;

function cutAt(text: string, length: number, mrkdwnTail: boolean): string {
  let cut = text.slice(0, Math.max(0, length));
  for (let before = ''; before !== cut; ) {
    before = cut;
    cut = cut.replace(PLAIN_TAIL, '');
    if (mrkdwnTail) cut = cut.replace(MRKDWN_TAIL, '');
  }
  return cut;
}

/** Plain text cut to `max` characters with an ellipsis, never inside an escape or a surrogate pair. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${cutAt(text, max - 1, false)}…`;
}

const FENCE = '```';

/**
 * Composed mrkdwn cut to `max` characters with an ellipsis: never inside an entity, an escape or a
 * mention, and a code block or inline code the cut leaves open is closed.
 */
export function clipMrkdwn(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = cutAt(text, max - 1 - FENCE.length - 1, true);
  if (cut.split(FENCE).length % 2 === 0) return `${cut}…\n${FENCE}`;
  const inline = cut
    .split(FENCE)
    .filter((_, i) => i % 2 === 0)
    .join('');
  return (inline.match(/`/g) ?? []).length % 2 === 1 ? `${cut}…\`` : `${cut}…`;
}

/**
 * A mrkdwn text object of composed text. `verbatim` stops Slack from turning bare URLs and channel
 * names in data into links; the bot's own <@U…> mentions and date tokens still render.
 */
export function mrkdwnText(composed: string): types.MrkdwnElement {
  return { type: 'mrkdwn', text: composed, verbatim: true };
}

/** A plain_text object of raw text, hidden characters shown, cut to `max` when given. */
export function plainText(raw: string, max?: number): types.PlainTextElement {
  const text = plain(raw);
  return { type: 'plain_text', text: max === undefined ? text : clip(text, max) };
}

/** A section of composed mrkdwn. */
export function mrkdwnSection(composed: string, max = 3000): types.SectionBlock {
  return { type: 'section', text: mrkdwnText(clipMrkdwn(composed, max)) };
}

/** A Slack date token: renders in the reader's time zone, with a UTC fallback for old clients. */
export function slackDate(iso: string): string {
  const seconds = Math.floor(Date.parse(iso) / 1000);
  const fallback = new Date(seconds * 1000).toISOString().replace('T', ' ').slice(0, 16);
  return `<!date^${seconds}^{date_short_pretty} {time}|${fallback} UTC>`;
}

/** A user mention; anything that is not a user id is shown as text, never as markup. */
/**
 * A link the bot made itself (a thread's permalink): `<url|label>` with the label escaped; the label
 * alone when there is no URL, or when the URL is not a plain https address that cannot carry markup.
 */
export function link(label: string, url: string | undefined): string {
  return url && /^https:\/\/[^\s<>|]+$/.test(url) ? `<${url}|${mrkdwn(label)}>` : mrkdwn(label);
}

/** A channel as Slack shows it (`#ops`); an id not shaped like a channel id is shown as text. */
export function channelMention(channelId: string): string {
  return /^[CG][A-Z0-9]+$/.test(channelId) ? `<#${channelId}>` : mrkdwn(channelId);
}

export function mention(userId: string): string {
  return /^[UW][A-Z0-9]+$/.test(userId) ? `<@${userId}>` : mrkdwn(userId);
}

/**
 * Anyone who did something to a change: a Slack user as a mention; the console's operator, a
 * timer or a policy rule (an automatic revert) by the name it was given; else its id as text.
 */
export function actorText(actor: Actor): string {
  if (isMcpRequester(actor)) return requesterText(actor);
  if (/^[UW][A-Z0-9]+$/.test(actor.userId) || !actor.name) return mention(actor.userId);
  return mrkdwn(clip(actor.name, 200));
}

/**
 * Who asked for a change: a Slack user as a mention; an MCP client by its name and token label,
 * with the person behind the token when its label is a Slack user id.
 */
export function requesterText(actor: Actor): string {
  if (!isMcpRequester(actor)) return actorText(actor);
  const person = personOf(actor);
  const behind = person === actor.userId ? '' : ` for ${mention(person)}`;
  // Names are plain and bounded when made (mcpRequester); requests journaled before were not.
  return `${mrkdwn(clip(actor.name ?? actor.userId, 200))}${behind}`;
}

/** "create_network" → "Create network" (raw text: escape it where it is used). */
export function humanize(toolName: string): string {
  const words = toolName.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
