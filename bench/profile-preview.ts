/**
 * A driver for `node --cpu-prof --import tsx bench/profile-preview.ts [runs] [clients]`: the
 * synthetic controller in its own process, the bot in this one, a would-be restart of the site's
 * gateway proposed `runs` times on a cold cache (preview, blast radius and policy on one snapshot).
 * The profile then shows the bot's side only; each run's time is printed next to JSON.parse of the
 * site's records.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createGateway, gatewayOptionsFromConfig } from '../src/gateway/index.js';
import { silentLogger } from '../src/log.js';
import { parsePolicy } from '../src/policy/index.js';
import { startSyntheticController } from './lib/controller.js';

const [runsArg = '3', clientsArg = '50000'] = process.argv.slice(2);
const clients = Number(clientsArg);
const controller = await startSyntheticController({ devices: Math.round(clients / 25), clients });
const dataDir = mkdtempSync(join(tmpdir(), 'netops-profile-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  GATEWAY_URL: controller.url,
  GATEWAY_API_KEY: controller.apiKey,
  GATEWAY_TIMEOUT_MS: '120000',
  TELEMETRY_INTERVAL_SECONDS: '0',
  GATEWAY_READ_BUDGET_MS: '120000',
  GATEWAY_MAX_RESPONSE_BYTES: String(512 * 2 ** 20),
  BOT_SOURCE_ADDRESS: '10.99.0.10',
});
const logger = silentLogger();
const gateway = createGateway(gatewayOptionsFromConfig(config, logger));
const policy = parsePolicy(
  'rules:\n  - name: big\n    when: tool == "restart_device" && blast_radius.clients.count > 10\n    approvals: 2\n',
  'profile-policy.yaml',
);
const app = createApp({ config, logger, gateway, policy, controllerUrl: controller.url, ownsChanges: true });
const headers = { 'X-API-KEY': controller.apiKey };
const bodies = await Promise.all(
  ['stat/sta', 'stat/device'].map(async (path) =>
    (await fetch(`${controller.url}/proxy/network/api/s/default/${path}`, { headers })).text(),
  ),
);
// The site's gateway, as the guardrails part restarts it: everything is behind it.
const listed = (JSON.parse(bodies[1] ?? '{}') as { data: { mac: string; type?: string }[] }).data;
const root = (listed.find((d) => ['udm', 'ugw', 'uxg'].includes(d.type ?? '')) ?? listed[0])?.mac ?? '';
const parseStarted = performance.now();
for (const body of bodies) JSON.parse(body);
const parseMs = performance.now() - parseStarted;
const approvals = app.approvals;
if (!approvals) throw new Error('no approvals');
for (let i = 0; i < Number(runsArg); i += 1) {
  gateway.invalidate();
  const started = performance.now();
  const cpu = process.cpuUsage();
  await approvals.propose({
    tool: 'restart_device',
    args: { device_id: root },
    requester: { userId: 'U0PROFILE' },
    channel: 'C0PROFILE',
  });
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  console.log(
    `propose ${ms.toFixed(0)} ms, ${cpuMs.toFixed(0)} ms CPU; parse ${parseMs.toFixed(0)} ms, ${(cpuMs / parseMs).toFixed(2)}× CPU`,
  );
}
await app.close();
await controller.close();
rmSync(dataDir, { recursive: true, force: true });
