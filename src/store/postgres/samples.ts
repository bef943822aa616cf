import type pg from 'pg';
import type { SamplePrune, SampleStore, StoredSample } from '../samples.js';

/** Telemetry samples in netops_telemetry_samples, shared by every replica (migration 2). */
export class PostgresSampleStore implements SampleStore {
  constructor(
    private readonly pool: Pick<pg.Pool, 'query'>,
    private readonly replicaId: string,
  ) {}

  async claim(site: string, slot: number, at: number): Promise<boolean> {
    const claimed = await this.pool.query(
      `INSERT INTO netops_telemetry_samples (site, slot, taken_at, replica)
       VALUES ($1, $2, to_timestamp($3 / 1000.0), $4)
       ON CONFLICT (site, slot) DO NOTHING`,
      [site, slot, at, this.replicaId],
    );
    return claimed.rowCount === 1;
  }

  async put(site: string, slot: number, _at: number, payload: string): Promise<void> {
    await this.pool.query(
      'UPDATE netops_telemetry_samples SET payload = $3 WHERE site = $1 AND slot = $2 AND replica = $4',
      [site, slot, payload, this.replicaId],
    );
  }

  async since(site: string, afterSlot: number): Promise<StoredSample[]> {
    const found = await this.pool.query<{ slot: string; at: string; payload: string }>(
      `SELECT slot, (extract(epoch FROM taken_at) * 1000)::bigint AS at, payload
         FROM netops_telemetry_samples
        WHERE site = $1 AND slot > $2 AND payload IS NOT NULL
        ORDER BY slot`,
      [site, afterSlot],
    );
    return found.rows.map((row) => ({ slot: Number(row.slot), at: Number(row.at), payload: row.payload }));
  }

  async prune({ site, before, hourlyBefore, intervalMs }: SamplePrune): Promise<void> {
    await this.pool.query(
      `DELETE FROM netops_telemetry_samples
        WHERE site = $1
          AND taken_at < to_timestamp($2 / 1000.0)
          AND (taken_at < to_timestamp($3 / 1000.0) OR (slot * $4) % 3600000 >= $4)`,
      [site, before, hourlyBefore, intervalMs],
    );
  }
}
