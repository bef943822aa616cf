import type { WatchConfig } from '../config.js';
import type { Logger } from '../log.js';
import type { MessageRef } from '../model/change-request.js';
import type { KeyValueStore, LeaseStore } from '../store/types.js';
import { nextDigestDue } from './digest-watch.js';
import { type DigestScope, digestOfReading, type FleetDigest, type FleetReading } from './fleet-digest.js';

/** When the fleet digest was last due and posted (ms): a replica or a restart never posts it twice. */
export const FLEET_DIGEST_KEY = 'watch:digest:last:fleet';
/** When a bound channel's digest was last due and posted: each channel is done on its own. */
export const channelDigestKey = (channel: string) => `watch:digest:last:channel:${channel}`;
/** The lease the replicas take, at a due time, to check and set the due keys one at a time. */
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
  /** Every watched site of the fleet for the day before `at`, read once for every digest of a due time. */
  read(at: number): Promise<FleetReading>;
  /** The channels the consoles file binds, each with what its digest covers. */
  bound?(): readonly { channel: string; scope: DigestScope }[];
  now?: () => number;
}

/** A digest to post at a due time: to whom, of what (no scope: the whole fleet), under which key. */
interface DigestTarget {
  channel: string;
  scope?: DigestScope;
  key: string;
}

/**
 * The fleet's digests on DIGEST_CRON: the whole fleet's to DIGEST_CHANNEL, and each bound channel's
 * of what it is bound to. At each due time, the replica that takes the digest's lease first checks
 * each digest's last due time kept in the store, moves it on, reads the sites once and posts; the
 * others, and a process restarted after it posted, find them done.
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
    const { leases, holder, data } = this.#o;
    const targets = this.#targets();
    if (targets.length === 0) return false;
    if (leases && !(await leases.acquire(FLEET_DIGEST_LEASE, holder, LEASE_TTL_MS))) return false;
    const owed: DigestTarget[] = [];
    try {
      for (const target of targets) {
        const last = await data.get<number>(target.key);
        if (last !== undefined && last >= due) continue;
        await data.set(target.key, due);
        owed.push(target);
      }
    } finally {
      // Held only across the checks and sets: the keys, not the lease, say what is done.
      await leases?.release(FLEET_DIGEST_LEASE, holder).catch(() => undefined);
    }
    if (owed.length === 0) return false;
    const reading = await this.#o.read(this.#now());
    for (const target of owed) {
      const digest = digestOfReading(reading, target.scope);
      try {
        await this.#o.notifier.postFleetDigest(target.channel, digest);
        this.#o.logger.info(
          {
            due: new Date(due).toISOString(),
            channel: target.channel,
            sites: digest.sites,
            quiet: digest.quiet,
          },
          'watch: fleet digest posted',
        );
      } catch (error) {
        // One channel the bot cannot post in keeps no other channel from its digest.
        this.#o.logger.error({ err: error, channel: target.channel }, 'watch: the fleet digest failed');
      }
    }
    return true;
  }

  /** DIGEST_CHANNEL's digest, then each bound channel's; none without DIGEST_CHANNEL. */
  #targets(): DigestTarget[] {
    const fleetChannel = this.#o.config.digestChannel;
    if (!fleetChannel) return [];
    const bound = (this.#o.bound?.() ?? []).flatMap(({ channel, scope }): DigestTarget[] =>
      // DIGEST_CHANNEL keeps the whole fleet's digest even when the file binds it too; a channel
      // that reaches no console now (a discovered console gone) has nothing to be told each day.
      scope.consoles.length > 0 && channel !== fleetChannel
        ? [{ channel, scope, key: channelDigestKey(channel) }]
        : [],
    );
    return [{ channel: fleetChannel, key: FLEET_DIGEST_KEY }, ...bound];
  }

  /**
   * Posts the digest of the day before `at` to `channel` now (`/net digest`, or the cron): a bound
   * channel's of what it is bound to, any other channel's of the whole fleet.
   */
  async post(channel: string, at = this.#now()): Promise<FleetDigest> {
    const scope =
      channel === this.#o.config.digestChannel
        ? undefined
        : this.#o.bound?.().find((each) => each.channel === channel)?.scope;
    const digest = digestOfReading(await this.#o.read(at), scope);
    await this.#o.notifier.postFleetDigest(channel, digest);
    return digest;
  }
}
