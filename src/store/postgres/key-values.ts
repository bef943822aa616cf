import type pg from 'pg';
import type { KeyValueStore } from '../../lib/json-file-store.js';

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

  async keys(prefix = ''): Promise<string[]> {
    // starts_with: a prefix is matched as written (LIKE would read its % and _ as wildcards).
    const found = await this.pool.query<{ key: string }>(
      'SELECT key FROM netops_bot_data WHERE starts_with(key, $1) ORDER BY key',
      [prefix],
    );
    return found.rows.map((row) => row.key);
  }
}
