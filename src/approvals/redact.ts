import { scrubSecrets } from '../log.js';
import { canonicalJson } from './canonical.js';

// UniFi prefixes secret fields with x_ (x_passphrase, x_wan_password); the rest are the usual names.
const SECRET_KEY = /^x_|password|passphrase|secret|pre_shared|psk|token|api[_-]?key|authorization|cookie/i;

/** Placeholder for a masked value. */
export const REDACTED = '[redacted]';

/**
 * A copy with secret-named fields masked and token-shaped text scrubbed. Applied to previews
 * (shown in Slack and journaled) and results before they are kept: the journal is durable and
 * copied around, so it must never hold a credential.
 */
export function redactSecrets(value: unknown): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value !== null && typeof value === 'object') {
    // Dates and the like travel as their JSON form.
    const withJson = value as { toJSON?: () => unknown };
    if (typeof withJson.toJSON === 'function') return redactSecrets(withJson.toJSON());
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const masked = SECRET_KEY.test(key) && item !== '' && item !== null && item !== undefined;
      out[key] = masked ? REDACTED : redactSecrets(item);
    }
    return out;
  }
  return value;
}

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
