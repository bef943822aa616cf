import { svgToPng } from './render-png.js';

/**
 * Charts (issue 20), made next to the topology picture: a Vega-Lite spec compiled by vega-lite,
 * rendered to SVG by vega's headless View (no canvas, no browser), rasterised by the same resvg and
 * DejaVu fonts as the topology picture. vega and vega-lite are imported on first use only.
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
        axis: { format: short ? '%H:%M:%S' : '%H:%M' },
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

/** The chart as a PNG (2× zoom, so it stays sharp in Slack). */
export async function renderRateChartPng(chart: RateChart): Promise<Uint8Array> {
  return svgToPng(await renderRateChartSvg(chart), 2);
}
