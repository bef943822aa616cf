import { createHash } from 'node:crypto';
import { isRecord } from './is-record.js';

/** JSON values after canonicalisation: what a preview is compared and hashed as. */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** SHA-256 of a text, hex. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The value as JSON would carry it, with object keys sorted so equal data always prints the same. */
function normalise(value: unknown): Json | undefined {
  if (value === null) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  // JSON has no NaN or Infinity; JSON.stringify writes them as null, and so do we.
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return value.map((item) => normalise(item) ?? null);
  if (isRecord(value)) {
    const withJson = value as { toJSON?: () => unknown };
    if (typeof withJson.toJSON === 'function') return normalise(withJson.toJSON());
    const out: { [key: string]: Json } = {};
    for (const key of Object.keys(value).sort()) {
      const item = normalise(value[key]);
      if (item !== undefined) out[key] = item;
    }
    return out;
  }
  // undefined, functions and symbols vanish from objects, as in JSON.
  return undefined;
}

/** Stable JSON: sorted keys, no whitespace; equal data gives an equal string. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(normalise(value) ?? null);
}

/** The preview without its top-level `warnings`: those carry volatile facts (client counts) by convention. */
export function withoutWarnings(preview: unknown): unknown {
  if (!isRecord(preview) || !('warnings' in preview)) return preview;
  const { warnings: _volatile, ...rest } = preview;
  return rest;
}

/** The hash that binds an approval to what the approver saw. */
export function previewHash(preview: unknown): string {
  return sha256Hex(canonicalJson(withoutWarnings(preview)));
}

const MAX_DIFFERENCES = 20;
const MAX_VALUE_CHARS = 60;

function show(value: Json | undefined): string {
  if (value === undefined) return '(none)';
  const text = JSON.stringify(value);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}

function child(path: string, key: string): string {
  const plain = /^[A-Za-z_$][\w$-]*$/.test(key);
  if (path === '') return plain ? key : JSON.stringify(key);
  return plain ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function walk(path: string, before: Json | undefined, after: Json | undefined, out: string[]): void {
  if (Array.isArray(before) && Array.isArray(after)) {
    for (let i = 0; i < Math.max(before.length, after.length); i++) {
      walk(`${path}[${i}]`, before[i], after[i], out);
    }
    return;
  }
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) walk(child(path, key), before[key], after[key], out);
    return;
  }
  if (JSON.stringify(before) !== JSON.stringify(after)) {
    out.push(`${path || '(preview)'}: ${show(before)} → ${show(after)}`);
  }
}

/**
 * What changed between two previews (warnings ignored), as short lines such as
 * "changes.vlan.from: 30 → 31"; long lists end with a count of the rest.
 */
export function diffPreviews(before: unknown, after: unknown): string[] {
  const out: string[] = [];
  walk('', normalise(withoutWarnings(before)), normalise(withoutWarnings(after)), out);
  if (out.length <= MAX_DIFFERENCES) return out;
  return [...out.slice(0, MAX_DIFFERENCES), `… and ${out.length - MAX_DIFFERENCES} more`];
}
