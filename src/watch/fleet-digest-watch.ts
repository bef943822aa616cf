import type { WatchConfig } from '../config.js';
import type { Logger } from '../log.js';
import type { MessageRef } from '../model/change-request.js';
import type { KeyValueStore, LeaseStore } from '../store/types.js';
import { nextDigestDue } from './digest-watch.js';
import type { FleetDigest } from './fleet-digest.js';

/** When the fleet digest was last due and posted (ms): a replica or a restart never posts it twice. */
export const FLEET_DIGEST_KEY = 'watch:digest:last:fleet';
/** The lease the replicas take, at a due time, to check and set FLEET_DIGEST_KEY one at a time. */
export const FLEET_DIGEST_LEASE = 'watch-fleet-digest';
// Long enough for the slowest fleet read to finish before another replica may look at the key.
const LEASE_TTL_MS = 10 * 60_000;

/** Where the fleet digest is posted (the Slack face, through app.ts, like the watcher's other posts). */
export interface FleetDigestNotifier {
  postFleetDigest(channel: string, digest: FleetDigest): Promise<MessageRef | undefined>;
}

export interface FleetDigestWatchOptions {
  config: Pick<WatchConfig, 'digestCron' | 'digestChannel' | 'timeZone'>;
  data: KeyValueStore;
  /** Shared leases (PostgreSQL); without them this process is the only one to post. */
  leases?: LeaseStore;
  holder: string;
  notifier: FleetDigestNotifier;
  logger: Logger;
  /** The fleet digest of the day before `at`. */
  read(at: number): Promise<FleetDigest>;
  now?: () => number;
}

/**
 * The fleet's one digest on DIGEST_CRON: at each due time, the replica that takes the digest's
 * lease first checks the last due time kept in the store, moves it on, and posts; the others, and a
 * process restarted after it posted, find it done.
 */
export class FleetDigestWatch {
  readonly #o: FleetDigestWatchOptions;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #firing: Promise<unknown> = Promise.resolve();
  #claims: Promise<unknown> = Promise.resolve();

  constructor(options: FleetDigestWatchOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** When the next digest is due after `from` (DIGEST_CRON in TZ). */
  nextDigestAt(from = this.#now()): number | undefined {
    return nextDigestDue(this.#o.config, from);
  }

  /** Sets the timer for the next due time, and the one after once it fired. */
  schedule(): void {
    const due = this.nextDigestAt();
    if (due === undefined || this.#stopped) return;
    // Steps of at most an hour: a timer longer than 24.8 days overflows, and a clock change is caught.
    const wait = Math.min(Math.max(0, due - this.#now()), 3_600_000);
    this.#timer = setTimeout(() => {
      if (this.#now() + 50 < due) return this.schedule();
      this.#firing = this.fire(due)
        .catch((error: unknown) => this.#o.logger.error({ err: error }, 'watch: the fleet digest failed'))
        .finally(() => this.schedule());
    }, wait);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#firing.catch(() => undefined);
  }

  /**
   * Posts the digest due at `due` unless it was posted already; true when this call posted it.
   * The due time is kept before posting: a post that fails is not repeated by another replica.
   */
  fire(due: number): Promise<boolean> {
    // One at a time in this process: the lease is renewed for its own holder, so it cannot keep
    // two calls of one replica apart.
    const fired = this.#claims.then(() => this.#fire(due));
    this.#claims = fired.catch(() => undefined);
    return fired;
  }

  async #fire(due: number): Promise<boolean> {
    const { leases, holder, data, config } = this.#o;
    if (!config.digestChannel) return false;
    if (leases && !(await leases.acquire(FLEET_DIGEST_LEASE, holder, LEASE_TTL_MS))) return false;
    try {
      const last = await data.get<number>(FLEET_DIGEST_KEY);
      if (last !== undefined && last >= due) return false;
      await data.set(FLEET_DIGEST_KEY, due);
    } finally {
      // Held only across the check and set: the key, not the lease, says it is done.
      await leases?.release(FLEET_DIGEST_LEASE, holder).catch(() => undefined);
    }
    const digest = await this.post(config.digestChannel, this.#now());
    this.#o.logger.info(
      { due: new Date(due).toISOString(), sites: digest.sites, quiet: digest.quiet },
      'watch: fleet digest posted',
    );
    return true;
  }

  /** Posts the fleet digest of the day before `at` to `channel` now (`/net digest`, or the cron). */
  async post(channel: string, at = this.#now()): Promise<FleetDigest> {
    const digest = await this.#o.read(at);
    await this.#o.notifier.postFleetDigest(channel, digest);
    return digest;
  }
}
