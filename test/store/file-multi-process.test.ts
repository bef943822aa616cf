import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withFileLock } from '../../src/store/file/file-lock.js';
import { FileStore, RUNS_DIR } from '../../src/store/file/file-store.js';
import { JOURNAL_FILE, journalLockPath, verifyJournal } from '../../src/store/file/journal.js';
import { runScript } from '../helpers/script-process.js';
import { sampleRequest } from './contract.js';

const WRITER = 'test/helpers/journal-writer.ts';
const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'netops-multi-'));
  dirs.push(dir);
  return dir;
}

/** journal-writer.ts in a process of its own, appending `count` changes as soon as it has loaded. */
const writer = async (dir: string, label: string, count: number) =>
  (await runScript(WRITER, [dir, label, String(count)])).done;

const RITA = { userId: 'U0RITA' };

describe('several processes on one DATA_DIR journal', () => {
  it('two processes appending at the same time form one chain that verifies', async () => {
    const dir = freshDir();

    // Both start appending at one moment, once both processes have loaded and opened the store.
    const writers = await Promise.all(
      ['bot', 'con'].map((label) => runScript(WRITER, [dir, label, '40', 'go'])),
    );
    await Promise.all(writers.map((w) => w.ready));
    for (const w of writers) w.go();
    await Promise.all(writers.map((w) => w.done));

    const verdict = verifyJournal(join(dir, JOURNAL_FILE));
    expect(verdict).toMatchObject({ ok: true, events: 320 });
    const store = new FileStore(dir);
    expect(await store.changes().count({ state: 'succeeded' })).toBe(80);
    await store.close();
  }, 180_000);

  // Deliberately alike: each multi-process case opens its own store in a fresh directory and closes it.
  it('an open store sees what another process appended, and its next append continues that chain', async () => {
    const dir = freshDir();
    const bot = new FileStore(dir);
    const first = sampleRequest({ createdS: 1 });
    await bot.changes().create(first, RITA, Date.parse(first.createdAt));

    await writer(dir, 'con', 2);

    const seen = await bot.changes().list({ requester: 'console:con' });
    expect(seen.map((r) => r.state)).toEqual(['succeeded', 'succeeded']);
    const approved = await bot
      .changes()
      .transition(
        first.id,
        { type: 'approved', id: first.id, actor: { userId: 'U0ALEX' }, previewHash: first.previewHash },
        { from: ['pending'], at: Date.now() },
      );
    expect(approved?.state).toBe('approved');
    expect(verifyJournal(join(dir, JOURNAL_FILE))).toMatchObject({ ok: true, events: 10 });
    expect(await bot.changes().journalHead()).toMatchObject({ count: 10 });
    await bot.close();
  }, 120_000);

  it('leaves a run claimed by another live process alone, and recovers one whose process is gone', async () => {
    const dir = freshDir();
    const bot = new FileStore(dir);
    const live = sampleRequest({ createdS: 1 });
    const dead = sampleRequest({ createdS: 2 });
    for (const request of [live, dead]) {
      await bot.changes().create(request, RITA, Date.parse(request.createdAt));
    }
    await bot.close();
    // Another process claimed both; one of them still runs (a child that sleeps), one is gone.
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const gone = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((done) => gone.once('exit', done));
    const other = new FileStore(dir);
    for (const request of [live, dead]) {
      await other
        .changes()
        .transition(
          request.id,
          { type: 'approved', id: request.id, actor: { userId: 'U0ALEX' }, previewHash: request.previewHash },
          { from: ['pending'], at: Date.now() },
        );
    }
    await other.close();
    mkdirSync(join(dir, RUNS_DIR), { recursive: true });
    writeFileSync(join(dir, RUNS_DIR, live.id), `${sleeper.pid} replica_other\n`);
    writeFileSync(join(dir, RUNS_DIR, dead.id), `${gone.pid} replica_gone\n`);

    try {
      const restarted = new FileStore(dir);
      const recovered = await restarted.changes().recoverInterrupted(Date.now());

      expect(recovered.map((r) => r.request.id)).toEqual([dead.id]);
      expect((await restarted.changes().get(live.id))?.state).toBe('approved');
      await restarted.close();
    } finally {
      sleeper.kill();
    }
  }, 60_000);

  it('waits for a lock held by a live process and breaks one left by a dead process', async () => {
    const dir = freshDir();
    const path = journalLockPath(join(dir, JOURNAL_FILE));
    const gone = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((done) => gone.once('exit', done));
    const { hostname } = await import('node:os');
    writeFileSync(path, `${gone.pid} ${hostname()} ${Date.now()}\n`);

    expect(withFileLock(path, () => 'ran')).toBe('ran');

    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      writeFileSync(path, `${sleeper.pid} ${hostname()} ${Date.now()}\n`);
      expect(() => withFileLock(path, () => 'ran', { timeoutMs: 200 })).toThrow(
        /locked by process \d+ .* so nothing was recorded/,
      );
    } finally {
      sleeper.kill();
      rmSync(path, { force: true });
    }
  });

  it('breaks an empty lock file left by a process killed between creating and writing it, and waits on a fresh one', () => {
    // The built bot, SIGKILLed in that moment, could not start again: "locked by process 0" after 15 s.
    const dir = freshDir();
    const path = journalLockPath(join(dir, JOURNAL_FILE));
    writeFileSync(path, '');
    const old = new Date(Date.now() - 10_000);
    utimesSync(path, old, old);

    expect(withFileLock(path, () => 'ran', { timeoutMs: 1_000 })).toBe('ran');

    writeFileSync(path, '');
    try {
      expect(() => withFileLock(path, () => 'ran', { timeoutMs: 200 })).toThrow(/so nothing was recorded/);
    } finally {
      rmSync(path, { force: true });
    }
  });
});
