import type pg from 'pg';
import type { BucketSpec, BudgetBackend, Take } from '../../fleet/rate-budget.js';

// The bucket refilled up to the statement's time: the database's clock, never a replica's. A row
// another replica moved past this statement's time refills nothing (GREATEST), so two replicas
// racing on one row can never both spend the same token.
const REFILLED =
  'LEAST($2::float8, b.tokens + GREATEST(0, EXTRACT(EPOCH FROM statement_timestamp() - b.at)) * $3::float8)';

/**
 * One token bucket per API key hash in netops_rate_budgets (migration 11), taken from with one
 * upsert: the row lock queues the replicas, and a token is reserved only within the caller's wait.
 */
export class PostgresRateBudget implements BudgetBackend {
  constructor(private readonly pool: Pick<pg.Pool, 'query'>) {}

  async take(key: string, spec: BucketSpec, maxWaitMs: number): Promise<Take> {
    // A request waits at most maxWaitMs: the lowest the bucket may go for it is that much refill.
    const floor = -(maxWaitMs / 1000) * spec.perSecond;
    const found = await this.pool.query<{ tokens: number; granted: boolean }>(
      `INSERT INTO netops_rate_budgets AS b (key_hash, tokens, at, granted)
       VALUES ($1, $2::float8 - 1, statement_timestamp(), true)
       ON CONFLICT (key_hash) DO UPDATE SET
         tokens = CASE WHEN ${REFILLED} - 1 >= $4::float8 THEN ${REFILLED} - 1 ELSE ${REFILLED} END,
         granted = ${REFILLED} - 1 >= $4::float8,
         at = GREATEST(b.at, statement_timestamp())
       RETURNING tokens, granted`,
      [key, spec.burst, spec.perSecond, floor],
    );
    const row = found.rows[0];
    if (row === undefined) throw new Error('the rate budget upsert returned no row');
    const tokens = Number(row.tokens);
    const untilToken = tokens >= 0 ? 0 : (-tokens / spec.perSecond) * 1000;
    if (row.granted) return { granted: true, waitMs: untilToken };
    return { granted: false, nextInMs: ((1 - tokens) / spec.perSecond) * 1000 };
  }
}
