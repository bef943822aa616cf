import { existsSync } from 'node:fs';
import { Cron } from 'croner';
import { z } from 'zod';

// The schema pieces config.ts builds each variable from: blank is unset, and each rule's message
// says what the value must be without echoing it.

export const blankToUndefined = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

export const optionalString = z.preprocess(blankToUndefined, z.string().trim().optional());

export const booleanFlag = (fallback: boolean) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .trim()
      .toLowerCase()
      .refine((v) => ['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'].includes(v), {
        message: 'must be true or false',
      })
      .transform((v) => ['true', '1', 'yes', 'on'].includes(v))
      .optional()
      .transform((v) => v ?? fallback),
  );

export const integer = (min: number, max: number, fallback: number) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .trim()
      .regex(/^\d+$/, { message: `must be a whole number from ${min} to ${max}` })
      .transform(Number)
      .refine((n) => n >= min && n <= max, { message: `must be a whole number from ${min} to ${max}` })
      .optional()
      .transform((v) => v ?? fallback),
  );

/** A Slack channel id (C…, G…), optional. */
export const channelId = z.preprocess(
  blankToUndefined,
  z
    .string()
    .trim()
    .regex(/^[CG][A-Z0-9]{2,}$/, { message: 'must be a Slack channel id (C…)' })
    .optional(),
);

export function isCronPattern(pattern: string): boolean {
  try {
    new Cron(pattern, { paused: true }).stop();
    return true;
  } catch {
    return false;
  }
}

export const idList = (pattern: RegExp, what: string) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .optional()
      .transform((v) =>
        (v ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      )
      .refine((ids) => ids.every((id) => pattern.test(id)), {
        message: `must be a comma-separated list of ${what}`,
      }),
  );

/** Host names of this machine: plain http:// to them never crosses a network. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A URL with one of `protocols` (`https:`…); the message never echoes the value. */
export const urlWith = (protocols: readonly string[], message: string) =>
  z
    .string()
    .trim()
    .refine(
      (v) => {
        try {
          return protocols.includes(new URL(v).protocol);
        } catch {
          return false;
        }
      },
      { message },
    );

export const httpUrl = z.preprocess(
  blankToUndefined,
  urlWith(['http:', 'https:'], 'must be an http:// or https:// URL')
    .transform((v) => v.replace(/\/+$/, ''))
    .optional(),
);

export const readableFile = z.preprocess(
  blankToUndefined,
  z
    .string()
    .trim()
    .refine((p) => existsSync(p), { message: 'must name a readable file' })
    .optional(),
);

/** One MCP bearer token and the label that names its holder in change requests. */
export interface McpToken {
  label: string;
  /** A secret: compared in constant time, never logged or echoed. */
  secret: string;
}

const MCP_LABEL = /^[A-Za-z0-9._-]{1,64}$/;
const MCP_SECRET_MIN = 16;

/** `secret` or `label:secret`, comma-separated for several holders; a bare secret is labelled `mcp`. */
function parseMcpTokens(text: string): McpToken[] | string {
  const tokens: McpToken[] = [];
  for (const entry of text.split(',').map((e) => e.trim())) {
    const colon = entry.indexOf(':');
    const label = colon === -1 ? 'mcp' : entry.slice(0, colon);
    const secret = colon === -1 ? entry : entry.slice(colon + 1);
    // Never echo the value: the rule alone says what is wrong.
    if (!MCP_LABEL.test(label))
      return 'each label (before ":") must be 1–64 letters, digits, ".", "_" or "-"';
    if (secret.length < MCP_SECRET_MIN || /\s/.test(secret)) {
      return `each secret must be at least ${MCP_SECRET_MIN} characters without spaces (e.g. openssl rand -hex 32)`;
    }
    if (tokens.some((t) => t.label === label)) return `label "${label}" is used twice`;
    tokens.push({ label, secret });
  }
  return tokens;
}

export const mcpTokens = z.preprocess(
  blankToUndefined,
  z
    .string()
    .transform((text, ctx) => {
      const parsed = parseMcpTokens(text);
      if (typeof parsed === 'string') {
        ctx.addIssue({ code: 'custom', message: parsed });
        return z.NEVER;
      }
      return parsed;
    })
    .optional(),
);
