import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PartContext } from '../lib/context.js';
import { median, ratio } from '../lib/stats.js';
import { syntheticSite } from '../synthetic-site.js';
import type { PhaseResult } from '../topology-run.js';

/** The five site sizes; a quick run takes the two smallest. */
export const SITE_SIZES: [devices: number, clients: number][] = [
  [50, 500],
  [200, 5_000],
  [500, 12_500],
  [1_000, 25_000],
  [2_000, 50_000],
];

/** One site size: medians of the repeats, ms unless named otherwise. */
export interface TopologyRow {
  devices: number;
  clients: number;
  payloadMb: number;
  floorMs: number;
  floorPeakMb: number;
  recordsMs: number;
  graphMs: number;
  buildMs: number;
  /** The registry's redaction of the topology (get_network_topology's answer). */
  redactMs: number;
  /** records + graph + redaction: get_network_topology after the gateway's parse. */
  readMs: number;
  graphmlMs: number;
  graphmlMb: number;
  /** The registry's redaction of the GraphML text. */
  exportRedactMs: number;
  dotMs: number;
  /** records + graph + GraphML + its redaction: export_topology after the gateway's parse. */
  totalMs: number;
  /** total ÷ the JSON.parse floor. */
  ratio: number;
  usPerNode: number;
  peakMb: number;
}

const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Builds and exports the topology of synthetic sites next to the floor, merely `JSON.parse` of the
 * same controller payloads. Every size and phase runs in a fresh process (bench/topology-run.ts)
 * so its peak memory is its own. Times are medians of `repeats` runs.
 */
export async function runTopology(ctx: PartContext): Promise<TopologyRow[]> {
  const sizes = ctx.options.quick ? SITE_SIZES.slice(0, 2) : SITE_SIZES;
  const rows: TopologyRow[] = [];
  for (const [devices, clients] of sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'netops-bench-'));
    try {
      const site = syntheticSite({ devices, clients, seed: 2024 });
      const devicePayload = JSON.stringify({ meta: { rc: 'ok' }, data: site.devices });
      const clientPayload = JSON.stringify({ meta: { rc: 'ok' }, data: site.clients });
      writeFileSync(join(dir, 'devices.json'), devicePayload);
      writeFileSync(join(dir, 'clients.json'), clientPayload);
      const payloadMb = (Buffer.byteLength(devicePayload) + Buffer.byteLength(clientPayload)) / 2 ** 20;
      const floor = phase(dir, 'floor', ctx.options.repeats);
      const pipeline = phase(dir, 'pipeline', ctx.options.repeats);
      const m = (pick: (r: PhaseResult['runs'][number]) => number, of = pipeline) =>
        median(of.runs.map(pick));
      const floorMs = m((r) => r.totalMs, floor);
      const totalMs = m((r) => r.recordsMs + r.graphMs + r.graphmlMs + r.exportRedactMs);
      const nodes = devices + clients;
      rows.push({
        devices,
        clients,
        payloadMb,
        floorMs,
        floorPeakMb: floor.peakMb,
        recordsMs: m((r) => r.recordsMs),
        graphMs: m((r) => r.graphMs),
        buildMs: m((r) => r.recordsMs + r.graphMs),
        redactMs: m((r) => r.redactMs),
        readMs: m((r) => r.recordsMs + r.graphMs + r.redactMs),
        graphmlMs: m((r) => r.graphmlMs),
        graphmlMb: pipeline.graphmlMb,
        exportRedactMs: m((r) => r.exportRedactMs),
        dotMs: m((r) => r.dotMs),
        totalMs,
        ratio: ratio(totalMs, floorMs),
        usPerNode: (totalMs * 1000) / nodes,
        peakMb: pipeline.peakMb,
      });
      ctx.progress(`topology ${devices}/${clients}: ${(totalMs / floorMs).toFixed(2)}× JSON.parse`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return rows;
}

function phase(dir: string, name: 'floor' | 'pipeline', repeats: number): PhaseResult {
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', join(benchDir, 'topology-run.ts'), dir, name, String(repeats)],
    { encoding: 'utf8', maxBuffer: 1024 * 1024 },
  );
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as PhaseResult;
}
