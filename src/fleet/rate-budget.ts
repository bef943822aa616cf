/**
 * The bot's budget of requests through the cloud (Site Manager and the connector). Site Manager
 * limits requests per API key, whichever console or replica sends them, so every replica takes
 * its tokens from one bucket per key: a row in PostgreSQL (store/postgres/rate-budget.ts), or this
 * process's own bucket with the file store (one process). A request that would have to wait past
 * its read budget for a token is not sent: it fails with RateBudgetSpentError saying when the next
 * token comes, never with the cloud's 429.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { RateBudgetSpentError } from '../errors.js';
import type { GuardedRequest, RequestGuard, RequestOutcome } from '../lib/request-guard.js';
import type { Logger } from '../log.js';

/** Site Manager v1's limit per API key. */
export const DEFAULT_REQUESTS_PER_MINUTE = 10_000;

/** A token bucket: `burst` tokens at most, refilled at `perSecond`. */
export interface BucketSpec {
  burst: number;
  perSecond: number;
}

/**
 * The bucket of a per-minute budget. A bucket of capacity C refilled at C a minute would let 2C
 * through in some minute (a full bucket, then a minute of refill): a tenth of the budget is the
 * burst and the rest the refill, so no rolling minute ever sees more than the budget.
 */
export function bucketOf(requestsPerMinute: number): BucketSpec {
  const burst = Math.max(1, Math.floor(requestsPerMinute / 10));
  return { burst, perSecond: Math.max(requestsPerMinute - burst, 1) / 60 };
}

/** A token, reserved `waitMs` ahead (0: now); or none within the wait allowed, the next free one in `nextInMs`. */
export type Take = { granted: true; waitMs: number } | { granted: false; nextInMs: number };

/** Where the buckets live: this process, or a table every replica shares. */
export interface BudgetBackend {
  /**
   * Takes one token from `key`'s bucket, reserving it at most `maxWaitMs` ahead; never reserves one
   * further ahead, so a caller that cannot wait takes nothing from the others.
   */
  take(key: string, spec: BucketSpec, maxWaitMs: number): Promise<Take>;
}

/**
 * The arithmetic both backends share, on the bucket's state: tokens may go below zero, each one
 * under zero a request queued for a token still to come.
 */
export function takeFrom(
  state: { tokens: number; at: number } | undefined,
  spec: BucketSpec,
  now: number,
  maxWaitMs: number,
): { state: { tokens: number; at: number }; take: Take } {
  const at = Math.max(now, state?.at ?? now);
  const elapsedS = Math.max(0, now - (state?.at ?? now)) / 1000;
  const refilled = Math.min(spec.burst, (state?.tokens ?? spec.burst) + elapsedS * spec.perSecond);
  const after = refilled - 1;
  const waitMs = after >= 0 ? 0 : (-after / spec.perSecond) * 1000;
  if (waitMs <= maxWaitMs) return { state: { tokens: after, at }, take: { granted: true, waitMs } };
  return { state: { tokens: refilled, at }, take: { granted: false, nextInMs: waitMs } };
}

/** The buckets of one process (the file store). */
export class LocalBudget implements BudgetBackend {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async take(key: string, spec: BucketSpec, maxWaitMs: number): Promise<Take> {
    const { state, take } = takeFrom(this.#buckets.get(key), spec, this.now(), maxWaitMs);
    this.#buckets.set(key, state);
    return take;
  }
}

/** The bucket's key: a hash of the API key, so no table or log ever holds the key itself. */
export function budgetKey(apiKey: string): string {
  return createHash('sha256').update(`netops-cloud-budget\0${apiKey}`).digest('hex').slice(0, 32);
}

function seconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
}

/**
 * The guard of every gateway that goes through the cloud with one API key. Its backend may change
 * once (to the shared table when the PostgreSQL store opens, after the gateways were built).
 */
export class CloudBudget implements RequestGuard {
  #backend: BudgetBackend;
  readonly #local: LocalBudget;
  readonly #key: string;
  /** Told when the shared backend failed and this process's bucket was used instead. */
  onSharedFailure: ((error: unknown) => void) | undefined;
  readonly #spec: BucketSpec;

  constructor(
    apiKey: string,
    readonly requestsPerMinute: number = DEFAULT_REQUESTS_PER_MINUTE,
    backend?: BudgetBackend,
    private readonly wait: (ms: number) => Promise<unknown> = sleep,
  ) {
    this.#key = budgetKey(apiKey);
    this.#spec = bucketOf(requestsPerMinute);
    this.#local = new LocalBudget();
    this.#backend = backend ?? this.#local;
  }

  /** Says on `logger`, at most once a minute, when the shared table failed and this process's bucket was used. */
  logTo(logger: Logger, now: () => number = Date.now): this {
    let saidAt = Number.NEGATIVE_INFINITY;
    this.onSharedFailure = (error) => {
      if (now() - saidAt < 60_000) return;
      saidAt = now();
      logger.warn(
        { error: error instanceof Error ? error.message : String(error) },
        'the shared cloud rate budget cannot be read; this replica keeps to its own bucket meanwhile',
      );
    };
    return this;
  }

  /** Takes tokens from `backend` from now on (the replicas' shared table). */
  share(backend: BudgetBackend): void {
    this.#backend = backend;
  }

  async admit(request: GuardedRequest): Promise<(outcome: RequestOutcome) => void> {
    // A request leaves with time to be answered: the wait for a token may use at most half of it.
    const maxWaitMs = request.timeoutMs / 2;
    const take = await this.#backend.take(this.#key, this.#spec, maxWaitMs).catch((error: unknown) => {
      // The shared table cannot be reached: this process's own bucket keeps it within the budget
      // alone, rather than the database's outage stopping every read through the cloud.
      this.onSharedFailure?.(error);
      return this.#local.take(this.#key, this.#spec, maxWaitMs);
    });
    if (!take.granted) {
      throw new RateBudgetSpentError(
        `the bot's budget of cloud requests for this API key is spent (${this.requestsPerMinute} a minute, shared by every replica); the next request can go in ${seconds(take.nextInMs)}`,
        Math.max(1, Math.ceil(take.nextInMs / 1000)),
      );
    }
    if (take.waitMs > 0) await this.wait(take.waitMs);
    return () => undefined;
  }
}
