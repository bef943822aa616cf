// Not part of `npm run bench` (run with `npx tsx bench/ack-probe.ts [latencyMs]` after `npm run build`):
// what stands between a slash command's arrival and its ack, measured inside each app
// (bench/apps/ack-hook.cjs: server 'request' event → response ended) as well as from outside:
//  1. one command at a time, the bot's answer awaited before the next (nothing else to do: the
//     ack path alone, with the background work of the acks part running);
//  2. a burst of `BURST` people, each sending one command at an open-loop arrival rate.
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchController } from './lib/controller.js';
import { BenchSlack } from './lib/fake-slack.js';
import { BOT_ENTRY, FLOOR_ENTRY, startApp } from './lib/processes.js';
import { runArrivals, runLoad, sendCommand } from './lib/slack-load.js';
import { percentile } from './lib/stats.js';
import { BACKGROUND_ENV } from './parts/acks.js';

const latencyMs = Number(process.argv[2] ?? 300);
const SEQUENTIAL = 60;
const hook = fileURLToPath(new URL('./apps/ack-hook.cjs', import.meta.url));
const controller = await BenchController.start({ latencyMs });
const slack = await BenchSlack.start();

async function inside(pid: number): Promise<string> {
  process.kill(pid, 'SIGUSR2');
  await new Promise((r) => setTimeout(r, 300));
  const file = join(tmpdir(), `netops-acks-${pid}.json`);
  const f = JSON.parse(readFileSync(file, 'utf8')) as Record<string, number> & {
    gc: { count: number; max: number; total: number };
  };
  rmSync(file, { force: true });
  const ms = (v: number | undefined) => (v ?? Number.NaN).toFixed(2);
  return `inside: ${f.count} acks p50 ${ms(f.p50)} p99 ${ms(f.p99)} max ${ms(f.max)} ms; loop delay p99 ${ms(f.loopDelayP99)} max ${ms(f.loopDelayMax)} ms; GC ${f.gc.count}× max ${ms(f.gc.max)} total ${ms(f.gc.total)} ms`;
}

for (const kind of ['floor', 'bot'] as const) {
  const app = await startApp(kind, kind === 'bot' ? BOT_ENTRY : FLOOR_ENTRY, {
    slackApiUrl: slack.apiUrl,
    controllerUrl: controller.url,
    controllerApiKey: controller.apiKey,
    env: {
      NODE_OPTIONS: `--require ${hook}`,
      // ACK_PROBE_BACKGROUND=off: the bot without its background work, to tell its share.
      ...(kind === 'bot'
        ? process.env.ACK_PROBE_BACKGROUND === 'off'
          ? {}
          : BACKGROUND_ENV
        : { ANSWER_AFTER_MS: String(latencyMs) }),
    },
  });
  try {
    await runLoad({
      port: app.port,
      commands: 100,
      senders: 20,
      paceMs: 0,
      text: 'help',
      responseUrl: (k) => slack.responseUrl(k),
      keyPrefix: `${kind}-warm`,
    });
    await new Promise((r) => setTimeout(r, 1000));
    await inside(app.pid);
    const outside: number[] = [];
    const cpu0 = app.cpuMs();
    for (let i = 0; i < SEQUENTIAL; i++) {
      const key = `${kind}-seq-${i}`;
      const s = await sendCommand(app.port, 'list_vlans', slack.responseUrl(key), key);
      outside.push(s.ms);
      await slack.waitFor([key], latencyMs * 4 + 10_000);
    }
    const cpu = (app.cpuMs() - cpu0) / SEQUENTIAL;
    console.log(
      `${kind} sequential: outside p50 ${percentile(outside, 50).toFixed(2)} p99 ${percentile(outside, 99).toFixed(2)} ms; CPU/command incl. answer ${cpu.toFixed(2)} ms; ${await inside(app.pid)}`,
    );
    for (const [people, windowMs] of [
      [50, 5000],
      [50, 1000],
    ] as const) {
      const cpuB = app.cpuMs();
      const samples = await runArrivals({
        port: app.port,
        commands: people,
        windowMs,
        text: 'list_vlans',
        responseUrl: (k) => slack.responseUrl(k),
        keyPrefix: `${kind}-burst-${people}-${windowMs}`,
        seed: 7,
      });
      await slack.waitFor(
        samples.map((s) => s.key),
        latencyMs * 4 + 30_000,
      );
      const ms = samples.map((s) => s.ms);
      console.log(
        `${kind} ${people} in ${windowMs} ms: outside p50 ${percentile(ms, 50).toFixed(2)} p99 ${percentile(ms, 99).toFixed(2)} ms; CPU/command ${((app.cpuMs() - cpuB) / people).toFixed(2)} ms; ${await inside(app.pid)}`,
      );
    }
  } finally {
    await app.stop();
  }
}
await controller.close();
await slack.close();
process.exit(0);
