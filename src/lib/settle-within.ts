/** A promise's outcome as a value: resolved with `value`, or rejected with `error`. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Turns a promise into one that always resolves, with its outcome. */
export function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

/** The outcome if it settles within `ms`, else undefined; the work itself is not cancelled. */
export async function settledWithin<T>(
  promise: Promise<Settled<T>>,
  ms: number,
): Promise<Settled<T> | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
