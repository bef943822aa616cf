import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayUnavailableError } from '../errors.js';
import type { Logger } from '../log.js';

/** How reads are retried on transient faults. Writes are never retried. */
export interface RetryPolicy {
  /** Total attempts, the first one included. */
  attempts: number;
  /** Wall-clock budget for all attempts and waits of one read, in ms. */
  budgetMs: number;
  /** First backoff step, in ms; doubles per attempt, with jitter. */
  baseDelayMs: number;
  /** Largest single backoff step, in ms. */
  maxDelayMs: number;
}

/**
 * Defaults: three attempts within 8 s. A Slack user is answered through `response_url`, and a
 * command that leaves them waiting more than 10 s reads as broken; 8 s leaves room
 * for the bot's own work and Slack. The budget covers everything a read waits for: controller
 * detection, the login, every attempt and the backoff between them. Each attempt may use what
 * is left of it, so a hanging controller costs one attempt of 8 s, not two of 10.
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  attempts: 3,
  budgetMs: 8_000,
  baseDelayMs: 250,
  maxDelayMs: 2_000,
};

/** Why a failure may be retried, and how long the server asked us to wait. */
export interface RetryHint {
  reason: string;
  retryAfterMs?: number;
  /** Set on timeouts: the host that did not answer, so the final error can say how long the user waited. */
  silentHost?: string;
}

// Kept beside the error rather than on it so callers see the plain error classes of errors.ts.
const hints = new WeakMap<Error, RetryHint>();

/** Marks an error as transient (a read may try again); returns the same error. */
export function markRetryable<E extends Error>(error: E, hint: RetryHint): E {
  hints.set(error, hint);
  return error;
}

/** The retry hint of an error, when it is transient. */
export function retryHintOf(error: unknown): RetryHint | undefined {
  return error instanceof Error ? hints.get(error) : undefined;
}

/** Parses `Retry-After` (delta seconds, possibly fractional, or an HTTP date) into ms. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw.trim() === '') return undefined;
  const trimmed = raw.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** Exponential backoff with equal jitter: half the step fixed, half random. */
export function backoffDelay(attempt: number, policy: RetryPolicy, random = Math.random): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

/** What one attempt is given. */
export interface AttemptContext {
  attempt: number;
  /** When the operation began (Date.now() ms), for saying how long it waited. */
  started: number;
  /** When the whole operation must be over (Date.now() ms): the read budget's end, or a write's timeout. */
  deadline: number;
  /** Per-request timeout cap (GATEWAY_TIMEOUT_MS); a request gets at most this and at most what is left. */
  timeoutMs: number;
}

/** Timeout for the next request of an attempt: what is left before the deadline, at most the cap. */
export function requestTimeout(ctx: AttemptContext, now = Date.now()): number {
  return Math.max(1, Math.min(ctx.timeoutMs, ctx.deadline - now));
}

/** Options for one retried (or single-shot) operation. */
export interface RetryRun {
  policy: RetryPolicy;
  timeoutMs: number;
  /** False for writes: exactly one attempt, whatever the failure. */
  retry: boolean;
  logger: Logger;
  method: string;
  path: string;
}

// Below this much budget a new attempt could not get a useful answer, so we stop instead.
const MIN_ATTEMPT_MS = 50;
// Timers may fire a millisecond early and servers count whole seconds: never arrive before Retry-After.
const RETRY_AFTER_MARGIN_MS = 20;

/** A wait as users read it: seconds with one decimal ("8.0 s"). */
export function formatWait(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
}

/** The error of a request that got no answer in time; retryable, and rephrased with the total wait at the end. */
export function silenceError(host: string, waitedMs: number): GatewayUnavailableError {
  return markRetryable(new GatewayUnavailableError(`${host} did not answer within ${formatWait(waitedMs)}`), {
    reason: 'timeout',
    silentHost: host,
  });
}

/**
 * Waits for work that other callers share (controller detection, the login) no longer than this
 * attempt may: past the deadline the attempt fails as a timeout, while the shared work goes on
 * for whoever has time left.
 */
export async function beforeDeadline<T>(work: Promise<T>, ctx: AttemptContext, host: string): Promise<T> {
  const left = ctx.deadline - Date.now();
  if (left <= 0) throw silenceError(host, Date.now() - ctx.started);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(silenceError(host, Date.now() - ctx.started)), left);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs an operation; when `retry` is set, repeats it on transient faults within attempts and
 * budget. Writes (`retry: false`) get one attempt with the full per-request timeout.
 */
export async function withRetry<T>(
  run: RetryRun,
  operation: (ctx: AttemptContext) => Promise<T>,
): Promise<T> {
  const started = Date.now();
  if (!run.retry) {
    return operation({ attempt: 1, started, deadline: started + run.timeoutMs, timeoutMs: run.timeoutMs });
  }
  const deadline = started + run.policy.budgetMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation({ attempt, started, deadline, timeoutMs: run.timeoutMs });
    } catch (error) {
      const hint = retryHintOf(error);
      if (hint === undefined) throw error;
      const delay =
        hint.retryAfterMs === undefined
          ? backoffDelay(attempt, run.policy)
          : hint.retryAfterMs + RETRY_AFTER_MARGIN_MS;
      if (attempt >= run.policy.attempts || delay + MIN_ATTEMPT_MS > deadline - Date.now()) {
        throw giveUp(error, hint, attempt, Date.now() - started);
      }
      run.logger.warn(
        { method: run.method, path: run.path, attempt, delayMs: delay, reason: hint.reason },
        'gateway read failed; retrying',
      );
      await sleep(delay);
    }
  }
}

/**
 * The error the user reads, naming the wait once: a timeout says how long the whole read waited
 * (not the last attempt's share of it); other failures say how many attempts it took.
 */
function giveUp(error: unknown, hint: RetryHint, attempts: number, elapsedMs: number): unknown {
  if (!(error instanceof GatewayUnavailableError)) return error;
  const tries = attempts > 1 ? ` (${attempts} attempts)` : '';
  if (hint.silentHost !== undefined) {
    return new GatewayUnavailableError(
      `${hint.silentHost} did not answer within ${formatWait(elapsedMs)}${tries}`,
      error.status,
    );
  }
  if (attempts <= 1) return error;
  return new GatewayUnavailableError(
    `${error.message} (gave up after ${attempts} attempts in ${formatWait(elapsedMs)})`,
    error.status,
  );
}
