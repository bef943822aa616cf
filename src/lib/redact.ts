import { isMaskedValue, isSecretField } from './secret-fields.js';
import { scrubSecrets } from './secret-text.js';

/** Placeholder for a masked value. */
export const REDACTED = '[redacted]';

/**
 * A copy with secret fields masked (lib/secret-fields.ts) and key material and configured secrets
 * scrubbed from every string (lib/secret-text.ts). The one redaction of tool output: the registry
 * applies it to every result, so Slack, the console, MCP and the journal all show the same masked
 * values; the approvals module applies it again to what it journals.
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
      out[key] = isSecretField(key) && isMaskedValue(item) ? REDACTED : redactSecrets(item);
    }
    return out;
  }
  return value;
}
