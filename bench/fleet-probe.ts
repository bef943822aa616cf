// Not part of `npm run bench` (run with `npx tsx bench/fleet-probe.ts [consoles] [sites]`, default
// 50 × 2): starts a simulated fleet in this process and prints how long it took to start, the
// process's RSS and V8 heap before and after, after one pass that reads every console (Site Manager
// pages, then one classic device list per answering console, locally or through the connector),
// and how long closing took.
import { startFleet } from '../src/simulator/fleet.js';

const consoles = Number(process.argv[2] ?? 50);
const sites = Number(process.argv[3] ?? 2);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const memory = () => {
  const usage = process.memoryUsage();
  return `rss ${mib(usage.rss)}, heap used ${mib(usage.heapUsed)}`;
};

const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const before = memory();
const started = performance.now();
const fleet = await startFleet({ consoles, sites });
const startMs = performance.now() - started;
gc?.();
const afterStart = memory();

const readStarted = performance.now();
const headers = { 'X-API-KEY': fleet.cloud.apiKey };
let token = '';
let hosts = 0;
do {
  const page = (await (
    await fetch(`${fleet.cloud.url}/v1/hosts?pageSize=25${token === '' ? '' : `&nextToken=${token}`}`, {
      headers,
    })
  ).json()) as { data: unknown[]; nextToken: string };
  hosts += page.data.length;
  token = page.nextToken;
} while (token !== '');
const statuses = await Promise.all(
  fleet.consoles
    .filter((each) => !each.down)
    .map(async (each) => {
      const url =
        each.url === undefined
          ? `${fleet.cloud.url}/v1/connector/consoles/${each.consoleId}/proxy/network/api/s/default/stat/device`
          : `${each.url}/proxy/network/api/s/default/stat/device`;
      const key = each.url === undefined ? fleet.cloud.apiKey : each.apiKey;
      return (await fetch(url, { headers: { 'X-API-KEY': key } })).status;
    }),
);
const readMs = performance.now() - readStarted;
gc?.();
const afterRead = memory();

const closeStarted = performance.now();
await fleet.close();
const closeMs = performance.now() - closeStarted;

console.log(`fleet ${consoles} consoles × ${sites} sites`);
console.log(`  before:      ${before}`);
console.log(`  started in ${startMs.toFixed(0)} ms: ${afterStart}`);
console.log(
  `  read pass in ${readMs.toFixed(0)} ms (${hosts} hosts, ${statuses.filter((s) => s === 200).length}/${statuses.length} device lists): ${afterRead}`,
);
console.log(`  closed in ${closeMs.toFixed(0)} ms`);
