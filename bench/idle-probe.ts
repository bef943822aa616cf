// Not part of `npm run bench` (run with `npx tsx bench/idle-probe.ts` after `npm run build`): starts the bot and the bare Bolt floor as the startup part does and
// prints, 2 s after healthz, RSS, threads and the V8 heap spaces' sizes from /proc and the process.
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchController } from './lib/controller.js';
import { BenchSlack } from './lib/fake-slack.js';
import { BOT_ENTRY, FLOOR_ENTRY, startApp } from './lib/processes.js';

const controller = await BenchController.start();
const slack = await BenchSlack.start();
for (const kind of ['bot', 'floor', 'bot', 'floor'] as const) {
  const app = await startApp(kind, kind === 'bot' ? BOT_ENTRY : FLOOR_ENTRY, {
    slackApiUrl: slack.apiUrl,
    controllerUrl: controller.url,
    controllerApiKey: controller.apiKey,
    env: { NODE_OPTIONS: `--require ${fileURLToPath(new URL('./apps/heap-hook.cjs', import.meta.url))}` },
  });
  await new Promise((r) => setTimeout(r, 2000));
  const status = readFileSync(`/proc/${app.pid}/status`, 'utf8');
  const pick = (k: string) => status.match(new RegExp(`${k}:\\s+(\\S+)`))?.[1];
  process.kill(app.pid, 'SIGUSR2');
  await new Promise((r) => setTimeout(r, 500));
  console.log(
    kind,
    app.rssMiB().toFixed(1),
    'MiB',
    'threads',
    pick('Threads'),
    readFileSync(join(tmpdir(), `netops-heap-${app.pid}.txt`), 'utf8'),
  );
  rmSync(join(tmpdir(), `netops-heap-${app.pid}.txt`), { force: true });
  await app.stop();
}
await controller.close();
process.exit(0);
