import { randomBytes } from 'node:crypto';
import type { Actor } from '../model/change-request.js';
import { AlarmWatch } from './alarm-watch.js';
import { DigestWatch } from './digest-watch.js';
import { DriftWatch } from './drift-watch.js';
import { IncidentWatch } from './incident-watch.js';
import type { Digest, DigestChart, Drift, Incident, RecordOutcome, RevertOutcome } from './types.js';
import type { WatcherOptions } from './watch-state.js';
import type { Alarm } from './webhook.js';

export type { WatcherOptions } from './watch-state.js';

const LEASE = 'watch';

/**
 * The network's watcher: polls devices for incidents, sweeps the configuration for
 * drift, posts the digest on its cron. One replica at a time does it (a lease); every replica
 * answers clicks and webhooks, through the state kept in the store.
 */
export class Watcher {
  readonly #o: WatcherOptions;
  readonly #now: () => number;
  #pollTimer: NodeJS.Timeout | undefined;
  #driftTimer: NodeJS.Timeout | undefined;
  #renewTimer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> = Promise.resolve();
  #stopped = false;
  #leader = false;
  readonly #incidents: IncidentWatch;
  readonly #drift: DriftWatch;
  readonly #alarms: AlarmWatch;
  readonly #digest: DigestWatch;

  constructor(options: WatcherOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    const stopped = () => this.#stopped;
    this.#alarms = new AlarmWatch(options, this.#now, stopped);
    this.#incidents = new IncidentWatch(options, this.#now, () => this.flushAlarms());
    this.#drift = new DriftWatch(options, this.#now);
    this.#digest = new DigestWatch(options, this.#now, () => this.lead(), stopped);
  }

  get #lease(): string {
    return this.#o.leaseName ?? LEASE;
  }

  /** Whether this replica held the lease at its last poll. */
  get leader(): boolean {
    return this.#leader;
  }

  /**
   * Starts what the configuration asks for: polling (ALERT_CHANNEL or DIGEST_CHANNEL) from now, the
   * drift sweep (DRIFT_CHANNEL, else AUDIT_CHANNEL) from one poll interval on (its first run takes
   * the baseline), and the digest's cron (DIGEST_CHANNEL). Nothing configured: nothing runs.
   */
  start(): void {
    const { config } = this.#o;
    const every = (
      firstMs: number,
      ms: number,
      run: () => Promise<unknown>,
      set: (t: NodeJS.Timeout) => void,
    ) => {
      const tick = () => {
        if (this.#stopped) return;
        this.#running = this.#running.then(run).catch((error: unknown) => {
          this.#o.logger.error({ err: error }, 'watch: a tick failed');
        });
        void this.#running.finally(() => {
          if (this.#stopped) return;
          const timer = setTimeout(tick, ms);
          timer.unref();
          set(timer);
        });
      };
      const first = setTimeout(tick, firstMs);
      first.unref();
      set(first);
    };
    const pollMs = config.intervalSeconds * 1000;
    const offsetMs = this.#o.offsetMs ?? 0;
    if (config.alertChannel || config.digestChannel)
      every(
        offsetMs,
        pollMs,
        () => this.poll(),
        (t) => {
          this.#pollTimer = t;
        },
      );
    if (config.driftChannel)
      every(
        Math.min(pollMs, config.driftIntervalSeconds * 1000) + offsetMs,
        config.driftIntervalSeconds * 1000,
        () => this.sweepDrift(),
        (t) => {
          this.#driftTimer = t;
        },
      );
    if (config.digestChannel && this.#o.ownDigest !== false) this.#digest.schedule();
    // The lease is renewed between polls too: a slow poll (a slow controller or Slack) must not let
    // it lapse and hand the watch to another replica while this one is still at work.
    if (this.#o.leases && (config.alertChannel || config.digestChannel || config.driftChannel)) {
      this.#renewTimer = setInterval(
        () => {
          if (this.#leader) void this.lead();
        },
        Math.max(250, pollMs / 2),
      );
      this.#renewTimer.unref();
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#pollTimer);
    clearTimeout(this.#driftTimer);
    this.#digest.stopTimer();
    clearInterval(this.#renewTimer);
    this.#alarms.stopTimer();
    await this.#running.catch(() => undefined);
    await this.#alarms.idle();
    await this.#digest.idle();
    if (this.#leader) await this.#o.leases?.release(this.#lease, this.#o.holder).catch(() => undefined);
  }

  /** Takes or renews the lease; true when this replica is the watcher now. */
  async lead(): Promise<boolean> {
    const { leases, holder, config } = this.#o;
    if (!leases) {
      this.#leader = true;
      return true;
    }
    // Renewed every poll; a dead leader's lease runs out after two intervals, so another replica
    // takes over within three (WATCH_INTERVAL_SECONDS × 3).
    const ttl = config.intervalSeconds * 2000;
    const was = this.#leader;
    try {
      this.#leader = await leases.acquire(this.#lease, holder, ttl);
    } catch (error) {
      this.#leader = false;
      this.#o.logger.warn({ err: error }, 'watch: the lease could not be checked; not polling this tick');
    }
    if (this.#leader !== was)
      this.#o.logger.info(
        { holder, ...(this.#o.console !== undefined ? { console: this.#o.console } : {}) },
        this.#leader ? 'watch: this replica is the watcher' : 'watch: another replica watches',
      );
    return this.#leader;
  }

  /** One poll: one `stat/device` read (shared with the read cache), incidents posted and edited. */
  async poll(): Promise<void> {
    if (!(await this.lead())) return;
    await this.#incidents.poll();
  }

  /** Whether the incident `id` is this watcher's (a fleet routes an Acknowledge to its console). */
  knowsIncident(id: string): Promise<boolean> {
    return this.#incidents.knows(id);
  }

  /** Records who acknowledged an incident (any replica: the ack has a key of its own). */
  acknowledge(id: string, actor: Actor): Promise<RecordOutcome<Incident>> {
    return this.#incidents.acknowledge(id, actor);
  }

  /**
   * One configuration sweep: the baseline is taken the first time (nothing posted); afterwards each
   * object that differs and that the bot did not change is posted once, and becomes the baseline.
   */
  async sweepDrift(): Promise<Drift[]> {
    if (!(await this.lead())) return [];
    return this.#drift.sweep();
  }

  /** Accept: the change is known; who accepted is recorded and shown. */
  acceptDrift(id: string, actor: Actor): Promise<RecordOutcome<Drift>> {
    return this.#drift.acceptDrift(id, actor);
  }

  /** Revert: a change request that puts the object back, previewed and approved like any other. */
  revertDrift(id: string, actor: Actor, channel?: string): Promise<RevertOutcome> {
    return this.#drift.revertDrift(id, actor, channel);
  }

  /**
   * An Alarm Manager alarm (POST /webhooks/unifi): posted like the bot's own alerts unless the
   * poller already has an incident for the same device, or the same alarm came within the flap
   * window. A flood is grouped: ALERT_ALARMS_PER_MINUTE alarms a minute are posted one by one, the
   * rest are kept (the digest counts them) and summed up in one message once the minute closes;
   * ALERT_MENTION goes out once a burst.
   */
  receiveAlarm(alarm: Alarm): Promise<'posted' | 'grouped' | 'duplicate' | 'no_channel'> {
    return this.#alarms.receiveAlarm(alarm);
  }

  /**
   * Posts the summary of the alarms held back in a minute that has closed, once whichever replica
   * asks (its timer, or the watcher's poll); true when it posted one.
   */
  flushAlarms(): Promise<boolean> {
    return this.#alarms.flushAlarms();
  }

  /** The digest of the day before `at` [now], and its chart when there is traffic to draw. */
  digest(at = this.#now()): Promise<{ digest: Digest; chart?: DigestChart }> {
    return this.#digest.digest(at);
  }

  /** Posts the digest to `channel` [DIGEST_CHANNEL] now (`/net digest`, or the cron). */
  postDigest(channel = this.#o.config.digestChannel, at = this.#now()) {
    return this.#digest.postDigest(channel, at);
  }

  /** When the next digest is due after `from` (DIGEST_CRON in TZ). */
  nextDigestAt(from = this.#now()): number | undefined {
    return this.#digest.nextDigestAt(from);
  }
}

/** A random id for this replica when the store names none. */
export const randomHolder = () => `watch-${randomBytes(6).toString('hex')}`;
