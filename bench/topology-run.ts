/**
 * One phase of one benchmark size, in its own process so that its peak memory is its own:
 * `node --expose-gc --import tsx bench/topology-run.ts <payload-dir> <floor|pipeline> <repeats>`.
 * The pipeline is the tools' path after the gateway's `JSON.parse`: records, graph, the registry's
 * redaction of the topology (get_network_topology's answer), then the GraphML text and its redaction
 * (export_topology's answer), then DOT.
 * The payloads (`devices.json`, `clients.json`, the controller's `{meta, data}` bodies) are
 * written by bench/parts/topology.ts. Prints one JSON line: the time of every repeat and the peak RSS of
 * the first (later repeats run in a heap that has already grown).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { redactSecrets } from '../src/lib/redact.js';
import { setConfiguredSecrets } from '../src/lib/secret-text.js';
import { REJECTED, recordParserOf } from '../src/records/fast-lenient.js';
import { buildTopology } from '../src/topology/build.js';
import { toDot, toGraphml } from '../src/topology/exports.js';
import { topologyClientSchema, topologyDeviceSchema } from '../src/topology/records.js';

/** What one phase measured: milliseconds per repeat (and per step), and MB of RSS above the start. */
export interface PhaseResult {
  phase: 'floor' | 'pipeline';
  peakMb: number;
  runs: {
    totalMs: number;
    recordsMs: number;
    graphMs: number;
    /** The registry's redaction of get_network_topology's answer (the topology). */
    redactMs: number;
    graphmlMs: number;
    /** The registry's redaction of export_topology's answer (the GraphML text). */
    exportRedactMs: number;
    dotMs: number;
  }[];
  graphmlMb: number;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const collect = gc;

// A sampler thread reads the process RSS every millisecond while the main thread is busy, and
// keeps the highest value in shared memory; the main thread resets it before each phase.
const shared = new SharedArrayBuffer(16);
const peak = new BigInt64Array(shared, 0, 1);
const stop = new Int32Array(shared, 8, 1);
const sampler = new Worker(
  `const { workerData } = require('node:worker_threads');
   const peak = new BigInt64Array(workerData, 0, 1);
   const stop = new Int32Array(workerData, 8, 1);
   while (Atomics.load(stop, 0) === 0) {
     const rss = BigInt(process.memoryUsage.rss());
     if (rss > Atomics.load(peak, 0)) Atomics.store(peak, 0, rss);
     Atomics.wait(stop, 0, 0, 1);
   }`,
  { eval: true, workerData: shared },
);
sampler.unref();

const MB = 1024 * 1024;

/** Runs `work` after a full GC; returns its time and its peak RSS above the RSS it started from. */
function measure<T>(work: () => T): { ms: number; peakMb: number; value: T } {
  collect();
  const base = process.memoryUsage.rss();
  Atomics.store(peak, 0, BigInt(base));
  const start = performance.now();
  const value = work();
  const ms = performance.now() - start;
  // Let the sampler see the last allocation before reading the peak.
  const end = process.memoryUsage.rss();
  const top = Math.max(Number(Atomics.load(peak, 0)), end);
  return { ms, peakMb: (top - base) / MB, value };
}

// A bot scrubs its configured secrets from every answer: four of them, as a Slack bot with an API key has.
setConfiguredSecrets([
  'xoxb-000000000000-0000000000000-benchbenchbenchbenchbench',
  'bench-signing-secret-0123456789abcdef',
  'bench-unifi-api-key-0123456789abcdef',
  'bench-controller-password',
]);

function main(): void {
  const [dir = '.', phase = 'floor', repeatText = '3'] = process.argv.slice(2);
  const devicePayload = readFileSync(join(dir, 'devices.json'), 'utf8');
  const clientPayload = readFileSync(join(dir, 'clients.json'), 'utf8');
  const result: PhaseResult = {
    phase: phase === 'pipeline' ? 'pipeline' : 'floor',
    peakMb: 0,
    runs: [],
    graphmlMb: 0,
  };
  for (let i = 0; i < Number(repeatText); i++) {
    const steps = { recordsMs: 0, graphMs: 0, redactMs: 0, graphmlMs: 0, exportRedactMs: 0, dotMs: 0 };
    const run =
      result.phase === 'floor'
        ? measure(() => [JSON.parse(devicePayload), JSON.parse(clientPayload)])
        : // The tool's path: the gateway's JSON.parse, the lenient record schemas, the graph with
          // its layout (exports carry coordinates), then both exports.
          measure(() => {
            const devices = JSON.parse(devicePayload).data as unknown[];
            const clients = JSON.parse(clientPayload).data as unknown[];
            let t = performance.now();
            const deviceRecords = devices.map((r) => topologyDeviceSchema.parse(r));
            // As the gateway parses a list (parseList): a fastLenientObject schema's plain parser.
            const parseClient =
              recordParserOf(topologyClientSchema) ?? ((r: unknown) => topologyClientSchema.parse(r));
            const clientRecords = clients.map((r) => {
              const parsed = parseClient(r);
              if (parsed === REJECTED) throw new Error('a synthetic client record was refused');
              return parsed;
            });
            steps.recordsMs = performance.now() - t;
            t = performance.now();
            const topology = buildTopology(deviceRecords, clientRecords, {
              siteId: 'bench',
              generatedAt: new Date().toISOString(),
              includeCoordinates: true,
            });
            steps.graphMs = performance.now() - t;
            // What the registry does to every answer before a face sees it (src/tools/registry.ts).
            t = performance.now();
            redactSecrets(topology);
            steps.redactMs = performance.now() - t;
            t = performance.now();
            const graphml = toGraphml(topology);
            steps.graphmlMs = performance.now() - t;
            t = performance.now();
            redactSecrets(graphml);
            steps.exportRedactMs = performance.now() - t;
            result.graphmlMb = Buffer.byteLength(graphml) / MB;
            t = performance.now();
            toDot(topology);
            steps.dotMs = performance.now() - t;
            return topology.total_connections;
          });
    if (i === 0) result.peakMb = run.peakMb;
    result.runs.push({ totalMs: run.ms, ...steps });
  }
  Atomics.store(stop, 0, 1);
  Atomics.notify(stop, 0);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main();
