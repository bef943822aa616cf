/**
 * An independent check of the Slack text in any payload the bot sends (a message, a view, a
 * response_url post, a file upload's comment and title, a form's errors): written without the
 * bot's escaping code, so it catches what text.ts or a caller of it gets wrong.
 */

// Markup the bot itself writes: user, channel and group mentions, date tokens, and links to its own
// messages (https only; the label is checked like any text).
const ALLOWED_TOKEN =
  /<(?:@[UW][A-Z0-9]+|#[CG][A-Z0-9]+(?:\|[^<>|]*)?|!subteam\^S[A-Z0-9]+|!date\^\d+\^[^<>|]*\|[^<>]*|https:\/\/[^\s<>|]+\|[^<>]*)>/y;
// Invisible or text-reordering characters, which must be shown as \uXXXX (newline excepted).
const HIDDEN = /(?!\n)[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;
const FENCE = '```';

const around = (text: string, index: number) =>
  JSON.stringify(text.slice(Math.max(0, index - 15), index + 25));

function hidden(text: string, where: string): string[] {
  const found = HIDDEN.exec(text);
  if (!found) return [];
  const point = found[0].codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0');
  return [`${where}: raw U+${point} (must be shown as \\u${point}) in ${around(text, found.index)}`];
}

/** What the check may not assume. */
export interface TextCheckOptions {
  /**
   * The data may hold text that looks escaped (`&lt;` typed by someone): it is then rightly shown
   * as `&amp;lt;`, so "escaped twice" cannot be told from the payload alone and is not checked.
   */
  dataMayLookEscaped?: boolean;
}

/** Problems of one mrkdwn text: markup not made by the bot, bare & and >, hidden characters, fences. */
export function mrkdwnProblems(text: string, where: string, options: TextCheckOptions = {}): string[] {
  const problems = hidden(text, where);
  let tokenEnd = -1;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '<') {
      ALLOWED_TOKEN.lastIndex = i;
      const token = ALLOWED_TOKEN.exec(text);
      if (token) tokenEnd = i + token[0].length - 1;
      else problems.push(`${where}: unescaped "<" (markup from data?) in ${around(text, i)}`);
    } else if (char === '>' && i !== tokenEnd) {
      // The bot's own quote lines start with "> ".
      const quote = (i === 0 || text[i - 1] === '\n') && text[i + 1] === ' ';
      if (!quote) problems.push(`${where}: unescaped ">" in ${around(text, i)}`);
    } else if (char === '&' && !/^&(?:amp|lt|gt);/.test(text.slice(i, i + 5))) {
      problems.push(`${where}: unescaped "&" in ${around(text, i)}`);
    }
  }
  const double = options.dataMayLookEscaped ? null : /&amp;(?:amp|lt|gt);/.exec(text);
  if (double) problems.push(`${where}: escaped twice in ${around(text, double.index)}`);
  const parts = text.split(FENCE);
  if (parts.length % 2 === 0)
    problems.push(`${where}: unbalanced code fence in ${JSON.stringify(text.slice(0, 80))}`);
  parts.forEach((part, index) => {
    const ticks = (part.match(/`/g) ?? []).length;
    if (index % 2 === 1 && ticks > 0)
      problems.push(`${where}: a backtick inside a code block: ${around(part, part.indexOf('`'))}`);
    if (index % 2 === 0 && ticks % 2 === 1)
      problems.push(`${where}: unbalanced inline code in ${around(part, part.indexOf('`'))}`);
  });
  return problems;
}

/** Problems of one plain_text text (Slack does not parse it, so only hidden characters matter). */
export function plainProblems(text: string, where: string): string[] {
  return hidden(text, where);
}

// Fields that are never shown as text: ids, values sent back to the bot, prefilled input values.
const NOT_SHOWN = new Set([
  'action_id',
  'block_id',
  'callback_id',
  'private_metadata',
  'value',
  'initial_value',
  'url',
  'response_url',
  'trigger_id',
  'channel',
  'channel_id',
  'ts',
  'thread_ts',
  'user',
  'token',
  'content',
]);
// Fields outside text objects that Slack shows: as mrkdwn, or as plain text.
const MRKDWN_FIELDS = new Set(['text', 'initial_comment']);
const PLAIN_FIELDS = new Set(['title', 'filename', 'alt_text']);

function walk(
  value: unknown,
  where: string,
  problems: string[],
  key: string | undefined,
  options: TextCheckOptions,
): void {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) walk(item, `${where}[${index}]`, problems, key, options);
    return;
  }
  if (typeof value === 'string') {
    if (key === 'errors') problems.push(...plainProblems(value, where));
    else if (key !== undefined && MRKDWN_FIELDS.has(key))
      problems.push(...mrkdwnProblems(value, where, options));
    else if (key !== undefined && PLAIN_FIELDS.has(key)) problems.push(...plainProblems(value, where));
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  if ((record.type === 'mrkdwn' || record.type === 'plain_text') && typeof record.text === 'string') {
    problems.push(
      ...(record.type === 'mrkdwn'
        ? mrkdwnProblems(record.text, `${where}.text`, options)
        : plainProblems(record.text, `${where}.text`)),
    );
    return;
  }
  for (const [field, item] of Object.entries(record)) {
    if (NOT_SHOWN.has(field)) continue;
    walk(item, `${where}.${field}`, problems, key === 'errors' ? 'errors' : field, options);
  }
}

/**
 * Every problem of the Slack text in a payload, empty when it is fine: no `<!`, `<@`, `<#` or
 * `<http` the bot did not write itself, no bare `&` or `>`, nothing escaped twice, no raw
 * bidi, zero-width or other hidden characters, code fences and inline code balanced, and no
 * backtick inside a code block.
 */
export function slackTextProblems(
  payload: unknown,
  where = 'payload',
  options: TextCheckOptions = {},
): string[] {
  const problems: string[] = [];
  walk(payload, where, problems, undefined, options);
  return problems;
}

/** The lines of a message's code blocks (its tables), in order: what a reader sees in monospace. */
export function codeBlockLines(blocks: readonly unknown[]): string[] {
  return (blocks as { type?: string; text?: { text?: string } }[]).flatMap((block) => {
    const text = block.type === 'section' ? (block.text?.text ?? '') : '';
    if (!text.startsWith('```')) return [];
    return text
      .replace(/^```\n/, '')
      .replace(/\n```$/, '')
      .split('\n');
  });
}
