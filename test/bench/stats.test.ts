import { describe, expect, it } from 'vitest';
import {
  durationsIn,
  idleRssMet,
  median,
  medianItem,
  overlapGroups,
  percentile,
  ratio,
  sequentialRounds,
} from '../../bench/lib/stats.js';

const at = (start: number, end: number) => ({ start, end });

describe('percentile (nearest rank)', () => {
  it('takes the sample at rank ceil(p × n)', () => {
    const samples = Array.from({ length: 500 }, (_, i) => 500 - i); // 500 … 1, unsorted on purpose
    expect(percentile(samples, 50)).toBe(250);
    expect(percentile(samples, 99)).toBe(495);
    expect(percentile(samples, 100)).toBe(500);
  });

  it('is the smallest sample at p 0 and the only sample of one', () => {
    expect(percentile([7, 3, 9], 0)).toBe(3);
    expect(percentile([42], 99)).toBe(42);
  });

  it('lets one slow sample in ten set p99 but not p50', () => {
    const samples = [...Array.from({ length: 90 }, () => 10), ...Array.from({ length: 10 }, () => 400)];
    expect(percentile(samples, 50)).toBe(10);
    expect(percentile(samples, 99)).toBe(400);
  });

  it('is NaN for no samples and refuses p outside 0..100', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile([1], 101)).toThrow(RangeError);
  });
});

describe('median', () => {
  it('is the middle value, or the mean of the two middle values', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});

describe('sequentialRounds', () => {
  it('counts requests sent one after another as one round each', () => {
    expect(sequentialRounds([at(0, 100), at(101, 200), at(202, 300)])).toBe(3);
  });

  it('counts requests that overlap in time as one round', () => {
    // Detection, then three pages fetched together.
    expect(sequentialRounds([at(0, 100), at(105, 210), at(106, 205), at(107, 212)])).toBe(2);
  });

  it('opens a new round for a request starting exactly when the previous one ended', () => {
    expect(sequentialRounds([at(0, 100), at(100, 200)])).toBe(2);
  });

  it('keeps a slow request from hiding a chain that runs beside it', () => {
    // Page 1, then page 2 after it; a slow request overlaps both pages.
    const intervals = [at(0, 100), at(110, 214), at(113, 222), at(220, 324)];
    expect(sequentialRounds(intervals)).toBe(3);
    expect(overlapGroups(intervals)).toBe(2);
  });

  it('does not depend on the order requests were recorded in', () => {
    expect(sequentialRounds([at(300, 400), at(0, 100), at(150, 250)])).toBe(3);
  });

  it('is 0 for no requests and refuses an interval that ends before it starts', () => {
    expect(sequentialRounds([])).toBe(0);
    expect(() => sequentialRounds([at(10, 5)])).toThrow(RangeError);
  });
});

describe('ratio', () => {
  it('divides by the floor and never invents a ratio without one', () => {
    expect(ratio(435, 40)).toBeCloseTo(10.875);
    expect(ratio(5, 0)).toBeNaN();
    expect(ratio(Number.NaN, 3)).toBeNaN();
  });
});

describe('durationsIn', () => {
  it('reads the durations a message names, in ms', () => {
    expect(
      durationsIn(
        'controller unreachable: 127.0.0.1 did not answer within 4827 ms (gave up after 2 attempts in 15 s)',
      ),
    ).toEqual([4827, 15_000]);
    expect(durationsIn('waited 1.5 seconds, then 2 minutes')).toEqual([1500, 120_000]);
  });

  it('finds nothing in a message without a duration', () => {
    expect(durationsIn('Controller unreachable: connect ECONNREFUSED 127.0.0.1:4000')).toEqual([]);
  });
});

describe('medianItem', () => {
  it('picks the run whose value is the median, to quote a typical run', () => {
    const runs = [
      { id: 'a', ms: 20_300 },
      { id: 'b', ms: 20_200 },
      { id: 'c', ms: 20_250 },
    ];
    expect(medianItem(runs, (r) => r.ms)?.id).toBe('c');
    expect(
      medianItem(
        [
          { id: 'x', ms: 1 },
          { id: 'y', ms: 2 },
        ],
        (r) => r.ms,
      )?.id,
    ).toBe('x');
    expect(medianItem([], (r: { ms: number }) => r.ms)).toBeUndefined();
  });
});

describe('idleRssMet (idle RSS ≤ 1.2× a bare Bolt app, not decided by a random burst)', () => {
  it('is met when median against median and lowest against lowest both hold', () => {
    expect(idleRssMet({ rssRatio: 1.15, rssLowestRatio: 1.16 })).toBe(true);
    expect(idleRssMet({ rssRatio: 1.2, rssLowestRatio: 1.2 })).toBe(true);
  });

  it('is not met when the medians hold only because the floor drew the burst', () => {
    // The third round's quiet run: 96 / 84 MiB by medians, 95.1 / 77.5 lowest.
    expect(idleRssMet({ rssRatio: 1.14, rssLowestRatio: 1.23 })).toBe(false);
  });

  it('is not met when the lowest hold but the medians do not', () => {
    expect(idleRssMet({ rssRatio: 1.27, rssLowestRatio: 1.15 })).toBe(false);
  });

  it('judges a run saved before the lowest figure existed on its medians, and NaN as not met', () => {
    expect(idleRssMet({ rssRatio: 1.12 })).toBe(true);
    expect(idleRssMet({ rssRatio: Number.NaN, rssLowestRatio: 1.1 })).toBe(false);
  });
});
