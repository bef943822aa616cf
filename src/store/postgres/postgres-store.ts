import { hostname } from 'node:os';
import type pg from 'pg';
import type { DatabaseConfig } from '../../config.js';
import { type Logger, scrubSecrets } from '../../log.js';
import { type Actor, type ChangeRequest, SYSTEM_ACTOR } from '../../model/change-request.js';
import { applyEvent, stateAfter } from '../apply-event.js';
import { interruptedEntry, newReplicaId } from '../file/file-store.js';
import {
  chainEvent,
  type JournalEntry,
  type JournalEvent,
  parseEvent,
  type TransitionEntry,
  type VerifyResult,
} from '../journal-format.js';
import type {
  ChangeFilter,
  ChangeReader,
  ChangeStore,
  InterruptedRequest,
  JournalFeed,
  JournalHead,
  PendingFilter,
  RequestHistory,
  Store,
  StoreHealth,
  TransitionGuard,
} from '../types.js';
import { PostgresConsoleLeases } from './console-leases.js';
import { PostgresDeadlineStore } from './deadlines.js';
import {
  checkHead,
  checkWholeChain,
  readHead,
  StoreIntegrityError,
  verifyDatabaseJournal,
} from './journal-check.js';
import { PostgresKeyValueStore } from './key-values.js';
import { PostgresLeaseStore } from './leases.js';
import { type MigrationResult, migrate } from './migrate.js';
import { createPool, guardedPool, inTransaction } from './pool.js';
import { PostgresRateBudget } from './rate-budget.js';
import { PostgresSampleStore } from './samples.js';
import { PostgresTimerKeepers } from './timer-keepers.js';

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

/** The pending rows live at `liveAt`, less the excluded requesters'. */
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
    // By state and requester (the `changes` page unfiltered or per person, App Home's
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
    // Served by the partial index of migration 0008, (expires_at, id) of pending rows.
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
    // The pending ones from the counters (migration 7), less those already past their
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
  private readonly consoleLeaseStore: PostgresConsoleLeases;
  private readonly budget: PostgresRateBudget;
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
    this.consoleLeaseStore = new PostgresConsoleLeases(guarded);
    this.budget = new PostgresRateBudget(guarded);
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

  // Deliberately alike: one accessor per store part, each typed as its own part.
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

  /** The watcher's lease, one holder among the replicas (migration 5). */
  leases(): PostgresLeaseStore {
    return this.leaseStore;
  }

  journalFeed(): JournalFeed {
    const pool = this.pool;
    return {
      async read(afterSeq, limit) {
        const rows = await pool.query<{ seq: string; line: string }>(
          'SELECT seq, line FROM netops_journal WHERE seq > $1 ORDER BY seq LIMIT $2',
          [afterSeq, limit],
        );
        return rows.rows.map((r) => ({ seq: Number(r.seq), line: r.line }));
      },
    };
  }

  /** Each console's watch lease, one holder among the replicas (migration 10). */
  consoleLeases(): PostgresConsoleLeases {
    return this.consoleLeaseStore;
  }

  /** The cloud's rate budget, one bucket per API key shared by the replicas (migration 11). */
  rateBudget(): PostgresRateBudget {
    return this.budget;
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

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
