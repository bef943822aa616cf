import { describe, expect, it } from 'vitest';
import type { ExportEvent } from '../../src/audit/export-event.js';
import { AuditExporter, EXPORT_PLACES_KEY } from '../../src/audit/exporter.js';
import { AuditExportError, type ExportSink } from '../../src/audit/sinks.js';
import { createLogger } from '../../src/log.js';
import type { JournalFeed, JournalLine, KeyValueStore, LeaseStore } from '../../src/store/types.js';
import { journalLines } from './journal-lines.js';

const logger = createLogger('silent');

class MemoryData implements KeyValueStore {
  readonly values = new Map<string, unknown>();
  async get<T>(key: string) {
    return structuredClone(this.values.get(key)) as T | undefined;
  }
  async set(key: string, value: unknown) {
    this.values.set(key, structuredClone(value));
  }
  async delete(key: string) {
    this.values.delete(key);
  }
  async keys(prefix = '') {
    return [...this.values.keys()].filter((key) => key.startsWith(prefix));
  }
}

function feedOf(lines: JournalLine[]): JournalFeed {
  return { read: async (after, limit) => lines.filter((l) => l.seq > after).slice(0, limit) };
}

/** A sink that records what it took, and refuses while `down`. */
class RecordingSink implements ExportSink {
  readonly took: ExportEvent[][] = [];
  down = false;
  constructor(readonly name: string) {}
  async send(events: readonly ExportEvent[]) {
    if (this.down) throw new AuditExportError(`${this.name} is down`);
    this.took.push([...events]);
  }
  async close() {}
}

const seqs = (sink: RecordingSink) => sink.took.flat().map((e) => e.seq);

function exporter(
  lines: JournalLine[],
  sinks: ExportSink[],
  more: { data?: MemoryData; replayFrom?: number; leases?: LeaseStore } = {},
) {
  const data = more.data ?? new MemoryData();
  const built = new AuditExporter({
    feed: feedOf(lines),
    data,
    replicaId: 'r1',
    sinks,
    logger,
    batchSize: 4,
    ...(more.replayFrom !== undefined ? { replayFrom: more.replayFrom } : {}),
    ...(more.leases ? { leases: more.leases } : {}),
  });
  return { built, data };
}

describe('the audit exporter', () => {
  it('hands each sink every event in order, a batch at a time, and keeps its place in the store', async () => {
    const sink = new RecordingSink('syslog');
    const { built, data } = exporter(journalLines(10), [sink]);
    expect(await built.exportOnce(0)).toBe(true);
    expect(await built.exportOnce(0)).toBe(true);
    expect(await built.exportOnce(0)).toBe(false);
    expect(await built.exportOnce(0)).toBe(false);
    expect(sink.took.map((b) => b.length)).toEqual([4, 4, 2]);
    expect(seqs(sink)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(await data.get(EXPORT_PLACES_KEY)).toEqual({ places: { syslog: 10 } });
  });

  it('keeps its place while a sink is down, backs off, and sends the same events again; the other sink goes on', async () => {
    const syslog = new RecordingSink('syslog');
    const webhook = new RecordingSink('webhook');
    const { built, data } = exporter(journalLines(3), [syslog, webhook]);
    syslog.down = true;
    await built.exportOnce(0);
    expect(seqs(webhook)).toEqual([1, 2, 3]);
    expect(await data.get(EXPORT_PLACES_KEY)).toEqual({ places: { webhook: 3 } });
    syslog.down = false;
    // Backing off: a pass before the wait is over leaves the sink alone.
    await built.exportOnce(500);
    expect(syslog.took).toEqual([]);
    await built.exportOnce(1000);
    expect(seqs(syslog)).toEqual([1, 2, 3]);
    expect(await data.get(EXPORT_PLACES_KEY)).toEqual({ places: { webhook: 3, syslog: 3 } });
  });

  it('carries on from the place kept in the store after a restart', async () => {
    const lines = journalLines(6);
    const first = new RecordingSink('syslog');
    const { built, data } = exporter(lines.slice(0, 4), [first]);
    await built.exportOnce(0);
    const second = new RecordingSink('syslog');
    await exporter(lines, [second], { data }).built.exportOnce(0);
    expect(seqs(second)).toEqual([5, 6]);
  });

  it('replays from an event once, and not again after the next restart', async () => {
    const lines = journalLines(6);
    const data = new MemoryData();
    await exporter(lines, [new RecordingSink('syslog')], { data }).built.exportOnce(0);
    await exporter(lines, [new RecordingSink('syslog')], { data }).built.exportOnce(0);
    const replayed = new RecordingSink('syslog');
    await exporter(lines, [replayed], { data, replayFrom: 3 }).built.exportOnce(0);
    expect(seqs(replayed)).toEqual([3, 4, 5, 6]);
    const restarted = new RecordingSink('syslog');
    await exporter(lines, [restarted], { data, replayFrom: 3 }).built.exportOnce(0);
    expect(seqs(restarted)).toEqual([]);
  });

  it('sends nothing on a replica that does not hold the export lease', async () => {
    const sink = new RecordingSink('syslog');
    const leases: LeaseStore = { acquire: async () => false, release: async () => {} };
    await exporter(journalLines(2), [sink], { leases }).built.exportOnce(0);
    expect(sink.took).toEqual([]);
  });
});
