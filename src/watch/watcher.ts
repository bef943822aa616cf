import { randomBytes } from 'node:crypto';
import { Cron } from 'croner';
import type { Approvals } from '../approvals/approvals.js';
import type { WatchConfig } from '../config.js';
import { isBotError, NotAuthorizedError } from '../errors.js';
import type { Gateway } from '../gateway/types.js';
import type { Logger } from '../log.js';
import type { Actor, ChangeRequest } from '../store/records.js';
import type { ChangeReader, KeyValueStore, LeaseStore } from '../store/types.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import { buildDigest, digestChart } from './digest.js';
import {
  compareSnapshots,
  generationChanges,
  kindsOfTool,
  readSnapshot,
  revertCall,
  type Shapes,
  type Snapshot,
  type Sources,
  shapeChanges,
} from './drift.js';
import { newIncidentId, pruneIncidents, trackConditions } from './incidents.js';
import { EMPTY_OBSERVED, type ObservedState, observeDevices, watchedDeviceSchema } from './observe.js';
import type {
  AlarmSummary,
  Digest,
  DigestChart,
  Drift,
  DriftKind,
  Incident,
  RecordOutcome,
  RevertOutcome,
  WatchNotifier,
} from './types.js';
import type { Alarm } from './webhook.js';

/** What the watcher is built from (app.ts wires it; tests pass short intervals and a clock). */
export interface WatcherOptions {
  config: WatchConfig;
  site: string;
  gateway: Gateway;
  data: KeyValueStore;
  changes: ChangeReader;
  /** Shared leases (PostgreSQL); without them this process is the only watcher. */
  leases?: LeaseStore;
  /** This replica, as the lease names it. */
  holder: string;
  notifier: WatchNotifier;
  logger: Logger;
  /** Proposes Reverts; without it (no Slack bot in this process) Revert is refused. */
  approvals?: Approvals;
  registry: ToolRegistry;
  context: ToolContext;
  now?: () => number;
}

/** The incidents and what the last poll saw, kept in the store so another replica carries on. */
interface WatchState {
  observed: ObservedState;
  incidents: Incident[];
}

/** The drift baseline: the last known configuration, and the bot's runs in flight at the last sweep. */
interface Baseline {
  takenAt: number;
  checkedAt: number;
  snapshot: Snapshot;
  /** Which generation each kind was read from (absent in baselines saved by older versions: private). */
  sources?: Sources;
  /** The kinds read in another shape than the list as served (absent: none). */
  shapes?: Shapes;
  inflight: string[];
}

const LEASE = 'watch';
const DAY = 24 * 3_600_000;
const stateKey = (site: string) => `watch:state:${site}`;
const baselineKey = (site: string) => `watch:baseline:${site}`;
const driftKey = (id: string) => `watch:drift:${id}`;
const ackKey = (id: string) => `watch:ack:${id}`;
const ALARM_PREFIX = 'watch:alarm:';
const DIGEST_KEY = 'watch:digest:last';
const alarmWindowKey = (site: string, channel: string) => `watch:alarm-window:${site}:${channel}`;
const ALARM_MINUTE = 60_000;
// What a minute's record keeps for its summary: a flood of any size leaves a record of bounded size.
const SUMMARY_NAMES = 8;
const SUMMARY_FIRST = 5;

/**
 * One channel's current minute of Alarm Manager alarms, kept in the store beside the alarms, so
 * every replica that takes a webhook counts against the same bound.
 */
interface AlarmWindow {
  /** The minute opened with its first alarm. */
  startedAt: number;
  lastAt: number;
  /** Alarms posted one by one in this minute. */
  posted: number;
  /**
   * Whether ALERT_MENTION went out in this burst: alarms less than a minute apart are one burst,
   * however many minutes it lasts.
   */
  mentioned: boolean;
  /** The alarms held back, for the summary: how many, by name and device, the first few. */
  held: number;
  kinds: Record<string, number>;
  devices: Record<string, number>;
  otherKinds: number;
  otherDevices: number;
  first: { subject: string; name?: string }[];
  /** Set once a replica took the summary of this minute to post (it is posted once). */
  summarized?: boolean;
}

function openWindow(at: number, burst?: AlarmWindow): AlarmWindow {
  return {
    startedAt: at,
    lastAt: at,
    posted: 0,
    mentioned: burst?.mentioned ?? false,
    held: 0,
    kinds: {},
    devices: {},
    otherKinds: 0,
    otherDevices: 0,
    first: [],
  };
}

/** Counts one held-back alarm in its minute's record. */
function holdAlarm(window: AlarmWindow, alarm: Alarm): void {
  window.held += 1;
  const count = (map: Record<string, number>, name: string) => {
    if (map[name] !== undefined || Object.keys(map).length < SUMMARY_NAMES) {
      map[name] = (map[name] ?? 0) + 1;
      return true;
    }
    return false;
  };
  if (!count(window.kinds, alarm.name ?? 'alarm')) window.otherKinds += 1;
  if (!count(window.devices, alarm.subject)) window.otherDevices += 1;
  if (window.first.length < SUMMARY_FIRST)
    window.first.push({ subject: alarm.subject, ...(alarm.name ? { name: alarm.name } : {}) });
}

function summaryOf(site: string, window: AlarmWindow): AlarmSummary {
  const ranked = (map: Record<string, number>, others: number, word: string) => {
    const list = Object.entries(map)
      .map(([name, count]) => ({ name, count }))
      .sort((a, b) => b.count - a.count);
    return others > 0 ? [...list, { name: word, count: others }] : list;
  };
  return {
    site,
    from: window.startedAt,
    to: window.startedAt + ALARM_MINUTE,
    count: window.held,
    posted: window.posted,
    kinds: ranked(window.kinds, window.otherKinds, 'other alarms'),
    devices: ranked(window.devices, window.otherDevices, 'other devices'),
    first: window.first,
  };
}

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
  #digestTimer: NodeJS.Timeout | undefined;
  #renewTimer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> = Promise.resolve();
  #digesting: Promise<unknown> = Promise.resolve();
  #stopped = false;
  #leader = false;
  // Alarms are counted one at a time in this process (a flood comes in at once); the count itself
  // is in the store, for the other replicas.
  #alarms: Promise<unknown> = Promise.resolve();
  #alarmFlushTimer: NodeJS.Timeout | undefined;
  #alarmFlushAt: number | undefined;

  constructor(options: WatcherOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
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
    if (config.alertChannel || config.digestChannel)
      every(
        0,
        pollMs,
        () => this.poll(),
        (t) => {
          this.#pollTimer = t;
        },
      );
    if (config.driftChannel)
      every(
        Math.min(pollMs, config.driftIntervalSeconds * 1000),
        config.driftIntervalSeconds * 1000,
        () => this.sweepDrift(),
        (t) => {
          this.#driftTimer = t;
        },
      );
    if (config.digestChannel) this.#scheduleDigest();
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
    clearTimeout(this.#digestTimer);
    clearInterval(this.#renewTimer);
    clearTimeout(this.#alarmFlushTimer);
    await this.#running.catch(() => undefined);
    await this.#alarms.catch(() => undefined);
    await this.#digesting.catch(() => undefined);
    if (this.#leader) await this.#o.leases?.release(LEASE, this.#o.holder).catch(() => undefined);
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
      this.#leader = await leases.acquire(LEASE, holder, ttl);
    } catch (error) {
      this.#leader = false;
      this.#o.logger.warn({ err: error }, 'watch: the lease could not be checked; not polling this tick');
    }
    if (this.#leader !== was)
      this.#o.logger.info(
        { holder },
        this.#leader ? 'watch: this replica is the watcher' : 'watch: another replica watches',
      );
    return this.#leader;
  }

  /** One poll: one `stat/device` read (shared with the read cache), incidents posted and edited. */
  async poll(): Promise<void> {
    if (!(await this.lead())) return;
    const { gateway, site, data, logger, config } = this.#o;
    let devices: Awaited<ReturnType<typeof readDevices>>;
    try {
      devices = await readDevices(gateway, site);
    } catch (error) {
      if (!isBotError(error)) throw error;
      logger.warn({ site, reason: error.message }, 'watch: devices could not be read this tick');
      return;
    }
    const at = this.#now();
    const state = (await data.get<WatchState>(stateKey(site))) ?? { observed: EMPTY_OBSERVED, incidents: [] };
    const { conditions, state: observed } = observeDevices(devices, state.observed);
    const incidents = pruneIncidents(state.incidents, at, DAY + config.flapSeconds * 1000);
    const { opened, updated } = trackConditions(incidents, conditions, site, at, config.flapSeconds * 1000);
    // Recorded before posting: a replica taking over mid-post never posts the same incident again.
    await data.set(stateKey(site), { observed, incidents });
    if (!config.alertChannel) return;
    // A minute of alarms whose replica stopped before summing it up is summed up here.
    await this.flushAlarms().catch((error: unknown) => {
      logger.warn({ err: error }, 'watch: the alarm summary could not be posted');
    });
    let posted = false;
    // Open incidents whose message could not be posted before (Slack down, or not ready at start)
    // are posted now, once Slack takes them.
    const owed = incidents.filter((i) => !i.message && i.resolvedAt === undefined && !opened.includes(i));
    for (const incident of [...opened, ...owed]) {
      const ref = await this.#o.notifier
        .postIncident(config.alertChannel, incident, config.alertMention)
        .catch((error: unknown) => {
          logger.warn({ err: error, incident: incident.id }, 'watch: the alert could not be posted');
          return undefined;
        });
      if (ref) {
        incident.message = ref;
        incident.mentioned = config.alertMention !== undefined;
        posted = true;
      }
    }
    // The messages are recorded before anything else: an Acknowledge clicked on one from now on is
    // shown by `acknowledge` itself. One clicked before (the alert is visible as soon as it is
    // posted) stored its ack first, so it is found just below and shown here.
    if (posted) await data.set(stateKey(site), { observed, incidents });
    const edit = (incident: Incident) =>
      this.#o.notifier.updateIncident(incident).catch((error: unknown) => {
        logger.warn({ err: error, incident: incident.id }, 'watch: the alert could not be edited');
      });
    for (const incident of [...opened, ...owed]) {
      if (!incident.message || updated.includes(incident)) continue;
      if ((await this.#withAck(incident)).acknowledgedBy) await edit(incident);
    }
    for (const incident of updated) {
      if (!incident.message) continue;
      await this.#withAck(incident);
      await edit(incident);
    }
  }

  async #withAck(incident: Incident): Promise<Incident> {
    const ack = await this.#o.data.get<{ actor: Actor; at: number }>(ackKey(incident.id));
    if (ack) {
      incident.acknowledgedBy = ack.actor;
      incident.acknowledgedAt = ack.at;
    }
    return incident;
  }

  /** Records who acknowledged an incident (any replica: the ack has a key of its own). */
  async acknowledge(id: string, actor: Actor): Promise<RecordOutcome<Incident>> {
    const { data, site } = this.#o;
    const find = async () => {
      const state = await data.get<WatchState>(stateKey(site));
      return state?.incidents.find((i) => i.id === id) ?? (await data.get<Incident>(`${ALARM_PREFIX}${id}`));
    };
    if (await data.get(ackKey(id))) {
      const incident = await find();
      return incident ? { kind: 'already', value: await this.#withAck(incident) } : { kind: 'not_found', id };
    }
    // The ack is stored before the incident is read: a poll that has just posted its alert records
    // the message and then looks for an ack, so one of the two edits the message, whatever the order.
    const at = this.#now();
    await data.set(ackKey(id), { actor, at });
    const incident = await find();
    if (!incident) {
      await data.delete(ackKey(id));
      return { kind: 'not_found', id };
    }
    incident.acknowledgedBy = actor;
    incident.acknowledgedAt = at;
    if (incident.message) await this.#o.notifier.updateIncident(incident);
    return { kind: 'done', value: incident };
  }

  /**
   * One configuration sweep: the baseline is taken the first time (nothing posted); afterwards each
   * object that differs and that the bot did not change is posted once, and becomes the baseline.
   */
  async sweepDrift(): Promise<Drift[]> {
    if (!(await this.lead())) return [];
    const { gateway, site, data, logger, config } = this.#o;
    const readAt = this.#now();
    const inflightNow = await this.#botRuns();
    const { snapshot: current, sources, shapes } = await readSnapshot(gateway, site, logger);
    const baseline = await data.get<Baseline>(baselineKey(site));
    if (!baseline) {
      await data.set(baselineKey(site), {
        takenAt: readAt,
        checkedAt: readAt,
        snapshot: current,
        sources,
        shapes,
        inflight: inflightNow.inflight,
      } satisfies Baseline);
      logger.info({ site, kinds: Object.keys(current) }, 'watch: drift baseline taken');
      return [];
    }
    // The bot's own changes since the last sweep (from the shared change store, so a change run by
    // another replica counts too), and runs in flight then or now: their kinds are rebased, not posted.
    const ours = await this.#botRuns(baseline.checkedAt - 60_000, baseline.inflight);
    const skip = new Set<DriftKind>(ours.kinds);
    // A kind now read from another generation (the console was upgraded, an API key added or
    // removed) has other ids: compared, every object would be "removed" and "added". Its baseline is
    // taken again, silently, and said once in the log.
    const regenerated = generationChanges(baseline.sources, sources);
    for (const { kind } of regenerated) skip.add(kind);
    if (regenerated.length > 0)
      logger.info(
        { site, kinds: regenerated },
        'watch: drift baseline taken again for kinds now read from another API generation',
      );
    // A kind now read in another shape (the official Wi-Fi details, where the baseline holds the
    // list) has fields its baseline lacks: taken again, silently, like a change of generation.
    const reshaped = shapeChanges(baseline.shapes, shapes, Object.keys(current) as DriftKind[]);
    const retaken = reshaped.changed.filter((kind) => !skip.has(kind));
    for (const kind of retaken) skip.add(kind);
    if (retaken.length > 0)
      logger.info(
        { site, kinds: retaken },
        'watch: drift baseline taken again for kinds now read in more detail',
      );
    const drifts = compareSnapshots(site, baseline.snapshot, current, readAt, skip, sources);
    await data.set(baselineKey(site), {
      takenAt: baseline.takenAt,
      checkedAt: readAt,
      snapshot: { ...baseline.snapshot, ...current },
      sources: { ...baseline.sources, ...sources },
      shapes: reshaped.shapes,
      inflight: inflightNow.inflight,
    } satisfies Baseline);
    for (const drift of drifts) {
      drift.changedBy = await this.#adminOf(drift);
      await data.set(driftKey(drift.id), drift);
      if (!config.driftChannel) continue;
      const ref = await this.#o.notifier.postDrift(config.driftChannel, drift).catch((error: unknown) => {
        logger.warn({ err: error, drift: drift.id }, 'watch: the drift message could not be posted');
        return undefined;
      });
      if (ref) {
        drift.message = ref;
        await data.set(driftKey(drift.id), drift);
      }
    }
    if (drifts.length > 0)
      logger.info({ site, drifts: drifts.length }, 'watch: configuration changed outside the bot');
    return drifts;
  }

  // The controller's admin log is not in the official API and the simulator has none: unknown.
  async #adminOf(_drift: Drift): Promise<string | undefined> {
    return undefined;
  }

  async #botRuns(
    since?: number,
    previouslyInflight: readonly string[] = [],
  ): Promise<{ kinds: DriftKind[]; inflight: string[] }> {
    const recent: ChangeRequest[] = await this.#o.changes.list({ limit: 100 });
    const inflight = recent.filter((r) => r.state === 'approved' || r.state === 'executing');
    const ours =
      since === undefined
        ? inflight
        : recent.filter(
            (r) =>
              r.state === 'approved' ||
              r.state === 'executing' ||
              previouslyInflight.includes(r.id) ||
              (r.decidedAt !== undefined && Date.parse(r.decidedAt) >= since && r.state !== 'cancelled'),
          );
    return {
      kinds: [...new Set(ours.flatMap((r) => kindsOfTool(r.tool)))],
      inflight: inflight.map((r) => r.id),
    };
  }

  async #drift(id: string): Promise<Drift | undefined> {
    return this.#o.data.get<Drift>(driftKey(id));
  }

  /** Accept: the change is known; who accepted is recorded and shown. */
  async acceptDrift(id: string, actor: Actor): Promise<RecordOutcome<Drift>> {
    const drift = await this.#drift(id);
    if (!drift) return { kind: 'not_found', id };
    if (drift.acceptedBy) return { kind: 'already', value: drift };
    // Accepting makes the change behind the bot the baseline: decided like its revert, by the gate.
    const approvals = this.#o.approvals;
    if (!approvals)
      throw new NotAuthorizedError('drift is accepted through the Slack bot, which decides who may');
    const allowed = await approvals.mayAcceptDrift(revertCall(drift), drift.site, actor);
    if (!allowed.ok) throw new NotAuthorizedError(allowed.reason);
    drift.acceptedBy = actor;
    drift.acceptedAt = this.#now();
    await this.#o.data.set(driftKey(id), drift);
    if (drift.message) await this.#o.notifier.updateDrift(drift);
    return { kind: 'done', value: drift };
  }

  /** Revert: a change request that puts the object back, previewed and approved like any other. */
  async revertDrift(id: string, actor: Actor, channel?: string): Promise<RevertOutcome> {
    const drift = await this.#drift(id);
    if (!drift) return { kind: 'not_found', id };
    if (drift.revertRequestId) return { kind: 'already', drift };
    const call = revertCall(drift);
    if (!call || !this.#o.approvals) {
      const reason = drift.revertUnavailable ?? 'change requests are made by the Slack bot';
      return { kind: 'unavailable', drift, reason };
    }
    const request = await this.#o.approvals.propose({
      action: 'revert_drift',
      tool: call.tool,
      args: call.args,
      requester: actor,
      ...((channel ?? drift.message?.channel) ? { channel: channel ?? drift.message?.channel } : {}),
    });
    drift.revertRequestId = request.id;
    drift.revertedBy = actor;
    await this.#o.data.set(driftKey(id), drift);
    if (drift.message) await this.#o.notifier.updateDrift(drift);
    return { kind: 'proposed', drift, request };
  }

  /**
   * An Alarm Manager alarm (POST /webhooks/unifi): posted like the bot's own alerts unless the
   * poller already has an incident for the same device, or the same alarm came within the flap
   * window. A flood is grouped: ALERT_ALARMS_PER_MINUTE alarms a minute are posted one by one, the
   * rest are kept (the digest counts them) and summed up in one message once the minute closes;
   * ALERT_MENTION goes out once a burst.
   */
  async receiveAlarm(alarm: Alarm): Promise<'posted' | 'grouped' | 'duplicate' | 'no_channel'> {
    const { config, logger } = this.#o;
    const taken = await this.#serially(() => this.#takeAlarm(alarm));
    if (taken.outcome !== 'take') return taken.outcome;
    const { incident, channel, summary } = taken;
    if (summary) await this.#postSummary(channel, summary);
    if (!taken.post) {
      this.#flushAlarmsAt(taken.closesAt);
      return 'grouped';
    }
    const mention = taken.mention ? config.alertMention : undefined;
    const ref = await this.#o.notifier.postIncident(channel, incident, mention);
    if (ref) {
      incident.message = ref;
      await this.#o.data.set(`${ALARM_PREFIX}${incident.id}`, incident);
    } else {
      logger.warn({ incident: incident.id }, 'watch: the alarm could not be posted');
    }
    return 'posted';
  }

  /** Runs one alarm's bookkeeping after the ones before it in this process. */
  #serially<T>(run: () => Promise<T>): Promise<T> {
    const next = this.#alarms.then(run, run);
    this.#alarms = next.catch(() => undefined);
    return next;
  }

  /**
   * The dedup, the alarm kept, and its place in the channel's minute: posted (with the mention when
   * it is the burst's first), or held for the summary. A minute that closed with alarms held is
   * handed back to be summed up, by whichever alarm, timer or poll finds it first.
   */
  async #takeAlarm(alarm: Alarm): Promise<
    | { outcome: 'duplicate' | 'no_channel' }
    | {
        outcome: 'take';
        incident: Incident;
        channel: string;
        post: boolean;
        mention: boolean;
        closesAt: number;
        summary?: AlarmSummary;
      }
  > {
    const { data, site, config } = this.#o;
    const at = this.#now();
    const flapMs = config.flapSeconds * 1000;
    const state = await data.get<WatchState>(stateKey(site));
    const mac = alarm.mac?.toLowerCase();
    if (mac) {
      const seen = state?.incidents.some(
        (i) => i.mac === mac && (i.resolvedAt === undefined || at - i.resolvedAt <= flapMs),
      );
      if (seen) return { outcome: 'duplicate' };
    }
    const keys = (await data.keys()).filter((k) => k.startsWith(ALARM_PREFIX));
    for (const key of keys) {
      const earlier = await data.get<Incident>(key);
      if (!earlier) continue;
      if (at - earlier.startedAt > DAY) {
        await data.delete(key);
        continue;
      }
      if (earlier.key === `alarm:${alarm.key}` && at - earlier.startedAt <= Math.max(flapMs, 60_000))
        return { outcome: 'duplicate' };
    }
    const incident: Incident = {
      id: newIncidentId(`alarm:${alarm.key}`, at),
      key: `alarm:${alarm.key}`,
      site,
      kind: 'alarm',
      subject: alarm.subject,
      ...(mac ? { mac } : {}),
      ...(alarm.detail ? { detail: alarm.detail } : {}),
      startedAt: at,
      resolvedAt: at,
      flaps: 0,
      event: true,
      source: 'webhook',
    };
    await data.set(`${ALARM_PREFIX}${incident.id}`, incident);
    const channel = config.alertChannel;
    if (!channel) return { outcome: 'no_channel' };
    const key = alarmWindowKey(site, channel);
    let window = await data.get<AlarmWindow>(key);
    let summary: AlarmSummary | undefined;
    if (window && at - window.startedAt >= ALARM_MINUTE) {
      if (window.held > 0 && !window.summarized) summary = summaryOf(site, window);
      window = openWindow(at, at - window.lastAt < ALARM_MINUTE ? window : undefined);
    }
    window ??= openWindow(at);
    const post = window.posted < config.alarmsPerMinute;
    const mention = post && !window.mentioned && config.alertMention !== undefined;
    if (post) window.posted += 1;
    else holdAlarm(window, alarm);
    if (mention) window.mentioned = true;
    window.lastAt = at;
    await data.set(key, window);
    return {
      outcome: 'take',
      incident,
      channel,
      post,
      mention,
      closesAt: window.startedAt + ALARM_MINUTE,
      ...(summary ? { summary } : {}),
    };
  }

  /**
   * Posts the summary of the alarms held back in a minute that has closed, once whichever replica
   * asks (its timer, or the watcher's poll); true when it posted one.
   */
  async flushAlarms(): Promise<boolean> {
    const { data, site, config } = this.#o;
    const channel = config.alertChannel;
    if (!channel) return false;
    const key = alarmWindowKey(site, channel);
    const found = await this.#serially(async () => {
      const window = await data.get<AlarmWindow>(key);
      if (!window || window.held === 0 || window.summarized) return undefined;
      if (this.#now() - window.startedAt < ALARM_MINUTE) return { closesAt: window.startedAt + ALARM_MINUTE };
      // Claimed before it is posted: another replica finding the same minute does not post it again.
      await data.set(key, { ...window, summarized: true } satisfies AlarmWindow);
      return { summary: summaryOf(site, window) };
    });
    if (found?.closesAt !== undefined) this.#flushAlarmsAt(found.closesAt);
    if (!found?.summary) return false;
    await this.#postSummary(channel, found.summary);
    return true;
  }

  async #postSummary(channel: string, summary: AlarmSummary): Promise<void> {
    const ref = await this.#o.notifier.postAlarmSummary(channel, summary).catch((error: unknown) => {
      this.#o.logger.warn({ err: error }, 'watch: the alarm summary could not be posted');
      return undefined;
    });
    if (ref) this.#o.logger.info({ held: summary.count }, 'watch: a flood of alarms summed up');
  }

  /** Sums up the minute when it closes (`at`, on the watcher's clock) if nothing else has by then. */
  #flushAlarmsAt(at: number): void {
    if (this.#stopped || this.#alarmFlushAt === at) return;
    clearTimeout(this.#alarmFlushTimer);
    this.#alarmFlushAt = at;
    this.#alarmFlushTimer = setTimeout(
      () => {
        this.#alarmFlushAt = undefined;
        void this.flushAlarms().catch((error: unknown) => {
          this.#o.logger.warn({ err: error }, 'watch: the alarm summary could not be posted');
        });
      },
      Math.max(0, at - this.#now()) + 50,
    );
    this.#alarmFlushTimer.unref();
  }

  /** The digest of the day before `at` [now], and its chart when there is traffic to draw. */
  async digest(at = this.#now()): Promise<{ digest: Digest; chart?: DigestChart }> {
    const { data, site, config, changes, registry, context, logger } = this.#o;
    const digest = await readDigest(
      {
        site,
        watchedSite: site,
        data,
        changes,
        registry,
        context,
        logger,
        ...(config.timeZone ? { timeZone: config.timeZone } : {}),
      },
      at,
    );
    const chart = await digestChart(digest, registry, context, logger);
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
    const { digestCron, timeZone } = this.#o.config;
    const cron = new Cron(digestCron, { paused: true, ...(timeZone ? { timezone: timeZone } : {}) });
    const next = cron.nextRun(new Date(from));
    cron.stop();
    return next?.getTime();
  }

  #scheduleDigest(): void {
    const due = this.nextDigestAt();
    if (due === undefined || this.#stopped) return;
    // Long waits in steps: a timer longer than 24.8 days overflows, and a clock change is caught.
    const wait = Math.min(Math.max(0, due - this.#now()), 3_600_000);
    this.#digestTimer = setTimeout(() => {
      if (this.#now() + 50 < due) return this.#scheduleDigest();
      // Beside the polls, not queued behind them nor they behind it: the digest's chart takes
      // seconds on a small machine (more on the first one), and alerts must not wait for it.
      this.#digesting = this.#fireDigest(due)
        .catch((error: unknown) => this.#o.logger.error({ err: error }, 'watch: the digest failed'))
        .finally(() => this.#scheduleDigest());
    }, wait);
    this.#digestTimer.unref();
  }

  // Posted by the watcher only, once per due time (a replica taking over never posts it twice).
  async #fireDigest(due: number): Promise<void> {
    if (!(await this.lead())) return;
    const last = await this.#o.data.get<number>(DIGEST_KEY);
    if (last !== undefined && last >= due) return;
    await this.#o.data.set(DIGEST_KEY, due);
    await this.postDigest(this.#o.config.digestChannel, this.#now());
    this.#o.logger.info({ due: new Date(due).toISOString() }, 'watch: digest posted');
  }
}

/**
 * The poll's one `stat/device` read, always from the controller (`fresh`): a poller that took the
 * read cache's answer would see a device up to its TTL (10 s) late. Its answer refreshes the cache
 * for `/net` reads, and it joins an identical read already in flight, so it is shared all the same.
 */
async function readDevices(gateway: Gateway, site: string) {
  return (await gateway.classicRead(site, 'stat/device', watchedDeviceSchema, { fresh: true })).items;
}

/** Where a digest is read from: what the watcher keeps in the store, and the tools it runs. */
export interface DigestReadOptions {
  site: string;
  /** The site the watcher polls (DEFAULT_SITE): incidents and drift are kept for it only. */
  watchedSite: string;
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
  const state = await o.data.get<WatchState>(stateKey(o.site));
  const drifts: Drift[] = [];
  const alarms: Incident[] = [];
  for (const key of await o.data.keys()) {
    if (key.startsWith('watch:drift:')) {
      const drift = await o.data.get<Drift>(key);
      if (drift && drift.site === o.site && at - drift.noticedAt <= DAY) drifts.push(drift);
    } else if (key.startsWith(ALARM_PREFIX)) {
      const alarm = await o.data.get<Incident>(key);
      if (alarm && alarm.site === o.site && at - alarm.startedAt <= DAY) alarms.push(alarm);
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
    context: o.context,
    logger: o.logger,
  });
  // Said, not left to guess: an empty incident list may only mean that nobody watched.
  if (o.site !== o.watchedSite)
    digest.notes.push(`incidents and drift are watched on ${o.watchedSite} only (DEFAULT_SITE)`);
  else if (!state)
    digest.notes.push(
      'no poll recorded yet: incidents are kept by the Slack bot when ALERT_CHANNEL or DIGEST_CHANNEL is set',
    );
  return digest;
}

/** A random id for this replica when the store names none. */
export const randomHolder = () => `watch-${randomBytes(6).toString('hex')}`;
