import { isMaskedValue, isSecretField } from './secret-fields.js';
import { scrubSecrets } from './secret-text.js';

/** Placeholder for a masked value. */
export const REDACTED = '[redacted]';

/**
 * The value with secret fields masked (lib/secret-fields.ts) and key material and configured secrets
 * scrubbed from every string (lib/secret-text.ts). The one redaction of tool output: the registry
 * applies it to every result, so Slack, the console, MCP and the journal all show the same masked
 * values; the approvals module applies it again to what it journals.
 *
 * Copy on write: a plain object or array with nothing to mask is returned as it is, and one with
 * something to mask is copied down the path to it. A 50,000-client topology was copied whole, 104,000
 * objects, for every read (270–400 ms, as much as parsing the controller's answer). Other
 * objects (class instances) are copied as their own enumerable fields, as before.
 */
export function redactSecrets(value: unknown): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return redactArray(value);
  // Dates and the like travel as their JSON form.
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') return redactSecrets(withJson.toJSON());
  const proto = Object.getPrototypeOf(value);
  return redactObject(value as Record<string, unknown>, proto !== Object.prototype && proto !== null);
}

function redactArray(value: readonly unknown[]): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < value.length; i++) {
    const item = value[i];
    const redacted = redactSecrets(item);
    if (out === undefined && !Object.is(redacted, item)) out = value.slice(0, i);
    if (out !== undefined) out.push(redacted);
  }
  return out ?? (value as unknown[]);
}

function redactObject(value: Record<string, unknown>, alwaysCopy: boolean): Record<string, unknown> {
  let out: Record<string, unknown> | undefined = alwaysCopy ? {} : undefined;
  // for…in over own keys: objects of one shape share V8's enum cache, with no key array per object.
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = value[key];
    const redacted = isSecretField(key) && isMaskedValue(item) ? REDACTED : redactSecrets(item);
    if (out === undefined && !Object.is(redacted, item)) {
      out = {};
      for (const earlier in value) {
        if (earlier === key) break;
        if (Object.hasOwn(value, earlier)) out[earlier] = value[earlier];
      }
    }
    if (out !== undefined) out[key] = redacted;
  }
  return out ?? value;
}
