import { createHmac, randomBytes } from 'node:crypto';
import { canonicalJson } from '../lib/canonical.js';
import { REDACTED } from '../lib/redact.js';
import { isMaskedValue, isSecretField } from '../lib/secret-fields.js';

/**
 * Secret fields (a Wi-Fi passphrase, a VPN pre-shared key) in the records drift keeps. The baseline
 * is stored in the bot's data store and drifts are posted to Slack, so neither may hold a secret.
 * Each secret value becomes a fingerprint under a key that exists only in this process's memory: a
 * change is still noticed (two fingerprints under one key differ), the value is never kept, and a
 * fingerprint stored by an earlier process (another key) cannot be brute-forced without that key
 * and is not compared: it is taken again instead of reported.
 */
const KEY = randomBytes(32);
const KEY_ID = randomBytes(4).toString('hex');
const FINGERPRINT = /^secret:([0-9a-f]{8}):[0-9a-f]{16}$/;

const isFingerprint = (value: unknown): value is string =>
  typeof value === 'string' && FINGERPRINT.test(value);

function fingerprint(value: unknown): string {
  const mac = createHmac('sha256', KEY).update(JSON.stringify(value)).digest('hex').slice(0, 16);
  return `secret:${KEY_ID}:${mac}`;
}

/** A copy with every secret value replaced by its fingerprint (fingerprints kept as they are). */
export function fingerprintSecrets<T>(value: T): T {
  if (Array.isArray(value)) return value.map(fingerprintSecrets) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] =
      isSecretField(key) && isMaskedValue(item) && !isFingerprint(item)
        ? fingerprint(item)
        : fingerprintSecrets(item);
  }
  return out as T;
}

function hasForeignFingerprint(value: unknown): boolean {
  if (isFingerprint(value)) return FINGERPRINT.exec(value)?.[1] !== KEY_ID;
  if (Array.isArray(value)) return value.some(hasForeignFingerprint);
  if (value !== null && typeof value === 'object') return Object.values(value).some(hasForeignFingerprint);
  return false;
}

/**
 * Whether two field values (fingerprinted) say the same. A fingerprint of an earlier process
 * cannot be compared with one of this process: secrets in such a value count as unchanged.
 */
export function sameWithSecrets(before: unknown, after: unknown): boolean {
  // Key order is no difference: a baseline kept in PostgreSQL (jsonb) comes back with its nested
  // objects' keys reordered.
  if (hasForeignFingerprint(before) || hasForeignFingerprint(after))
    return canonicalJson(shownSecrets(before)) === canonicalJson(shownSecrets(after));
  return canonicalJson(before) === canonicalJson(after);
}

/** A fingerprinted value as a person may see it: every fingerprint shown as `[redacted]`. */
export function shownSecrets<T>(value: T): T {
  if (isFingerprint(value)) return REDACTED as T;
  if (Array.isArray(value)) return value.map(shownSecrets) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shownSecrets(v)])) as T;
}
