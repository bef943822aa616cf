import { newIncidentId } from './incidents.js';
import type { AlarmSummary, Incident } from './types.js';
import { ALARM_PREFIX, DAY, scopeOf, stateKey, type WatcherOptions, type WatchState } from './watch-state.js';
import type { Alarm } from './webhook.js';

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

function summaryOf(where: { site: string; console?: string }, window: AlarmWindow): AlarmSummary {
  const ranked = (map: Record<string, number>, others: number, word: string) => {
    const list = Object.entries(map)
      .map(([name, count]) => ({ name, count }))
      .sort((a, b) => b.count - a.count);
    return others > 0 ? [...list, { name: word, count: others }] : list;
  };
  return {
    site: where.site,
    ...(where.console !== undefined ? { console: where.console } : {}),
    from: window.startedAt,
    to: window.startedAt + ALARM_MINUTE,
    count: window.held,
    posted: window.posted,
    kinds: ranked(window.kinds, window.otherKinds, 'other alarms'),
    devices: ranked(window.devices, window.otherDevices, 'other devices'),
    first: window.first,
  };
}

/** Alarm Manager alarms from the webhook: deduplicated against the poller's incidents, a flood grouped by the minute. */
export class AlarmWatch {
  readonly #o: WatcherOptions;
  readonly #now: () => number;
  readonly #stopped: () => boolean;
  // Alarms are counted one at a time in this process (a flood comes in at once); the count itself
  // is in the store, for the other replicas.
  #alarms: Promise<unknown> = Promise.resolve();
  #alarmFlushTimer: NodeJS.Timeout | undefined;
  #alarmFlushAt: number | undefined;

  // Deliberately alike: each watcher part (alarms, digest) owns its timer and queue; what they share is field wiring.
  constructor(options: WatcherOptions, now: () => number, stopped: () => boolean) {
    this.#o = options;
    this.#now = now;
    this.#stopped = stopped;
  }

  /** Drops the timer that would sum up the current minute. */
  stopTimer(): void {
    clearTimeout(this.#alarmFlushTimer);
  }

  /** Resolves once the alarms taken so far are counted. */
  async idle(): Promise<void> {
    await this.#alarms.catch(() => undefined);
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
    const state = await data.get<WatchState>(stateKey(scopeOf(this.#o)));
    const mac = alarm.mac?.toLowerCase();
    if (mac) {
      const seen = state?.incidents.some(
        (i) => i.mac === mac && (i.resolvedAt === undefined || at - i.resolvedAt <= flapMs),
      );
      if (seen) return { outcome: 'duplicate' };
    }
    const keys = await data.keys(ALARM_PREFIX);
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
      ...(this.#o.console !== undefined ? { console: this.#o.console } : {}),
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
    const key = alarmWindowKey(scopeOf(this.#o), channel);
    let window = await data.get<AlarmWindow>(key);
    let summary: AlarmSummary | undefined;
    if (window && at - window.startedAt >= ALARM_MINUTE) {
      if (window.held > 0 && !window.summarized) summary = summaryOf(this.#o, window);
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
    const { data, config } = this.#o;
    const channel = config.alertChannel;
    if (!channel) return false;
    const key = alarmWindowKey(scopeOf(this.#o), channel);
    const found = await this.#serially(async () => {
      const window = await data.get<AlarmWindow>(key);
      if (!window || window.held === 0 || window.summarized) return undefined;
      if (this.#now() - window.startedAt < ALARM_MINUTE) return { closesAt: window.startedAt + ALARM_MINUTE };
      // Claimed before it is posted: another replica finding the same minute does not post it again.
      await data.set(key, { ...window, summarized: true } satisfies AlarmWindow);
      return { summary: summaryOf(this.#o, window) };
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
    if (this.#stopped() || this.#alarmFlushAt === at) return;
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
}
