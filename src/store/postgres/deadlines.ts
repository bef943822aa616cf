import type pg from 'pg';
import type {
  Deadline,
  DeadlineFilter,
  DeadlineKind,
  DeadlineState,
  DeadlineStore,
  ScheduleInput,
} from '../deadlines.js';
import { newDeadlineId } from '../file/deadline-file.js';

interface DeadlineRow {
  id: string;
  kind: DeadlineKind;
  change_id: string;
  due_at: Date;
  created_at: Date;
  state: DeadlineState;
  claimed_by: string | null;
  claimed_at: Date | null;
  finished_at: Date | null;
  finished_by: string | null;
  note: string | null;
}

function toDeadline(row: DeadlineRow): Deadline {
  return {
    id: row.id,
    kind: row.kind,
    changeId: row.change_id,
    dueAt: row.due_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    state: row.state,
    ...(row.claimed_by !== null ? { claimedBy: row.claimed_by } : {}),
    ...(row.claimed_at !== null ? { claimedAt: row.claimed_at.toISOString() } : {}),
    ...(row.finished_at !== null ? { finishedAt: row.finished_at.toISOString() } : {}),
    ...(row.finished_by !== null ? { finishedBy: row.finished_by } : {}),
    ...(row.note !== null ? { note: row.note } : {}),
  };
}

const ts = (param: string) => `to_timestamp(${param} / 1000.0)`;

// Deliberately alike: the file and PostgreSQL stores implement one DeadlineStore; signatures match, bodies do not.
/**
 * Deadlines in netops_deadlines (migration 4), shared by every replica: each claim is one
 * conditional UPDATE … RETURNING, so of replicas asking at once exactly one gets each row.
 */
export class PostgresDeadlineStore implements DeadlineStore {
  constructor(private readonly pool: Pick<pg.Pool, 'query'>) {}

  async schedule(input: ScheduleInput): Promise<Deadline> {
    await this.pool.query(
      `INSERT INTO netops_deadlines (id, kind, change_id, due_at, created_at, state)
       VALUES ($1, $2, $3, ${ts('$4')}, ${ts('$5')}, 'scheduled')
       ON CONFLICT (change_id, kind) DO NOTHING`,
      [input.id ?? newDeadlineId(), input.kind, input.changeId, input.dueAt, input.at],
    );
    const found = await this.pool.query<DeadlineRow>(
      'SELECT * FROM netops_deadlines WHERE change_id = $1 AND kind = $2',
      [input.changeId, input.kind],
    );
    const row = found.rows[0];
    if (!row) throw new Error(`deadline for ${input.changeId} vanished`);
    return toDeadline(row);
  }

  async get(id: string): Promise<Deadline | undefined> {
    const found = await this.pool.query<DeadlineRow>('SELECT * FROM netops_deadlines WHERE id = $1', [id]);
    return found.rows[0] ? toDeadline(found.rows[0]) : undefined;
  }

  async list(filter: DeadlineFilter = {}): Promise<Deadline[]> {
    const conditions: string[] = [];
    const params: unknown[] = [];
    if (filter.state !== undefined) {
      params.push(typeof filter.state === 'string' ? [filter.state] : filter.state);
      conditions.push(`state = ANY($${params.length}::text[])`);
    }
    if (filter.kind !== undefined) {
      params.push(filter.kind);
      conditions.push(`kind = $${params.length}`);
    }
    if (filter.changeId !== undefined) {
      params.push(filter.changeId);
      conditions.push(`change_id = $${params.length}`);
    }
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    const found = await this.pool.query<DeadlineRow>(
      `SELECT * FROM netops_deadlines ${where} ORDER BY due_at, id`,
      params,
    );
    return found.rows.map(toDeadline);
  }

  async claimDue(at: number, by: string): Promise<Deadline[]> {
    const claimed = await this.pool.query<DeadlineRow>(
      `UPDATE netops_deadlines SET state = 'claimed', claimed_by = $2, claimed_at = ${ts('$1')}
        WHERE id IN (
          SELECT id FROM netops_deadlines
           WHERE state = 'scheduled' AND due_at <= ${ts('$1')}
           FOR UPDATE SKIP LOCKED)
          AND state = 'scheduled'
        RETURNING *`,
      [at, by],
    );
    return claimed.rows.map(toDeadline).sort((a, b) => Date.parse(a.dueAt) - Date.parse(b.dueAt));
  }

  async claim(id: string, at: number, by: string): Promise<Deadline | undefined> {
    return this.one(
      `UPDATE netops_deadlines SET state = 'claimed', claimed_by = $3, claimed_at = ${ts('$2')}
        WHERE id = $1 AND state = 'scheduled' RETURNING *`,
      [id, at, by],
    );
  }

  async cancel(id: string, at: number, by: string): Promise<Deadline | undefined> {
    return this.one(
      `UPDATE netops_deadlines SET state = 'cancelled', finished_at = ${ts('$2')}, finished_by = $3
        WHERE id = $1 AND state = 'scheduled' AND due_at > ${ts('$2')} RETURNING *`,
      [id, at, by],
    );
  }

  async finish(
    id: string,
    outcome: 'fired' | 'failed',
    at: number,
    note?: string,
  ): Promise<Deadline | undefined> {
    return this.one(
      `UPDATE netops_deadlines SET state = $2, finished_at = ${ts('$3')}, finished_by = claimed_by, note = $4
        WHERE id = $1 AND state = 'claimed' RETURNING *`,
      [id, outcome, at, note ?? null],
    );
  }

  private async one(sql: string, params: unknown[]): Promise<Deadline | undefined> {
    const found = await this.pool.query<DeadlineRow>(sql, params);
    return found.rows[0] ? toDeadline(found.rows[0]) : undefined;
  }
}
