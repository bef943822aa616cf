import type pg from 'pg';
import type { Logger } from '../../log.js';
import { MIGRATIONS, type Migration } from '../migrations/index.js';

// Any fixed number works; it only has to differ from other advisory locks taken in the same database.
const MIGRATION_LOCK_KEY = 471_102_001;

/** What one migration run did: the versions it applied (none when another replica got there first). */
export interface MigrationResult {
  applied: number[];
  /** Versions recorded in the database that this build does not know (a newer replica ran them). */
  unknown: number[];
}

/**
 * Brings the schema up to date in one transaction under an advisory lock: replicas starting
 * together queue on the lock, and each one after the first finds nothing left to apply.
 */
export async function migrate(
  pool: pg.Pool,
  logger: Logger,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<MigrationResult> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS netops_schema_migrations (
      version     integer PRIMARY KEY,
      name        text NOT NULL,
      applied_at  timestamptz NOT NULL DEFAULT now()
    )`);
    const done = await client.query<{ version: number }>('SELECT version FROM netops_schema_migrations');
    const have = new Set(done.rows.map((row) => row.version));
    const applied: number[] = [];
    for (const migration of migrations) {
      if (have.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO netops_schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
      logger.info({ version: migration.version, name: migration.name }, 'applied database migration');
    }
    await client.query('COMMIT');
    const known = new Set(migrations.map((m) => m.version));
    const unknown = [...have].filter((v) => !known.has(v)).sort((a, b) => a - b);
    if (unknown.length > 0) {
      logger.warn(
        { versions: unknown },
        'the database has migrations this version does not know (a newer replica applied them); migrations only add, so this one carries on',
      );
    }
    return { applied, unknown };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
