import { appendFileSync, mkdirSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { RecordedRequest } from './types.js';

/**
 * So that every Integration request of the whole test suite can be checked against the 10.1.85
 * document: a simulator given a request-log directory appends each `/integration/…` request the bot
 * sent (its transport's `user-agent: netops-bot`) as one JSON line to `<dir>/<pid>.jsonl`: method,
 * route, query and body. Requests a test sends itself (attack and fuzz tests posting bad bodies
 * straight at the simulator) carry another agent and are not logged: the check is of the bot, not
 * of them. The test suite's global setup reads the files at the end of the run
 * (test/global/request-log.ts). One synchronous append per request: a few microseconds.
 */

/** A request as a simulator records it: as sent, with the route it was matched to. */
export function recordOf(
  req: IncomingMessage,
  method: string,
  url: URL,
  route: string,
  body: unknown,
): RecordedRequest {
  return {
    method,
    path: url.pathname,
    route,
    query: Object.fromEntries(url.searchParams),
    headers: { ...req.headers },
    body,
  };
}

/** The bot's transport's user agent (src/gateway/transport.ts). */
export const BOT_USER_AGENT = 'netops-bot';

/** The directory simulators of this process log to when their options name none (set by the test setup). */
let processDefault: string | undefined;

/** Sets (or clears) the directory every simulator started afterwards in this process logs to. */
export function setDefaultRequestLog(dir: string | undefined): void {
  processDefault = dir;
}

/** The directory a new simulator logs to: its own option, else the process default. */
export function requestLogDir(option: string | false | undefined): string | undefined {
  if (option === false) return undefined;
  return option ?? processDefault;
}

/** One logged request. */
export interface LoggedRequest {
  method: string;
  route: string;
  query: Record<string, string>;
  body: unknown;
}

/** Appends a request to the directory's file for this process, when the bot sent it to `/integration/`. */
export function logRequest(
  dir: string,
  request: LoggedRequest & { userAgent: string | string[] | undefined },
): void {
  if (!request.route.startsWith('/integration/') || request.userAgent !== BOT_USER_AGENT) return;
  // Only these four: never the headers (the API key) or anything else the record carries.
  const line = { method: request.method, route: request.route, query: request.query, body: request.body };
  mkdirSync(dir, { recursive: true });
  appendFileSync(join(dir, `${process.pid}.jsonl`), `${JSON.stringify(line)}\n`);
}
