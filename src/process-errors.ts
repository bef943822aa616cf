import { inspect } from 'node:util';
import type { Logger } from './log.js';

/**
 * Error codes of one network connection failing (a peer that hung up, a name that does not
 * resolve): they concern that connection only, never the bot's state.
 */
const CONNECTION_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_STREAM_DESTROYED',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

/** The parts of `process` the policy listens on (tests hand in an EventEmitter). */
export interface ProcessEvents {
  on(event: 'unhandledRejection', listener: (reason: unknown) => void): unknown;
  on(event: 'uncaughtException', listener: (error: unknown, origin: string) => void): unknown;
}

function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && CONNECTION_ERROR_CODES.has(code);
}

/** Something thrown or rejected, as an Error the logger can serialise (a string or object is wrapped). */
function asError(reason: unknown): Error {
  if (reason instanceof Error) return reason;
  let text: string;
  try {
    text = inspect(reason, { depth: 2, breakLength: Number.POSITIVE_INFINITY }).slice(0, 500);
  } catch {
    text = 'a value that cannot be shown';
  }
  return new Error(`non-error value: ${text}`);
}

/**
 * What the Slack bot does with an error nobody handled (docs/decisions.md, "Process errors"):
 *
 * - A rejected promise nobody awaited (a request's work or a Web API call abandoned by its
 *   caller, a Socket Mode frame Bolt could not read): logged, and the bot keeps serving. Every
 *   change of state goes through one awaited store transition that is applied whole or not at all,
 *   so the abandoned work left nothing half-done.
 * - An uncaught exception from a single network connection (ECONNRESET, EPIPE, …): logged, and the
 *   bot keeps serving.
 * - Any other uncaught exception unwound a stack we cannot see into: the state is unknown, so one
 *   `fatal` line and exit 1. A supervisor restarts the bot; a change it was running is marked
 *   "outcome unknown" at the next start, never run twice.
 */
export function installProcessErrorHandlers(
  logger: Logger,
  exit: (code: number) => void,
  target: ProcessEvents = process,
): void {
  let survived = 0;
  const log = (level: 'error' | 'fatal', fields: Record<string, unknown>, message: string) => {
    try {
      logger[level](fields, message);
    } catch {
      // The logger itself failed (a value it cannot serialise): the line still goes out.
      process.stderr.write(`netops: ${message}\n`);
    }
  };
  target.on('unhandledRejection', (reason) => {
    survived += 1;
    log(
      'error',
      { err: asError(reason), unhandled_errors: survived },
      'unhandled promise rejection: the work that failed was abandoned; still serving',
    );
  });
  target.on('uncaughtException', (error, origin) => {
    if (isConnectionError(error)) {
      survived += 1;
      log(
        'error',
        { err: asError(error), unhandled_errors: survived },
        'uncaught error of one network connection; still serving',
      );
      return;
    }
    log(
      'fatal',
      { err: asError(error), origin },
      'uncaught exception: the state of the process is unknown; stopping (exit 1). Changes it was running read "outcome unknown" after the restart',
    );
    exit(1);
  });
}
