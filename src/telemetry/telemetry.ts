import { z } from 'zod';
import { isBotError } from '../errors.js';
import type { Gateway } from '../gateway/types.js';
import type { Logger } from '../log.js';
import { clientDpiRecordSchema, siteDpiRecordSchema } from '../records/dpi-record.js';
import { numberish } from '../records/lenient.js';
import type { SampleStore } from '../store/samples.js';
import { type Coverage, coverage } from './coverage.js';
import { CounterSeries, type RatePoint, type SeriesOptions } from './series.js';

/** What is sampled: client and device byte counters, site DPI per application, and client DPI per application. */
export type SeriesKind = 'clients' | 'devices' | 'apps' | 'clientApps';

/** Keys of `clientApps`: `<client mac>|<cat>:<app>`; of `apps`: `<cat>:<app>`. */
export const clientAppKey = (mac: string, cat: unknown, app: unknown) => `${mac}|${cat}:${app}`;

/** Totals per key over a covered span. */
export interface WindowAnswer {
  coverage: Coverage;
  totals: Map<string, { rx: number; tx: number }>;
  /** Keys seen beyond the tracking cap in the latest sample (their traffic is not in `totals`). */
  untracked: number;
}

/** What tools read (`ToolContext.telemetry`); telemetry/ never sees a tool. */
export interface TelemetryReader {
  readonly intervalMs: number;
  /**
   * Totals of one kind over the last `windowMs` of samples (loading the store's samples of a site
   * first seen), or only for `keys`. A site not sampled before is sampled from the next tick on.
   */
  window(
    site: string,
    kind: SeriesKind,
    window: string,
    windowMs: number,
    keys?: ReadonlySet<string>,
  ): Promise<WindowAnswer>;
  /** Each key's rate (bytes per second) in every sample interval since `since`, oldest first. */
  rates(
    site: string,
    kind: SeriesKind,
    keys: readonly string[],
    since: number,
  ): Promise<Map<string, RatePoint[]>>;
  /** Bytes held in memory by the samples (typed arrays), over every site. */
  memoryBytes(): number;
  /** The samples of one console of a fleet (a tool run with `console=`); absent: one console only. */
  forConsole?(name: string): TelemetryReader;
}

export interface TelemetryOptions {
  gateway: Gateway;
  samples: SampleStore;
  logger: Logger;
  intervalMs: number;
  /** Sampled from the first tick; other sites once a tool asks about them. */
  defaultSite: string;
  /** Clock (ms since the epoch); tests drive ticks by hand with it. */
  now?: () => number;
  /** Sites sampled at most (each costs four reads a tick). */
  maxSites?: number;
  /** How far into each interval the ticks fall [0]: a fleet's consoles are spread over it. */
  offsetMs?: number;
}

// Only what a sample needs, parsed leniently: a record without a MAC is skipped, a bad counter is 0.
const clientCounters = z.object({
  mac: z.string().min(1),
  tx_bytes: numberish,
  rx_bytes: numberish,
  'wired-tx_bytes': numberish,
  'wired-rx_bytes': numberish,
});
const deviceCounters = z.object({ mac: z.string().min(1), tx_bytes: numberish, rx_bytes: numberish });

/** One tick of one site, as stored: key, cumulative rx, cumulative tx. */
interface SamplePayload {
  c: [string, number, number][];
  d: [string, number, number][];
  a: [string, number, number][];
  ca: [string, number, number][];
}

const HOUR = 3_600_000;

class SiteSeries {
  readonly series: Record<SeriesKind, CounterSeries>;
  lastSlot = -1;
  loaded = false;

  constructor(intervalMs: number) {
    // Recent frames cover an hour (the chart, 5 min and 1 h) plus two ticks of slack.
    const fine = HOUR + 2 * intervalMs;
    const make = (bucketDays: number, maxKeys: number): SeriesOptions => ({
      fineRetentionMs: fine,
      bucketMs: HOUR,
      bucketRetentionMs: bucketDays * 24 * HOUR + HOUR,
      maxKeys,
    });
    this.series = {
      clients: new CounterSeries(make(1, 100_000)),
      devices: new CounterSeries(make(1, 10_000)),
      // Site DPI is a few hundred applications: 30 days of hourly sums cost little.
      apps: new CounterSeries(make(30, 5_000)),
      // Client × application pairs grow fastest; beyond the cap they are not tracked (and said so).
      clientApps: new CounterSeries(make(1, 20_000)),
    };
  }

  ingest(at: number, payload: SamplePayload): void {
    this.series.clients.ingest(at, payload.c);
    this.series.devices.ingest(at, payload.d);
    this.series.apps.ingest(at, payload.a);
    this.series.clientApps.ingest(at, payload.ca);
  }
}

/**
 * Samples the live network while the bot runs (DESIGN §8): every interval, one replica reads the
 * controller's cumulative counters for each sampled site and stores the sample; every replica
 * ingests the samples in order into bounded in-memory series, from which windows are answered.
 * Work per tick is four reads and one pass over their records; ticks never overlap, and a tick
 * that fails is logged and skipped (the next one carries on).
 */
export class Telemetry implements TelemetryReader {
  readonly intervalMs: number;
  readonly #options: TelemetryOptions;
  readonly #now: () => number;
  readonly #sites = new Map<string, SiteSeries>();
  readonly #startedAt: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(options: TelemetryOptions) {
    this.#options = options;
    this.intervalMs = options.intervalMs;
    this.#now = options.now ?? Date.now;
    this.#startedAt = this.#now();
    this.#site(options.defaultSite);
  }

  /** Ticks on the interval's boundaries, the first one interval after start (a one-shot never samples). */
  start(): void {
    if (this.intervalMs <= 0 || this.#stopped) return;
    const schedule = () => {
      const now = this.#now();
      const offset = this.#options.offsetMs ?? 0;
      const next = (Math.floor((now - offset) / this.intervalMs) + 1) * this.intervalMs + offset;
      this.#timer = setTimeout(() => {
        this.#running = this.tick().finally(() => {
          this.#running = undefined;
          if (!this.#stopped) schedule();
        });
      }, next - now);
      this.#timer.unref();
    };
    this.#timer = setTimeout(schedule, this.intervalMs);
    this.#timer.unref();
  }

  /** Stops ticking and waits for a tick in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  /** One tick for every sampled site (tests call it with their clock). */
  async tick(): Promise<void> {
    const at = this.#now();
    const slot = Math.floor(at / this.intervalMs);
    for (const [site, state] of this.#sites) {
      try {
        await this.#load(site, state);
        if (slot <= state.lastSlot) continue;
        const { samples } = this.#options;
        if (await samples.claim(site, slot, slot * this.intervalMs)) {
          const payload = await this.#read(site);
          const stamped = slot * this.intervalMs;
          await samples.put(site, slot, stamped, JSON.stringify(payload));
          state.ingest(stamped, payload);
          state.lastSlot = slot;
          await samples.prune({
            site,
            before: stamped - HOUR - 2 * this.intervalMs,
            hourlyBefore: stamped - 31 * 24 * HOUR,
            intervalMs: this.intervalMs,
          });
        } else {
          // Another replica reads the controller for this tick; take what it stored.
          state.loaded = false;
          await this.#load(site, state);
        }
      } catch (error) {
        if (!isBotError(error)) this.#options.logger.error({ err: error, site }, 'telemetry tick failed');
        else this.#options.logger.warn({ site, reason: error.message }, 'telemetry: no sample this tick');
      }
    }
  }

  async window(
    site: string,
    kind: SeriesKind,
    window: string,
    windowMs: number,
    keys?: ReadonlySet<string>,
  ): Promise<WindowAnswer> {
    const state = this.#site(site);
    await this.#load(site, state);
    const series = state.series[kind];
    const span = series.totals(windowMs, keys);
    return {
      coverage: coverage(window, windowMs, span, {
        startedAt: this.#startedAt,
        firstAt: series.firstAt,
        intervalMs: this.intervalMs,
        now: this.#now(),
      }),
      totals: span.totals,
      untracked: series.untracked,
    };
  }

  async rates(
    site: string,
    kind: SeriesKind,
    keys: readonly string[],
    since: number,
  ): Promise<Map<string, RatePoint[]>> {
    const state = this.#site(site);
    await this.#load(site, state);
    return state.series[kind].rates(keys, since);
  }

  memoryBytes(): number {
    let bytes = 0;
    for (const state of this.#sites.values())
      for (const series of Object.values(state.series)) bytes += series.bytes();
    return bytes;
  }

  #site(site: string): SiteSeries {
    let state = this.#sites.get(site);
    if (!state) {
      state = new SiteSeries(this.intervalMs);
      if (this.#sites.size < (this.#options.maxSites ?? 8)) this.#sites.set(site, state);
    }
    return state;
  }

  // The store's samples newer than the latest ingested: at first use (a restart, or a replica that
  // joins), and on ticks another replica claimed.
  async #load(site: string, state: SiteSeries): Promise<void> {
    if (state.loaded) return;
    state.loaded = true;
    const rows = await this.#options.samples.since(site, state.lastSlot);
    for (const row of rows) {
      try {
        state.ingest(row.at, JSON.parse(row.payload) as SamplePayload);
        state.lastSlot = row.slot;
      } catch (error) {
        this.#options.logger.warn(
          { err: error, site, slot: row.slot },
          'telemetry: a stored sample is unreadable',
        );
      }
    }
  }

  async #read(site: string): Promise<SamplePayload> {
    const { gateway } = this.#options;
    const fresh = { fresh: true } as const;
    const [clients, devices, apps, clientApps] = await Promise.all([
      gateway.classicRead(site, 'stat/sta', clientCounters, fresh),
      gateway.classicRead(site, 'stat/device', deviceCounters, fresh),
      gateway.classicRead(site, 'stat/sitedpi', siteDpiRecordSchema, { ...fresh, body: { type: 'by_app' } }),
      gateway.classicRead(site, 'stat/stadpi', clientDpiRecordSchema, { ...fresh, body: { type: 'by_app' } }),
    ]);
    const mac = (value: string) => value.toLowerCase();
    return {
      c: clients.items.map((c) => [
        mac(c.mac),
        c.rx_bytes ?? c['wired-rx_bytes'] ?? 0,
        c.tx_bytes ?? c['wired-tx_bytes'] ?? 0,
      ]),
      d: devices.items.map((d) => [mac(d.mac), d.rx_bytes ?? 0, d.tx_bytes ?? 0]),
      a: apps.items.flatMap((r) =>
        r.by_app.map((row): [string, number, number] => [
          `${row.cat}:${row.app}`,
          row.rx_bytes ?? 0,
          row.tx_bytes ?? 0,
        ]),
      ),
      ca: clientApps.items.flatMap((r) =>
        r.by_app.map((row): [string, number, number] => [
          clientAppKey(mac(r.mac), row.cat, row.app),
          row.rx_bytes ?? 0,
          row.tx_bytes ?? 0,
        ]),
      ),
    };
  }
}
