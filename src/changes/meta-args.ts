import { z } from 'zod';
import { type FieldIssue, ValidationError } from '../errors.js';

/** The write meta-arguments: how long until a change reverts itself. */
export const META_ARGS = ['revert_after', 'for'] as const;

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };
const MIN_SECONDS = 5;
const MAX_SECONDS = 30 * 86_400;
const RULE = 'must be a duration such as 30s, 5m, 2h or 1d (between 5 seconds and 30 days)';

/** `30s`, `5m`, `2h`, `1d`, or a bare number of seconds → seconds. */
export const durationSchema = z.union([z.number(), z.string()], { error: RULE }).transform((value, ctx) => {
  const text = String(value).trim().toLowerCase();
  const found = /^(\d{1,7})\s*([smhd]?)$/.exec(text);
  const seconds = found ? Number(found[1]) * (UNIT_SECONDS[found[2] || 's'] ?? 1) : Number.NaN;
  if (!Number.isFinite(seconds) || seconds < MIN_SECONDS || seconds > MAX_SECONDS) {
    ctx.addIssue({ code: 'custom', message: RULE });
    return z.NEVER;
  }
  return seconds;
});

/** The arguments without the meta-arguments, and the meta-arguments in seconds. */
export interface MetaArgs {
  args: Record<string, unknown>;
  revertAfterSeconds?: number;
  forSeconds?: number;
}

/**
 * Takes `revert_after` and `for` out of a write's arguments (before the tool validates the rest,
 * which would refuse them as unknown); a bad value is refused naming the field.
 */
export function splitMetaArgs(raw: Record<string, unknown>): MetaArgs {
  const { revert_after: revertAfter, for: forValue, ...args } = raw;
  const issues: FieldIssue[] = [];
  const result: MetaArgs = { args };
  for (const [field, value] of [
    ['revert_after', revertAfter],
    ['for', forValue],
  ] as const) {
    if (value === undefined || value === null || value === '') continue;
    const parsed = durationSchema.safeParse(Array.isArray(value) ? value.join(',') : value);
    if (!parsed.success) {
      issues.push({ field, rule: parsed.error.issues[0]?.message ?? RULE });
      continue;
    }
    if (field === 'revert_after') result.revertAfterSeconds = parsed.data;
    else result.forSeconds = parsed.data;
  }
  if (result.revertAfterSeconds !== undefined && result.forSeconds !== undefined) {
    issues.push({
      field: 'for',
      rule: 'cannot be given with revert_after: a temporary change (for) reverts by itself, revert_after asks for a Keep',
    });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return result;
}
