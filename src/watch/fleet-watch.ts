import type { Actor } from '../model/change-request.js';
import type { LeaseStore } from '../store/types.js';
import type { ConsolePort } from '../tools/core/context.js';
import {
  digestOfReading,
  digestScopeOf,
  type FleetDigest,
  type FleetReading,
  readFleetSites,
} from './fleet-digest.js';
import { type FleetDigestNotifier, FleetDigestWatch } from './fleet-digest-watch.js';
import type {
  Digest,
  DigestChart,
  Drift,
  Incident,
  RecordOutcome,
  RevertOutcome,
  WatchNotifier,
} from './types.js';
import type { WatcherOptions } from './watch-state.js';
import { Watcher } from './watcher.js';
import type { Alarm } from './webhook.js';

/**
 * Where in the interval a console's ticks fall: a hash of its name (FNV-1a), so every replica
 * gives a console the same second and fifty consoles do not all ask their controllers at once.
 */
export function staggerOffset(name: string, intervalMs: number): number {
  if (intervalMs <= 0) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % Math.floor(intervalMs);
}

/** What a fleet's watcher is built from: a watcher's options, for every console instead of one. */
export interface FleetWatcherOptions
  extends Omit<
    WatcherOptions,
    'site' | 'console' | 'gateway' | 'leases' | 'leaseName' | 'offsetMs' | 'notifier' | 'ownDigest'
  > {
  consoles: ConsolePort;
  /** Watched on a console whose entry names no sites (DEFAULT_SITE). */
  defaultSite: string;
  /** One lease per console (PostgreSQL); without them this process watches every console. */
  leases?: LeaseStore;
  /** The named leases (PostgreSQL) the fleet digest's due time is claimed under; unset: one process. */
  digestLeases?: LeaseStore;
  notifier: WatchNotifier & FleetDigestNotifier;
}

/** One watched site of one console. */
export interface WatchedSite {
  console: string;
  site: string;
  watcher: Watcher;
}

/**
 * Watches every console of a fleet: one watcher per console and site, each console held by one
 * replica at a time through its own lease (so a dead replica's consoles go to the others, one by
 * one, as their leases run out), and each console's polls at its own offset in the interval.
 * Clicks and webhooks reach the watcher of the console they are about.
 */
export class FleetWatcher {
  readonly sites: readonly WatchedSite[];
  readonly #digest: FleetDigestWatch;
  readonly #digestChannel: string | undefined;
  readonly #read: (at: number) => Promise<FleetReading>;
  readonly #now: (() => number) | undefined;

  constructor(options: FleetWatcherOptions) {
    const { consoles, defaultSite, leases, digestLeases, ...common } = options;
    const pollMs = common.config.intervalSeconds * 1000;
    this.sites = consoles.list().flatMap((entry) =>
      (entry.sites ?? [defaultSite]).map((site) => {
        const watcherOptions: WatcherOptions = {
          ...common,
          site,
          console: entry.name,
          // Read at each use: the fleet may close an idle console's gateway and build it again.
          get gateway() {
            return consoles.gateway(entry.name);
          },
          ...(leases ? { leases, leaseName: entry.name } : {}),
          offsetMs: staggerOffset(entry.name, pollMs),
          // The fleet posts one digest for all its sites (below), not one per site.
          ownDigest: false,
          logger: common.logger.child({ console: entry.name }),
        };
        return { console: entry.name, site, watcher: new Watcher(watcherOptions) };
      }),
    );
    if (this.sites.length === 0) throw new Error('a fleet watcher needs a console');
    const { config, data, changes, registry, context, logger, holder, notifier } = common;
    this.#digestChannel = config.digestChannel;
    this.#now = common.now;
    const sites = this.sites.map(({ console, site }) => ({ console, site }));
    this.#read = (at) =>
      readFleetSites(
        {
          sites,
          data,
          changes,
          registry,
          context,
          logger,
          timeoutMs: consoles.readBudgetMs,
          ...(config.timeZone ? { timeZone: config.timeZone } : {}),
        },
        at,
      );
    this.#digest = new FleetDigestWatch({
      config,
      data,
      ...(digestLeases ? { leases: digestLeases } : {}),
      holder,
      notifier,
      logger,
      ...(common.now ? { now: common.now } : {}),
      read: this.#read,
      // Asked at each due time and each `/net digest`, from the consoles the fleet serves.
      bound: () =>
        (consoles.boundChannels?.() ?? []).flatMap((channel) => {
          const scope = consoles.channel(channel);
          return scope ? [{ channel, scope: digestScopeOf(scope) }] : [];
        }),
    });
  }

  get #first(): Watcher {
    const [first] = this.sites;
    if (!first) throw new Error('a fleet watcher needs a console');
    return first.watcher;
  }

  /** Whether this replica watches any console now. */
  get leader(): boolean {
    return this.sites.some((each) => each.watcher.leader);
  }

  /** The consoles this replica held at their last tick. */
  led(): string[] {
    return [...new Set(this.sites.filter((each) => each.watcher.leader).map((each) => each.console))];
  }

  start(): void {
    for (const each of this.sites) each.watcher.start();
    // DIGEST_CHANNEL turns the digests on: the fleet's, and with it each bound channel's.
    if (this.#digestChannel) this.#digest.schedule();
  }

  async stop(): Promise<void> {
    await Promise.all([this.#digest.stop(), ...this.sites.map((each) => each.watcher.stop())]);
  }

  /** Polls every console now, in turn (tests and the bench drive ticks by hand). */
  async poll(): Promise<void> {
    for (const each of this.sites) await each.watcher.poll();
  }

  async sweepDrift(): Promise<Drift[]> {
    const found: Drift[] = [];
    for (const each of this.sites) found.push(...(await each.watcher.sweepDrift()));
    return found;
  }

  /** The incident is kept by the watcher of its console and site: the first that knows it records the ack. */
  async acknowledge(id: string, actor: Actor): Promise<RecordOutcome<Incident>> {
    for (const each of this.sites) {
      if (await each.watcher.knowsIncident(id)) return each.watcher.acknowledge(id, actor);
    }
    return { kind: 'not_found', id };
  }

  // Deliberately alike: the fleet hands the drift, alarm and digest calls to the first console's watcher, signature for signature.
  // A drift is kept under its own id, with its console: any watcher finds it, and its Revert names the console.
  acceptDrift(id: string, actor: Actor): Promise<RecordOutcome<Drift>> {
    return this.#first.acceptDrift(id, actor);
  }

  revertDrift(id: string, actor: Actor, channel?: string): Promise<RevertOutcome> {
    return this.#first.revertDrift(id, actor, channel);
  }

  /**
   * Alarm Manager's webhook does not say which console sent it: alarms are kept on the first
   * console's watcher, as before a fleet.
   */
  receiveAlarm(alarm: Alarm): Promise<'posted' | 'grouped' | 'duplicate' | 'no_channel'> {
    return this.#first.receiveAlarm(alarm);
  }

  flushAlarms(): Promise<boolean> {
    return this.#first.flushAlarms();
  }

  digest(at?: number): Promise<{ digest: Digest; chart?: DigestChart }> {
    return this.#first.digest(at);
  }

  /** The fleet digest of the day before `at` [now]: every site summed up in one message. */
  async fleetDigest(at = (this.#now ?? Date.now)()): Promise<FleetDigest> {
    return digestOfReading(await this.#read(at));
  }

  /** `/net digest`, and the cron: the fleet digest, one message for every console and site (a bound channel's, of its scope). */
  async postDigest(channel = this.#digestChannel, at?: number): Promise<FleetDigest> {
    if (!channel) throw new Error('no channel for the digest');
    return this.#digest.post(channel, at);
  }

  /** Posts the digest due at `due` unless a replica (or this one, before a restart) did; true when posted. */
  fireDigest(due: number): Promise<boolean> {
    return this.#digest.fire(due);
  }

  nextDigestAt(from?: number): number | undefined {
    return this.#digest.nextDigestAt(from);
  }
}
