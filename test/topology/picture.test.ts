import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { inflateSync } from 'node:zlib';
import { Graphviz } from '@hpcc-js/wasm-graphviz';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticSite } from '../../bench/synthetic-site.js';
import { runOneShot } from '../../src/console/console.js';
import { silentLogger } from '../../src/log.js';
import { createDemoSites } from '../../src/simulator/demo-site.js';
import { buildTopology } from '../../src/topology/build.js';
import { exportTopology } from '../../src/topology/exports.js';
import { topologyPicture } from '../../src/topology/picture.js';
import { topologyClientSchema, topologyDeviceSchema } from '../../src/topology/records.js';
import { pngDimensions, renderTopologyPng } from '../../src/topology/render-png.js';
import type { Topology } from '../../src/topology/types.js';
import { startTestBot, type TestBot } from '../helpers/test-bot.js';

const GENERATED_AT = '2026-01-01T12:30:00.000Z';

function topologyOf(devices: unknown[], clients: unknown[], siteId = 'default'): Topology {
  return buildTopology(
    devices.map((r) => topologyDeviceSchema.parse(r)),
    clients.map((r) => topologyClientSchema.parse(r)),
    { siteId, generatedAt: GENERATED_AT },
  );
}

function demoTopology(): Topology {
  const [site] = createDemoSites(1);
  if (!site) throw new Error('no demo site');
  return topologyOf(site.devices, site.clients);
}

const bigSite = syntheticSite({ devices: 2000, clients: 50_000 });
const big = topologyOf(bigSite.devices, bigSite.clients, 'campus');

/** RGB pixels of a PNG written by encodePng (colour type 2, every row filter 0). */
function pixels(png: Uint8Array): { width: number; height: number; rgb: Uint8Array } {
  const size = pngDimensions(png);
  if (!size) throw new Error('not a PNG');
  const idat: Uint8Array[] = [];
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  for (let at = 8; at < png.length; ) {
    const length = view.getUint32(at);
    const type = Buffer.from(png.subarray(at + 4, at + 8)).toString('latin1');
    if (type === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = size.width * 3 + 1;
  const rgb = new Uint8Array(size.width * size.height * 3);
  for (let y = 0; y < size.height; y++) {
    expect(raw[y * stride]).toBe(0);
    rgb.set(raw.subarray(y * stride + 1, (y + 1) * stride), y * size.width * 3);
  }
  return { ...size, rgb };
}

/** How many pixels are close to a colour. */
function count(image: { rgb: Uint8Array }, [r, g, b]: [number, number, number]): number {
  let n = 0;
  for (let i = 0; i < image.rgb.length; i += 3) {
    const dr = (image.rgb[i] ?? 0) - r;
    const dg = (image.rgb[i + 1] ?? 0) - g;
    const db = (image.rgb[i + 2] ?? 0) - b;
    if (dr * dr + dg * dg + db * db < 900) n += 1;
  }
  return n;
}

describe('topologyPicture (the DOT behind the PNG)', () => {
  it('draws every device of a small site, lists client names, and marks the offline AP and its link', () => {
    const model = topologyPicture(demoTopology());

    expect(model).toMatchObject({ shownDevices: 7, foldedDevices: 0, clientNames: true, rankdir: 'TB' });
    expect(model.dot).toContain('<B>Garage AP</B>');
    expect(model.dot).toMatch(
      /"24:5a:4c:8e:90:23" \[shape="box", style="rounded,filled,dashed", fillcolor="#f4cccc", color="#cc0000"/,
    );
    expect(model.dot).toContain('label=" down "');
    expect(model.dot).toContain('Tom &amp; Jerry&apos;s iPad (Wi-Fi)');
    expect(model.dot).toContain('Printer &lt;Office&gt; (port 2)');
    expect(model.dot).toContain('label=" mesh "');
  });

  it('folds a 2,000-device site into a legible picture that still accounts for every device and client', () => {
    const model = topologyPicture(big);
    const folded = [...model.dot.matchAll(/<B>([\d,]+) more devices?<\/B>/g)].reduce(
      (sum, m) => sum + Number((m[1] ?? '0').replaceAll(',', '')),
      0,
    );

    expect(model.clientNames).toBe(false);
    expect(model.rankdir).toBe('LR');
    expect(model.shownDevices).toBeLessThanOrEqual(150);
    expect(model.shownDevices + model.foldedDevices).toBe(2000);
    expect(folded).toBe(model.foldedDevices);
    expect(model.dot).toContain('2,000 devices');
    expect(model.dot).toContain('50,000 clients');
    expect(model.dot).toContain(' offline</B>');
  });

  it('keeps at most maxSiblings devices under one parent, offline ones first', () => {
    const site = syntheticSite({ devices: 80, clients: 0, seed: 5 });
    const flat = site.devices.map((d) =>
      d.type === 'udm'
        ? d
        : {
            ...d,
            uplink: { type: 'wire', up: true, uplink_mac: '02:10:00:00:00:00' },
            last_uplink: undefined,
          },
    );
    const offline = flat.find((d) => d.state === 0) ?? flat[1];
    if (offline) offline.state = 0;
    const topology = topologyOf(flat, []);

    const model = topologyPicture(topology, { maxSiblings: 10 });

    expect(model.shownDevices).toBe(10);
    expect(model.foldedDevices).toBe(70);
    expect(model.dot).toContain('<B>70 more devices</B>');
    expect(model.dot).toContain('<FONT POINT-SIZE="8" COLOR="#cc0000"><B>offline</B></FONT>');
  });

  it('never folds the gateway away when a site has more roots than maxSiblings', () => {
    const site = syntheticSite({ devices: 40, clients: 0, seed: 9 });
    // Every device but the gateway reports an uplink to a MAC that is not on the site (40 roots),
    // and six of them are offline: more offline devices than there are boxes to keep.
    let offline = 0;
    const orphans = site.devices.map((d) => {
      if (d.type === 'udm') return d;
      const state = offline++ < 6 ? 0 : 1;
      return { ...d, state, uplink: { type: 'wire', up: true, uplink_mac: '0e:00:00:00:00:01' } };
    });
    const topology = topologyOf(orphans, []);

    const model = topologyPicture(topology, { maxSiblings: 5 });

    expect(model.shownDevices).toBe(4);
    expect(model.foldedDevices).toBe(36);
    expect(model.dot).toContain('<B>Gateway');
    expect(model.dot.match(/<B>offline<\/B>/g)).toHaveLength(3);
    expect(model.dot).toContain('<B>36 devices with unknown uplink</B>');
    expect(model.dot).toContain('<B>3 offline</B>');
  });
});

describe('renderTopologyPng', () => {
  it('renders the demo site as a PNG with the offline device visible in red', async () => {
    const png = await renderTopologyPng(demoTopology());
    const image = pixels(png);

    expect(image.width).toBeGreaterThan(800);
    expect(image.width).toBeLessThanOrEqual(4000);
    expect(image.height).toBeGreaterThan(800);
    expect(image.height).toBeLessThanOrEqual(4000);
    expect(png.length).toBeGreaterThan(30_000);
    // The offline AP's fill (#f4cccc) and red border and text (#cc0000) are on the picture.
    expect(count(image, [0xf4, 0xcc, 0xcc])).toBeGreaterThan(2000);
    expect(count(image, [0xcc, 0x00, 0x00])).toBeGreaterThan(200);
    // Most of the picture is the white background.
    expect(count(image, [255, 255, 255])).toBeGreaterThan((image.width * image.height) / 2);
  });

  it('renders a 2,000-device, 50,000-client site within the size limits', async () => {
    const png = await renderTopologyPng(big);
    const size = pngDimensions(png);

    expect(size?.width).toBeGreaterThan(600);
    expect(size?.width).toBeLessThanOrEqual(4000);
    expect(size?.height).toBeGreaterThan(600);
    expect(size?.height).toBeLessThanOrEqual(4000);
    expect(png.length).toBeGreaterThan(50_000);
    expect(png.length).toBeLessThan(5_000_000);
  });

  it('lays out the DOT export with Graphviz, names intact in the SVG', async () => {
    const topology = demoTopology();
    const graphviz = await Graphviz.load();

    const svg = graphviz.layout(exportTopology(topology, 'dot'), 'svg', 'dot');
    const texts: string[] = [];
    const collect = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(collect);
      else if (value && typeof value === 'object') {
        for (const [key, inner] of Object.entries(value)) {
          if (key === 'text')
            texts.push(
              ...[inner]
                .flat()
                .map((t) =>
                  typeof t === 'object' && t ? String((t as Record<string, unknown>)['#text']) : String(t),
                ),
            );
          else collect(inner);
        }
      }
    };
    collect(new XMLParser({ ignoreAttributes: false, parseTagValue: false, htmlEntities: true }).parse(svg));

    expect(texts).toContain('Living Room "Big" TV');
    expect(texts).toContain('Printer <Office>');
    expect(texts).toContain("Tom & Jerry's iPad");
    expect(texts).toContain("Zoë's iPhone");
    expect(texts).toHaveLength(
      topology.nodes.length + topology.connections.filter((c) => c.source_port !== null).length,
    );
  });
});

describe('the console topology command', () => {
  let bot: TestBot;
  let dir: string;
  beforeAll(async () => {
    // The first picture loads Graphviz; a loaded CI machine must not turn that into a read timeout.
    bot = await startTestBot({
      gateway: { timeoutMs: 5_000, retry: { attempts: 2, budgetMs: 8_000, baseDelayMs: 10, maxDelayMs: 50 } },
    });
    dir = await mkdtemp(join(tmpdir(), 'netops-topology-'));
  });
  afterAll(async () => {
    await bot.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the picture of the site to the given file and prints its path and size', async () => {
    bot.sim.requests.length = 0;
    const output = new PassThrough();
    const errorOutput = new PassThrough();
    let printed = '';
    let errors = '';
    output.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
    });
    errorOutput.on('data', (chunk: Buffer) => {
      errors += chunk.toString();
    });
    const file = join(dir, 'site.png');

    const code = await runOneShot(['topology', `file=${file}`, 'site=default'], {
      registry: bot.app.registry,
      context: bot.app.context,
      input: new PassThrough(),
      output,
      errorOutput,
      logger: silentLogger(),
    });

    expect({ code, errors }).toEqual({ code: 0, errors: '' });
    const png = new Uint8Array(await readFile(file));
    const size = pngDimensions(png);
    expect(size?.width).toBeGreaterThan(800);
    expect(printed).toBe(
      `wrote ${file} (${Math.ceil(png.length / 1024)} KB, ${size?.width}×${size?.height} px)\n`,
    );
    expect(
      bot.sim.requests
        .filter((r) => r.route.includes('/stat/'))
        .map((r) => r.route)
        .sort(),
    ).toEqual(['/api/s/default/stat/device', '/api/s/default/stat/sta']);
  });

  it('refuses a file it cannot write with a usage error naming the path', async () => {
    const errorOutput = new PassThrough();
    let errors = '';
    errorOutput.on('data', (chunk: Buffer) => {
      errors += chunk.toString();
    });
    const file = join(dir, 'missing-dir', 'site.png');

    const code = await runOneShot(['topology', `file=${file}`], {
      registry: bot.app.registry,
      context: bot.app.context,
      input: new PassThrough(),
      output: new PassThrough(),
      errorOutput,
      logger: silentLogger(),
    });

    expect(code).toBe(2);
    expect(errors).toContain(`file: cannot write ${file} (ENOENT)`);
  });
});
