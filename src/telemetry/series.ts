/**
 * Counters of many keys (client MACs, device MACs, DPI applications) sampled over time and turned
 * into per-interval increases, kept in two bounded tiers: one frame per sample for the recent past
 * (the chart, `now`, 5 min and 1 h windows) and one bucket per hour for the long windows. Memory is
 * 8 bytes per key per frame (a Float32 increase for each direction), so an hour of 60 s samples of
 * 50,000 clients is 60 × 50,000 × 8 B ≈ 24 MB, plus 25 hourly buckets ≈ 10 MB (docs/performance.md).
 */

/** How much to keep. */
export interface SeriesOptions {
  /** Frames (one per sample) older than this are dropped (the hourly buckets keep their sums). */
  fineRetentionMs: number;
  /** The long-window bucket length (an hour). */
  bucketMs: number;
  /** Buckets older than this are dropped. */
  bucketRetentionMs: number;
  /** Keys beyond this many are not tracked (counted in `untracked`), so memory stays bounded. */
  maxKeys: number;
}

/** The increase of every key over (from, to]. Float32 per direction: exact below 2^24, 6e-8 relative above. */
interface Frame {
  from: number;
  to: number;
  /** Interleaved [rx, tx] per key slot; slots added after the frame read as 0. */
  increase: Float32Array;
}

/** Bytes moved per key over a covered span. */
export interface SpanTotals {
  /** The covered span (ms since the epoch); from === to when nothing is covered yet. */
  from: number;
  to: number;
  totals: Map<string, { rx: number; tx: number }>;
}

/** One point of a key's rate: bytes per second over the frame ending at `at`. */
export interface RatePoint {
  at: number;
  rx: number;
  tx: number;
}

/** A counter set of one sample: key → cumulative [rx, tx]. */
export type Counters = Iterable<readonly [key: string, rx: number, tx: number]>;

export class CounterSeries {
  readonly #options: SeriesOptions;
  readonly #slotOf = new Map<string, number>();
  #keys: string[] = [];
  /** When each slot was last seen in a sample; stale slots are compacted away. */
  #seen: number[] = [];
  /** The previous sample's cumulative counters per slot (NaN: absent from it). */
  #last: Float64Array = new Float64Array(0);
  #lastAt: number | undefined;
  #fine: Frame[] = [];
  #buckets: Frame[] = [];
  #untracked = 0;

  constructor(options: SeriesOptions) {
    this.#options = options;
  }

  /** When the first sample was taken (undefined before any). */
  firstAt: number | undefined;

  /** The latest sample's time. */
  get lastAt(): number | undefined {
    return this.#lastAt;
  }

  /** Keys seen beyond maxKeys in the latest sample (not tracked). */
  get untracked(): number {
    return this.#untracked;
  }

  get keyCount(): number {
    return this.#keys.length;
  }

  /**
   * Adds a sample taken at `at`. The increase of a key is its counter minus the previous sample's;
   * a counter that went down was reset (a client reconnected), so its whole value counts; a key
   * first seen counts nothing (how much of its counter fell in the interval is unknown).
   * Samples at or before the latest are ignored (another replica's copy of the same tick).
   */
  ingest(at: number, counters: Counters): void {
    if (this.#lastAt !== undefined && at <= this.#lastAt) return;
    const current = new Float64Array(this.#last.length).fill(Number.NaN);
    let untracked = 0;
    const set = (slot: number, rx: number, tx: number) => {
      current[slot * 2] = rx;
      current[slot * 2 + 1] = tx;
    };
    const pending: [string, number, number][] = [];
    for (const [key, rx, tx] of counters) {
      const slot = this.#slotOf.get(key);
      if (slot === undefined) {
        if (this.#keys.length + pending.length >= this.#options.maxKeys) {
          untracked += 1;
          continue;
        }
        pending.push([key, rx, tx]);
        continue;
      }
      this.#seen[slot] = at;
      set(slot, rx, tx);
    }
    this.#untracked = untracked;
    const previous = this.#last;
    const grown = new Float64Array(2 * (this.#keys.length + pending.length)).fill(Number.NaN);
    grown.set(current);
    for (const [key, rx, tx] of pending) {
      const slot = this.#keys.length;
      this.#slotOf.set(key, slot);
      this.#keys.push(key);
      this.#seen.push(at);
      grown[slot * 2] = rx;
      grown[slot * 2 + 1] = tx;
    }
    if (this.#lastAt !== undefined) {
      const increase = new Float32Array(grown.length);
      for (let i = 0; i < previous.length; i += 1) {
        const now = grown[i] as number;
        const before = previous[i] as number;
        if (Number.isNaN(now) || Number.isNaN(before)) continue;
        increase[i] = now >= before ? now - before : now;
      }
      this.#addFrame({ from: this.#lastAt, to: at, increase });
    } else {
      this.firstAt = at;
    }
    this.#last = grown;
    this.#lastAt = at;
    this.#prune(at);
  }

  #addFrame(frame: Frame): void {
    this.#fine.push(frame);
    const start = Math.floor(frame.to / this.#options.bucketMs) * this.#options.bucketMs;
    const bucket = this.#buckets.at(-1);
    if (bucket && Math.floor(bucket.to / this.#options.bucketMs) * this.#options.bucketMs === start) {
      const sum =
        bucket.increase.length >= frame.increase.length
          ? bucket.increase
          : grow(bucket.increase, frame.increase.length);
      for (let i = 0; i < frame.increase.length; i += 1)
        sum[i] = (sum[i] as number) + (frame.increase[i] as number);
      bucket.increase = sum;
      bucket.to = frame.to;
    } else {
      this.#buckets.push({ from: frame.from, to: frame.to, increase: frame.increase.slice() });
    }
  }

  #prune(now: number): void {
    const fineFrom = now - this.#options.fineRetentionMs;
    while ((this.#fine[0]?.from ?? Number.POSITIVE_INFINITY) < fineFrom) this.#fine.shift();
    const bucketFrom = now - this.#options.bucketRetentionMs;
    while ((this.#buckets[0]?.from ?? Number.POSITIVE_INFINITY) < bucketFrom) this.#buckets.shift();
    // Keys gone longer than every tier keeps are compacted away once they are a quarter of all.
    const staleBefore = now - Math.max(this.#options.fineRetentionMs, this.#options.bucketRetentionMs);
    const stale = this.#seen.filter((seen) => seen < staleBefore).length;
    if (stale > 0 && stale * 4 >= this.#keys.length) this.#compact(staleBefore);
  }

  #compact(staleBefore: number): void {
    const keep = this.#keys.map((_, slot) => (this.#seen[slot] as number) >= staleBefore);
    const remap = (values: Float32Array | Float64Array) => {
      const out = new (values.constructor as Float64ArrayConstructor)(2 * keep.filter(Boolean).length);
      let j = 0;
      keep.forEach((kept, slot) => {
        if (!kept) return;
        out[j * 2] = slot * 2 < values.length ? (values[slot * 2] as number) : 0;
        out[j * 2 + 1] = slot * 2 + 1 < values.length ? (values[slot * 2 + 1] as number) : 0;
        j += 1;
      });
      return out;
    };
    for (const frame of [...this.#fine, ...this.#buckets])
      frame.increase = remap(frame.increase) as unknown as Float32Array;
    this.#last = remap(this.#last);
    this.#keys = this.#keys.filter((_, slot) => keep[slot]);
    this.#seen = this.#seen.filter((_, slot) => keep[slot]);
    this.#slotOf.clear();
    this.#keys.forEach((key, slot) => {
      this.#slotOf.set(key, slot);
    });
  }

  /**
   * Totals over the longest span of whole frames that ends at the latest sample and lies within the
   * last `windowMs`: recent frames (one per sample), or for a span longer than they keep, hourly
   * buckets (the oldest hour of a long window then counts only if it lies wholly inside). The span
   * never reaches back further than `windowMs`; it is shorter when the samples do not go back that
   * far, and `stepMs` says how coarse its start is (the caller says both).
   */
  totals(windowMs: number, keys?: ReadonlySet<string>): SpanTotals & { stepMs: number } {
    const to = this.#lastAt;
    if (to === undefined) return { from: 0, to: 0, totals: new Map(), stepMs: 0 };
    const start = to - windowMs;
    const within = (frames: readonly Frame[]) => {
      const chosen: Frame[] = [];
      for (let i = frames.length - 1; i >= 0; i -= 1) {
        const frame = frames[i] as Frame;
        if (frame.from < start) break;
        chosen.push(frame);
      }
      return chosen;
    };
    const fine = within(this.#fine);
    const coarse = within(this.#buckets);
    const fineFrom = fine.at(-1)?.from ?? to;
    const coarseFrom = coarse.at(-1)?.from ?? to;
    const useCoarse = coarseFrom < fineFrom;
    const frames = useCoarse ? coarse : fine;
    const from = useCoarse ? coarseFrom : fineFrom;
    const stepMs = useCoarse ? this.#options.bucketMs : Math.max(0, ...fine.map((f) => f.to - f.from));
    const totals = new Map<string, { rx: number; tx: number }>();
    const slots: [string, number][] = keys
      ? [...keys].flatMap((key): [string, number][] => {
          const slot = this.#slotOf.get(key);
          return slot === undefined ? [] : [[key, slot]];
        })
      : this.#keys.map((key, slot) => [key, slot]);
    for (const [key, slot] of slots) {
      let rx = 0;
      let tx = 0;
      for (const frame of frames) {
        rx += frame.increase[slot * 2] ?? 0;
        tx += frame.increase[slot * 2 + 1] ?? 0;
      }
      totals.set(key, { rx, tx });
    }
    return { from, to, totals, stepMs };
  }

  /** The rate of each key in every frame since `since` (bytes per second), oldest first. */
  rates(keys: readonly string[], since: number): Map<string, RatePoint[]> {
    const out = new Map<string, RatePoint[]>();
    for (const key of keys) {
      const slot = this.#slotOf.get(key);
      const points: RatePoint[] = [];
      for (const frame of this.#fine) {
        if (frame.to <= since) continue;
        const seconds = (frame.to - frame.from) / 1000;
        const rx = slot === undefined ? 0 : (frame.increase[slot * 2] ?? 0);
        const tx = slot === undefined ? 0 : (frame.increase[slot * 2 + 1] ?? 0);
        points.push({ at: frame.to, rx: rx / seconds, tx: tx / seconds });
      }
      out.set(key, points);
    }
    return out;
  }

  /** Bytes held by the frames, buckets and last counters (the typed arrays; keys excluded). */
  bytes(): number {
    const frames = [...this.#fine, ...this.#buckets].reduce((sum, f) => sum + f.increase.byteLength, 0);
    return frames + this.#last.byteLength;
  }
}

function grow(values: Float32Array, length: number): Float32Array {
  const out = new Float32Array(length);
  out.set(values);
  return out;
}
