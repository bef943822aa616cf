import { hostname } from 'node:os';
import type pg from 'pg';
import type { DatabaseConfig } from '../../config.js';
import type { KeyValueStore } from '../../lib/json-file-store.js';
import { type Logger, scrubSecrets } from '../../log.js';
import { applyEvent, stateAfter } from '../apply-event.js';
import { DeadlineLedgerReader, deadlineDiscrepancies } from '../deadline-audit.js';
import { interruptedEntry, newReplicaId } from '../file/file-store.js';
import {
  type Anchor,
  ChainChecker,
  chainEvent,
  GENESIS_HASH,
  isSigned,
  type JournalEntry,
  type JournalEvent,
  macMatches,
  parseEvent,
  sha256Hex,
  type TransitionEntry,
  type VerifyResult,
} from '../journal-format.js';
import { type Actor, type ChangeRequest, SYSTEM_ACTOR } from '../records.js';
import type {
  ChangeFilter,
  ChangeReader,
  ChangeStore,
  InterruptedRequest,
  JournalHead,
  PendingFilter,
  RequestHistory,
  Store,
  StoreHealth,
  TransitionGuard,
} from '../types.js';
import { PostgresDeadlineStore } from './deadlines.js';
import { PostgresLeaseStore } from './leases.js';
import { type MigrationResult, migrate } from './migrate.js';
import { createPool, guardedPool, inTransaction } from './pool.js';
import { PostgresSampleStore } from './samples.js';
import { PostgresTimerKeepers } from './timer-keepers.js';

/** The database's journal does not hang together; the bot refuses to run on it rather than guess. */
export class StoreIntegrityError extends Error {
  constructor(readonly reason: string) {
    super(`the PostgreSQL journal fails verification: ${reason}. Run \`npm run audit:verify\` for details.`);
    this.name = 'StoreIntegrityError';
  }
}

/** What PostgresStore.open needs. */
export interface PostgresStoreOptions {
  database: DatabaseConfig;
  logger: Logger;
  /** REPLICA_LEASE_SECONDS: how long this replica's lease lasts without renewal. */
  leaseSeconds: number;
  /** JOURNAL_KEY: every event this replica appends is signed with it. */
  key?: string;
}

const HEALTH_TIMEOUT_MS = 2_000;
const VERIFY_BATCH = 1_000;

type Queryable = pg.Pool | pg.PoolClient;

interface RequestRow {
  id: string;
  data: ChangeRequest;
}

function errorText(error: unknown): string {
  return scrubSecrets(error instanceof Error ? error.message : String(error));
}

/**
 * Appends one event to the chain inside the caller's transaction. The head row is locked first,
 * so appends from every replica queue on it and form one chain; the event commits or rolls back
 * with the state change it records.
 */
async function appendEvent(
  client: pg.PoolClient,
  entry: JournalEntry,
  at: number,
  key: string | undefined,
): Promise<JournalEvent> {
  const head = await client.query<{ seq: string; hash: string }>(
    'SELECT seq, hash FROM netops_journal_head WHERE id = 1 FOR UPDATE',
  );
  const current = head.rows[0];
  if (!current) throw new StoreIntegrityError('the chain head row is missing');
  const seq = Number(current.seq) + 1;
  const { event, line, hash } = chainEvent(
    entry,
    { seq, at: new Date(at).toISOString(), prev: current.hash },
    key,
  );
  await client.query(
    'INSERT INTO netops_journal (seq, at, request_id, type, line) VALUES ($1, $2, $3, $4, $5)',
    [seq, event.at, entry.id, entry.type, line],
  );
  await client.query('UPDATE netops_journal_head SET seq = $1, hash = $2 WHERE id = 1', [seq, hash]);
  return event;
}

/** SQL conditions and parameters for a ChangeFilter. */
function whereClause(filter: ChangeFilter, params: unknown[]): string {
  const conditions: string[] = [];
  const add = (sql: (placeholder: string) => string, value: unknown) => {
    params.push(value);
    conditions.push(sql(`$${params.length}`));
  };
  if (filter.state !== undefined) {
    add((p) => `state = ANY(${p}::text[])`, typeof filter.state === 'string' ? [filter.state] : filter.state);
  }
  if (filter.requester !== undefined) add((p) => `requester = ${p}`, filter.requester);
  if (filter.tool !== undefined) add((p) => `tool = ${p}`, filter.tool);
  if (filter.site !== undefined) add((p) => `site = ${p}`, filter.site);
  if (filter.since !== undefined) add((p) => `created_at >= ${p}::timestamptz`, filter.since);
  // The predicate of migration 9's partial index, written the same way so the planner uses it.
  if (filter.withoutSetSteps === true) conditions.push(`NOT (data ? 'setOf')`);
  return conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
}

/** Issue 26: the pending rows live at `liveAt`, less the excluded requesters'. */
function pendingWhere(filter: Omit<PendingFilter, 'limit' | 'offset'>, params: unknown[]): string {
  params.push(new Date(filter.liveAt).toISOString());
  let sql = `WHERE state = 'pending' AND expires_at > $${params.length}::timestamptz`;
  if (filter.notRequestedBy !== undefined && filter.notRequestedBy.length > 0) {
    params.push([...filter.notRequestedBy]);
    sql += ` AND requester <> ALL($${params.length}::text[])`;
  }
  return sql;
}

/** Change requests and the journal in PostgreSQL, shared by every replica on the database. */
export class PostgresChangeStore implements ChangeStore {
  constructor(
    private readonly pool: pg.Pool,
    readonly replicaId: string,
    private readonly key?: string,
  ) {}

  async create(request: ChangeRequest, actor: Actor, at: number): Promise<ChangeRequest> {
    return inTransaction(this.pool, async (client) => {
      await client.query(
        `INSERT INTO netops_change_requests
           (id, tool, site, requester, channel, state, created_at, expires_at, data)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb)`,
        [
          request.id,
          request.tool,
          request.site,
          request.requester.userId,
          request.channel ?? null,
          request.state,
          request.createdAt,
          request.expiresAt,
          JSON.stringify(request),
        ],
      );
      const event = await appendEvent(
        client,
        { type: 'created', id: request.id, actor, request },
        at,
        this.key,
      );
      return applyEvent(undefined, event);
    });
  }

  async transition(
    id: string,
    entry: TransitionEntry,
    guard: TransitionGuard,
  ): Promise<ChangeRequest | undefined> {
    return inTransaction(this.pool, async (client) => {
      // The claim and every other transition: one conditional UPDATE. Concurrent callers queue on
      // the row lock; after the first commits, the others find the state changed and match nothing.
      const claimed = await client.query<RequestRow>(
        `UPDATE netops_change_requests
            SET state = COALESCE($2::text, state),
                owner = CASE WHEN $3::boolean THEN $4::text ELSE owner END,
                updated_at = now()
          WHERE id = $1
            AND state = ANY($5::text[])
            AND (NOT $6::boolean OR expires_at > $8::timestamptz)
            AND (NOT $7::boolean OR expires_at <= $8::timestamptz)
            AND (NOT $9::boolean OR owner = $4::text)
            AND (NOT $10::boolean OR NOT (data ? 'message'))
            AND (NOT $11::boolean OR data->>'remindedAt' IS NULL)
            AND ($12::text IS NULL
                 OR NOT (COALESCE(data->'approvedBy', '[]'::jsonb) @> jsonb_build_array(jsonb_build_object('userId', $12::text))))
            AND ($13::int IS NULL OR jsonb_array_length(COALESCE(data->'approvedBy', '[]'::jsonb)) < $13::int)
            AND ($14::int IS NULL OR jsonb_array_length(COALESCE(data->'approvedBy', '[]'::jsonb)) >= $14::int)
            AND (NOT $15::boolean OR jsonb_array_length(COALESCE(data->'deadlines', '[]'::jsonb)) = 0)
            AND ($16::text IS NULL OR EXISTS (
                 SELECT 1 FROM jsonb_array_elements(COALESCE(data->'deadlines', '[]'::jsonb)) d
                  WHERE d->>'id' = $16::text AND d->>'state' = ANY($17::text[])))
        RETURNING id, data`,
        [
          id,
          stateAfter(entry.type) ?? null,
          entry.type === 'approved',
          this.replicaId,
          guard.from,
          guard.live === true,
          guard.overdue === true,
          new Date(guard.at).toISOString(),
          guard.ownedBySelf === true,
          guard.unannounced === true,
          guard.notReminded === true,
          guard.notApprovedBy ?? null,
          guard.approvalsBelow ?? null,
          guard.approvalsAtLeast ?? null,
          guard.noDeadline === true,
          guard.deadline?.id ?? null,
          guard.deadline ? [...guard.deadline.states] : [],
        ],
      );
      const row = claimed.rows[0];
      if (!row) return undefined;
      return this.record(client, row, entry, guard.at);
    });
  }

  async expireDue(at: number): Promise<ChangeRequest[]> {
    return inTransaction(this.pool, async (client) => {
      // SKIP LOCKED: rows another replica is sweeping right now are its to report, not ours.
      const due = await client.query<RequestRow>(
        `WITH due AS (
           SELECT id FROM netops_change_requests
            WHERE state = 'pending' AND expires_at <= $1::timestamptz
            ORDER BY created_at, id
            FOR UPDATE SKIP LOCKED)
         UPDATE netops_change_requests c SET state = 'expired', updated_at = now()
           FROM due WHERE c.id = due.id
         RETURNING c.id, c.data`,
        [new Date(at).toISOString()],
      );
      const expired: ChangeRequest[] = [];
      for (const row of inCreationOrder(due.rows)) {
        expired.push(
          await this.record(client, row, { type: 'expired', id: row.id, actor: SYSTEM_ACTOR }, at),
        );
      }
      return expired;
    });
  }

  async recoverInterrupted(at: number): Promise<InterruptedRequest[]> {
    return inTransaction(this.pool, async (client) => {
      // Leases are compared on the database's clock, the one clock every replica shares.
      const orphans = await client.query<RequestRow>(
        `WITH orphans AS (
           SELECT c.id FROM netops_change_requests c
            WHERE c.state IN ('approved', 'executing')
              AND NOT EXISTS (SELECT 1 FROM netops_replicas r WHERE r.id = c.owner AND r.lease_until > now())
            ORDER BY c.created_at, c.id
            FOR UPDATE OF c SKIP LOCKED)
         UPDATE netops_change_requests c
            SET state = CASE c.state WHEN 'approved' THEN 'failed' ELSE 'unknown' END, updated_at = now()
           FROM orphans WHERE c.id = orphans.id
         RETURNING c.id, c.data`,
      );
      const recovered: InterruptedRequest[] = [];
      for (const row of inCreationOrder(orphans.rows)) {
        const previous = row.data.state === 'approved' ? 'approved' : 'executing';
        const request = await this.record(client, row, interruptedEntry(row.id, previous), at);
        recovered.push({ request, previous });
      }
      return recovered;
    });
  }

  async get(id: string): Promise<ChangeRequest | undefined> {
    const found = await this.pool.query<{ data: ChangeRequest }>(
      'SELECT data FROM netops_change_requests WHERE id = $1',
      [id],
    );
    return found.rows[0]?.data;
  }

  async list(filter: ChangeFilter = {}): Promise<ChangeRequest[]> {
    const params: unknown[] = [];
    const sql = `SELECT data FROM netops_change_requests ${whereClause(filter, params)} ORDER BY created_at DESC, id DESC`;
    return this.page(sql, params, filter);
  }

  async count(filter: Omit<ChangeFilter, 'limit' | 'offset'> = {}): Promise<number> {
    const params: unknown[] = [];
    // Issue 26: by state and requester (the `changes` page unfiltered or per person, App Home's
    // counts) from the counters of migration 7, a few rows however long the history; a filter on
    // tool, site or time counts its rows exactly (docs/decisions.md).
    const byCounters = filter.tool === undefined && filter.site === undefined && filter.since === undefined;
    const { withoutSetSteps, ...counted } = filter;
    let sql = byCounters
      ? `SELECT COALESCE(sum(n), 0) AS n FROM netops_change_counts ${whereClause(counted, params)}`
      : `SELECT count(*) AS n FROM netops_change_requests ${whereClause(filter, params)}`;
    // Less the change sets' steps, counted through migration 9's partial index (a few rows).
    if (byCounters && withoutSetSteps === true) {
      const steps = whereClause(counted, params);
      sql = `SELECT (${sql}) - (SELECT count(*) FROM netops_change_requests ${steps ? `${steps} AND` : 'WHERE'} data ? 'setOf') AS n`;
    }
    const found = await this.pool.query<{ n: string }>(sql, params);
    return Number(found.rows[0]?.n ?? 0);
  }

  async pendingByExpiry(filter: PendingFilter): Promise<ChangeRequest[]> {
    const params: unknown[] = [];
    // Issue 26: served by the partial index of migration 0008, (expires_at, id) of pending rows.
    const sql = `SELECT data FROM netops_change_requests ${pendingWhere(filter, params)} ORDER BY expires_at, id`;
    return this.page(sql, params, filter);
  }

  /** The requests `sql` selects, `limit` and `offset` appended as parameters. */
  private async page(
    sql: string,
    params: unknown[],
    paging: { limit?: number; offset?: number },
  ): Promise<ChangeRequest[]> {
    let paged = sql;
    if (paging.limit !== undefined) {
      params.push(paging.limit);
      paged += ` LIMIT $${params.length}`;
    }
    if (paging.offset !== undefined) {
      params.push(paging.offset);
      paged += ` OFFSET $${params.length}`;
    }
    const found = await this.pool.query<{ data: ChangeRequest }>(paged, params);
    return found.rows.map((row) => row.data);
  }

  async countPending(filter: Omit<PendingFilter, 'limit' | 'offset'>): Promise<number> {
    const params: unknown[] = [new Date(filter.liveAt).toISOString()];
    let notExcluded = 'true';
    if (filter.notRequestedBy !== undefined && filter.notRequestedBy.length > 0) {
      params.push([...filter.notRequestedBy]);
      notExcluded = 'requester <> ALL($2::text[])';
    }
    // Issue 26: the pending ones from the counters (migration 7), less those already past their
    // expiry that the sweep has not reached yet (read from the pending-by-expiry index, migration
    // 8: a few at most), in one statement so both parts see the same snapshot.
    const found = await this.pool.query<{ n: string }>(
      `SELECT (SELECT COALESCE(sum(n), 0) FROM netops_change_counts WHERE state = 'pending' AND ${notExcluded})
            - (SELECT count(*) FROM netops_change_requests
                WHERE state = 'pending' AND expires_at <= $1::timestamptz AND ${notExcluded}) AS n`,
      params,
    );
    return Number(found.rows[0]?.n ?? 0);
  }

  async history(id: string): Promise<RequestHistory | undefined> {
    const request = await this.get(id);
    if (!request) return undefined;
    const lines = await this.pool.query<{ line: string }>(
      'SELECT line FROM netops_journal WHERE request_id = $1 ORDER BY seq',
      [id],
    );
    return { request, events: lines.rows.map((row) => parseEvent(row.line)) };
  }

  async journalHead(): Promise<JournalHead> {
    return readHead(this.pool);
  }

  async verifyJournal(): Promise<VerifyResult> {
    return verifyDatabaseJournal(
      this.pool,
      this.key !== undefined ? { key: this.key, requireSigned: true } : {},
    );
  }

  /** Journals the transition already applied to `row` by the UPDATE, and stores the request after it. */
  private async record(
    client: pg.PoolClient,
    row: RequestRow,
    entry: TransitionEntry,
    at: number,
  ): Promise<ChangeRequest> {
    const event = await appendEvent(client, entry, at, this.key);
    const next = applyEvent(row.data, event);
    await client.query('UPDATE netops_change_requests SET data = $2::jsonb WHERE id = $1', [
      row.id,
      JSON.stringify(next),
    ]);
    return next;
  }
}

function inCreationOrder(rows: RequestRow[]): RequestRow[] {
  return [...rows].sort(
    (a, b) =>
      Date.parse(a.data.createdAt) - Date.parse(b.data.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

async function readHead(db: Queryable): Promise<JournalHead> {
  const head = await db.query<{ seq: string; hash: string }>(
    'SELECT seq, hash FROM netops_journal_head WHERE id = 1',
  );
  const row = head.rows[0];
  if (!row) throw new StoreIntegrityError('the chain head row is missing');
  return { count: Number(row.seq), head: row.hash };
}

/**
 * Verifies the whole chain in the database from one consistent snapshot: each row's text (seq,
 * hash links, schema), that its columns say what its text says, and that the head row matches the
 * last event, so an edited, deleted, inserted, reordered or cut-off row is reported by position.
 */
export async function verifyDatabaseJournal(
  pool: pg.Pool,
  options: { key?: string; anchors?: readonly Anchor[]; requireSigned?: boolean } = {},
): Promise<VerifyResult> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const checker = new ChainChecker({ unit: 'entry', ...options });
    let position = 0;
    let after = 0;
    for (;;) {
      const batch = await client.query<{ seq: string; request_id: string; type: string; line: string }>(
        'SELECT seq, request_id, type, line FROM netops_journal WHERE seq > $1 ORDER BY seq LIMIT $2',
        [after, VERIFY_BATCH],
      );
      for (const row of batch.rows) {
        position += 1;
        const failure = checker.push(row.line) ?? columnMismatch(row, position);
        if (failure) return failure;
        after = Number(row.seq);
      }
      if (batch.rows.length < VERIFY_BATCH) break;
    }
    const result = checker.end();
    if (!result.ok) return result;
    const head = await readHead(client);
    if (head.count !== result.events || head.head !== result.head) {
      return {
        ok: false,
        line: result.events,
        reason:
          `the chain head records ${head.count} events ending in ${head.head.slice(0, 12)}, ` +
          `but the journal has ${result.events} ending in ${result.head.slice(0, 12)}: entries were removed or added at the end`,
      };
    }
    return result;
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
  }
}

/**
 * netops_deadlines against the journal (see deadlineDiscrepancies), read from one snapshot. Run
 * after the chain verified: the events read here are the signed ones.
 */
export async function databaseDeadlineDiscrepancies(pool: pg.Pool): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const reader = new DeadlineLedgerReader();
    let after = 0;
    for (;;) {
      const batch = await client.query<{ seq: string; line: string }>(
        `SELECT seq, line FROM netops_journal WHERE seq > $1 AND type IN ('succeeded', 'deadline')
          ORDER BY seq LIMIT $2`,
        [after, VERIFY_BATCH],
      );
      for (const row of batch.rows) {
        reader.add(parseEvent(row.line));
        after = Number(row.seq);
      }
      if (batch.rows.length < VERIFY_BATCH) break;
    }
    const stored = await new PostgresDeadlineStore(client).list();
    return deadlineDiscrepancies(reader.deadlines, stored);
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
  }
}

/** A row whose indexed columns disagree with its (hashed) text was edited outside the bot. */
function columnMismatch(
  row: { seq: string; request_id: string; type: string; line: string },
  position: number,
): VerifyResult | undefined {
  let text: { seq?: unknown; id?: unknown; type?: unknown };
  try {
    text = JSON.parse(row.line) as typeof text;
  } catch {
    // The chain checker reports unparsable text at this position.
    return undefined;
  }
  const columns: [string, unknown, unknown][] = [
    ['seq', Number(row.seq), text.seq],
    ['request_id', row.request_id, text.id],
    ['type', row.type, text.type],
  ];
  const wrong = columns.find(([, column, inText]) => column !== inText);
  if (!wrong) return undefined;
  return {
    ok: false,
    line: position,
    reason: `the row's ${wrong[0]} column (${String(wrong[1])}) differs from its text (${String(wrong[2])}): the row was edited`,
  };
}

/** Bot-kept data in one table, shared by every replica. */
export class PostgresKeyValueStore implements KeyValueStore {
  constructor(private readonly pool: pg.Pool) {}

  async get<T = unknown>(key: string): Promise<T | undefined> {
    const found = await this.pool.query<{ value: T }>('SELECT value FROM netops_bot_data WHERE key = $1', [
      key,
    ]);
    return found.rows[0]?.value;
  }

  async set(key: string, value: unknown): Promise<void> {
    if (value === undefined) return this.delete(key);
    await this.pool.query(
      `INSERT INTO netops_bot_data (key, value) VALUES ($1, $2::jsonb)
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      [key, JSON.stringify(value)],
    );
  }

  async delete(key: string): Promise<void> {
    await this.pool.query('DELETE FROM netops_bot_data WHERE key = $1', [key]);
  }

  async keys(): Promise<string[]> {
    const found = await this.pool.query<{ key: string }>('SELECT key FROM netops_bot_data ORDER BY key');
    return found.rows.map((row) => row.key);
  }
}

/**
 * PostgreSQL when DATABASE_URL is set: one pool, the schema migrated at open, and a lease this
 * replica renews while it lives, so the others can tell its running changes from orphaned ones.
 */
export class PostgresStore implements Store {
  readonly kind = 'postgres';
  readonly data: PostgresKeyValueStore;
  private readonly changeStore: PostgresChangeStore;
  private readonly sampleStore: PostgresSampleStore;
  private readonly deadlineStore: PostgresDeadlineStore;
  private readonly leaseStore: PostgresLeaseStore;
  private readonly keepers: PostgresTimerKeepers;
  private heartbeat: NodeJS.Timeout | undefined;
  private renewedAt = Date.now();
  private renewalError: string | undefined;
  private closed = false;

  private constructor(
    readonly pool: pg.Pool,
    private readonly options: PostgresStoreOptions,
    /** What the migration run at open did. */
    readonly migrations: MigrationResult,
  ) {
    // What users' requests reach goes through the guarded pool: a lost database is "not recorded".
    const guarded = guardedPool(pool);
    this.data = new PostgresKeyValueStore(guarded);
    this.changeStore = new PostgresChangeStore(guarded, newReplicaId(), options.key);
    this.sampleStore = new PostgresSampleStore(guarded, this.changeStore.replicaId);
    this.deadlineStore = new PostgresDeadlineStore(guarded);
    this.leaseStore = new PostgresLeaseStore(guarded);
    this.keepers = new PostgresTimerKeepers(guarded);
  }

  /** Connects, migrates, checks the chain head against the last event, and registers this replica. */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const pool = createPool(options.database, options.logger);
    try {
      const migrations = await migrate(pool, options.logger);
      await checkHead(pool, options.key);
      if (options.key !== undefined) await checkWholeChain(pool, options.key);
      const store = new PostgresStore(pool, options, migrations);
      await store.renewLease();
      store.startHeartbeat();
      options.logger.info(
        { replica: store.changeStore.replicaId, lease_s: options.leaseSeconds },
        'store: PostgreSQL, shared by every replica on this database',
      );
      return store;
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
  }

  changes(): PostgresChangeStore {
    return this.changeStore;
  }

  samples(): PostgresSampleStore {
    return this.sampleStore;
  }

  deadlines(): PostgresDeadlineStore {
    return this.deadlineStore;
  }

  timerKeepers(): PostgresTimerKeepers {
    return this.keepers;
  }

  /** Issue 23: the watcher's lease, one holder among the replicas (migration 5). */
  leases(): PostgresLeaseStore {
    return this.leaseStore;
  }

  /** Reads are plain SELECTs: any process may use the change store for history without appending. */
  changeHistory(): ChangeReader {
    return this.changeStore;
  }

  async health(): Promise<StoreHealth> {
    try {
      await withTimeout(
        this.pool.query('SELECT 1'),
        HEALTH_TIMEOUT_MS,
        'the database did not answer in time',
      );
    } catch (error) {
      return { kind: 'postgres', ok: false, error: `database unreachable: ${errorText(error)}` };
    }
    if (this.renewalError && Date.now() - this.renewedAt > this.options.leaseSeconds * 1000) {
      return { kind: 'postgres', ok: false, error: `replica lease not renewed: ${this.renewalError}` };
    }
    return { kind: 'postgres', ok: true };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    // Gone for good: the runs it still owned (if any) are orphans now, not in a lease's grace.
    await withTimeout(
      this.pool.query('DELETE FROM netops_replicas WHERE id = $1', [this.changeStore.replicaId]),
      HEALTH_TIMEOUT_MS,
      'timed out',
    ).catch(() => undefined);
    await this.pool.end();
  }

  private async renewLease(): Promise<void> {
    await this.pool.query(
      `INSERT INTO netops_replicas (id, host, pid, lease_until)
       VALUES ($1, $2, $3, now() + make_interval(secs => $4))
       ON CONFLICT (id) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
      [this.changeStore.replicaId, hostname(), process.pid, this.options.leaseSeconds],
    );
    this.renewedAt = Date.now();
    this.renewalError = undefined;
  }

  private startHeartbeat(): void {
    const every = Math.max(500, (this.options.leaseSeconds * 1000) / 3);
    this.heartbeat = setInterval(() => {
      this.renewLease().catch((error: unknown) => {
        if (this.closed) return;
        this.renewalError = errorText(error);
        this.options.logger.warn({ err: error }, 'could not renew this replica’s lease in PostgreSQL');
      });
    }, every);
    this.heartbeat.unref();
  }
}

/**
 * At open: the head row must match the last event, or the chain was cut or edited at its end; a
 * signed last event needs JOURNAL_KEY, and its MAC must match it (a wrong key is found at once).
 */
async function checkHead(pool: pg.Pool, key: string | undefined): Promise<void> {
  const head = await readHead(pool);
  const last = await pool.query<{ seq: string; line: string }>(
    'SELECT seq, line FROM netops_journal ORDER BY seq DESC LIMIT 1',
  );
  const row = last.rows[0];
  const count = row ? Number(row.seq) : 0;
  const hash = row ? sha256Hex(row.line) : GENESIS_HASH;
  if (count !== head.count || hash !== head.head) {
    throw new StoreIntegrityError(
      `the chain head records ${head.count} events, but the last journal entry is number ${count}` +
        (count === head.count ? ' and its hash differs' : ''),
    );
  }
  if (!row || !isSigned(row.line)) return;
  if (key === undefined) {
    throw new StoreIntegrityError(
      'the journal is signed (its entries carry MACs) but JOURNAL_KEY is not set: set it to the key the journal was written with',
    );
  }
  if (!macMatches(row.line, key)) {
    throw new StoreIntegrityError(
      `the MAC of the last journal entry (number ${count}) does not match JOURNAL_KEY: the key is not the one the journal was written with, or the entry was forged`,
    );
  }
}

/**
 * With JOURNAL_KEY, the whole chain and every MAC, as audit:verify checks them: a replica never
 * serves a journal audit:verify rejects (issue 18: a journal forged without the key, MACs stripped
 * and the chain rebuilt, passed the head check and then ran a different change).
 */
async function checkWholeChain(pool: pg.Pool, key: string): Promise<void> {
  const result = await verifyDatabaseJournal(pool, { key, requireSigned: true });
  if (!result.ok) throw new StoreIntegrityError(`at entry ${result.line}: ${result.reason}`);
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
