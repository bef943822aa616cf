import { describe, expect, it } from 'vitest';
import { coverage, formatDuration } from '../../src/telemetry/coverage.js';
import { CounterSeries } from '../../src/telemetry/series.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const options = {
  fineRetentionMs: HOUR + 2 * MINUTE,
  bucketMs: HOUR,
  bucketRetentionMs: 25 * HOUR,
  maxKeys: 1000,
};

describe('CounterSeries', () => {
  it('counts a counter that went down (a reconnect) from zero, and a key first seen as nothing', () => {
    const series = new CounterSeries(options);
    series.ingest(0, [['a', 1000, 100]]);
    series.ingest(MINUTE, [
      ['a', 1500, 150],
      ['b', 9_999_999, 0],
    ]);
    series.ingest(2 * MINUTE, [
      ['a', 300, 30], // reset: the client reconnected and moved 300 bytes since
      ['b', 10_000_999, 0],
    ]);

    const { totals, from, to } = series.totals(5 * MINUTE);
    expect(totals.get('a')).toEqual({ rx: 800, tx: 80 });
    expect(totals.get('b')).toEqual({ rx: 1000, tx: 0 });
    expect([from, to]).toEqual([0, 2 * MINUTE]);
  });

  it('answers long windows from hourly sums once the frames are gone, never reaching back past the window', () => {
    const series = new CounterSeries(options);
    // 30 hours at one sample a minute, 60 bytes a minute: 1 byte per second.
    for (let m = 0; m <= 30 * 60; m += 1) series.ingest(m * MINUTE, [['a', m * 60, 0]]);
    const now = 30 * HOUR;

    const hour = series.totals(HOUR);
    const day = series.totals(24 * HOUR);
    expect(hour.to - hour.from).toBe(HOUR);
    expect(hour.totals.get('a')?.rx).toBe(3600);
    // Hourly buckets: whole hours within the 24 hours, so a little less than 24 h, never more.
    expect(day.to).toBe(now);
    expect(day.to - day.from).toBeLessThanOrEqual(24 * HOUR);
    expect(day.to - day.from).toBeGreaterThan(23 * HOUR);
    expect(day.totals.get('a')?.rx).toBe((day.to - day.from) / 1000);
    expect(day.stepMs).toBe(HOUR);
  });

  it('stays bounded: keys beyond the cap are not tracked, and old frames are dropped', () => {
    const series = new CounterSeries({ ...options, maxKeys: 2 });
    for (let m = 0; m <= 180; m += 1)
      series.ingest(m * MINUTE, [
        ['a', m, 0],
        ['b', m, 0],
        ['c', m, 0],
      ]);

    expect(series.keyCount).toBe(2);
    expect(series.untracked).toBe(1);
    // 62 frames of the last hour and 4 hourly buckets, 16 bytes (2 keys × rx, tx × 4 B) each, plus the last counters.
    expect(series.bytes()).toBe(62 * 16 + 4 * 16 + 2 * 2 * 8);
  });

  it('gives each key its rate in every frame since a time, for the chart', () => {
    const series = new CounterSeries(options);
    series.ingest(0, [['a', 0, 0]]);
    series.ingest(MINUTE, [['a', 6000, 600]]);
    series.ingest(2 * MINUTE, [['a', 6000, 600]]);

    expect(series.rates(['a', 'gone'], 0)).toEqual(
      new Map([
        [
          'a',
          [
            { at: MINUTE, rx: 100, tx: 10 },
            { at: 2 * MINUTE, rx: 0, tx: 0 },
          ],
        ],
        [
          'gone',
          [
            { at: MINUTE, rx: 0, tx: 0 },
            { at: 2 * MINUTE, rx: 0, tx: 0 },
          ],
        ],
      ]),
    );
  });
});

describe('coverage wording', () => {
  const history = { startedAt: 0, firstAt: MINUTE, intervalMs: MINUTE, now: 15 * MINUTE };

  it('names the window it covers, and nothing longer', () => {
    expect(
      coverage('5m', 5 * MINUTE, { from: 10 * MINUTE, to: 15 * MINUTE, stepMs: MINUTE }, history).covers,
    ).toBe('last 5 min');
    expect(coverage('1h', HOUR, { from: MINUTE, to: 15 * MINUTE, stepMs: MINUTE }, history)).toMatchObject({
      covers: 'last 14 min: the bot started 15 min ago',
      complete: false,
      seconds: 840,
    });
  });

  it('tells samples loaded from the store from a recent start, and says when there is no span yet', () => {
    const loaded = { ...history, startedAt: 14 * MINUTE };
    expect(coverage('1h', HOUR, { from: MINUTE, to: 15 * MINUTE, stepMs: MINUTE }, loaded).covers).toBe(
      'last 14 min: the samples kept go back 14 min',
    );
    expect(
      coverage('1h', HOUR, { from: 0, to: 0, stepMs: 0 }, { ...history, firstAt: undefined }).covers,
    ).toMatch(/^no span yet: the bot started 15 min ago/);
  });

  it('floors durations, so a label never claims more than the span', () => {
    expect(formatDuration(59_999)).toBe('59 s');
    expect(formatDuration(14 * MINUTE + 59_000)).toBe('14 min');
    expect(formatDuration(HOUR + 5 * MINUTE)).toBe('1 h 5 min');
    expect(formatDuration(4 * MINUTE + 30_000)).toBe('4 min 30 s');
  });
});
