import type pg from 'pg';
import type { LeaseStore } from '../types.js';

/**
 * Leases in netops_leases (migration 5): one conditional upsert, so of any number of replicas at
 * most one holds a lease; the database's clock decides when it runs out, never a replica's.
 */
export class PostgresLeaseStore implements LeaseStore {
  constructor(private readonly pool: Pick<pg.Pool, 'query'>) {}

  async acquire(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const taken = await this.pool.query(
      `INSERT INTO netops_leases (name, holder, until)
       VALUES ($1, $2, now() + make_interval(secs => $3 / 1000.0))
       ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, until = EXCLUDED.until
       WHERE netops_leases.holder = EXCLUDED.holder OR netops_leases.until < now()`,
      [name, holder, ttlMs],
    );
    return taken.rowCount === 1;
  }

  async release(name: string, holder: string): Promise<void> {
    await this.pool.query('DELETE FROM netops_leases WHERE name = $1 AND holder = $2', [name, holder]);
  }
}
