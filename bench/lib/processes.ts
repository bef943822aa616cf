import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { threadArenaKiB } from './smaps.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Signing secret and token every spawned app gets; fake values, loopback only. */
export const SIGNING_SECRET = 'bench-signing-secret';
const BOT_TOKEN = 'xoxb-bench-0000';

/** Which program is spawned. */
export interface BotEntry {
  script: string;
}

/** The bot: `node dist/main.js` with environment variables only, as the Dockerfile runs it. */
export const BOT_ENTRY: BotEntry = { script: join(root, 'dist', 'main.js') };

/** A spawned app (the bot or the bare Bolt floor), listening in HTTP mode on `port`. */
export interface RunningApp {
  kind: 'bot' | 'floor';
  port: number;
  pid: number;
  /** From spawn to the first `GET /healthz` 200, in ms. */
  startupMs: number;
  /** Resident set size now, in MiB (Linux /proc). */
  rssMiB(): number;
  /** CPU time (user + system) the process has used so far, in ms (Linux /proc; 10 ms ticks). */
  cpuMs(): number;
  /** The last lines the process wrote (for error reports). */
  output(): string;
  stop(): Promise<void>;
}

/** Settings of one spawned app. */
export interface AppSettings {
  slackApiUrl: string;
  controllerUrl?: string;
  controllerApiKey?: string;
  env?: Record<string, string>;
}

/** A free loopback port (bound and released; the spawned app binds it right after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The bare Bolt app of bench/apps/bare-bolt.mjs: only acks (and answers `/net echo`). */
export const FLOOR_ENTRY: BotEntry = { script: join(root, 'bench', 'apps', 'bare-bolt.mjs') };

/** Spawns an app in HTTP mode on a free port and waits for `/healthz` 200. */
export async function startApp(
  kind: 'bot' | 'floor',
  entry: BotEntry,
  settings: AppSettings,
  timeoutMs = 30_000,
): Promise<RunningApp> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'netops-bench-data-'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: settings.slackApiUrl,
    PORT: String(port),
    DATA_DIR: dataDir,
    ...(settings.controllerUrl ? { GATEWAY_URL: settings.controllerUrl } : {}),
    ...(settings.controllerApiKey ? { GATEWAY_API_KEY: settings.controllerApiKey } : {}),
    ...settings.env,
  };
  const started = performance.now();
  const child = spawn(process.execPath, [entry.script], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail: string[] = [];
  const keep = (chunk: Buffer) => {
    tail.push(chunk.toString('utf8'));
    if (tail.length > 40) tail.shift();
  };
  // Both pipes are drained: a full pipe would stall the app's logger and so the app.
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const cleanup = () => rmSync(dataDir, { recursive: true, force: true });
  try {
    await waitHealthy(port, child, exited, timeoutMs);
  } catch (error) {
    await stopChild(child, exited);
    cleanup();
    throw new Error(`${kind} did not start: ${(error as Error).message}\n${tail.join('').slice(-2000)}`);
  }
  const startupMs = performance.now() - started;
  const pid = child.pid ?? 0;
  return {
    kind,
    port,
    pid,
    startupMs,
    rssMiB: () => rssMiB(pid),
    cpuMs: () => cpuMs(pid),
    output: () => tail.join('').slice(-4000),
    async stop() {
      await stopChild(child, exited);
      cleanup();
    },
  };
}

async function waitHealthy(
  port: number,
  child: ChildProcess,
  exited: Promise<number | null>,
  timeoutMs: number,
): Promise<void> {
  let exitCode: number | null | undefined;
  void exited.then((code) => {
    exitCode = code;
  });
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (exitCode !== undefined || child.exitCode !== null) {
      throw new Error(`exited with code ${exitCode ?? child.exitCode}`);
    }
    if ((await healthStatus(port)) === 200) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no /healthz 200 within ${timeoutMs} ms`);
}

function healthStatus(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = get({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', () => resolve(0));
    req.setTimeout(1000, () => req.destroy());
  });
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** VmRSS of a process in MiB, from /proc (NaN where there is no /proc). */
export function rssMiB(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? Number.NaN : Number(kb) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** Resident MiB of the process's thread malloc arenas (bench/lib/smaps.ts), NaN where there is no /proc. */
export function threadArenaMiB(pid: number): number {
  try {
    return threadArenaKiB(readFileSync(`/proc/${pid}/smaps`, 'utf8')) / 1024;
  } catch {
    return Number.NaN;
  }
}

// /proc/<pid>/stat counts in clock ticks; 100 per second on every Linux this runs on.
const TICK_MS = 10;

/** utime + stime of a process in ms, from /proc (NaN where there is no /proc). */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces; fields are counted after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return Number.NaN;
  }
}
