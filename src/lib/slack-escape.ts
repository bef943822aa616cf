/*
 * Slack's text escaping, the rules of src/slack/blocks/text.ts (which documents them and builds
 * every message from them). Kept here, below every layer, because the approvals policy words its
 * refusals as Slack markup too (mentions of users, groups and channels), and its non-id text must
 * be escaped by the same rules, not a second copy of them.
 *
 * Every raw text is scrubbed of secrets (secret-text.ts) before it is escaped: whatever reaches
 * Slack as text from outside passes here, so a controller error echoing the API key cannot carry
 * it into a message.
 */
import { scrubSecrets } from './secret-text.js';

// Invisible or text-reordering characters, and a backslash that would read like our escapes.
const HIDDEN = String.raw`[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]`;
const LOOKALIKE = String.raw`\\(?=u[0-9A-Fa-f]{4}|u\{)`;
const MRKDWN_SPECIAL = new RegExp(`[&<>\`]|${LOOKALIKE}|${HIDDEN}`, 'gu');
const PLAIN_SPECIAL = new RegExp(`${LOOKALIKE}|${HIDDEN}`, 'gu');

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** `\u200B`, or `\u{E0041}` for a code point above U+FFFF. */
function uEscape(char: string): string {
  const point = char.codePointAt(0) ?? 0;
  const hex = point.toString(16).toUpperCase();
  return point > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
}

function replacer(newlines: boolean) {
  return (char: string): string => {
    if (char === '\\') return '\\\\';
    if (char === '\n' && newlines) return char;
    return ENTITIES[char] ?? uEscape(char);
  };
}

const keepLines = replacer(true);
const oneLine = replacer(false);

/** Raw text for mrkdwn prose (and inside a code block): escaped, backticks and hidden characters shown. */
export function mrkdwn(text: string): string {
  return scrubSecrets(text).replace(MRKDWN_SPECIAL, keepLines);
}

/** Raw text for a plain_text field, a file title or a view error: hidden characters shown, nothing else. */
export function plain(text: string): string {
  return scrubSecrets(text).replace(PLAIN_SPECIAL, keepLines);
}

/** Raw text as inline code: one line, escaped, never able to close the code early; `""` when empty. */
export function code(text: string): string {
  const raw = scrubSecrets(text);
  return `\`${raw === '' ? '""' : raw.replace(MRKDWN_SPECIAL, oneLine)}\``;
}
