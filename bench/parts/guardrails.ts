import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePolicy } from '../../src/policy/index.js';
import type { PartContext } from '../lib/context.js';
import { startSyntheticController } from '../lib/controller.js';
import { clock, inProcessBot, LARGE_SITE_ENV, siteGatewayMac, type Timed } from '../lib/in-process.js';
import { median, ratio } from '../lib/stats.js';

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
  /** controller requests (GET) one propose made; unset since the controller runs in its own process. */
  proposeReads?: number;
  /** JSON.parse of the site's records, stat/sta and stat/device: the floor of the preview budget. */
  recordsParseMs?: number;
  recordsParseCpuMs?: number;
  /** The bot's CPU for one propose (the controller runs in a process of its own), and its ratio to the floor's. */
  proposeCpuMs?: number;
  proposeCpuRatio?: number;
  /** Wall time of one propose against the records' JSON.parse. */
  proposeRecordsRatio?: number;
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
 * 50,000 clients, against the simulator in a process of its own over real HTTP: the preview,
 * check_policy, both, and approvals.propose, next to the floors of JSON.parse-ing stat/sta and the
 * site's records (stat/sta and stat/device), same run.
 */
export async function runGuardrails(ctx: PartContext): Promise<GuardrailsRow> {
  const [devices, clients] = ctx.options.quick ? [200, 5_000] : [2_000, 50_000];
  const repeats = Math.max(3, ctx.options.repeats);
  // In a process of its own: its JSON.stringify of 44 MB is not the bot's cost.
  const controller = await startSyntheticController({ devices, clients, seed: 2024 });
  const dataDir = mkdtempSync(join(tmpdir(), 'netops-bench-guardrails-'));
  const policy = parsePolicy(POLICY, 'bench-policy.yaml');
  const { gateway, app } = inProcessBot(
    controller,
    dataDir,
    { ...LARGE_SITE_ENV, TELEMETRY_INTERVAL_SECONDS: '0', BOT_SOURCE_ADDRESS: '10.99.0.10' },
    { policy, controllerUrl: controller.url, ownsChanges: true },
  );
  try {
    const get = async (path: string) =>
      (
        await fetch(`${controller.url}/proxy/network/api/s/default/${path}`, {
          headers: { 'X-API-KEY': controller.apiKey },
        })
      ).text();
    const [body, deviceBody] = await Promise.all([get('stat/sta'), get('stat/device')]);
    const root = siteGatewayMac(deviceBody);
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
    const propose = () =>
      approvals.propose({
        tool: 'restart_device',
        args: { device_id: root },
        requester: { userId: 'U0BENCH' },
        channel: 'C0BENCH',
      });
    const proposeMs = await time(propose);
    // The preview budget, round by round: the bot's CPU for one propose against the CPU of
    // JSON.parse of the site's records (stat/sta and stat/device), interleaved so load drifts on both.
    ctx.progress("guardrails: propose against JSON.parse of the site's records");
    const floors: Timed[] = [];
    const proposes: Timed[] = [];
    for (let i = 0; i < repeats; i += 1) {
      floors.push(await clock(() => [JSON.parse(body), JSON.parse(deviceBody)]));
      gateway.invalidate();
      proposes.push(await clock(propose));
    }
    const per = (pick: (t: Timed) => number) =>
      median(
        proposes.map((t, i) => ratio(pick(t), pick(floors[i] ?? { ms: Number.NaN, cpuMs: Number.NaN }))),
      );
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
      recordsParseMs: median(floors.map((t) => t.ms)),
      recordsParseCpuMs: median(floors.map((t) => t.cpuMs)),
      proposeCpuMs: median(proposes.map((t) => t.cpuMs)),
      proposeCpuRatio: per((t) => t.cpuMs),
      proposeRecordsRatio: per((t) => t.ms),
    };
  } finally {
    await app.close();
    await controller.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
