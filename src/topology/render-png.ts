import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Graphviz } from '@hpcc-js/wasm-graphviz';
import { type PictureOptions, topologyPicture } from './picture.js';
import { encodePng } from './png.js';
import type { Topology } from './types.js';

export { pngDimensions } from './png.js';

/**
 * The only file of src/topology that does I/O: it loads Graphviz (WebAssembly, DOT → SVG), resvg
 * (WebAssembly, SVG → PNG) and the DejaVu Sans fonts from node_modules, once per process, on
 * first use. No system package is needed: resvg is given the fonts and never looks for system ones.
 */

/** Size limits of the PNG, on top of the picture's own folding of big sites. */
export interface RenderOptions extends PictureOptions {
  /** Widest PNG in pixels; a wider layout is scaled down. */
  maxWidth?: number;
  /** Tallest PNG in pixels. */
  maxHeight?: number;
  /** Zoom of pictures that fit within the limits (1 = 96 dpi); bigger layouts are scaled down to fit. */
  scale?: number;
}

interface Rasteriser {
  Resvg: typeof import('@resvg/resvg-wasm')['Resvg'];
  fonts: Uint8Array[];
}

let rasteriser: Promise<Rasteriser> | undefined;
let graphviz: Promise<Graphviz> | undefined;

// Imported on first use: the Graphviz module alone is megabytes of JavaScript, and most runs of
// the bot never draw a picture. resvg's WebAssembly may be initialised once per process, so the
// topology picture and the charts (chart.ts) share this one loader.
async function loadRasteriser(): Promise<Rasteriser> {
  const require = createRequire(import.meta.url);
  const [resvg, wasm, regular, bold] = await Promise.all([
    import('@resvg/resvg-wasm'),
    readFile(require.resolve('@resvg/resvg-wasm/index_bg.wasm')),
    readFile(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')),
    readFile(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf')),
  ]);
  await resvg.initWasm(wasm);
  return { Resvg: resvg.Resvg, fonts: [new Uint8Array(regular), new Uint8Array(bold)] };
}

async function loadGraphviz(): Promise<Graphviz> {
  const { Graphviz } = await import('@hpcc-js/wasm-graphviz');
  return Graphviz.load();
}

/** Loads once; a failed load is retried on the next call. */
function once<T>(
  get: () => Promise<T> | undefined,
  set: (p: Promise<T> | undefined) => void,
  load: () => Promise<T>,
): Promise<T> {
  let loading = get();
  if (!loading) {
    loading = load();
    set(loading);
    loading.catch(() => set(undefined));
  }
  return loading;
}

// Deliberately alike: each renderer loads once through `once`; only its slot and loader differ.
const readyRasteriser = () =>
  once(
    () => rasteriser,
    (p) => {
      rasteriser = p;
    },
    loadRasteriser,
  );
const readyGraphviz = () =>
  once(
    () => graphviz,
    (p) => {
      graphviz = p;
    },
    loadGraphviz,
  );

/** An SVG rasterised to PNG with the bundled DejaVu fonts (never system fonts), at `zoom`. */
export async function svgToPng(svg: string, zoom: number): Promise<Uint8Array> {
  const { Resvg, fonts } = await readyRasteriser();
  const resvg = new Resvg(svg, {
    background: 'white',
    fitTo: { mode: 'zoom', value: zoom },
    font: {
      fontBuffers: fonts,
      defaultFontFamily: 'DejaVu Sans',
      sansSerifFamily: 'DejaVu Sans',
      serifFamily: 'DejaVu Sans',
      monospaceFamily: 'DejaVu Sans',
    },
  });
  try {
    const image = resvg.render();
    try {
      return encodePng(image.pixels, image.width, image.height);
    } finally {
      image.free();
    }
  } finally {
    resvg.free();
  }
}

// Graphviz writes `viewBox="0.00 0.00 W H"` in points.
const VIEWBOX = /viewBox="[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)"/;

/** Lays out DOT with Graphviz `dot` and rasterises it to PNG within the size limits. */
export async function renderDotPng(dot: string, options: RenderOptions = {}): Promise<Uint8Array> {
  const svg = (await readyGraphviz()).layout(dot, 'svg', 'dot');
  const box = VIEWBOX.exec(svg);
  // resvg draws 1 pt as 4/3 px (96 dpi), so the size at zoom 1 is the viewBox times 4/3.
  const width = (Number(box?.[1] ?? 0) || 1) * (4 / 3);
  const height = (Number(box?.[2] ?? 0) || 1) * (4 / 3);
  const zoom = Math.min(
    options.scale ?? 1.25,
    (options.maxWidth ?? 4000) / width,
    (options.maxHeight ?? 4000) / height,
  );
  return svgToPng(svg, zoom);
}

/**
 * The topology as a PNG picture (for `/net topology` in Slack and `topology` in the console).
 * Big sites are simplified first (clients counted per device, deep levels folded), so the picture
 * stays legible and the render takes about a second even for thousands of devices.
 */
export async function renderTopologyPng(
  topology: Topology,
  options: RenderOptions = {},
): Promise<Uint8Array> {
  return renderDotPng(topologyPicture(topology, options).dot, options);
}
