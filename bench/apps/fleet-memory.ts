/**
 * One bot's memory with a consoles file, in a process of its own:
 * `node --expose-gc --import tsx bench/apps/fleet-memory.ts [client]` with CONSOLES_FILE and its secrets in
 * the environment. Builds the bot's app as main.ts does, measures after start (consoles configured,
 * none used), then after one `where` across every console (every gateway open) and its read cache
 * emptied, as a quiet bot between lookups holds it. Prints one JSON line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { loadFleet } from '../../src/consoles/fleet-consoles.js';
import { silentLogger } from '../../src/log.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const settle = async () => {
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (let i = 0; i < 3; i += 1) gc();
  const usage = process.memoryUsage();
  return { rss: usage.rss, heap: usage.heapUsed + usage.external + usage.arrayBuffers };
};

const dataDir = mkdtempSync(join(tmpdir(), 'netops-bench-fleet-memory-'));
const config = loadConfig({
  ...process.env,
  DATA_DIR: dataDir,
  TELEMETRY_INTERVAL_SECONDS: '0',
  GATEWAY_READ_BUDGET_MS: '8000',
});
const logger = silentLogger();
const consoles = await loadFleet(config, logger);
const app = createApp({ config, logger, gateway: consoles.defaultGateway(), consoles });
const client = process.argv[2] ?? 'Apple TV';
// Both processes compared (one console and many) load the same modules at the same points.
const configured = await settle();
await app.registry.run('find_client', { client }, app.context);
await app.registry.run('find_client', { client }, app.context);
for (const each of consoles.list()) consoles.gateway(each.name).invalidate();
const used = await settle();
process.stdout.write(`${JSON.stringify({ consoles: consoles.list().length, configured, used })}\n`);
await app.close();
await consoles.close();
rmSync(dataDir, { recursive: true, force: true });
