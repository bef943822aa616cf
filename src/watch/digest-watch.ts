import { Cron } from 'croner';
import type { Logger } from '../log.js';
import type { ChangeReader, KeyValueStore } from '../store/types.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import { buildDigest, digestChart } from './digest.js';
import { EMPTY_OBSERVED } from './observe.js';
import type { Digest, DigestChart, Drift, Incident } from './types.js';
import { ALARM_PREFIX, DAY, scopeOf, stateKey, type WatcherOptions, type WatchState } from './watch-state.js';

const DIGEST_KEY = 'watch:digest:last';
/** A site's last due time, under its console in a fleet (whose sites' cron is off: see FleetWatcher). */
const digestKey = (o: WatcherOptions) =>
  o.console === undefined ? DIGEST_KEY : `${DIGEST_KEY}:${scopeOf(o)}`;

/** When a digest is next due after `from`: DIGEST_CRON read in TZ. */
export function nextDigestDue(
  config: { digestCron: string; timeZone?: string | undefined },
  from: number,
): number | undefined {
  const cron = new Cron(config.digestCron, {
    paused: true,
    ...(config.timeZone ? { timezone: config.timeZone } : {}),
  });
  const next = cron.nextRun(new Date(from));
  cron.stop();
  return next?.getTime();
}

/** The day's digest: read from the store, posted on DIGEST_CRON by the replica holding the lease. */
export class DigestWatch {
  readonly #o: WatcherOptions;
  readonly #now: () => number;
  readonly #lead: () => Promise<boolean>;
  readonly #stopped: () => boolean;
  #digestTimer: NodeJS.Timeout | undefined;
  #digesting: Promise<unknown> = Promise.resolve();

  constructor(
    options: WatcherOptions,
    now: () => number,
    lead: () => Promise<boolean>,
    stopped: () => boolean,
  ) {
    this.#o = options;
    this.#now = now;
    this.#lead = lead;
    this.#stopped = stopped;
  }

  stopTimer(): void {
    clearTimeout(this.#digestTimer);
  }

  /** Resolves once a digest being posted is done. */
  async idle(): Promise<void> {
    await this.#digesting.catch(() => undefined);
  }

  /** The digest of the day before `at` [now], and its chart when there is traffic to draw. */
  async digest(at = this.#now()): Promise<{ digest: Digest; chart?: DigestChart }> {
    const { data, site, config, changes, registry, context, logger, console } = this.#o;
    const digest = await readDigest(
      {
        site,
        watchedSite: site,
        ...(console !== undefined ? { console } : {}),
        data,
        changes,
        registry,
        context,
        logger,
        ...(config.timeZone ? { timeZone: config.timeZone } : {}),
      },
      at,
    );
    const chart = await digestChart(digest, registry, onConsole(context, console), logger);
    return { digest, ...(chart ? { chart } : {}) };
  }

  /** Posts the digest to `channel` [DIGEST_CHANNEL] now (`/net digest`, or the cron). */
  async postDigest(channel = this.#o.config.digestChannel, at = this.#now()) {
    if (!channel) throw new Error('no channel for the digest');
    const { digest, chart } = await this.digest(at);
    const ref = await this.#o.notifier.postDigest(channel, digest, chart);
    return { digest, ...(chart ? { chart } : {}), ...(ref ? { message: ref } : {}) };
  }

  /** When the next digest is due after `from` (DIGEST_CRON in TZ). */
  nextDigestAt(from = this.#now()): number | undefined {
    return nextDigestDue(this.#o.config, from);
  }

  /** Sets the timer for the next digest due (DIGEST_CRON), and the one after once it fired. */
  schedule(): void {
    const due = this.nextDigestAt();
    if (due === undefined || this.#stopped()) return;
    // Long waits in steps: a timer longer than 24.8 days overflows, and a clock change is caught.
    const wait = Math.min(Math.max(0, due - this.#now()), 3_600_000);
    this.#digestTimer = setTimeout(() => {
      if (this.#now() + 50 < due) return this.schedule();
      // Beside the polls, not queued behind them nor they behind it: the digest's chart takes
      // seconds on a small machine (more on the first one), and alerts must not wait for it.
      this.#digesting = this.#fireDigest(due)
        .catch((error: unknown) => this.#o.logger.error({ err: error }, 'watch: the digest failed'))
        .finally(() => this.schedule());
    }, wait);
    this.#digestTimer.unref();
  }

  // Posted by the watcher only, once per due time (a replica taking over never posts it twice).
  async #fireDigest(due: number): Promise<void> {
    if (!(await this.#lead())) return;
    const last = await this.#o.data.get<number>(digestKey(this.#o));
    if (last !== undefined && last >= due) return;
    await this.#o.data.set(digestKey(this.#o), due);
    await this.postDigest(this.#o.config.digestChannel, this.#now());
    this.#o.logger.info({ due: new Date(due).toISOString() }, 'watch: digest posted');
  }
}

/** Where a digest is read from: what the watcher keeps in the store, and the tools it runs. */
export interface DigestReadOptions {
  site: string;
  /** The site the watcher polls (DEFAULT_SITE): incidents and drift are kept for it only. */
  watchedSite: string;
  /** The console of a fleet whose site it is; unset: the one GATEWAY_* console. */
  console?: string;
  data: KeyValueStore;
  changes: ChangeReader;
  registry: ToolRegistry;
  context: ToolContext;
  logger: Logger;
  timeZone?: string;
}

/**
 * The digest of the day before `at`, from the store alone: the watcher posts it, and any process on
 * the same store (a console beside the bot, an MCP client) reads it with `get_digest`. Reads only.
 */
export async function readDigest(o: DigestReadOptions, at: number): Promise<Digest> {
  const state = await o.data.get<WatchState>(stateKey(scopeOf(o)));
  const drifts: Drift[] = [];
  const alarms: Incident[] = [];
  // Drifts and alarms are kept under watch: keys; one read of those keys finds both.
  for (const key of await o.data.keys('watch:')) {
    if (key.startsWith('watch:drift:')) {
      const drift = await o.data.get<Drift>(key);
      if (drift && drift.site === o.site && drift.console === o.console && at - drift.noticedAt <= DAY)
        drifts.push(drift);
    } else if (key.startsWith(ALARM_PREFIX)) {
      const alarm = await o.data.get<Incident>(key);
      if (alarm && alarm.site === o.site && alarm.console === o.console && at - alarm.startedAt <= DAY)
        alarms.push(alarm);
    }
  }
  const digest = await buildDigest({
    site: o.site,
    at,
    ...(o.timeZone ? { timeZone: o.timeZone } : {}),
    changes: o.changes,
    incidents: [...(state?.incidents ?? []), ...alarms],
    observed: state?.observed ?? EMPTY_OBSERVED,
    drifts,
    registry: o.registry,
    context: onConsole(o.context, o.console),
    logger: o.logger,
  });
  if (o.console !== undefined) digest.console = o.console;
  // Said, not left to guess: an empty incident list may only mean that nobody watched.
  if (o.site !== o.watchedSite)
    digest.notes.push(`incidents and drift are watched on ${o.watchedSite} only (DEFAULT_SITE)`);
  else if (!state)
    digest.notes.push(
      'no poll recorded yet: incidents are kept by the Slack bot when ALERT_CHANNEL or DIGEST_CHANNEL is set',
    );
  return digest;
}

/** The tools' context on a fleet's console: the registry runs its reads there. */
function onConsole(context: ToolContext, console: string | undefined): ToolContext {
  return console === undefined ? context : { ...context, console };
}
