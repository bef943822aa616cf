/**
 * `npm run bench`: builds and exports the topology of synthetic sites from 50 devices / 500
 * clients to 2,000 devices / 50,000 clients and prints a Markdown table next to the floor, which
 * is merely `JSON.parse` of the same controller payloads. Every size and phase runs in a fresh
 * process (bench/topology-run.ts) so peak memory is its own. Figures go to docs/performance.md.
 * Options: `--repeats=N` (default 3; times are medians), `--quick` (the two smallest sizes).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { syntheticSite } from './synthetic-site.js';
import type { PhaseResult } from './topology-run.js';

const SIZES: [devices: number, clients: number][] = [
  [50, 500],
  [200, 5_000],
  [500, 12_500],
  [1_000, 25_000],
  [2_000, 50_000],
];

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const repeats = Number(args.find((a) => a.startsWith('--repeats='))?.split('=')[1] ?? 3);
const sizes = args.includes('--quick') ? SIZES.slice(0, 2) : SIZES;

function phase(dir: string, name: 'floor' | 'pipeline'): PhaseResult {
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', join(here, 'topology-run.ts'), dir, name, String(repeats)],
    { encoding: 'utf8', maxBuffer: 1024 * 1024 },
  );
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as PhaseResult;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};
const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const cpu = cpus();
console.log(
  `Node ${process.version} · ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}) · ${fmt(totalmem() / 2 ** 30, 1)} GiB RAM · load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} · median of ${repeats} runs\n`,
);
const columns = [
  'Site (devices / clients)',
  'Payload MB',
  'JSON.parse floor ms',
  'floor peak MB',
  'build ms (records + graph)',
  'GraphML ms',
  'DOT ms',
  'total ms (build + GraphML)',
  'ratio to floor',
  'µs per node',
  'peak MB',
];
console.log(`| ${columns.join(' | ')} |`);
console.log(`|${columns.map(() => '---').join('|')}|`);

const totals: { nodes: number; total: number; floor: number }[] = [];
for (const [devices, clients] of sizes) {
  const dir = mkdtempSync(join(tmpdir(), 'netops-bench-'));
  try {
    const site = syntheticSite({ devices, clients, seed: 2024 });
    const devicePayload = JSON.stringify({ meta: { rc: 'ok' }, data: site.devices });
    const clientPayload = JSON.stringify({ meta: { rc: 'ok' }, data: site.clients });
    writeFileSync(join(dir, 'devices.json'), devicePayload);
    writeFileSync(join(dir, 'clients.json'), clientPayload);
    const payloadMb = (Buffer.byteLength(devicePayload) + Buffer.byteLength(clientPayload)) / 2 ** 20;

    const floor = phase(dir, 'floor');
    const pipeline = phase(dir, 'pipeline');
    const floorMs = median(floor.runs.map((r) => r.totalMs));
    const recordsMs = median(pipeline.runs.map((r) => r.recordsMs));
    const graphMs = median(pipeline.runs.map((r) => r.graphMs));
    const buildMs = median(pipeline.runs.map((r) => r.recordsMs + r.graphMs));
    const graphmlMs = median(pipeline.runs.map((r) => r.graphmlMs));
    const dotMs = median(pipeline.runs.map((r) => r.dotMs));
    const total = median(pipeline.runs.map((r) => r.recordsMs + r.graphMs + r.graphmlMs));
    const nodes = devices + clients;
    totals.push({ nodes, total, floor: floorMs });
    console.log(
      `| ${[
        `${fmt(devices)} / ${fmt(clients)}`,
        fmt(payloadMb, 1),
        fmt(floorMs),
        fmt(floor.peakMb),
        `${fmt(buildMs)} (${fmt(recordsMs)} + ${fmt(graphMs)})`,
        `${fmt(graphmlMs)} (${fmt(pipeline.graphmlMb, 1)} MB)`,
        fmt(dotMs),
        fmt(total),
        `${fmt(total / floorMs, 2)}×`,
        fmt((total * 1000) / nodes, 1),
        fmt(pipeline.peakMb),
      ].join(' | ')} |`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
// Linear growth shows as a flat cost per node once fixed costs stop dominating (thousands of nodes).
const large = totals.filter((t) => t.nodes >= 5_000).map((t) => (t.total * 1000) / t.nodes);
if (large.length > 1) {
  console.log(
    `\nFrom 5,000 nodes up, build + GraphML costs ${fmt(Math.min(...large), 1)}–${fmt(Math.max(...large), 1)} µs per node.`,
  );
}
