import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createGateway, gatewayOptionsFromConfig } from '../../src/gateway/index.js';
import { silentLogger } from '../../src/log.js';
import { parsePolicy } from '../../src/policy/index.js';
import { type ClientRecord, type DeviceRecord, startSimulator } from '../../src/simulator/index.js';
import type { PartContext } from '../lib/context.js';
import { median, ratio } from '../lib/stats.js';
import { syntheticSite } from '../synthetic-site.js';

/** The guardrails' figures on the largest synthetic site, ms unless named otherwise. */
export interface GuardrailsRow {
  devices: number;
  clients: number;
  /** JSON.parse of the controller's stat/sta body (the floor). */
  parseMs: number;
  /** restart_device dry_run of the gateway (the preview as it is, without blast radius for policy). */
  previewMs: number;
  previewRatio: number;
  /** check_policy of the same restart: fresh reads, downstream walk, risk and the policy's decision. */
  checkMs: number;
  checkRatio: number;
  /** The same restart, preview then check: what a preview with the blast radius costs. */
  bothMs: number;
  bothRatio: number;
  /** evaluateChange alone (the pure part), microseconds, 10 rules. */
  evaluateUs: number;
  /** Approvals.propose of the same restart: preview, blast radius and policy on one fresh snapshot. */
  proposeMs: number;
  proposeRatio: number;
  /** controller requests (GET) one propose made. */
  proposeReads: number;
}

const POLICY = `rules:
${Array.from(
  { length: 10 },
  (_, i) => `  - name: rule-${i}
    when: tool == "restart_device" && blast_radius.clients.count > ${i * 1000} && risk != "low"
    approvals: ${Math.min(10, 1 + (i % 3))}`,
).join('\n')}
`;

/**
 * A would-be restart of the site's gateway (everything is downstream of it) on 2,000 devices and
 * 50,000 clients, in-process against the simulator over real HTTP: the preview, check_policy, and
 * both, next to the floor of JSON.parse-ing stat/sta, same run.
 */
export async function runGuardrails(ctx: PartContext): Promise<GuardrailsRow> {
  const [devices, clients] = ctx.options.quick ? [200, 5_000] : [2_000, 50_000];
  const repeats = Math.max(3, ctx.options.repeats);
  const site = syntheticSite({ devices, clients, seed: 2024 });
  const sim = await startSimulator();
  const state = sim.state.site('default');
  if (!state) throw new Error('the simulator has no default site');
  state.clients = site.clients as ClientRecord[];
  state.devices = site.devices as DeviceRecord[];
  const root = String(site.devices[0]?.mac ?? '');
  const dataDir = mkdtempSync(join(tmpdir(), 'netops-bench-guardrails-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    GATEWAY_URL: sim.url,
    GATEWAY_API_KEY: sim.apiKey,
    TELEMETRY_INTERVAL_SECONDS: '0',
    GATEWAY_TIMEOUT_MS: '120000',
    GATEWAY_READ_BUDGET_MS: '120000',
    // stat/sta of 50,000 clients is larger than the default 32 MiB cap.
    GATEWAY_MAX_RESPONSE_BYTES: '268435456',
    BOT_SOURCE_ADDRESS: '10.99.0.10',
  });
  const logger = silentLogger();
  const gateway = createGateway(gatewayOptionsFromConfig(config, logger));
  const policy = parsePolicy(POLICY, 'bench-policy.yaml');
  const app = createApp({ config, logger, gateway, policy, controllerUrl: sim.url, ownsChanges: true });
  try {
    const url = `${sim.url}/proxy/network/api/s/default/stat/sta`;
    const body = await (await fetch(url, { headers: { 'X-API-KEY': sim.apiKey } })).text();
    const time = async (run: () => Promise<unknown> | unknown) => {
      const runs: number[] = [];
      for (let i = 0; i < repeats; i += 1) {
        gateway.invalidate();
        const started = performance.now();
        await run();
        runs.push(performance.now() - started);
      }
      return median(runs);
    };
    const run = (tool: string, args: Record<string, unknown>) => app.registry.run(tool, args, app.context);
    ctx.progress(`guardrails: ${devices} devices / ${clients} clients, floor`);
    const parseMs = await time(() => JSON.parse(body));
    ctx.progress('guardrails: restart_device preview');
    const previewMs = await time(() => run('restart_device', { device_id: root, dry_run: true }));
    ctx.progress('guardrails: check_policy');
    const checkMs = await time(() => run('check_policy', { command: `restart_device device_id=${root}` }));
    ctx.progress('guardrails: preview then check');
    const bothMs = await time(async () => {
      await run('restart_device', { device_id: root, dry_run: true });
      await run('check_policy', { command: `restart_device device_id=${root}` });
    });
    // The guardrails wired into approvals: the preview and its blast radius share one fresh snapshot.
    ctx.progress('guardrails: approvals.propose (one snapshot)');
    const approvals = app.approvals;
    if (!approvals) throw new Error('the bench app has no approvals');
    const gets = () => sim.requests.filter((r) => r.method === 'GET').length;
    let proposeReads = 0;
    const proposeMs = await time(async () => {
      const before = gets();
      await approvals.propose({
        tool: 'restart_device',
        args: { device_id: root },
        requester: { userId: 'U0BENCH' },
        channel: 'C0BENCH',
      });
      proposeReads = gets() - before;
    });
    const { evaluateChange, assessImpact } = await import('../../src/policy/index.js');
    const radius = assessImpact({
      clients: { count: clients, names: ['a', 'b'] },
      devices: { count: devices, names: [] },
    });
    const change = {
      tool: 'restart_device',
      args: { device_id: root },
      requester: 'U0BENCH',
      channel: 'C0BENCH',
      face: 'slack',
    };
    const loops = 2000;
    const started = performance.now();
    for (let i = 0; i < loops; i += 1) evaluateChange(policy, change, radius, {}, Date.now());
    const evaluateUs = ((performance.now() - started) * 1000) / loops;
    return {
      devices,
      clients,
      parseMs,
      previewMs,
      previewRatio: ratio(previewMs, parseMs),
      checkMs,
      checkRatio: ratio(checkMs, parseMs),
      bothMs,
      bothRatio: ratio(bothMs, parseMs),
      evaluateUs,
      proposeMs,
      proposeRatio: ratio(proposeMs, parseMs),
      proposeReads,
    };
  } finally {
    await app.close();
    await sim.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
