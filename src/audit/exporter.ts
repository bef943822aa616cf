import type { Logger } from '../log.js';
import type { JournalFeed, KeyValueStore, LeaseStore } from '../store/types.js';
import { exportEventOf } from './export-event.js';
import type { ExportSink } from './sinks.js';

/** Where each sink is in the journal, and the replay last applied; kept in the store's data. */
interface ExportPlaces {
  places: Record<string, number>;
  replayFrom?: number;
}

export const EXPORT_PLACES_KEY = 'audit-export';
const LEASE_NAME = 'audit-export';
const LEASE_MS = 30_000;
const MAX_BACKOFF_MS = 60_000;

export interface AuditExporterOptions {
  feed: JournalFeed;
  data: KeyValueStore;
  /** Among replicas (PostgreSQL), one exports at a time; the file store has one process. */
  leases?: LeaseStore;
  replicaId: string;
  sinks: readonly ExportSink[];
  logger: Logger;
  /** Export again from this event on, once. */
  replayFrom?: number;
  intervalMs?: number;
  batchSize?: number;
}

/**
 * Copies the journal, in order and at least once, to each sink: read the events after the sink's
 * place, hand them over, and only then move the place (kept in the store, so a restart or another
 * replica carries on where it stopped). A sink that fails waits, doubling up to a minute, and then
 * gets the same events again; the others are not held up.
 */
export class AuditExporter {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private readonly retryAt = new Map<string, { at: number; backoffMs: number }>();

  constructor(private readonly options: AuditExporterOptions) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    await Promise.all(this.options.sinks.map((s) => s.close()));
    await this.options.leases?.release(LEASE_NAME, this.options.replicaId).catch(() => undefined);
  }

  /** One pass over the sinks; true when a sink had a full batch (more may be waiting). */
  async exportOnce(now = Date.now()): Promise<boolean> {
    const { leases, replicaId } = this.options;
    if (leases && !(await leases.acquire(LEASE_NAME, replicaId, LEASE_MS))) return false;
    const places = await this.places();
    let more = false;
    for (const sink of this.options.sinks) {
      const waiting = this.retryAt.get(sink.name);
      if (waiting && waiting.at > now) continue;
      more = (await this.exportTo(sink, places, now)) || more;
    }
    return more;
  }

  private async exportTo(sink: ExportSink, places: ExportPlaces, now: number): Promise<boolean> {
    const batchSize = this.options.batchSize ?? 200;
    const after = places.places[sink.name] ?? 0;
    try {
      const lines = await this.options.feed.read(after, batchSize);
      if (lines.length === 0) return false;
      await sink.send(lines.map(exportEventOf));
      const last = lines.at(-1)?.seq ?? after;
      places.places[sink.name] = last;
      await this.options.data.set(EXPORT_PLACES_KEY, places);
      if (this.retryAt.has(sink.name)) {
        this.options.logger.info({ sink: sink.name, seq: last }, 'audit export caught up after a failure');
      }
      this.retryAt.delete(sink.name);
      return lines.length === batchSize;
    } catch (error) {
      const backoffMs = Math.min(MAX_BACKOFF_MS, (this.retryAt.get(sink.name)?.backoffMs ?? 500) * 2);
      if (!this.retryAt.has(sink.name)) {
        this.options.logger.warn({ sink: sink.name, after, err: error }, 'audit export failed; trying again');
      }
      this.retryAt.set(sink.name, { at: now + backoffMs, backoffMs });
      return false;
    }
  }

  private async places(): Promise<ExportPlaces> {
    const kept = (await this.options.data.get<ExportPlaces>(EXPORT_PLACES_KEY)) ?? { places: {} };
    const places: ExportPlaces = {
      places: { ...(kept.places ?? {}) },
      ...(kept.replayFrom ? { replayFrom: kept.replayFrom } : {}),
    };
    const replay = this.options.replayFrom;
    if (replay !== undefined && places.replayFrom !== replay) {
      for (const sink of this.options.sinks)
        places.places[sink.name] = Math.min(places.places[sink.name] ?? 0, replay - 1);
      places.replayFrom = replay;
      await this.options.data.set(EXPORT_PLACES_KEY, places);
      this.options.logger.info({ from: replay }, 'audit export replays from this event on');
    }
    return places;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.exportOnce().then(
        (more) => this.schedule(more ? 0 : (this.options.intervalMs ?? 1000)),
        (error: unknown) => {
          // The lease or the store failed: the sinks' places did not move; try again.
          this.options.logger.warn({ err: error }, 'audit export could not read its place');
          this.schedule(this.options.intervalMs ?? 1000);
        },
      );
    }, delayMs);
    this.timer.unref();
  }
}
