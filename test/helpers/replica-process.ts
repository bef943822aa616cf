import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buttonBody, commandBody, slackHeaders } from './slack-requests.js';

/** The built entry point, as the Dockerfile runs it. */
export const BUILT_MAIN = join(process.cwd(), 'dist', 'main.js');

/** Fails with a clear message when the program under test has not been built. */
export function requireBuild(): void {
  if (!existsSync(BUILT_MAIN)) {
    throw new Error(
      'dist/main.js is missing: these tests spawn the built program. Run `npm run build` before `npm test`.',
    );
  }
}

/** A bot process in HTTP mode: `node dist/main.js` with only environment variables. */
export interface BotProcess {
  name: string;
  port: number;
  child: ChildProcess;
  /** Parsed JSON log lines (pino writes them to stderr). */
  logs: Record<string, unknown>[];
  /** POSTs a signed body to /slack/events. */
  post(body: string): Promise<number>;
  command(text: string, userId: string, responseUrl: string): Promise<number>;
  click(
    actionId: 'approve' | 'cancel',
    requestId: string,
    userId: string,
    responseUrl: string,
  ): Promise<number>;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

/** Every bot started here and not yet exited: killed when the test worker exits, whatever the tests did. */
const alive = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of alive) child.kill('SIGKILL');
});

/** Starts `node dist/main.js` with `env` (plus PATH) and resolves once it listens (PORT=0 → its port from the log). */
export async function startBotProcess(
  name: string,
  env: Record<string, string>,
  signingSecret: string,
  timeoutMs = 20_000,
): Promise<BotProcess> {
  requireBuild();
  const child = spawn(process.execPath, [BUILT_MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      DATA_DIR: mkdtempSync(join(tmpdir(), `netops-${name}-`)),
      PORT: '0',
      LOG_LEVEL: 'info',
      SLACK_SIGNING_SECRET: signingSecret,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  alive.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      alive.delete(child);
      resolve(code);
    }),
  );
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A bot that never said it listens is still running: killed here, or it outlives the suite.
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start in time:\n${stderr.slice(-3000)}`));
    }, timeoutMs);
    // The bot logs JSON lines on stdout; stderr carries only what is not a log line.
    const partials = { stdout: '', stderr: '' };
    const onData = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      stderr += chunk.toString();
      partials[stream] += chunk.toString();
      const lines = partials[stream].split('\n');
      partials[stream] = lines.pop() ?? '';
      for (const line of lines) {
        try {
          const entry = JSON.parse(line) as Record<string, unknown>;
          logs.push(entry);
          const found = /listening on port (\d+)/.exec(String(entry.msg ?? ''));
          if (found) {
            clearTimeout(timer);
            resolve(Number(found[1]));
          }
        } catch {
          // Not a log line (a fatal message on stderr); kept in `stderr` for the error above.
        }
      }
    };
    child.stdout?.on('data', onData('stdout'));
    child.stderr?.on('data', onData('stderr'));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening:\n${stderr.slice(-3000)}`));
    });
  });
  const post = async (body: string) => {
    const response = await fetch(`http://127.0.0.1:${port}/slack/events`, {
      method: 'POST',
      headers: slackHeaders(signingSecret, body),
      body,
    });
    await response.arrayBuffer();
    return response.status;
  };
  return {
    name,
    port,
    child,
    logs,
    post,
    command: (text, userId, responseUrl) =>
      post(commandBody({ text, user_id: userId, channel_id: 'C1', response_url: responseUrl })),
    click: (actionId, requestId, userId, responseUrl) =>
      post(buttonBody({ actionId, value: requestId, userId, response_url: responseUrl })),
    exited,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
