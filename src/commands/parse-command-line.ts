import { ValidationError } from '../errors.js';

/** A `/net` line split into the command word, bare words, and `key=value` arguments (still text). */
export interface ParsedCommand {
  command: string;
  positionals: string[];
  args: Record<string, string | string[]>;
}

const KEY_PATTERN = /^[a-z_][a-z0-9_]*$/i;

/** Quote characters and the characters that may close them. */
const QUOTE_CLOSERS = new Map<string, string>([
  ['"', '"'],
  ["'", "'"],
  // Phones and macOS turn straight quotes into smart ones in Slack; some keyboards emit the same
  // character at both ends, so either member of the pair closes.
  ['“', '”“„'],
  ['”', '”“'],
  ['„', '”“'],
  ['‘', '’‘'],
]);

/** One word of a command line, and where its first quoted character was (-1: none). */
export interface Token {
  text: string;
  quotedAt: number;
}

/** Splits a command line into words, honouring straight and smart quotes and backslash escapes inside quotes. */
export function tokenize(line: string): Token[] {
  const tokens: Token[] = [];
  let current = '';
  let inToken = false;
  let quotedAt = -1;
  let i = 0;
  const chars = [...line];
  while (i < chars.length) {
    const ch = chars[i] ?? '';
    const closers = QUOTE_CLOSERS.get(ch);
    if (closers !== undefined) {
      if (quotedAt === -1) quotedAt = current.length;
      inToken = true;
      const start = i;
      i += 1;
      let closed = false;
      while (i < chars.length) {
        const inner = chars[i] ?? '';
        if (closers.includes(inner)) {
          closed = true;
          i += 1;
          break;
        }
        if (inner === '\\' && i + 1 < chars.length) {
          current += chars[i + 1] ?? '';
          i += 2;
          continue;
        }
        current += inner;
        i += 1;
      }
      if (!closed) {
        throw new ValidationError([
          { field: 'command', rule: `unterminated quote ${ch} starting at character ${start + 1}` },
        ]);
      }
      continue;
    }
    if (/\s/u.test(ch)) {
      if (inToken) tokens.push({ text: current, quotedAt });
      current = '';
      inToken = false;
      quotedAt = -1;
      i += 1;
      continue;
    }
    current += ch;
    inToken = true;
    i += 1;
  }
  if (inToken) tokens.push({ text: current, quotedAt });
  return tokens;
}

/** Slack's HTML escaping of the three characters it reserves for its own markup. */
function decodeSlackEntities(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/**
 * Replaces a value that is wholly one Slack markup token (`<http://x|x>`, `<mailto:a@b|a@b>`,
 * `<#C1|ops>`, `<@U1>`) by the text the user saw, because Slack auto-links subnets and domain names.
 */
export function unwrapSlackMarkup(value: string): string {
  const match = /^<([^<>|]*)(?:\|([^<>]*))?>$/.exec(value);
  if (!match) return decodeSlackEntities(value);
  const target = match[1] ?? '';
  const label = match[2];
  const sigil = target.startsWith('@') || target.startsWith('#') ? target.charAt(0) : '';
  let shown: string;
  if (label !== undefined && label !== '') {
    shown = sigil !== '' && !label.startsWith(sigil) ? `${sigil}${label}` : label;
  } else {
    shown = target.replace(/^mailto:/i, '');
  }
  return decodeSlackEntities(shown);
}

/** Turns the value text into the argument: an unquoted value with commas is a list. */
function argumentValue(raw: string, quoted: boolean): string | string[] {
  const whole = unwrapSlackMarkup(raw);
  if (quoted || !raw.includes(',') || whole !== decodeSlackEntities(raw)) return whole;
  // A trailing or doubled comma is a typing slip, not an empty list item.
  return raw
    .split(',')
    .map((part) => unwrapSlackMarkup(part.trim()))
    .filter((part) => part !== '');
}

/**
 * Splits words into the command, positionals and `key=value` arguments. Values stay text: the
 * registry converts them by the tool's schema. A leading `/net` or `net` is dropped; the command
 * word and keys are lower-cased because phones capitalise the first word of a message.
 */
export function parseCommand(words: readonly (Token | string)[]): ParsedCommand {
  // Plain strings are shell argv: the shell has already removed the quotes.
  const tokens = words.map((w) => (typeof w === 'string' ? { text: w, quotedAt: -1 } : w));
  let index = 0;
  const first = tokens[0]?.text.toLowerCase();
  if (first === '/net' || first === 'net') index = 1;
  const commandToken = tokens[index];
  const command = commandToken === undefined ? '' : unwrapSlackMarkup(commandToken.text).toLowerCase();
  const positionals: string[] = [];
  const args: Record<string, string | string[]> = {};
  for (let i = index + 1; i < tokens.length; i += 1) {
    const { text: token, quotedAt } = tokens[i] ?? { text: '', quotedAt: -1 };
    const eq = token.indexOf('=');
    const keyIsBare = eq >= 0 && (quotedAt === -1 || quotedAt > eq);
    if (!keyIsBare) {
      positionals.push(unwrapSlackMarkup(token));
      continue;
    }
    const key = token.slice(0, eq).toLowerCase();
    if (!KEY_PATTERN.test(key)) {
      throw new ValidationError([
        {
          field: key === '' ? 'argument' : key,
          rule:
            key === ''
              ? `"${token}" has no name before =`
              : 'is not a valid argument name (letters, digits and _ only)',
        },
      ]);
    }
    if (Object.hasOwn(args, key)) {
      throw new ValidationError([{ field: key, rule: 'is given twice' }]);
    }
    args[key] = argumentValue(token.slice(eq + 1), quotedAt !== -1);
  }
  return { command, positionals, args };
}

/** Tokenizes and parses one `/net` line. */
export function parseCommandLine(line: string): ParsedCommand {
  return parseCommand(tokenize(line));
}
