import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, inject } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';

/** A database of its own for one test file, on the run's PostgreSQL server (test/global/postgres.ts). */
export interface TestDatabase {
  /** postgres://… of this database. */
  url: string;
  name: string;
  /** Runs SQL on this database (each statement commits at once: tests inspect and tamper with rows). */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    sql: string,
    params?: unknown[],
  ): Promise<pg.QueryResult<R>>;
  /** Runs SQL as the server's admin, on the `postgres` database. */
  admin(sql: string, params?: unknown[]): Promise<pg.QueryResult>;
  /** Empties every netops table, as a fresh database would be after migration. */
  reset(): Promise<void>;
  drop(): Promise<void>;
}

async function run<R extends pg.QueryResultRow>(url: string, sql: string, params?: unknown[]) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query<R>(sql, params);
  } finally {
    await client.end();
  }
}

/**
 * The connections a test database's `query` uses: kept open between statements, not one per
 * statement. PostgreSQL starts a backend process for each connection, about 35 ms of CPU here, and
 * tests that wait for a row poll it every 10 ms: a connection each time kept a core busy while they
 * waited. Statements still commit one by one (no transaction spans two), as before.
 */
function connectionsTo(url: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: 2,
    idleTimeoutMillis: 2_000,
    allowExitOnIdle: true,
  });
  // Emitted only for an idle connection the server ended (a test terminating the database's
  // backends, or DROP DATABASE ... WITH (FORCE)): the pool has already dropped it, and the next
  // statement opens another. A statement's own failure still rejects that statement.
  pool.on('error', () => undefined);
  return pool;
}

/** Creates a new empty database (no schema: the store migrates it). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = inject('postgresAdminUrl');
  const name = `netops_test_${randomBytes(6).toString('hex')}`;
  await run(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = connectionsTo(url.toString());
  const database: TestDatabase = {
    url: url.toString(),
    name,
    query: (sql, params) => pool.query(sql, params),
    admin: (sql, params) => run(adminUrl, sql, params),
    async reset() {
      await database.query(`
        DO $$ BEGIN
          IF to_regclass('netops_journal') IS NOT NULL THEN
            TRUNCATE netops_change_requests, netops_journal, netops_replicas, netops_bot_data;
            UPDATE netops_journal_head SET seq = 0, hash = repeat('0', 64);
          END IF;
          IF to_regclass('netops_rate_budgets') IS NOT NULL THEN
            TRUNCATE netops_rate_budgets;
          END IF;
        END $$`);
    },
    async drop() {
      await pool.end();
      await run(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
  return database;
}

/** One database for the whole test file, dropped after it. */
export function useTestDatabase(): TestDatabase {
  let current: TestDatabase | undefined;
  beforeAll(async () => {
    current = await createTestDatabase();
  });
  afterAll(async () => {
    await current?.drop();
  });
  // Deliberately alike: vitest fills this in its hook after the suite is collected; the getters hand out what the hook made.
  const need = (): TestDatabase => {
    if (!current) throw new Error('the test database is used outside a test');
    return current;
  };
  return {
    get url() {
      return need().url;
    },
    get name() {
      return need().name;
    },
    query: (sql, params) => need().query(sql, params),
    admin: (sql, params) => need().admin(sql, params),
    reset: () => need().reset(),
    drop: () => need().drop(),
  };
}

/** The file's database and the replicas a test opens on it. */
export interface PostgresReplicas {
  db: TestDatabase;
  /** The replicas open now, oldest first (a test may close them early with `splice`). */
  stores: PostgresStore[];
  /** Opens one replica (30 s lease unless told; signed when `key` is given), closed after the test. */
  open(options?: { leaseSeconds?: number; key?: string }): Promise<PostgresStore>;
}

/** One database for the file, emptied before each test; the replicas a test opens are closed after it. */
export function usePostgresReplicas(): PostgresReplicas {
  const db = useTestDatabase();
  const stores: PostgresStore[] = [];
  beforeEach(async () => {
    await db.reset();
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  return {
    db,
    stores,
    async open({ leaseSeconds = 30, key } = {}) {
      const store = await PostgresStore.open({
        database: { url: db.url },
        logger: silentLogger(),
        leaseSeconds,
        ...(key ? { key } : {}),
      });
      stores.push(store);
      return store;
    },
  };
}
