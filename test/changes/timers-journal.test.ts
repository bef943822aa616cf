import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChangeTimers, type RevertReason, type TimerEvent } from '../../src/changes/timers.js';
import { ConflictError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import type { ChangeRequest } from '../../src/model/change-request.js';
import { type Deadline, newDeadlineId } from '../../src/store/deadlines.js';
import { DEADLINES_FILE } from '../../src/store/file/deadline-file.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { journalReport } from '../../src/store/file/journal.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { databaseJournalReport } from '../../src/store/postgres/report.js';
import type { Store } from '../../src/store/types.js';
import { useTestDatabase } from '../helpers/postgres.js';
import { sampleRequest } from '../store/contract.js';

// Revert deadlines as part of their change's signed journal, on both stores: the timers act only
// on a stored deadline the journal backs, rebuild the store from the journal, and audit:verify
// fails on a deadline added, removed or edited outside the bot.
const KEY = 'journal-key-for-timer-tests-0123456789';
const ALEX = { userId: 'U0ALEX' };
const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const db = useTestDatabase();
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Harness {
  name: string;
  open(): Promise<Store>;
  /** audit:verify's answer on this store. */
  verify(): Promise<{ exitCode: number; line: string }>;
  /** Changes a stored deadline outside the bot (no key needed: it is not the journal). */
  tamper(edit: (all: Deadline[]) => Deadline[]): Promise<void>;
}

function fileHarness(): Harness {
  const dir = mkdtempSync(join(tmpdir(), 'netops-timers-journal-'));
  dirs.push(dir);
  const path = join(dir, DEADLINES_FILE);
  return {
    name: 'file',
    open: async () => new FileStore(dir, { key: KEY }),
    verify: async () => journalReport(dir, { key: KEY }),
    tamper: async (edit) => {
      const all = existsSync(path)
        ? (JSON.parse(readFileSync(path, 'utf8')) as { deadlines: Deadline[] }).deadlines
        : [];
      writeFileSync(path, JSON.stringify({ deadlines: edit(all) }));
    },
  };
}

function postgresHarness(): Harness {
  return {
    name: 'postgres',
    open: () =>
      PostgresStore.open({ database: { url: db.url }, logger: silentLogger(), leaseSeconds: 30, key: KEY }),
    verify: () => databaseJournalReport({ url: db.url }, { key: KEY }),
    tamper: async (edit) => {
      const all = (await db.query<{ id: string }>('SELECT id FROM netops_deadlines')).rows;
      const stored = await Promise.all(
        all.map(async ({ id }) => {
          const found = await db.query<Record<string, unknown>>(
            'SELECT * FROM netops_deadlines WHERE id = $1',
            [id],
          );
          const row = found.rows[0] as Record<string, Date | string | null>;
          return {
            id: row.id,
            kind: row.kind,
            changeId: row.change_id,
            dueAt: (row.due_at as Date).toISOString(),
            createdAt: (row.created_at as Date).toISOString(),
            state: row.state,
          } as Deadline;
        }),
      );
      await db.query('DELETE FROM netops_deadlines');
      for (const d of edit(stored)) {
        await db.query(
          `INSERT INTO netops_deadlines (id, kind, change_id, due_at, created_at, state)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [d.id, d.kind, d.changeId, d.dueAt, d.createdAt, d.state],
        );
      }
    },
  };
}

describe.each([
  ['file', fileHarness],
  ['postgres', postgresHarness],
] as const)('revert deadlines in the journal (%s store)', (name, makeHarness) => {
  let harness: Harness;
  let store: Store;
  const clock = { now: T0 };
  let reverts: { changeId: string; reason: RevertReason }[];
  let events: TimerEvent[];

  beforeEach(async () => {
    if (name === 'postgres') await db.reset();
    harness = makeHarness();
    store = await harness.open();
    if (name === 'postgres') await db.query('DELETE FROM netops_deadlines');
    clock.now = T0;
    reverts = [];
    events = [];
  });
  afterEach(async () => {
    await store.close();
  });

  const timers = () =>
    new ChangeTimers({
      deadlines: store.deadlines(),
      ledger: store.changes(),
      revert: {
        async revertAutomatically(input) {
          reverts.push(input);
          return { kind: 'succeeded' };
        },
      },
      getChange: (id) => store.changes().get(id),
      replicaId: store.changes().replicaId,
      logger: silentLogger(),
      notifier: { report: async (event) => void events.push(event) },
      // Who may keep is the gate's to decide (test/approvals/gate.test.ts); here everyone may.
      gate: { mayKeep: async () => ({ ok: true }), mayRevertNow: async () => ({ ok: true }) },
      now: () => clock.now,
      tickMs: 3_600_000,
      rebuildEveryMs: 0,
    });

  /**
   * A `for=` change run to success as the runner records it: the deadline journaled with the
   * success (`deadline: false`: as before deadlines were journaled). Not stored: the test says.
   */
  async function succeeded(
    seconds: number,
    options: { deadline?: boolean; timing?: 'forSeconds' | 'revertAfterSeconds' } = {},
  ): Promise<{
    change: ChangeRequest;
    deadline: { id: string; kind: 'temporary' | 'keep_or_revert'; dueAt: string };
  }> {
    const changes = store.changes();
    const request = { ...sampleRequest(), [options.timing ?? 'forSeconds']: seconds };
    const created = await changes.create(request, ALEX, clock.now);
    const id = created.id;
    await changes.transition(
      id,
      { type: 'approved', id, actor: ALEX, previewHash: created.previewHash },
      { from: ['pending'], at: clock.now, live: true },
    );
    await changes.transition(
      id,
      { type: 'executing', id, actor: ALEX },
      { from: ['approved'], at: clock.now },
    );
    const kind = options.timing === 'revertAfterSeconds' ? 'keep_or_revert' : 'temporary';
    const deadline = {
      id: newDeadlineId(),
      kind,
      dueAt: new Date(clock.now + seconds * 1000).toISOString(),
    } as const;
    const change = await changes.transition(
      id,
      {
        type: 'succeeded',
        id,
        actor: ALEX,
        result: {},
        ...(options.deadline === false ? {} : { deadline }),
      },
      { from: ['executing'], at: clock.now },
    );
    if (!change) throw new Error('not recorded');
    return { change, deadline };
  }

  const store_ = (d: { id: string; kind: 'temporary' | 'keep_or_revert'; dueAt: string }, changeId: string) =>
    store.deadlines().schedule({ ...d, changeId, dueAt: Date.parse(d.dueAt), at: clock.now });

  it('fires a journaled deadline once, journaling the claim and the outcome; audit:verify passes', async () => {
    const { change, deadline } = await succeeded(60);
    await store_(deadline, change.id);
    expect((await harness.verify()).exitCode).toBe(0);

    clock.now = T0 + 60_000;
    await timers().tick();
    await timers().tick();

    expect(reverts).toEqual([{ changeId: change.id, reason: 'temporary' }]);
    const history = await store.changes().history(change.id);
    const steps = history?.events.flatMap((e) => (e.type === 'deadline' ? [e.state] : []));
    expect(steps).toEqual(['claimed', 'fired']);
    expect((await store.deadlines().get(deadline.id))?.state).toBe('fired');
    expect(await harness.verify()).toMatchObject({ exitCode: 0 });
  });

  it('restores a journaled deadline the store lost (a crash right after the success) and fires it once', async () => {
    const { change, deadline } = await succeeded(60);
    expect(await harness.verify()).toMatchObject({
      exitCode: 1,
      line: expect.stringContaining(`deadline ${deadline.id}`),
    });

    const first = timers();
    await first.tick();
    expect(await store.deadlines().get(deadline.id)).toMatchObject({
      state: 'scheduled',
      dueAt: deadline.dueAt,
    });
    expect(events.map((e) => e.kind)).toEqual(['scheduled']);
    expect(await harness.verify()).toMatchObject({ exitCode: 0 });

    clock.now = T0 + 61_000;
    await first.tick();
    await timers().tick();
    expect(reverts).toEqual([{ changeId: change.id, reason: 'temporary' }]);
  });

  it('gives a timed change that succeeded with no deadline anywhere one, due at its success plus its seconds', async () => {
    const { change } = await succeeded(30, { deadline: false, timing: 'revertAfterSeconds' });
    clock.now = T0 + 45_000;

    await timers().tick();

    // Already past when rebuilt: it fires at once, in the same look.
    expect(reverts).toEqual([{ changeId: change.id, reason: 'keep_timeout' }]);
    const journaled = (await store.changes().get(change.id))?.deadlines ?? [];
    expect(journaled).toMatchObject([
      { kind: 'keep_or_revert', dueAt: new Date(T0 + 30_000).toISOString(), state: 'fired' },
    ]);
    expect(await harness.verify()).toMatchObject({ exitCode: 0 });
  });

  it('refuses a deadline added to the store outside the bot: no revert, reported, audit:verify fails naming it', async () => {
    const { change } = await succeeded(3600, { deadline: false });
    // A change from before deadlines were journaled, and long ago: the bot leaves it alone.
    clock.now = T0 + 2 * 24 * 3600_000;
    const forged: Deadline = {
      id: 'dl_forged0000000000000',
      kind: 'temporary',
      changeId: change.id,
      dueAt: new Date(clock.now - 1000).toISOString(),
      createdAt: new Date(clock.now - 2000).toISOString(),
      state: 'scheduled',
    };
    await harness.tamper((all) => [...all, forged]);
    expect(await harness.verify()).toMatchObject({
      exitCode: 1,
      line: expect.stringContaining('dl_forged0000000000000'),
    });

    await timers().tick();

    expect(reverts).toEqual([]);
    expect(events.map((e) => e.kind)).toEqual(['refused']);
    expect(events[0]?.text).toContain('no record of deadline dl_forged0000000000000');
    expect((await store.deadlines().get(forged.id))?.state).toBe('failed');
  });

  it('refuses a deadline whose due time was edited: marked failed in the journal, no revert', async () => {
    const { change, deadline } = await succeeded(3600);
    await store_(deadline, change.id);
    await harness.tamper((all) => all.map((d) => ({ ...d, dueAt: new Date(T0 + 1000).toISOString() })));
    expect(await harness.verify()).toMatchObject({ exitCode: 1, line: expect.stringContaining(deadline.id) });

    clock.now = T0 + 2000;
    await timers().tick();

    expect(reverts).toEqual([]);
    expect(events.map((e) => e.kind)).toEqual(['refused']);
    expect((await store.changes().get(change.id))?.deadlines).toMatchObject([
      { id: deadline.id, state: 'failed', note: expect.stringContaining('edited outside the bot') },
    ]);
  });

  it('restores a journaled deadline whose line was removed from the store', async () => {
    const { change, deadline } = await succeeded(60);
    await store_(deadline, change.id);
    await harness.tamper(() => []);
    expect(await harness.verify()).toMatchObject({ exitCode: 1, line: expect.stringContaining('missing') });

    clock.now = T0 + 60_000;
    await timers().tick();

    expect(reverts).toEqual([{ changeId: change.id, reason: 'temporary' }]);
  });

  it('journals a Keep, and refuses to keep a deadline the journal does not back', async () => {
    const { change, deadline } = await succeeded(600, { timing: 'revertAfterSeconds' });
    await store_(deadline, change.id);
    const t = timers();

    const kept = await t.keep(change.id, ALEX);
    expect(kept.state).toBe('cancelled');
    expect((await store.changes().get(change.id))?.deadlines).toMatchObject([{ state: 'cancelled' }]);
    expect(await harness.verify()).toMatchObject({ exitCode: 0 });

    const other = await succeeded(600, { timing: 'revertAfterSeconds' });
    await store_(other.deadline, other.change.id);
    await harness.tamper((all) =>
      all.map((d) =>
        d.id === other.deadline.id ? { ...d, dueAt: new Date(T0 + 900_000).toISOString() } : d,
      ),
    );
    await expect(t.keep(other.change.id, ALEX)).rejects.toBeInstanceOf(ConflictError);
    expect(events.map((e) => e.kind)).toEqual(['kept', 'refused']);
    clock.now = T0 + 1_000_000;
    await t.tick();
    expect(reverts).toEqual([]);
  });

  it('reports a timed change whose outcome is unknown after a crash, once, and schedules nothing', async () => {
    const changes = store.changes();
    const created = await changes.create({ ...sampleRequest(), forSeconds: 60 }, ALEX, clock.now);
    await changes.transition(
      created.id,
      { type: 'outcome_unknown', id: created.id, actor: ALEX, previous: 'executing' },
      { from: ['pending'], at: clock.now },
    );

    await timers().tick();
    await timers().tick();

    expect(events.map((e) => e.kind)).toEqual(['unsettled']);
    expect(events[0]?.text).toContain('outcome is unknown');
    expect(await store.deadlines().list()).toEqual([]);
    expect(await harness.verify()).toMatchObject({ exitCode: 0 });
  });
});
