import NodeCache from 'node-cache';

/** The scope of reads that belong to no site (the sites list, the DPI catalogue). */
export const GLOBAL_SCOPE = '*';

/** What identifies one read; two reads with the same key get the same answer. */
export interface ReadKey {
  /** Classic site name, or GLOBAL_SCOPE. */
  scope: string;
  api: string;
  method: string;
  path: string;
  query?: Record<string, string>;
  body?: unknown;
}

/**
 * One decoded controller answer and what was derived from it. Readers validate records with a
 * schema; the result is kept beside the answer (per schema), so the records are parsed once per
 * answer, not once per reader: a burst of commands answered by one shared read, and every cache
 * hit after it, reuse the parsed records.
 */
export class CachedRead {
  private readonly derived = new WeakMap<object, unknown>();

  constructor(readonly value: unknown) {}

  /** What `derive` makes of the value, made once per `tag` (a schema) and kept with the answer. */
  derive<T>(tag: object, derive: (value: unknown) => T): T {
    if (this.derived.has(tag)) return this.derived.get(tag) as T;
    const made = derive(this.value);
    this.derived.set(tag, made);
    return made;
  }
}

/**
 * Short-lived cache of decoded controller answers, with single-flight: concurrent identical
 * reads share one upstream request, also when the cache is cold and when `fresh` bypasses it.
 *
 * A write invalidates every cached read of its site, not just the resource it touched: the
 * controller's APIs overlap (a zone write changes `networkconf.firewall_zone_id`, a network
 * create shows up in v2 zones and Integration networks under other ids), so per-resource
 * invalidation would serve stale cross-API views. Reads are cheap and TTLs short; correctness wins.
 */
export class ReadCache {
  private readonly cache: NodeCache;
  private readonly inflight = new Map<string, { scope: string; promise: Promise<CachedRead> }>();
  /** Bumped on invalidation; an answer that started before a bump is not stored. */
  private readonly generations = new Map<string, number>();
  private globalGeneration = 0;

  constructor(private readonly ttlSeconds: number) {
    this.cache = new NodeCache({ stdTTL: Math.max(ttlSeconds, 0), checkperiod: 60, useClones: false });
  }

  /** Answers from cache (unless `fresh`), else joins an identical in-flight read, else runs `load`. */
  read(key: ReadKey, fresh: boolean, load: () => Promise<unknown>): Promise<CachedRead> {
    const id = cacheKey(key);
    if (!fresh && this.ttlSeconds > 0) {
      // Boxed (CachedRead) so that a legitimately undefined answer (an empty body) is still a hit.
      const hit = this.cache.get<CachedRead>(id);
      if (hit !== undefined) return Promise.resolve(hit);
    }
    const running = this.inflight.get(id);
    if (running !== undefined) return running.promise;

    const generation = this.generationOf(key.scope);
    const promise = load().then((value) => {
      const entry = new CachedRead(value);
      if (this.ttlSeconds > 0 && this.generationOf(key.scope) === generation) this.cache.set(id, entry);
      return entry;
    });
    const entry = { scope: key.scope, promise };
    this.inflight.set(id, entry);
    const settle = () => {
      if (this.inflight.get(id) === entry) this.inflight.delete(id);
    };
    promise.then(settle, settle);
    return promise;
  }

  /** The cached answer of `key`, if there is one; never loads. */
  peek(key: ReadKey): CachedRead | undefined {
    return this.ttlSeconds > 0 ? this.cache.get<CachedRead>(cacheKey(key)) : undefined;
  }

  /** Drops cached and in-flight reads of one scope, or of everything. In-flight callers still get their answer. */
  invalidate(scope?: string): void {
    if (scope === undefined) {
      this.globalGeneration += 1;
      this.cache.flushAll();
      this.inflight.clear();
      return;
    }
    this.generations.set(scope, (this.generations.get(scope) ?? 0) + 1);
    const prefix = `${encodeURIComponent(scope)}|`;
    this.cache.del(this.cache.keys().filter((k) => k.startsWith(prefix)));
    for (const [id, entry] of this.inflight) if (entry.scope === scope) this.inflight.delete(id);
  }

  /** Stops the expiry timer. */
  close(): void {
    this.cache.close();
    this.inflight.clear();
  }

  private generationOf(scope: string): string {
    return `${this.globalGeneration}.${this.generations.get(scope) ?? 0}`;
  }
}

/** The cache key: scope first (for invalidation by prefix), then api, method, path, sorted query, body. */
export function cacheKey(key: ReadKey): string {
  const query = new URLSearchParams(Object.entries(key.query ?? {}).sort(([a], [b]) => a.localeCompare(b)));
  const body = key.body === undefined ? '' : JSON.stringify(key.body);
  return [encodeURIComponent(key.scope), key.api, key.method, key.path, query.toString(), body].join('|');
}
