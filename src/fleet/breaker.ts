/**
 * A circuit breaker per console. After `failures` failures in a row (no answer in time, a refused
 * or dropped connection, a 5xx) the breaker opens for `coolDownMs`: every request to the console
 * fails at once, unsent, naming it and saying since when, so a fleet-wide lookup names it instead
 * of waiting out its timeout. Then the next read goes out as a probe (half-open): answered, the
 * breaker closes; not, it opens again. A write is never the probe and never sent while the
 * breaker is not closed; the breaker never sends anything again by itself, so it never replays one.
 */
import { ConsoleNotAnsweringError, GatewayUnavailableError } from '../errors.js';
import type { GuardedRequest, RequestGuard, RequestOutcome } from '../lib/request-guard.js';
import type { Logger } from '../log.js';

export interface BreakerOptions {
  /** The console's name, as the messages say it. */
  console: string;
  /** [5] Failures in a row that open the breaker. */
  failures?: number;
  /** [30000] How long it stays open before a read may try the console again, in ms. */
  coolDownMs?: number;
  /** [Date.now] The clock (tests pass a fake one). */
  now?: () => number;
  logger?: Logger;
}

export type BreakerState = 'closed' | 'open' | 'half-open';

/** What the admin sees of a breaker (list_consoles, App Home). */
export interface BreakerView {
  state: BreakerState;
  /** When the run of failures began (ms); unset while closed. */
  downSince?: number;
  /** When the next read may try the console (ms); unset while closed. */
  retryAt?: number;
}

// Five: a read tries up to three times, so one failed read alone never opens the breaker.
export const BREAKER_DEFAULTS = { failures: 5, coolDownMs: 30_000 } as const;

/** HH:MM in UTC: the time of day a console stopped answering, as a message says it. */
function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 16);
}

function seconds(ms: number): string {
  return `${Math.max(1, Math.ceil(ms / 1000))}s`;
}

/** A failure that says the console is not there: no answer, no connection, or a 5xx. */
function isOutage(outcome: RequestOutcome): boolean {
  if (outcome.kind === 'answered') return outcome.status >= 500;
  if (outcome.kind === 'not-sent') return false;
  // The transport turns every network failure and timeout into GatewayUnavailableError; an answer
  // too large to read is a GatewayRejectedError: the console did answer.
  return outcome.error instanceof GatewayUnavailableError;
}

function reasonOf(outcome: RequestOutcome): string | undefined {
  if (outcome.kind === 'answered') return `answered HTTP ${outcome.status}`;
  // The transport's own sentence: a host and what went wrong, never a key.
  if (outcome.kind === 'failed' && outcome.error instanceof Error) return outcome.error.message;
  return undefined;
}

export class ConsoleBreaker implements RequestGuard {
  readonly #name: string;
  readonly #threshold: number;
  readonly #coolDownMs: number;
  readonly #now: () => number;
  readonly #logger: Logger | undefined;
  #failures = 0;
  #downSince: number | undefined;
  #openedAt: number | undefined;
  #probing = false;
  /** What the last failure said ("10.1.0.1 refused the connection", "answered HTTP 503"). */
  #lastReason: string | undefined;

  constructor(options: BreakerOptions) {
    this.#name = options.console;
    this.#threshold = Math.max(1, options.failures ?? BREAKER_DEFAULTS.failures);
    this.#coolDownMs = Math.max(0, options.coolDownMs ?? BREAKER_DEFAULTS.coolDownMs);
    this.#now = options.now ?? Date.now;
    this.#logger = options.logger;
  }

  get state(): BreakerState {
    if (this.#openedAt === undefined) return 'closed';
    return this.#now() - this.#openedAt >= this.#coolDownMs ? 'half-open' : 'open';
  }

  view(): BreakerView {
    if (this.#openedAt === undefined) return { state: 'closed' };
    return {
      state: this.state,
      ...(this.#downSince === undefined ? {} : { downSince: this.#downSince }),
      retryAt: this.#openedAt + this.#coolDownMs,
    };
  }

  /** Fails at once while open, and for all but the one probe while half-open. */
  async admit(request: GuardedRequest): Promise<(outcome: RequestOutcome) => void> {
    const state = this.state;
    if (state === 'closed') return (outcome) => this.#settle(outcome, false);
    const isWrite = request.method !== 'GET';
    if (state === 'open' || this.#probing || isWrite) throw this.#refusal(isWrite);
    this.#probing = true;
    return (outcome) => this.#settle(outcome, true);
  }

  #refusal(isWrite: boolean): ConsoleNotAnsweringError {
    const retryInMs = Math.max(0, (this.#openedAt ?? 0) + this.#coolDownMs - this.#now());
    const why = this.#lastReason === undefined ? '' : ` (${this.#lastReason})`;
    const since = `${this.#name}: not answering since ${clock(this.#downSince ?? this.#now())}${why}`;
    const when = retryInMs > 0 ? `retrying in ${seconds(retryInMs)}` : 'retrying now';
    const unsent = isWrite ? '; the change was not sent' : '';
    return new ConsoleNotAnsweringError(this.#name, `${since}, ${when}${unsent}`, retryInMs);
  }

  #settle(outcome: RequestOutcome, probe: boolean): void {
    if (probe) this.#probing = false;
    if (outcome.kind === 'not-sent') return;
    if (!isOutage(outcome)) {
      if (this.#openedAt !== undefined)
        this.#logger?.info({ console: this.#name }, 'console answering again; breaker closed');
      this.#failures = 0;
      this.#lastReason = undefined;
      this.#downSince = undefined;
      this.#openedAt = undefined;
      return;
    }
    this.#failures += 1;
    this.#lastReason = reasonOf(outcome);
    this.#downSince ??= this.#now();
    // A request that was out before the breaker opened and fails now does not restart the cool-down.
    if (probe || (this.#openedAt === undefined && this.#failures >= this.#threshold)) {
      this.#openedAt = this.#now();
      this.#logger?.warn(
        { console: this.#name, failures: this.#failures, coolDownMs: this.#coolDownMs },
        'console not answering; breaker open, requests to it fail at once',
      );
    }
  }
}
