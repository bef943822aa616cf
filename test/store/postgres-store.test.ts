import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import type { ChangeRequest } from '../../src/model/change-request.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { StoreIntegrityError } from '../../src/store/postgres/journal-check.js';
import { migrate } from '../../src/store/postgres/migrate.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { databaseJournalReport } from '../../src/store/postgres/report.js';
import { createTestDatabase, usePostgresReplicas } from '../helpers/postgres.js';
import { bundledScript } from '../helpers/script-process.js';
import { runToSuccess, sampleRequest } from './contract.js';

const { db, stores, open: openReplica } = usePostgresReplicas();
const ALEX = { userId: 'U0ALEX' };
const RITA = { userId: 'U0RITA' };
const T0 = Date.parse('2030-01-01T00:00:00.000Z');

/** Opens one replica on the file's database. */
const replica = (leaseSeconds = 30) => openReplica({ leaseSeconds });

async function claim(store: PostgresStore, request: ChangeRequest, actor = ALEX, at = T0 + 1000) {
  return store
    .changes()
    .transition(
      request.id,
      { type: 'approved', id: request.id, actor, previewHash: request.previewHash },
      { from: ['pending'], at, live: true },
    );
}

describe('migrations', () => {
  it('run once when two replicas migrate the same new database at the same moment', async () => {
    const fresh = await createTestDatabase();
    const pools = [0, 1].map(() => new pg.Pool({ connectionString: fresh.url }));
    try {
      const results = await Promise.all(pools.map((pool) => migrate(pool, silentLogger())));

      expect(results.map((r) => r.applied).sort()).toEqual([[], MIGRATIONS.map((m) => m.version)]);
      const recorded = await fresh.query('SELECT version, name FROM netops_schema_migrations');
      expect(recorded.rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
      const head = await fresh.query('SELECT count(*)::int AS n FROM netops_journal_head');
      expect(head.rows[0]).toEqual({ n: 1 });
    } finally {
      for (const pool of pools) await pool.end();
      await fresh.drop();
    }
  });

  it('opening two stores together migrates once, and later opens apply nothing', async () => {
    const fresh = await createTestDatabase();
    const open = () =>
      PostgresStore.open({ database: { url: fresh.url }, logger: silentLogger(), leaseSeconds: 30 });
    try {
      const [a, b] = await Promise.all([open(), open()]);
      const c = await open();

      expect([a.migrations.applied, b.migrations.applied].sort()).toEqual([
        [],
        MIGRATIONS.map((m) => m.version),
      ]);
      expect(c.migrations).toEqual({ applied: [], unknown: [] });
      for (const store of [a, b, c]) await store.close();
    } finally {
      await fresh.drop();
    }
  });
});

describe('two replicas on one database', () => {
  it('let exactly one of 20 claims spread over both win, in one unbroken chain', async () => {
    const a = await replica();
    const b = await replica();
    const request = await a.changes().create(sampleRequest(), RITA, T0);

    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => claim(i % 2 === 0 ? a : b, request, { userId: `U0C${i}` })),
    );

    expect(answers.filter(Boolean)).toHaveLength(1);
    const owner = await db.query('SELECT owner FROM netops_change_requests WHERE id = $1', [request.id]);
    expect([a.changes().replicaId, b.changes().replicaId]).toContain(owner.rows[0]?.owner);
    expect(await b.changes().verifyJournal()).toMatchObject({ ok: true, events: 2 });
  });

  it('see each other’s requests at once: made on one, approved on the other', async () => {
    const a = await replica();
    const b = await replica();
    const request = await a.changes().create(sampleRequest(), RITA, T0);

    const claimed = await claim(b, request);

    expect(claimed?.state).toBe('approved');
    expect((await a.changes().get(request.id))?.state).toBe('approved');
  });

  it('expire each overdue request once between them, however the sweeps overlap', async () => {
    const a = await replica();
    const b = await replica();
    const due: string[] = [];
    for (let i = 0; i < 6; i++) {
      due.push((await a.changes().create(sampleRequest({ ttlS: 60 }), RITA, T0)).id);
    }

    const sweeps = await Promise.all([a, b, a, b].map((s) => s.changes().expireDue(T0 + 61_000)));

    const reported = sweeps.flat().map((r) => r.id);
    expect(reported.sort()).toEqual([...due].sort());
    expect(await a.changes().count({ state: 'expired' })).toBe(6);
    const events = await db.query("SELECT count(*)::int AS n FROM netops_journal WHERE type = 'expired'");
    expect(events.rows[0]).toEqual({ n: 6 });
  });

  it('leave a live replica’s run alone; once its lease lapses it becomes unknown once, and its owner can still record the truth', async () => {
    const a = await replica();
    const b = await replica();
    const request = await a.changes().create(sampleRequest(), RITA, T0);
    await claim(a, request);
    await a
      .changes()
      .transition(
        request.id,
        { type: 'executing', id: request.id, actor: ALEX },
        { from: ['approved'], at: T0 + 2000, ownedBySelf: true },
      );

    const whileAlive = await b.changes().recoverInterrupted(T0 + 3000);
    await db.query("UPDATE netops_replicas SET lease_until = now() - interval '1 second' WHERE id = $1", [
      a.changes().replicaId,
    ]);
    const lapsed = await b.changes().recoverInterrupted(T0 + 4000);
    const again = await a.changes().recoverInterrupted(T0 + 5000);
    // Deliberately alike: the same transition from two replicas, one whose lease lapsed and one that owns the run.
    const stolen = await b
      .changes()
      .transition(
        request.id,
        { type: 'succeeded', id: request.id, actor: ALEX, result: { forged: true } },
        { from: ['executing', 'unknown'], at: T0 + 6000, ownedBySelf: true },
      );
    const truth = await a
      .changes()
      .transition(
        request.id,
        { type: 'succeeded', id: request.id, actor: ALEX, result: { success: true } },
        { from: ['executing', 'unknown'], at: T0 + 7000, ownedBySelf: true },
      );

    expect(whileAlive).toEqual([]);
    expect(lapsed.map((r) => [r.request.id, r.previous, r.request.state])).toEqual([
      [request.id, 'executing', 'unknown'],
    ]);
    expect(again).toEqual([]);
    expect(stolen).toBeUndefined();
    expect(truth).toMatchObject({ state: 'succeeded', result: { success: true } });
    expect(truth?.error).toBeUndefined();
    const types = (await b.changes().history(request.id))?.events.map((e) => e.type);
    expect(types).toEqual(['created', 'approved', 'executing', 'outcome_unknown', 'succeeded']);
  });

  it('renew their leases while they live, and give them up when closed', async () => {
    const a = await replica(2);
    const id = a.changes().replicaId;
    const first = await db.query('SELECT lease_until FROM netops_replicas WHERE id = $1', [id]);

    // Renewed every third of the lease: poll until it moves rather than sleeping a fixed time, so a
    // loaded machine cannot make the check flaky (it still fails if the lease is never renewed).
    const leaseOf = async () =>
      Date.parse(
        (await db.query('SELECT lease_until FROM netops_replicas WHERE id = $1', [id])).rows[0]?.lease_until,
      );
    const initial = Date.parse(first.rows[0]?.lease_until);
    let renewedAt = await leaseOf();
    for (let tries = 0; tries < 50 && !(renewedAt > initial); tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      renewedAt = await leaseOf();
    }
    await a.close();
    const gone = await db.query('SELECT count(*)::int AS n FROM netops_replicas WHERE id = $1', [id]);

    expect(renewedAt).toBeGreaterThan(initial);
    expect(gone.rows[0]).toEqual({ n: 0 });
  });
});

/** Five events: two requests, one of them run. */
async function fiveEvents(): Promise<PostgresStore> {
  const a = await replica();
  const changes = a.changes();
  await runToSuccess(changes, await changes.create(sampleRequest(), RITA, T0), ALEX, T0);
  await changes.create(sampleRequest(), RITA, T0 + 4000);
  return a;
}

/** Verifies through the replica that is already open (a new one would refuse a cut-off chain at open). */
async function verify() {
  const store = stores[0];
  if (!store) throw new Error('no replica open');
  return store.changes().verifyJournal();
}

describe('audit:verify on PostgreSQL', () => {
  it('verifies an intact chain and reports the head', async () => {
    await fiveEvents();

    const report = await databaseJournalReport({ url: db.url });

    expect(report.exitCode).toBe(0);
    expect(report.line).toMatch(
      /^journal OK: 5 events, chain verified \(PostgreSQL 127\.0\.0\.1:\d+\/netops_test_/,
    );
    expect(report.line).not.toContain('postgres:');
  });

  it.each([
    {
      name: 'detects an edited row, naming it',
      tamper: "UPDATE netops_journal SET line = replace(line, 'U0ALEX', 'U0ALEY') WHERE seq = 3",
      line: 3,
      reason: 'its SHA-256 no longer matches the prev recorded on entry 4: the entry was changed',
    },
    {
      name: 'detects a deleted row',
      tamper: 'DELETE FROM netops_journal WHERE seq = 2',
      line: 2,
      reason: 'seq is 3 where 2 was expected: an entry was removed or inserted before it',
    },
    {
      name: 'detects a row whose columns were edited but not its text',
      tamper: "UPDATE netops_journal SET type = 'cancelled' WHERE seq = 4",
      line: 4,
      reason: "the row's type column (cancelled) differs from its text (succeeded): the row was edited",
    },
  ])('$name', async ({ tamper, line, reason }) => {
    await fiveEvents();
    await db.query(tamper);

    expect(await verify()).toEqual({ ok: false, line, reason });
  });

  it('detects reordered rows', async () => {
    await fiveEvents();
    await db.query('UPDATE netops_journal SET seq = 1000 WHERE seq = 2');
    await db.query('UPDATE netops_journal SET seq = 2 WHERE seq = 3');
    await db.query('UPDATE netops_journal SET seq = 3 WHERE seq = 1000');

    expect(await verify()).toMatchObject({ ok: false, line: 2 });
  });

  it('detects a cut-off tail through the chain head', async () => {
    await fiveEvents();
    await db.query('DELETE FROM netops_journal WHERE seq = 5');

    const result = await verify();

    expect(result).toMatchObject({ ok: false, line: 4 });
    expect(result.ok === false && result.reason).toMatch(/chain head records 5 events .* journal has 4/);
  });

  it('refuses to open a store whose chain head does not match its last entry', async () => {
    await fiveEvents();
    for (const store of stores.splice(0)) await store.close();
    await db.query("UPDATE netops_journal_head SET hash = repeat('f', 64)");

    await expect(replica()).rejects.toBeInstanceOf(StoreIntegrityError);
  });

  it('runs as a program with only DATABASE_URL: exit 1 and one line when tampered, 2 when there is no journal', async () => {
    await fiveEvents();
    await db.query("UPDATE netops_journal SET line = replace(line, 'U0RITA', 'U0RITO') WHERE seq = 1");
    const empty = await createTestDatabase();
    // The source bundled once with esbuild (as dist/ is built), not loaded through tsx (2 s of CPU a start).
    const verifyCli = await bundledScript('src/store/verify-cli.ts');
    const run = (url: string) =>
      promisify(execFile)(process.execPath, [verifyCli], {
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: url },
      }).then(
        ({ stdout }) => ({ code: 0, stdout }),
        (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
      );

    try {
      const [tampered, missing] = await Promise.all([run(db.url), run(empty.url)]);

      expect(tampered.code).toBe(1);
      expect(tampered.stdout).toMatch(/^journal TAMPERED at entry 1: [^\n]*\(PostgreSQL [^\n]*\)\n$/);
      expect(missing).toMatchObject({ code: 2 });
      expect(missing.stdout).toMatch(/^journal not checked: PostgreSQL .* holds no netops journal/);
      expect(`${tampered.stdout}${missing.stdout}`).not.toMatch(/postgres:\/\/|:[0-9a-f]{24}@/);
    } finally {
      await empty.drop();
    }
  }, 20_000);
});

describe('bot data and health', () => {
  it('is shared: what one replica sets, the other reads', async () => {
    const a = await replica();
    const b = await replica();

    await a.data.set('zone-description:default:z1', 'Cameras');
    await a.data.set('plain', 42);

    expect(await b.data.get('zone-description:default:z1')).toBe('Cameras');
    expect(await b.data.get('plain')).toBe(42);
    await b.data.set('zone-description:default:z1', undefined);
    expect(await a.data.keys()).toEqual(['plain']);
  });

  it('reports the database unreachable (not ready) while it refuses connections, and ready again after', async () => {
    const a = await replica();
    expect(await a.health()).toEqual({ kind: 'postgres', ok: true });
    await db.admin(`ALTER DATABASE ${db.name} WITH ALLOW_CONNECTIONS false`);
    await db.admin('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [db.name]);
    let down: Awaited<ReturnType<PostgresStore['health']>>;
    try {
      down = await a.health();
    } finally {
      await db.admin(`ALTER DATABASE ${db.name} WITH ALLOW_CONNECTIONS true`);
    }

    expect(down).toMatchObject({ kind: 'postgres', ok: false });
    expect(down.error).toMatch(/^database unreachable: /);
    expect(await a.health()).toEqual({ kind: 'postgres', ok: true });
  });
});
