import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ChartReply, ChartRequest } from './chart-worker.js';
import { svgToPng } from './render-png.js';

/**
 * Charts, made next to the topology picture: a Vega-Lite spec compiled by vega-lite,
 * rendered to SVG by vega's headless View (no canvas, no browser), rasterised by the same resvg and
 * DejaVu fonts as the topology picture. vega and vega-lite are imported on first use only, and
 * only in the chart thread (chart-worker.ts): renderRateChartPng hands the chart to it, so loading
 * (about 1.7 s) and drawing never hold the bot's event loop.
 */

/** One line of the chart: a series of (time, bytes per second) points. */
export interface RateLine {
  name: string;
  points: readonly { at: number; bytesPerSecond: number }[];
}

export interface RateChart {
  title: string;
  subtitle?: string;
  lines: readonly RateLine[];
}

/** The Vega-Lite spec of a rate chart (pure; rates drawn in Mbit/s). */
export function rateChartSpec(chart: RateChart): Record<string, unknown> {
  const values = chart.lines.flatMap((line) =>
    line.points.map((p) => ({
      client: line.name,
      time: new Date(p.at).toISOString(),
      mbps: Math.round(((p.bytesPerSecond * 8) / 1e6) * 1000) / 1000,
    })),
  );
  const times = chart.lines.flatMap((line) => line.points.map((p) => p.at));
  // Seconds on the axis when the span is short (a bot that just started, or short ticks).
  const short = times.length > 0 && Math.max(...times) - Math.min(...times) < 15 * 60_000;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: 720,
    height: 320,
    padding: 12,
    background: 'white',
    title: { text: chart.title, ...(chart.subtitle ? { subtitle: chart.subtitle } : {}), anchor: 'start' },
    data: { values },
    mark: { type: 'line', point: values.length <= 400, strokeWidth: 2 },
    encoding: {
      x: {
        field: 'time',
        type: 'temporal',
        title: 'time (UTC)',
        // Never two ticks within a second (a span of seconds had labels drawn over each other),
        // and labels that would overlap are left out.
        axis: { format: short ? '%H:%M:%S' : '%H:%M', tickMinStep: 1000, labelOverlap: 'greedy' },
      },
      y: { field: 'mbps', type: 'quantitative', title: 'rate (Mbit/s, received + sent)' },
      color: {
        field: 'client',
        type: 'nominal',
        title: 'client',
        sort: chart.lines.map((l) => l.name),
        legend: { orient: 'right', labelLimit: 220 },
      },
    },
    config: { font: 'DejaVu Sans', timeFormatType: 'utc' },
  };
}

type Vega = typeof import('vega');
type VegaLite = typeof import('vega-lite');
let libraries: Promise<[Vega, VegaLite]> | undefined;

function loadLibraries(): Promise<[Vega, VegaLite]> {
  libraries ??= Promise.all([import('vega'), import('vega-lite')]);
  libraries.catch(() => {
    libraries = undefined;
  });
  return libraries;
}

/** The chart as SVG text. */
export async function renderRateChartSvg(chart: RateChart): Promise<string> {
  const [vega, vegaLite] = await loadLibraries();
  // UTC times in the axis: the chart must read the same wherever the bot runs.
  const { spec } = vegaLite.compile(rateChartSpec(chart) as unknown as Parameters<VegaLite['compile']>[0]);
  const view = new vega.View(vega.parse(spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** The chart as a PNG (2× zoom), drawn on the calling thread: the chart thread's own work. */
export async function renderRateChartPngHere(chart: RateChart): Promise<Uint8Array> {
  return svgToPng(await renderRateChartSvg(chart), 2);
}

/**
 * How the chart thread starts: the built `chart-worker.js` (beside this file when dist/ mirrors
 * src/; in dist/topology/ when this code sits in a bundled chunk under dist/chunks/ or in
 * dist/main.js), else, when the sources run through tsx or vitest, `chart-worker.ts` required
 * through tsx's CommonJS hook (Node 20 does not apply `--import` loader hooks inside a worker).
 */
function workerEntry(): { code: string | URL; eval: boolean } {
  for (const built of ['./chart-worker.js', '../topology/chart-worker.js', './topology/chart-worker.js']) {
    const url = new URL(built, import.meta.url);
    if (existsSync(fileURLToPath(url))) return { code: url, eval: false };
  }
  const source = fileURLToPath(new URL('./chart-worker.ts', import.meta.url));
  return { code: `require('tsx/cjs/api').register(); require(${JSON.stringify(source)});`, eval: true };
}

interface Pending {
  resolve: (reply: { png: Uint8Array; threadId: number }) => void;
  reject: (error: Error) => void;
}

/**
 * One chart thread per process, started on the first chart and kept (the libraries stay loaded
 * for the next chart). It does not keep the process alive while no chart is being drawn.
 */
class ChartThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private next = 0;

  render(chart: RateChart): Promise<{ png: Uint8Array; threadId: number }> {
    const worker = this.worker ?? this.start();
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      const request: ChartRequest = { id, chart };
      worker.postMessage(request);
    });
  }

  private start(): Worker {
    const entry = workerEntry();
    // No inherited node flags: the thread needs none, and some (--input-type, --eval) break it.
    const worker = new Worker(entry.code, { eval: entry.eval, execArgv: [] });
    worker.unref();
    worker.on('message', (reply: ChartReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if ('error' in reply) waiting.reject(new Error(`chart not drawn: ${reply.error}`));
      else waiting.resolve({ png: reply.png, threadId: reply.threadId });
    });
    // A thread that dies takes its charts with it; the next chart starts a new one.
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    worker.on('error', (error) => fail(new Error(`chart thread failed: ${error.message}`)));
    worker.on('exit', (code) => fail(new Error(`chart thread exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }

  /** Stops the thread (tests, shutdown); a later chart starts a new one. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}

const thread = new ChartThread();

/** The chart as a PNG (2× zoom, so it stays sharp in Slack), drawn in the chart thread. */
export async function renderRateChartPng(chart: RateChart): Promise<Uint8Array> {
  return (await thread.render(chart)).png;
}

/** renderRateChartPng, with the id of the thread that drew it (tests and the bench). */
export function renderRateChartPngInThread(chart: RateChart): Promise<{ png: Uint8Array; threadId: number }> {
  return thread.render(chart);
}

/** Stops the chart thread; the next chart starts it again. */
export function closeChartThread(): Promise<void> {
  return thread.close();
}
