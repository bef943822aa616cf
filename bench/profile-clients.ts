/**
 * A driver for `node --cpu-prof --import tsx bench/profile-clients.ts [tool] [runs] [clients]`:
 * the synthetic controller in its own process, the bot in this one, `tool` (top_clients,
 * top_clients_1h: after four ticks of samples, or list_clients) run `runs` times on a cold cache.
 * The profile then shows the bot's side only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createGateway, gatewayOptionsFromConfig } from '../src/gateway/index.js';
import { silentLogger } from '../src/log.js';
import { startSyntheticController } from './lib/controller.js';

const [tool = 'top_clients', runsArg = '5', clientsArg = '50000'] = process.argv.slice(2);
const clients = Number(clientsArg);
const controller = await startSyntheticController({ devices: Math.round(clients / 25), clients });
const dataDir = mkdtempSync(join(tmpdir(), 'netops-profile-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  GATEWAY_URL: controller.url,
  GATEWAY_API_KEY: controller.apiKey,
  GATEWAY_TIMEOUT_MS: '120000',
  TELEMETRY_INTERVAL_SECONDS: '60',
  GATEWAY_READ_BUDGET_MS: '120000',
  GATEWAY_MAX_RESPONSE_BYTES: String(512 * 2 ** 20),
});
const logger = silentLogger();
const gateway = createGateway(gatewayOptionsFromConfig(config, logger));
let now = Math.floor(Date.now() / 60_000) * 60_000;
const app = createApp({ config, logger, gateway, now: () => now });
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
    const floorCpu = process.cpuUsage();
    const floorStarted = performance.now();
    JSON.parse(body);
    const floorUsed = process.cpuUsage(floorCpu);
    console.log(
      `JSON.parse of stat/sta: ${(performance.now() - floorStarted).toFixed(0)} ms wall, ${((floorUsed.user + floorUsed.system) / 1000).toFixed(0)} ms CPU`,
    );
    gateway.invalidate();
    const cpu = process.cpuUsage();
    const started = performance.now();
    await app.registry.run(toolName, args, app.context);
    const used = process.cpuUsage(cpu);
    console.log(
      `${tool}: ${(performance.now() - started).toFixed(0)} ms wall, ${((used.user + used.system) / 1000).toFixed(0)} ms CPU`,
    );
  }
} finally {
  await app.close();
  await controller.close();
  rmSync(dataDir, { recursive: true, force: true });
}
