import { threadId } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import {
  closeChartThread,
  type RateChart,
  renderRateChartPng,
  renderRateChartPngInThread,
} from '../../src/topology/chart.js';
import { pngDimensions } from '../../src/topology/index.js';

afterAll(closeChartThread);

const MINUTE = 60_000;
const start = Date.UTC(2026, 10, 26, 12, 0, 0);
const chart: RateChart = {
  title: 'Top clients on default (by current rate)',
  subtitle: 'rate per sample, last 10 min',
  lines: ['Living Room TV', 'Gaming PC', 'Küche ☕'].map((name, n) => ({
    name,
    points: Array.from({ length: 11 }, (_, i) => ({
      at: start + i * MINUTE,
      bytesPerSecond: (n + 1) * 125_000 * (1 + (i % 3)),
    })),
  })),
};

function isPng(png: Uint8Array): boolean {
  return Buffer.from(png.subarray(0, 8)).toString('hex') === '89504e470d0a1a0a';
}

describe('charts are drawn in a thread of their own', () => {
  it('draws the first chart (libraries loading) in another thread while this event loop keeps ticking', async () => {
    // Deliberately alike: the bench times the same event-loop gap apart from this test; the test also counts ticks.
    let ticks = 0;
    let last = performance.now();
    let maxGap = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
      ticks += 1;
    }, 10);
    const started = performance.now();
    try {
      const drawn = await renderRateChartPngInThread(chart);
      const tookMs = performance.now() - started;
      expect(drawn.threadId).not.toBe(threadId);
      expect(isPng(drawn.png)).toBe(true);
      const size = pngDimensions(drawn.png);
      expect(size?.width).toBeGreaterThan(1000);
      expect(size?.height).toBeGreaterThan(500);
      // The loop was free while vega loaded and drew: it kept ticking through the render.
      expect(ticks).toBeGreaterThanOrEqual(3);
      expect(maxGap).toBeLessThan(Math.max(500, tookMs / 2));
    } finally {
      clearInterval(timer);
    }
  }, 120_000);

  it('keeps the exported renderRateChartPng: a later chart comes back from the same thread as a PNG', async () => {
    const png = await renderRateChartPng({ ...chart, title: 'again' });
    expect(isPng(png)).toBe(true);
    const [a, b] = await Promise.all([
      renderRateChartPngInThread(chart),
      renderRateChartPngInThread({ ...chart, lines: chart.lines.slice(0, 1) }),
    ]);
    expect(a.threadId).toBe(b.threadId);
    expect(a.threadId).not.toBe(threadId);
    expect(pngDimensions(b.png)?.width).toBeGreaterThan(1000);
  }, 120_000);

  it('reports a chart it cannot draw as an error, and draws the next one', async () => {
    const bad = { title: 'bad', lines: [{ name: 'x', points: [{ at: Number.NaN, bytesPerSecond: 1 }] }] };
    await expect(renderRateChartPng(bad)).rejects.toThrow(/chart not drawn/);
    expect(isPng(await renderRateChartPng(chart))).toBe(true);
  }, 120_000);
});
