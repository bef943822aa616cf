import { AsyncLocalStorage } from 'node:async_hooks';
import { isRecord } from './is-record.js';

/**
 * Controller lists are parsed leniently: a record that fails its schema is left out, never fatal
 * (gateway `ParsedList.skipped`). So that the user learns an answer is incomplete, every lenient
 * parse adds its count to a tally opened around one tool run (the registry), and the registry
 * attaches the total to the result as `unreadable_records`, which every face shows.
 *
 * The tally lives in AsyncLocalStorage so that no tool has to thread the count through: reads
 * made anywhere inside the run (in parallel too) land in the run's own tally, never another's.
 */
const tally = new AsyncLocalStorage<Map<string, number>>();

/** Result field that carries the count; present only when it is above zero. */
export const UNREADABLE_FIELD = 'unreadable_records';

/**
 * Adds the records of one list that could not be read. `list` names the list (its route): a tool
 * that reads the same list twice (a cache hit, a second schema) counts its records once.
 */
export function noteUnreadable(list: string, count: number): void {
  const current = tally.getStore();
  if (current === undefined || count <= 0) return;
  current.set(list, Math.max(current.get(list) ?? 0, count));
}

/** Runs `fn` with a fresh tally and returns its value with the records left out while it ran. */
export async function withUnreadableTally<T>(
  fn: () => Promise<T>,
): Promise<{ value: T; unreadable: number }> {
  const current = new Map<string, number>();
  const value = await tally.run(current, fn);
  let unreadable = 0;
  for (const count of current.values()) unreadable += count;
  return { value, unreadable };
}

/**
 * The result with the count attached: an object gains `unreadable_records`; a list becomes
 * `{ result: [...], unreadable_records }` (the shape MCP already gives a list). A text result
 * (a file export) is returned as is, since a line added to it would corrupt the file.
 */
export function attachUnreadable(result: unknown, unreadable: number): unknown {
  if (unreadable <= 0) return result;
  if (Array.isArray(result)) return { result, [UNREADABLE_FIELD]: unreadable };
  if (isRecord(result)) return { ...result, [UNREADABLE_FIELD]: unreadable };
  return result;
}

/** The inverse of `attachUnreadable`, for renderers: the result as the tool made it, and the count. */
export function splitUnreadable(result: unknown): { result: unknown; unreadable: number } {
  if (!isRecord(result)) return { result, unreadable: 0 };
  const count = result[UNREADABLE_FIELD];
  if (typeof count !== 'number' || !Number.isInteger(count) || count <= 0) return { result, unreadable: 0 };
  const { [UNREADABLE_FIELD]: _count, ...rest } = result;
  const keys = Object.keys(rest);
  if (keys.length === 1 && keys[0] === 'result' && Array.isArray(rest.result)) {
    return { result: rest.result, unreadable: count };
  }
  return { result: rest, unreadable: count };
}

/** The line every face shows under an answer that left records out. */
export function unreadableLine(unreadable: number, shown?: number): string {
  const records =
    unreadable === 1
      ? '1 controller record the bot could not read was left out'
      : `${unreadable} controller records the bot could not read were left out`;
  return shown === undefined ? `${records}.` : `${shown} shown; ${records}.`;
}
