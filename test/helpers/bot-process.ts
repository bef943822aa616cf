import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** The project root (vitest runs from it). */
export const ROOT = process.cwd();
/** The built entry point, as the Dockerfile's CMD and `npm start` run it. */
export const MAIN = join(ROOT, 'dist', 'main.js');

/** One JSON log line the bot wrote on stdout (Slack mode logs with pino). */
export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** How a process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The built program running in a child process. */
export interface BotProcess {
  child: ChildProcess;
  dataDir: string;
  stdout(): string;
  stderr(): string;
  /** The JSON lines of stdout so far. */
  logs(): LogLine[];
  /** Resolves with the first log line that matches; rejects if the process exits or time runs out. */
  waitForLog(predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /**
   * The port the bot listens on (/slack/events, /healthz), from the line that announces it: run
   * with PORT=0, the bot binds a free port itself and says which. (A port found free here first
   * can be taken by another process before the bot binds it.) In Socket Mode the line comes once
   * Slack first answered auth.test, refusing or not.
   */
  listeningPort(timeoutMs?: number): Promise<number>;
  exited: Promise<Exit>;
  /** Sends a signal and resolves when the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

const running = new Set<ChildProcess>();
// A worker that exits with bots still running (a test that failed before its stop) takes them along.
process.once('exit', () => {
  for (const child of running) {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

/**
 * The environment of a spawned bot: only what a user or a container would set. PATH and HOME are
 * kept so `npm` can run; DATA_DIR is a fresh temporary folder unless given.
 */
function environment(env: Record<string, string>): { env: Record<string, string>; dataDir: string } {
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), 'netops-process-'));
  return {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmpdir(),
      DATA_DIR: dataDir,
      // The test's request log: a built-in simulator logs the bot's Integration requests there.
      ...(process.env.SIMULATOR_REQUEST_LOG
        ? { SIMULATOR_REQUEST_LOG: process.env.SIMULATOR_REQUEST_LOG }
        : {}),
      ...env,
    },
    dataDir,
  };
}

/** Starts `node dist/main.js` (or `command`) with only `env`; call stopAllBots() after each test. */
export function spawnBot(
  env: Record<string, string>,
  options: { args?: string[]; command?: string[]; input?: string } = {},
): BotProcess {
  const { env: childEnv, dataDir } = environment(env);
  const [file, ...commandArgs] = options.command ?? [process.execPath, MAIN];
  if (!file) throw new Error('spawnBot needs a command');
  // Its own process group, so npm and the node it starts are signalled together.
  const child = spawn(file, [...commandArgs, ...(options.args ?? [])], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  if (options.input !== undefined) child.stdin?.end(options.input);
  const exited = new Promise<Exit>((resolve) => {
    child.on('close', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
  let done = false;
  void exited.then(() => {
    done = true;
  });
  const parse = (line: string): LogLine[] => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as LogLine];
    } catch {
      return [];
    }
  };
  // Complete lines are parsed once, not again at every poll of waitForLog (a long-lived bot's log
  // grows to thousands of lines); only the line still being written is parsed each time.
  const parsed: LogLine[] = [];
  let parsedUpTo = 0;
  const logs = () => {
    const end = stdout.lastIndexOf('\n') + 1;
    if (end > parsedUpTo) {
      for (const line of stdout.slice(parsedUpTo, end - 1).split('\n')) parsed.push(...parse(line));
      parsedUpTo = end;
    }
    return [...parsed, ...parse(stdout.slice(parsedUpTo))];
  };
  const waitForLog: BotProcess['waitForLog'] = async (predicate, timeoutMs = 15_000) => {
    const started = Date.now();
    for (;;) {
      const line = logs().find(predicate);
      if (line) return line;
      if (done) throw new Error(`the bot exited before logging it.\nstdout:\n${stdout}\nstderr:\n${stderr}`);
      if (Date.now() - started > timeoutMs) {
        throw new Error(`the bot never logged it.\nstdout:\n${stdout}\nstderr:\n${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return {
    child,
    dataDir,
    stdout: () => stdout,
    stderr: () => stderr,
    logs,
    exited,
    waitForLog,
    async listeningPort(timeoutMs) {
      const line = await waitForLog(
        (l) => typeof l.port === 'number' && (l.mode === 'http' || l.mode === 'socket'),
        timeoutMs,
      );
      return line.port as number;
    },
    async stop(signal = 'SIGTERM') {
      if (!done && child.pid) process.kill(-child.pid, signal);
      return exited;
    },
  };
}

/**
 * The environment of the built bot in Slack HTTP mode: the fake Slack's Web API, the signing
 * secret, PORT=0, and the simulator as its controller when given. SLACK_BOT_TOKEN is
 * `xoxb-process-test` (a test that looks for the token in the output knows it).
 */
export function slackHttpEnv(
  slack: { apiUrl: string },
  secret: string,
  sim?: { url: string; apiKey: string },
): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: 'xoxb-process-test',
    SLACK_SIGNING_SECRET: secret,
    SLACK_API_URL: slack.apiUrl,
    PORT: '0',
    ...(sim ? { GATEWAY_URL: sim.url, GATEWAY_API_KEY: sim.apiKey } : {}),
  };
}

/**
 * The environment of the built bot in Socket Mode: both tokens (`xoxb-process-test`,
 * `xapp-process-test`), the fake Slack's Web API, PORT=0 for /healthz, and the simulator as its
 * controller when given.
 */
export function slackSocketEnv(
  slack: { apiUrl: string },
  sim?: { url: string; apiKey: string },
): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: 'xoxb-process-test',
    SLACK_APP_TOKEN: 'xapp-process-test',
    SLACK_API_URL: slack.apiUrl,
    PORT: '0',
    ...(sim ? { GATEWAY_URL: sim.url, GATEWAY_API_KEY: sim.apiKey } : {}),
  };
}

/** Starts the built bot with `env` (slackHttpEnv and more) and resolves once it listens: its base URL. */
export async function spawnListeningBot(
  env: Record<string, string>,
  timeoutMs?: number,
): Promise<{ bot: BotProcess; url: string; events: string }> {
  const bot = spawnBot(env);
  const url = `http://127.0.0.1:${await bot.listeningPort(timeoutMs)}`;
  return { bot, url, events: `${url}/slack/events` };
}

/** Runs the built program to completion (a console command) and collects its output. */
export async function runBot(
  args: string[],
  options: { env?: Record<string, string>; input?: string; timeoutMs?: number } = {},
): Promise<Exit & { stdout: string; stderr: string }> {
  const bot = spawnBot(options.env ?? {}, { args, input: options.input ?? '' });
  const timer = setTimeout(() => void bot.stop('SIGKILL'), options.timeoutMs ?? 30_000);
  const exit = await bot.exited;
  clearTimeout(timer);
  return { ...exit, stdout: bot.stdout(), stderr: bot.stderr() };
}

/**
 * The built audit:verify (`node dist/store/verify-cli.js`, as the image ships it) with exactly
 * `env` plus PATH: its exit code and output.
 */
export async function runAuditVerify(
  env: Record<string, string>,
  args: string[] = [],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, ['dist/store/verify-cli.js', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: error.stdout,
      stderr: error.stderr,
    }),
  );
}

/** Kills whatever a test left running (and its process group). */
export async function stopAllBots(): Promise<void> {
  const left = [...running];
  for (const child of left) {
    if (child.pid) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone between the check and the kill.
      }
    }
  }
  await Promise.all(left.map((child) => new Promise((resolve) => child.once('close', resolve))));
}
