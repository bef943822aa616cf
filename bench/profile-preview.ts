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
import { parsePolicy } from '../src/policy/index.js';
import { startSyntheticController } from './lib/controller.js';
import { clock, inProcessBot, LARGE_SITE_ENV, siteGatewayMac } from './lib/in-process.js';

const [runsArg = '3', clientsArg = '50000'] = process.argv.slice(2);
const clients = Number(clientsArg);
const controller = await startSyntheticController({ devices: Math.round(clients / 25), clients });
const dataDir = mkdtempSync(join(tmpdir(), 'netops-profile-'));
const policy = parsePolicy(
  'rules:\n  - name: big\n    when: tool == "restart_device" && blast_radius.clients.count > 10\n    approvals: 2\n',
  'profile-policy.yaml',
);
const { gateway, app } = inProcessBot(
  controller,
  dataDir,
  { ...LARGE_SITE_ENV, TELEMETRY_INTERVAL_SECONDS: '0', BOT_SOURCE_ADDRESS: '10.99.0.10' },
  { policy, controllerUrl: controller.url, ownsChanges: true },
);
const headers = { 'X-API-KEY': controller.apiKey };
const bodies = await Promise.all(
  ['stat/sta', 'stat/device'].map(async (path) =>
    (await fetch(`${controller.url}/proxy/network/api/s/default/${path}`, { headers })).text(),
  ),
);
// The site's gateway, as the guardrails part restarts it: everything is behind it.
const root = siteGatewayMac(bodies[1] ?? '{"data":[]}');
const parseStarted = performance.now();
for (const body of bodies) JSON.parse(body);
const parseMs = performance.now() - parseStarted;
const approvals = app.approvals;
if (!approvals) throw new Error('no approvals');
for (let i = 0; i < Number(runsArg); i += 1) {
  gateway.invalidate();
  const { ms, cpuMs } = await clock(() =>
    approvals.propose({
      tool: 'restart_device',
      args: { device_id: root },
      requester: { userId: 'U0PROFILE' },
      channel: 'C0PROFILE',
    }),
  );
  console.log(
    `propose ${ms.toFixed(0)} ms, ${cpuMs.toFixed(0)} ms CPU; parse ${parseMs.toFixed(0)} ms, ${(cpuMs / parseMs).toFixed(2)}× CPU`,
  );
}
await app.close();
await controller.close();
rmSync(dataDir, { recursive: true, force: true });
