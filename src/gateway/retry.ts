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
 * Defaults: three attempts within 15 s. A Slack user is answered through `response_url`, so
 * a read may take a few seconds, but a command that hangs longer than that reads as broken;
 * 15 s covers one slow request plus two quick retries while the Network app restarts (the
 * common 502/503 case), and the per-attempt timeout is clamped to what is left of it.
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  attempts: 3,
  budgetMs: 15_000,
  baseDelayMs: 250,
  maxDelayMs: 2_000,
};

/** Why a failure may be retried, and how long the server asked us to wait. */
export interface RetryHint {
  reason: string;
  retryAfterMs?: number;
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
  /** Per-request timeout for this attempt: the configured one, clamped to the budget left for reads. */
  timeoutMs: number;
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

/** Runs an operation; when `retry` is set, repeats it on transient faults within attempts and budget. */
export async function withRetry<T>(
  run: RetryRun,
  operation: (ctx: AttemptContext) => Promise<T>,
): Promise<T> {
  if (!run.retry) return operation({ attempt: 1, timeoutMs: run.timeoutMs });
  const started = Date.now();
  const left = () => run.policy.budgetMs - (Date.now() - started);
  for (let attempt = 1; ; attempt++) {
    const timeoutMs = Math.max(1, Math.min(run.timeoutMs, left()));
    try {
      return await operation({ attempt, timeoutMs });
    } catch (error) {
      const hint = retryHintOf(error);
      if (hint === undefined) throw error;
      const delay =
        hint.retryAfterMs === undefined
          ? backoffDelay(attempt, run.policy)
          : hint.retryAfterMs + RETRY_AFTER_MARGIN_MS;
      if (attempt >= run.policy.attempts || delay + MIN_ATTEMPT_MS > left()) {
        throw giveUp(error, attempt, Date.now() - started);
      }
      run.logger.warn(
        { method: run.method, path: run.path, attempt, delayMs: delay, reason: hint.reason },
        'gateway read failed; retrying',
      );
      await sleep(delay);
    }
  }
}

function giveUp(error: unknown, attempts: number, elapsedMs: number): unknown {
  if (attempts <= 1 || !(error instanceof GatewayUnavailableError)) return error;
  return new GatewayUnavailableError(
    `${error.message} (gave up after ${attempts} attempts in ${elapsedMs} ms)`,
    error.status,
  );
}
