import type pg from 'pg';
import type { ConsoleLease, ConsoleLeaseStore } from '../types.js';

/**
 * The watch leases of a fleet's consoles in netops_console_leases (migration 10): one conditional
 * upsert per console and tick, so of any number of replicas at most one holds a console; the
 * database's clock decides when a lease runs out, never a replica's.
 */
export class PostgresConsoleLeases implements ConsoleLeaseStore {
  constructor(private readonly pool: Pick<pg.Pool, 'query'>) {}

  async acquire(console: string, holder: string, ttlMs: number): Promise<boolean> {
    const taken = await this.pool.query(
      `INSERT INTO netops_console_leases (console, holder, until, renewed_at)
       VALUES ($1, $2, now() + make_interval(secs => $3 / 1000.0), now())
       ON CONFLICT (console) DO UPDATE
         SET holder = EXCLUDED.holder, until = EXCLUDED.until, renewed_at = EXCLUDED.renewed_at
       WHERE netops_console_leases.holder = EXCLUDED.holder OR netops_console_leases.until < now()`,
      [console, holder, ttlMs],
    );
    return taken.rowCount === 1;
  }

  async release(console: string, holder: string): Promise<void> {
    await this.pool.query('DELETE FROM netops_console_leases WHERE console = $1 AND holder = $2', [
      console,
      holder,
    ]);
  }

  async list(): Promise<ConsoleLease[]> {
    const found = await this.pool.query<{ console: string; holder: string; until: string }>(
      `SELECT console, holder, (extract(epoch FROM until) * 1000)::bigint AS until
         FROM netops_console_leases WHERE until > now() ORDER BY console`,
    );
    return found.rows.map((row) => ({ console: row.console, holder: row.holder, until: Number(row.until) }));
  }
}
