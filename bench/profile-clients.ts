/**
 * A driver for `node --cpu-prof --import tsx bench/profile-clients.ts [tool] [runs] [clients]`:
 * the synthetic controller in its own process, the bot in this one, `tool` (top_clients,
 * top_clients_1h: after four ticks of samples, or list_clients) run `runs` times on a cold cache.
 * The profile then shows the bot's side only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSyntheticController } from './lib/controller.js';
import { clock, inProcessBot, LARGE_SITE_ENV } from './lib/in-process.js';

const [tool = 'top_clients', runsArg = '5', clientsArg = '50000'] = process.argv.slice(2);
const clients = Number(clientsArg);
const controller = await startSyntheticController({ devices: Math.round(clients / 25), clients });
const dataDir = mkdtempSync(join(tmpdir(), 'netops-profile-'));
let now = Math.floor(Date.now() / 60_000) * 60_000;
const { gateway, app } = inProcessBot(
  controller,
  dataDir,
  { ...LARGE_SITE_ENV, TELEMETRY_INTERVAL_SECONDS: '60' },
  { now: () => now },
);
const toolName = tool === 'top_clients_1h' ? 'top_clients' : tool;
const args =
  tool === 'top_clients' ? { window: 'now' } : tool === 'top_clients_1h' ? { window: '1h' } : { limit: 50 };
if (tool === 'top_clients_1h')
  for (let i = 0; i <= 3; i += 1) {
    if (i > 0) await controller.advance(60);
    now += 60_000;
    gateway.invalidate();
    await app.telemetry.tick();
  }
try {
  const body = await (
    await fetch(`${controller.url}/proxy/network/api/s/default/stat/sta`, {
      headers: { 'X-API-KEY': controller.apiKey },
    })
  ).text();
  for (let i = 0; i < Number(runsArg); i += 1) {
    const floor = await clock(() => JSON.parse(body));
    console.log(`JSON.parse of stat/sta: ${floor.ms.toFixed(0)} ms wall, ${floor.cpuMs.toFixed(0)} ms CPU`);
    gateway.invalidate();
    const run = await clock(() => app.registry.run(toolName, args, app.context));
    console.log(`${tool}: ${run.ms.toFixed(0)} ms wall, ${run.cpuMs.toFixed(0)} ms CPU`);
  }
} finally {
  await app.close();
  await controller.close();
  rmSync(dataDir, { recursive: true, force: true });
}
