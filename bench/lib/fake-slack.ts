import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One post to a response_url, with the time it arrived (performance.now() of this process). */
export interface ResponsePost {
  key: string;
  at: number;
  body: Record<string, unknown>;
}

/**
 * Slack's side for the benchmark, on loopback: the Web API answers `ok` to whatever the apps call
 * at start (auth.test), and every post to a response_url is kept with its arrival time, so the
 * time from a slash command to the answer the user reads can be measured.
 */
export class BenchSlack {
  readonly responses = new Map<string, ResponsePost>();
  private waiters: (() => void)[] = [];
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<BenchSlack> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const slack = new BenchSlack(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = (req.url ?? '').split('?')[0] ?? '';
        res.setHeader('content-type', 'application/json');
        if (path.startsWith('/response/')) {
          const text = Buffer.concat(chunks).toString('utf8');
          const key = decodeURIComponent(path.slice('/response/'.length));
          slack.responses.set(key, { key, at: performance.now(), body: parseObject(text) });
          res.end('{"ok":true}');
          slack.notify();
          return;
        }
        if (path === '/api/auth.test') {
          res.end(
            JSON.stringify({ ok: true, user_id: 'UBOT', bot_id: 'BBOT', team_id: 'T1', user: 'netops' }),
          );
          return;
        }
        res.end('{"ok":true}');
      });
    });
    return slack;
  }

  /** The Web API base the apps get as SLACK_API_URL. */
  get apiUrl(): string {
    return `${this.url}/api`;
  }

  responseUrl(key: string): string {
    return `${this.url}/response/${encodeURIComponent(key)}`;
  }

  /** Resolves when every key has an answer, or after `timeoutMs` (then some are missing). */
  async waitFor(keys: readonly string[], timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!keys.every((k) => this.responses.has(k))) {
      const left = deadline - performance.now();
      if (left <= 0) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 1000));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return { text };
  }
}

/** The bot's error notices start with one of these (src/slack/error-text.ts). */
export const ERROR_MARKS = /^:(electric_plug|warning|boom|no_entry|no_entry_sign|key|turtle|mag|lock):/;

/** Every text a message shows (fallback `text` and the blocks' texts), joined by newlines. */
export function messageText(body: Record<string, unknown>): string {
  const texts: string[] = [];
  const visit = (value: unknown, key?: string) => {
    if (typeof value === 'string') {
      if (key === 'text') texts.push(value);
      return;
    }
    if (Array.isArray(value)) for (const item of value) visit(item);
    else if (typeof value === 'object' && value !== null)
      for (const [k, v] of Object.entries(value)) visit(v, k);
  };
  visit(body.blocks);
  if (texts.length === 0 && typeof body.text === 'string') texts.push(body.text);
  return texts.join('\n');
}
