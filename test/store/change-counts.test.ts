import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import type { ChangeRequest, ChangeState } from '../../src/model/change-request.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { migrate } from '../../src/store/postgres/migrate.js';
import type { ChangeFilter, Store } from '../../src/store/types.js';
import { createTestDatabase, usePostgresReplicas } from '../helpers/postgres.js';
import { sampleRequest } from './contract.js';

/*
 * PostgreSQL answers counts by state and requester from netops_change_counts, kept by
 * the triggers of migration 7. These tests hold the counters equal to count(*) of the rows through
 * every way a request's state changes, and the store's counts equal to the file store's.
 */

const { db, open: replica } = usePostgresReplicas();
const PEOPLE = [
  { userId: 'U0RITA', name: 'rita' },
  { userId: 'U0ALEX', name: 'alex' },
  { userId: 'U0SAM', name: 'sam' },
];
const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const opened: Store[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

type Counts = Record<string, number>;

/** The counter rows that are not zero, as `state requester → n`. */
async function counters(query: (sql: string) => Promise<pg.QueryResult>): Promise<Counts> {
  const rows = await query('SELECT state, requester, n::int AS n FROM netops_change_counts WHERE n <> 0');
  return Object.fromEntries(rows.rows.map((r) => [`${r.state} ${r.requester}`, r.n]));
}

/** count(*) of the requests by state and requester. */
async function counted(query: (sql: string) => Promise<pg.QueryResult>): Promise<Counts> {
  const rows = await query(
    'SELECT state, requester, count(*)::int AS n FROM netops_change_requests GROUP BY state, requester',
  );
  return Object.fromEntries(rows.rows.map((r) => [`${r.state} ${r.requester}`, r.n]));
}

/** A small seeded generator, so a failure repeats. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

const FILTERS: Omit<ChangeFilter, 'limit' | 'offset'>[] = [
  {},
  { state: 'pending' },
  { state: ['succeeded', 'failed', 'unknown'] as ChangeState[] },
  { state: 'expired' },
  { requester: 'U0RITA' },
  { requester: 'U0SAM', state: ['pending', 'approved'] as ChangeState[] },
  { requester: 'U0NOBODY' },
  { site: 'branch' },
  { tool: 'delete_network', state: 'pending' },
];

describe('counts kept by triggers (migration 7)', () => {
  it('stay equal to count(*) through random creates, transitions, concurrent claims from two replicas and expiry sweeps, and count as the file store does', async () => {
    const a = await replica();
    const b = await replica();
    const dir = mkdtempSync(join(tmpdir(), 'netops-counts-'));
    dirs.push(dir);
    const file = new FileStore(dir);
    opened.push(file);
    const next = random(26);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
    const live: ChangeRequest[] = [];
    let clock = T0;
    let claimsLost = 0;
    let expired = 0;

    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 12; i++) {
        clock += 1000;
        const request = sampleRequest({
          createdS: (clock - T0) / 1000,
          ttlS: next() < 0.3 ? 5 : 3600,
          requester: pick(PEOPLE),
          site: next() < 0.3 ? 'branch' : 'default',
          tool: next() < 0.3 ? 'delete_network' : 'create_network',
        });
        await pick([a, b]).changes().create(request, request.requester, clock);
        await file.changes().create(request, request.requester, clock);
        live.push(request);
      }
      for (let i = 0; i < 8; i++) {
        const request = pick(live);
        clock += 1000;
        const roll = next();
        if (roll < 0.5) {
          // Two replicas claim the same request at once: one wins, the other changes nothing.
          const entry = {
            type: 'approved' as const,
            id: request.id,
            actor: PEOPLE[1] ?? { userId: 'x', name: 'x' },
            previewHash: request.previewHash,
          };
          const guard = { from: ['pending' as const], at: clock, live: true };
          const results = await Promise.all(
            [a, b].map((s) => s.changes().transition(request.id, entry, guard)),
          );
          claimsLost += results.filter((r) => r === undefined).length;
          await file.changes().transition(request.id, entry, guard);
        } else if (roll < 0.75) {
          const entry = { type: 'cancelled' as const, id: request.id, actor: request.requester };
          const guard = { from: ['pending' as const], at: clock };
          await Promise.all([a, b].map((s) => s.changes().transition(request.id, entry, guard)));
          await file.changes().transition(request.id, entry, guard);
        } else {
          // A claimed one runs: executing, then succeeded or failed.
          const steps = [
            {
              entry: {
                type: 'executing' as const,
                id: request.id,
                actor: PEOPLE[1] ?? { userId: 'x', name: 'x' },
              },
              from: 'approved' as const,
            },
            next() < 0.5
              ? {
                  entry: {
                    type: 'succeeded' as const,
                    id: request.id,
                    actor: PEOPLE[1] ?? { userId: 'x', name: 'x' },
                    result: { success: true },
                  },
                  from: 'executing' as const,
                }
              : {
                  entry: {
                    type: 'failed' as const,
                    id: request.id,
                    actor: PEOPLE[1] ?? { userId: 'x', name: 'x' },
                    error: { code: 'X', message: 'no' },
                    stage: 'execute' as const,
                  },
                  from: 'executing' as const,
                },
          ];
          for (const step of steps) {
            const guard = { from: [step.from], at: clock };
            await a.changes().transition(request.id, step.entry, guard);
            await file.changes().transition(request.id, step.entry, guard);
          }
        }
      }
      // Both replicas sweep at once; each overdue request expires once.
      clock += 10_000;
      const swept = await Promise.all([a, b].map((s) => s.changes().expireDue(clock)));
      expired += swept.flat().length;
      await file.changes().expireDue(clock);

      expect(await counters(db.query)).toEqual(await counted(db.query));
      for (const filter of FILTERS) {
        const [fromA, fromB, fromFile] = await Promise.all(
          [a, b, file].map((s) => s.changes().count(filter)),
        );
        expect({ filter, fromA, fromB }).toEqual({ filter, fromA: fromFile, fromB: fromFile });
      }
      const liveAt = clock - 4000;
      for (const notRequestedBy of [[], ['U0RITA'], ['U0ALEX', 'U0SAM']]) {
        expect(await a.changes().countPending({ liveAt, notRequestedBy })).toBe(
          await file.changes().countPending({ liveAt, notRequestedBy }),
        );
      }
    }
    // The scenario really raced and swept.
    expect(claimsLost).toBeGreaterThan(0);
    expect(expired).toBeGreaterThan(0);
    expect(Object.keys(await counted(db.query)).length).toBeGreaterThan(6);
  });

  it('count the pending ones past their expiry out of countPending until the sweep marks them', async () => {
    const store = await replica();
    const rita = PEOPLE[0] ?? { userId: 'x', name: 'x' };
    const short = sampleRequest({ createdS: 0, ttlS: 5, requester: rita });
    const long = sampleRequest({ createdS: 0, ttlS: 3600, requester: rita });
    for (const request of [short, long]) await store.changes().create(request, rita, T0);

    expect(await store.changes().countPending({ liveAt: T0 + 1000 })).toBe(2);
    expect(await store.changes().countPending({ liveAt: T0 + 6000 })).toBe(1);
    expect(await store.changes().countPending({ liveAt: T0 + 6000, notRequestedBy: ['U0RITA'] })).toBe(0);
    expect(await store.changes().count({ state: 'pending' })).toBe(2);
    await store.changes().expireDue(T0 + 6000);
    expect(await store.changes().countPending({ liveAt: T0 + 6000 })).toBe(1);
    expect(await store.changes().count({ state: 'expired', requester: 'U0RITA' })).toBe(1);
  });

  it('follow rows written or removed with plain SQL, and a TRUNCATE empties them', async () => {
    await replica();
    await db.query(
      `INSERT INTO netops_change_requests (id, tool, site, requester, state, created_at, expires_at, data)
       SELECT 'cr_sql' || g, 'create_network', 'default', 'U0SQL' || (g % 3), 'pending', now(), now(), '{}'::jsonb
         FROM generate_series(1, 50) AS g`,
    );
    await db.query(
      `UPDATE netops_change_requests SET state = 'cancelled' WHERE id IN ('cr_sql1', 'cr_sql2', 'cr_sql3')`,
    );
    await db.query(`UPDATE netops_change_requests SET requester = 'U0MOVED' WHERE id = 'cr_sql4'`);
    await db.query(`DELETE FROM netops_change_requests WHERE id IN ('cr_sql5', 'cr_sql6')`);
    expect(await counters(db.query)).toEqual(await counted(db.query));
    expect((await counted(db.query))['cancelled U0SQL1']).toBe(1);

    await db.query('TRUNCATE netops_change_requests');
    expect(await counters(db.query)).toEqual({});
    expect((await db.query('SELECT count(*)::int AS n FROM netops_change_counts')).rows[0]).toEqual({ n: 0 });
  });

  it('are filled by migration 7 on a database that already holds requests', async () => {
    const fresh = await createTestDatabase();
    const pool = new pg.Pool({ connectionString: fresh.url });
    try {
      // The schema as it was before migration 7, with requests in it.
      const before = MIGRATIONS.filter((m) => m.version < 7);
      await migrate(pool, silentLogger(), before);
      expect((await fresh.query("SELECT to_regclass('netops_change_counts') AS t")).rows[0]).toEqual({
        t: null,
      });
      const states = ['pending', 'approved', 'succeeded', 'failed', 'expired', 'cancelled'];
      await fresh.query(
        `INSERT INTO netops_change_requests (id, tool, site, requester, state, created_at, expires_at, data)
         SELECT 'cr_old' || g, 'create_network', 'default', 'U0P' || (g % 7), ($1::text[])[1 + g % 6],
                now(), now(), '{}'::jsonb
           FROM generate_series(1, 500) AS g`,
        [states],
      );

      const result = await migrate(pool, silentLogger());

      expect(result.applied).toEqual(MIGRATIONS.filter((m) => m.version >= 7).map((m) => m.version));
      const query = (sql: string) => fresh.query(sql);
      const filled = await counters(query);
      expect(filled).toEqual(await counted(query));
      expect(Object.values(filled).reduce((sum, n) => sum + n, 0)).toBe(500);
      // And the triggers run from then on.
      await fresh.query(`UPDATE netops_change_requests SET state = 'expired' WHERE state = 'pending'`);
      expect(await counters(query)).toEqual(await counted(query));
    } finally {
      await pool.end();
      await fresh.drop();
    }
  });
});
