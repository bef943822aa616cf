// Not part of `npm run bench`: starts the bot and the bare Bolt floor as the startup part does and
// prints, 2 s after healthz, RSS, threads and the V8 heap spaces' sizes from /proc and the process.
import { readFileSync } from 'node:fs';
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
    env: { NODE_OPTIONS: '--require /tmp/i26-heap-hook.cjs' },
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
    readFileSync(`/tmp/i26-heap-${app.pid}.txt`, 'utf8'),
  );
  await app.stop();
}
await controller.close();
process.exit(0);
