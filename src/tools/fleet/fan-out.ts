/**
 * One question asked of many consoles at once: at most `concurrency` in flight, each given
 * `timeoutMs`. A console that fails or does not answer in time is an answer too (`error`), so
 * one down or slow console never holds the others back.
 */
import { isBotError } from '../../errors.js';

/** What one console answered, or why it did not. */
export type FanOutResult<K, T> = { key: K; value: T } | { key: K; error: string };

const DEFAULT_CONCURRENCY = 8;

/** What a console's failure says in a fleet-wide answer. */
export function reasonOf(error: unknown): string {
  if (isBotError(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** Runs `ask` for every key, `concurrency` at a time; results in the order of `keys`. */
export async function fanOut<K, T>(
  keys: readonly K[],
  ask: (key: K) => Promise<T>,
  options: { timeoutMs: number; concurrency?: number },
): Promise<FanOutResult<K, T>[]> {
  const results: FanOutResult<K, T>[] = new Array(keys.length);
  let next = 0;
  const worker = async () => {
    while (next < keys.length) {
      const index = next;
      next += 1;
      const key = keys[index] as K;
      results[index] = await withTimeout(key, ask, options.timeoutMs);
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency ?? DEFAULT_CONCURRENCY, keys.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}

async function withTimeout<K, T>(
  key: K,
  ask: (key: K) => Promise<T>,
  timeoutMs: number,
): Promise<FanOutResult<K, T>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<FanOutResult<K, T>>((resolve) => {
    timer = setTimeout(() => resolve({ key, error: `no answer within ${timeoutMs} ms` }), timeoutMs);
  });
  try {
    return await Promise.race([
      ask(key).then(
        (value) => ({ key, value }),
        (error: unknown) => ({ key, error: reasonOf(error) }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
