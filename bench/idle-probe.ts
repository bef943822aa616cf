// Not part of `npm run bench` (run with `npx tsx bench/idle-probe.ts` after `npm run build`): starts the bot and the bare Bolt floor as the startup part does and
// prints, 2 s after start-up settled (the startup part's `settled`), RSS (anonymous / file-backed),
// threads and the V8 heap spaces' sizes from /proc and the process.
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchController } from './lib/controller.js';
import { BenchSlack } from './lib/fake-slack.js';
import { BOT_ENTRY, FLOOR_ENTRY, startApp } from './lib/processes.js';
import { settled } from './parts/startup.js';

const controller = await BenchController.start();
const slack = await BenchSlack.start();
for (const kind of ['bot', 'floor', 'bot', 'floor'] as const) {
  const app = await startApp(kind, kind === 'bot' ? BOT_ENTRY : FLOOR_ENTRY, {
    slackApiUrl: slack.apiUrl,
    controllerUrl: controller.url,
    controllerApiKey: controller.apiKey,
    env: {
      NODE_OPTIONS: `--require ${fileURLToPath(new URL('./apps/heap-hook.cjs', import.meta.url))}`,
      ...(process.env.HEAP_SNAPSHOT_DIR ? { HEAP_SNAPSHOT_DIR: process.env.HEAP_SNAPSHOT_DIR } : {}),
    },
  });
  const settleMs = await settled(app.port, kind);
  // IDLE_PROBE_SECONDS=2,10,30: RSS at each of these times after settling; the heap figures at the last.
  const marks = (process.env.IDLE_PROBE_SECONDS ?? '2').split(',').map(Number);
  const rssAt: string[] = [];
  let waited = 0;
  for (const mark of marks) {
    await new Promise((r) => setTimeout(r, (mark - waited) * 1000));
    waited = mark;
    rssAt.push(`${mark} s ${app.rssMiB().toFixed(1)}`);
  }
  if (marks.length > 1) console.log(kind, 'RSS MiB after settling:', rssAt.join(', '));
  const status = readFileSync(`/proc/${app.pid}/status`, 'utf8');
  const pick = (k: string) => status.match(new RegExp(`${k}:\\s+(\\S+)`))?.[1];
  process.kill(app.pid, 'SIGUSR2');
  await new Promise((r) => setTimeout(r, process.env.HEAP_SNAPSHOT_DIR ? 8000 : 500));
  console.log(
    kind,
    app.rssMiB().toFixed(1),
    'MiB',
    `(anon ${pick('RssAnon')} file ${pick('RssFile')} kB; settled ${settleMs.toFixed(0)} ms after healthz)`,
    'threads',
    pick('Threads'),
    readFileSync(join(tmpdir(), `netops-heap-${app.pid}.txt`), 'utf8'),
  );
  rmSync(join(tmpdir(), `netops-heap-${app.pid}.txt`), { force: true });
  if (process.env.IDLE_PROBE_MAPS)
    console.log('  largest mappings (kB):', largestMappings(app.pid).join(', '));
  await app.stop();
}
await controller.close();
process.exit(0);

/** The largest resident mappings of a process: path (or "anon", "[heap]"), size and resident kB. */
function largestMappings(pid: number): string[] {
  const maps: { name: string; size: number; rss: number }[] = [];
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) maps.push({ name: head[1] || 'anon', size: 0, rss: 0 });
    const field = /^(Size|Rss):\s+(\d+) kB/.exec(line);
    const last = maps.at(-1);
    if (field && last) last[field[1] === 'Size' ? 'size' : 'rss'] = Number(field[2]);
  }
  return maps
    .sort((a, b) => b.rss - a.rss)
    .slice(0, 8)
    .map((m) => `${m.name.split('/').at(-1)} ${m.rss}/${m.size}`);
}
