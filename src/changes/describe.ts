import type { ChangeRequest, FieldMismatch, Verification } from '../model/change-request.js';
import { durationText } from '../policy/duration.js';

const shown = (value: unknown): string =>
  value === null || value === undefined
    ? 'nothing'
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);

/** `sent vlan 30, controller holds 1` (the object named when it is not the only one). */
export function mismatchText(mismatch: FieldMismatch): string {
  if (mismatch.field === '(exists)')
    return `${mismatch.object}: sent ${shown(mismatch.sent)}, controller has ${shown(mismatch.holds)}`;
  return `sent ${mismatch.field} ${shown(mismatch.sent)}, controller holds ${shown(mismatch.holds)}`;
}

/** One line: `verified`, `applied, not as sent: sent vlan 30, controller holds 1`, `not verified: why`. */
export function verificationText(verification: Verification | undefined): string | undefined {
  if (!verification) return undefined;
  switch (verification.status) {
    case 'verified':
      return 'verified';
    case 'not_as_sent':
      return `applied, not as sent: ${(verification.mismatches ?? []).map(mismatchText).join('; ')}`;
    case 'unverified':
      return `not verified: ${verification.reason ?? 'the object could not be read back'}`;
  }
}

/** `reverts by itself 5m after it runs unless someone keeps it`, or the temporary form; undefined for neither. */
export function timingText(
  request: Pick<ChangeRequest, 'revertAfterSeconds' | 'forSeconds'>,
): string | undefined {
  if (
    request.forSeconds !== undefined &&
    request.revertAfterSeconds !== undefined &&
    request.revertAfterSeconds < request.forSeconds
  ) {
    return `reverts by itself ${durationText(request.revertAfterSeconds)} after it runs unless someone with approval rights keeps it (the policy's revert_after is shorter than its ${durationText(request.forSeconds)} for=)`;
  }
  if (request.forSeconds !== undefined) {
    return `temporary: reverts by itself ${durationText(request.forSeconds)} after it runs`;
  }
  if (request.revertAfterSeconds !== undefined) {
    return `reverts by itself ${durationText(request.revertAfterSeconds)} after it runs unless someone with approval rights keeps it`;
  }
  return undefined;
}

const cell = (value: unknown): string =>
  value === undefined
    ? '–'
    : value === null
      ? 'null'
      : typeof value === 'string'
        ? value
        : JSON.stringify(value);

/** The fields whose value differs between the before- and after-image, as text (at most `max`). */
export function beforeAfterRows(
  request: Pick<ChangeRequest, 'before' | 'after'>,
  max = 30,
): { field: string; before: string; after: string }[] {
  const before = Object.values(request.before?.objects ?? {})[0];
  const after = Object.values(request.after?.objects ?? {})[0];
  if (before === undefined && after === undefined) return [];
  if (before === null || after === null || before === undefined || after === undefined) {
    const what = (o: unknown) => (o === null ? '(none)' : o === undefined ? '(not read)' : '(exists)');
    return [{ field: '(object)', before: what(before), after: what(after) }];
  }
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return keys
    .filter((key) => JSON.stringify(before[key] ?? null) !== JSON.stringify(after[key] ?? null))
    .slice(0, max)
    .map((key) => ({ field: key, before: cell(before[key]), after: cell(after[key]) }));
}
