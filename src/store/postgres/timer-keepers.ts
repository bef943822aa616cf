import type pg from 'pg';
import type { TimerKeepers } from '../types.js';

const PREFIX = 'timer-keeper:';

/**
 * Timer keepers as leases in netops_leases, one per replica that fires deadlines; the database's
 * clock decides when one that stopped renewing is gone.
 */
export class PostgresTimerKeepers implements TimerKeepers {
  constructor(private readonly pool: Pick<pg.Pool, 'query'>) {}

  async announce(holder: string, ttlMs: number): Promise<void> {
    await this.pool.query(
      `INSERT INTO netops_leases (name, holder, until)
       VALUES ($1, $2, now() + make_interval(secs => $3 / 1000.0))
       ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, until = EXCLUDED.until`,
      [`${PREFIX}${holder}`, holder, ttlMs],
    );
  }

  async withdraw(holder: string): Promise<void> {
    await this.pool.query('DELETE FROM netops_leases WHERE name = $1', [`${PREFIX}${holder}`]);
  }

  async find(): Promise<string | undefined> {
    const found = await this.pool.query<{ holder: string }>(
      `SELECT holder FROM netops_leases WHERE name LIKE $1 AND until > now() ORDER BY until DESC LIMIT 1`,
      [`${PREFIX}%`],
    );
    return found.rows[0]?.holder;
  }
}
