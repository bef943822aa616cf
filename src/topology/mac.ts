import { normalizeMac } from '../lib/mac.js';

/** The node id of a record's MAC: normalised when it is a MAC, else lower-cased as given (never dropped). */
export function macId(value: string): string {
  return normalizeMac(value) ?? value.trim().toLowerCase();
}
