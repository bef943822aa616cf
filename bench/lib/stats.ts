/**
 * Pure helpers of the benchmark suite: percentiles, medians, and how many sequential controller
 * rounds a set of requests took. Tested in test/bench/stats.test.ts.
 */

/** One request as the controller side saw it: arrival and end of the answer, in ms on one clock. */
export interface Interval {
  start: number;
  end: number;
}

/**
 * The nearest-rank percentile (p in 0..100): the smallest sample with at least p % of the samples
 * at or below it. p99 of 500 samples is the 495th smallest. NaN for no samples.
 */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

/** The median; the mean of the two middle values for an even count. NaN for no samples. */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[mid] as number;
  return ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The item whose `value` is the median (the lower middle one for an even count): a typical run to quote. */
export function medianItem<T>(items: readonly T[], value: (item: T) => number): T | undefined {
  const sorted = [...items].sort((a, b) => value(a) - value(b));
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/**
 * Sequential rounds: the longest chain of requests in which each starts once the previous one has
 * ended. Requests that overlap in time (pages fetched together) can never both be in the chain,
 * so they count as one round; a request that starts when its predecessor has ended is a new one.
 * Greedy by earliest end finds the largest set of pairwise disjoint intervals, which is that chain.
 */
export function sequentialRounds(intervals: readonly Interval[]): number {
  const sorted = [...intervals].sort((a, b) => a.end - b.end);
  let rounds = 0;
  let free = Number.NEGATIVE_INFINITY;
  for (const { start, end } of sorted) {
    if (end < start) throw new RangeError(`an interval ends before it starts (${start} → ${end})`);
    if (start >= free) {
      rounds += 1;
      free = end;
    }
  }
  return rounds;
}

/**
 * Groups of requests that overlap, transitively: a cross-check on sequentialRounds. It counts
 * less when one slow request overlaps two that ran one after the other (they merge into one group).
 */
export function overlapGroups(intervals: readonly Interval[]): number {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  let groups = 0;
  let reach = Number.NEGATIVE_INFINITY;
  for (const { start, end } of sorted) {
    if (start >= reach) groups += 1;
    reach = Math.max(reach, end);
  }
  return groups;
}

/** a ÷ b, or NaN when the floor is missing or zero (a ratio is never invented). */
export function ratio(value: number, floor: number): number {
  return Number.isFinite(value) && Number.isFinite(floor) && floor > 0 ? value / floor : Number.NaN;
}

/**
 * The idle RSS budget is met only when it holds both median against median and lowest against
 * lowest: a ratio that one random burst (in the floor or in the bot) decides is not established.
 * A run from before the lowest figure existed is judged on its medians alone.
 */
export function idleRssMet(result: { rssRatio: number; rssLowestRatio?: number }, budget = 1.2): boolean {
  const lowest = result.rssLowestRatio ?? result.rssRatio;
  return result.rssRatio <= budget && lowest <= budget;
}

/** Durations a message names ("within 4827 ms", "after 15 s", "1.5 seconds"), in ms, in order. */
export function durationsIn(text: string): number[] {
  const found: number[] = [];
  const pattern = /(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|min|minutes?)\b/gi;
  for (const match of text.matchAll(pattern)) {
    const value = Number(match[1] ?? '');
    const unit = (match[2] ?? '').toLowerCase();
    found.push(value * unitMs(unit));
  }
  return found;
}

function unitMs(unit: string): number {
  if (unit === 'ms' || unit.startsWith('milli')) return 1;
  if (unit.startsWith('min')) return 60_000;
  return 1000;
}
