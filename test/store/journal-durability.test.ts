import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/errors.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { FileStore } from '../../src/store/file/file-store.js';
import {
  Journal,
  type JournalFs,
  JournalIntegrityError,
  journalReport,
  verifyJournal,
} from '../../src/store/file/journal.js';
import { ALEX, RITA, tempDataDir } from '../approvals/harness.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { catching } from '../helpers/catching.js';
import { faultyFs } from '../helpers/faulty-fs.js';
import { sampleRequest } from './contract.js';

let data: ReturnType<typeof tempDataDir>;
const stores: FileStore[] = [];

beforeEach(() => {
  data = tempDataDir();
});
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  data.remove();
});

const T0 = Date.parse('2030-01-01T00:00:00.000Z');

function open(options: ConstructorParameters<typeof FileStore>[1] = {}): FileStore {
  const store = new FileStore(data.dir, { data: new MemoryStore(), ...options });
  stores.push(store);
  return store;
}

async function close(store: FileStore): Promise<void> {
  await store.close();
  stores.splice(stores.indexOf(store), 1);
}

/** Two requests: one cancelled, one still pending. Returns the pending one's id. */
async function twoRequests(store: FileStore): Promise<string> {
  const changes = store.changes();
  const done = await changes.create(sampleRequest(), RITA, T0);
  await changes.transition(
    done.id,
    { type: 'cancelled', id: done.id, actor: RITA },
    { from: ['pending'], at: T0 + 1000, live: true },
  );
  const pending = await changes.create(sampleRequest({ createdS: 2 }), RITA, T0 + 2000);
  return pending.id;
}

const tornFiles = () => readdirSync(data.dir).filter((name) => name.startsWith('approvals.jsonl.torn-'));

describe('a torn last line at start', () => {
  it('is moved to approvals.jsonl.torn-<time> with a warning; the chain stays intact and pending requests pending', async () => {
    const pending = await twoRequests(open());
    await close(stores[0] as FileStore);
    const before = readFileSync(data.journal, 'utf8');
    appendFileSync(data.journal, '{"seq":4,"at":"2030-01-01T00:00:03.000Z","prev":"ab');
    const logger = captureLogger();

    const store = open({ logger: logger.logger });
    const head = await store.changes().journalHead();

    expect(head.count).toBe(3);
    expect((await store.changes().get(pending))?.state).toBe('pending');
    expect(readFileSync(data.journal, 'utf8')).toBe(before);
    expect(tornFiles()).toHaveLength(1);
    expect(readFileSync(join(data.dir, tornFiles()[0] ?? ''), 'utf8')).toBe(
      '{"seq":4,"at":"2030-01-01T00:00:03.000Z","prev":"ab',
    );
    const warning = logger.lines().find((l) => l.level === 40);
    expect(warning?.msg).toMatch(/line 4 was torn \(the line is incomplete \(no line end\)/);
    expect(warning).toMatchObject({ line: 4, bytes: 51 });
    expect(journalReport(data.dir)).toMatchObject({ exitCode: 0 });
    const next = await store
      .changes()
      .transition(
        pending,
        { type: 'cancelled', id: pending, actor: RITA },
        { from: ['pending'], at: T0 + 5000, live: true },
      );
    expect(next?.state).toBe('cancelled');
    expect(verifyJournal(data.journal)).toMatchObject({ ok: true, events: 4 });
  });

  it('also when the last line ends but is not JSON (a crash can leave zeros where a line was going)', async () => {
    const pending = await twoRequests(open());
    await close(stores[0] as FileStore);
    appendFileSync(data.journal, `${'\u0000'.repeat(40)}\n`);

    const store = open();

    expect((await store.changes().get(pending))?.state).toBe('pending');
    expect(readFileSync(join(data.dir, tornFiles()[0] ?? ''), 'utf8')).toBe(`${'\u0000'.repeat(40)}\n`);
    expect(verifyJournal(data.journal)).toMatchObject({ ok: true, events: 3 });
  });

  it('is reported by audit:verify beside an OK verdict before the bot moves it', async () => {
    await twoRequests(open());
    await close(stores[0] as FileStore);
    appendFileSync(data.journal, '{"seq":4');

    const report = journalReport(data.dir);

    expect(report.exitCode).toBe(0);
    expect(report.line).toMatch(
      /^journal OK: 3 events, chain verified; line 4 is torn \(the line is incomplete \(no line end\): a write was cut short\), and the bot moves it aside at its next start/,
    );
  });

  it('still stops the start when a line other than the last is damaged, naming it, and moves nothing', async () => {
    await twoRequests(open());
    await close(stores[0] as FileStore);
    const lines = readFileSync(data.journal, 'utf8').split('\n');
    lines[1] = '{"seq":2,"at":';
    writeFileSync(data.journal, `${lines.join('\n')}{"seq":4`);
    const damaged = readFileSync(data.journal, 'utf8');

    const error = catching(() => open().changes());

    expect(error).toBeInstanceOf(JournalIntegrityError);
    expect((error as JournalIntegrityError).line).toBe(2);
    expect(readFileSync(data.journal, 'utf8')).toBe(damaged);
    expect(tornFiles()).toEqual([]);
  });

  it('still stops the start when the last line is whole JSON that breaks the chain', async () => {
    await twoRequests(open());
    await close(stores[0] as FileStore);
    const lines = readFileSync(data.journal, 'utf8').split('\n').slice(0, -1);
    lines[2] = (lines[2] ?? '').replace('"seq":3', '"seq":7');
    writeFileSync(data.journal, `${lines.join('\n')}\n`);

    expect(() => open().changes()).toThrow(/fails verification at line 3: seq is 7/);
  });
});

describe('a full disk during an append', () => {
  it('cuts the torn bytes back, reports the transition as failed, and the next append continues the chain', async () => {
    const disk = faultyFs();
    const store = open({ fs: disk.seam });
    const pending = await twoRequests(store);
    const before = readFileSync(data.journal, 'utf8');
    disk.faults.enospcAfter = 30;

    const failure = await store
      .changes()
      .create(sampleRequest({ createdS: 4 }), RITA, T0 + 4000)
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    const afterFailure = readFileSync(data.journal, 'utf8');
    const later = await store.changes().create(sampleRequest({ createdS: 5 }), RITA, T0 + 5000);
    const healthAfter = await store.health();

    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect((failure as StoreUnavailableError).code).toBe('store_unavailable');
    expect((failure as Error).message).toBe(
      'the approvals journal cannot be written (the disk is full, ENOSPC), so nothing was recorded',
    );
    expect(afterFailure).toBe(before);
    expect(later.state).toBe('pending');
    expect(healthAfter).toEqual({ kind: 'file', ok: true });
    expect(journalReport(data.dir)).toMatchObject({ exitCode: 0 });
    expect(verifyJournal(data.journal)).toMatchObject({ ok: true, events: 4 });
    await close(store);
    const reopened = open();
    expect((await reopened.changes().get(pending))?.state).toBe('pending');
    expect((await reopened.changes().get(later.id))?.state).toBe('pending');
    expect(await reopened.changes().count()).toBe(3);
  });

  it('treats a short write as a failure, never finishing the line with a second write', async () => {
    const disk = faultyFs();
    const store = open({ fs: disk.seam });
    const pending = await twoRequests(store);
    const before = readFileSync(data.journal, 'utf8');
    const writes = disk.calls.writes;
    disk.faults.short = true;

    const claim = store
      .changes()
      .transition(
        pending,
        { type: 'approved', id: pending, actor: ALEX, previewHash: 'a'.repeat(64) },
        { from: ['pending'], at: T0 + 3000, live: true },
      );

    await expect(claim).rejects.toThrow(/the disk took only part of the line, short_write/);
    expect(disk.calls.writes).toBe(writes + 1);
    expect(readFileSync(data.journal, 'utf8')).toBe(before);
    expect((await store.changes().get(pending))?.state).toBe('pending');
    const retried = await store
      .changes()
      .transition(
        pending,
        { type: 'approved', id: pending, actor: ALEX, previewHash: 'a'.repeat(64) },
        { from: ['pending'], at: T0 + 4000, live: true },
      );
    expect(retried?.state).toBe('approved');
    expect(verifyJournal(data.journal)).toMatchObject({ ok: true, events: 4 });
  });

  it('cuts back after a failed fsync, and when the cut itself fails, cuts before the next append', async () => {
    const disk = faultyFs();
    const store = open({ fs: disk.seam });
    await twoRequests(store);
    const before = readFileSync(data.journal, 'utf8');
    disk.faults.fsync = true;
    disk.faults.truncate = true;

    await expect(
      store.changes().create(sampleRequest({ createdS: 4 }), RITA, T0 + 4000),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
    const leftBehind = readFileSync(data.journal, 'utf8');
    const next = await store.changes().create(sampleRequest({ createdS: 5 }), RITA, T0 + 5000);

    expect(leftBehind.length).toBeGreaterThan(before.length);
    expect(next.state).toBe('pending');
    expect(readFileSync(data.journal, 'utf8').startsWith(before)).toBe(true);
    expect(verifyJournal(data.journal)).toMatchObject({ ok: true, events: 4 });
  });

  it('stays unhealthy while the disk refuses writes, and healthy again once a probe write succeeds', async () => {
    const disk = faultyFs();
    const store = open({ fs: disk.seam });
    await twoRequests(store);
    disk.faults.enospcAfter = 0;
    await expect(
      store.changes().create(sampleRequest({ createdS: 4 }), RITA, T0 + 4000),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
    disk.faults.enospcAfter = 0;

    const stillFull = await store.health();
    const freed = await store.health();

    expect(stillFull).toMatchObject({ kind: 'file', ok: false, readOnly: true });
    expect(stillFull.error).toMatch(
      /^the approvals journal cannot be written since 20\d\d-.*Z \(ENOSPC\): changes are refused, lookups work$/,
    );
    expect(freed).toEqual({ kind: 'file', ok: true });
    expect(readdirSync(data.dir).filter((name) => name.includes('probe'))).toEqual([]);
  });
});

describe('the journal on a real disk', () => {
  it('writes each event with one write of the whole line followed by fsync', () => {
    const disk = faultyFs();
    const synced: number[] = [];
    const seam: JournalFs = {
      ...disk.seam,
      fsyncSync(fd) {
        synced.push(disk.calls.writes);
        disk.seam.fsyncSync(fd);
      },
    };
    const { journal } = Journal.open(data.journal, { fs: seam });

    journal.append({ type: 'created', id: 'cr_one', actor: RITA, request: sampleRequest({ id: 'cr_one' }) });
    journal.append({ type: 'cancelled', id: 'cr_one', actor: RITA });
    journal.close();

    expect(disk.calls.writes).toBe(2);
    expect(synced).toEqual([1, 2]);
    expect(readFileSync(data.journal, 'utf8').split('\n')).toHaveLength(3);
  });
});
