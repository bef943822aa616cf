import { canonicalJson } from '../lib/canonical.js';

/** Results larger than this (canonical JSON characters) are journaled as a head and a note. */
export const MAX_RESULT_CHARS = 64_000;
const KEPT_CHARS = 4_000;

/** The value if it is small enough to journal; else its first characters with a note saying so. */
export function capForJournal(value: unknown, maxChars = MAX_RESULT_CHARS): unknown {
  const text = canonicalJson(value);
  if (text.length <= maxChars) return value;
  return {
    truncated: true,
    note: `result of ${text.length} characters is larger than ${maxChars}; its first ${KEPT_CHARS} are kept`,
    head: text.slice(0, KEPT_CHARS),
  };
}
