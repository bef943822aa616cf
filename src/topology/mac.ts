const HEX12 = /^[0-9a-f]{12}$/;
const CANONICAL = /^[0-9a-f]{2}(?::[0-9a-f]{2}){5}$/;

/**
 * A MAC in any common notation (`AA:BB:…`, `aa-bb-…`, `aabb.ccdd.eeff`, `aabbccddeeff`) as the
 * controller writes it: lower-case, colon-separated. Anything that is not 12 hex digits gives undefined.
 */
export function normalizeMac(value: string): string | undefined {
  // The controller already sends this form: skip the rewriting (it runs once per client).
  if (CANONICAL.test(value)) return value;
  const hex = value
    .trim()
    .toLowerCase()
    .replace(/[:.\-\s]/g, '');
  if (!HEX12.test(hex)) return undefined;
  return hex.replace(/(..)(?!$)/g, '$1:');
}

/** The node id of a record's MAC: normalised when it is a MAC, else lower-cased as given (never dropped). */
export function macId(value: string): string {
  return normalizeMac(value) ?? value.trim().toLowerCase();
}
