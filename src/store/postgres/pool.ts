import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { DatabaseConfig } from '../../config.js';
import type { Logger } from '../../log.js';

// The URL's own TLS parameters; DATABASE_SSL and DATABASE_CA_FILE replace them when set.
const URL_TLS_PARAMETERS = ['ssl', 'sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'sslnegotiation'];

/** The pg pool settings for DATABASE_URL, DATABASE_SSL and DATABASE_CA_FILE. */
export function poolConfig(database: DatabaseConfig): pg.PoolConfig {
  const url = new URL(database.url);
  let ssl: pg.PoolConfig['ssl'];
  if (database.ssl !== undefined || database.caFile !== undefined) {
    for (const name of URL_TLS_PARAMETERS) url.searchParams.delete(name);
    if (database.ssl === 'off') ssl = false;
    else if (database.ssl === 'no-verify') ssl = { rejectUnauthorized: false };
    else
      ssl = {
        rejectUnauthorized: true,
        ...(database.caFile ? { ca: readFileSync(database.caFile, 'utf8') } : {}),
      };
  }
  return {
    connectionString: url.toString(),
    ...(ssl !== undefined ? { ssl } : {}),
    application_name: 'netops-bot',
    max: 10,
    // A database that does not answer should fail a click in seconds, not hang it.
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  };
}

/** A pool whose idle-connection errors (a database restart) are logged instead of crashing the process. */
export function createPool(database: DatabaseConfig, logger: Logger): pg.Pool {
  const pool = new pg.Pool(poolConfig(database));
  pool.on('error', (error) => {
    logger.warn({ err: error }, 'an idle PostgreSQL connection failed; the pool will open a new one');
  });
  return pool;
}

/** Runs `work` in one transaction on one connection: COMMIT if it resolves, ROLLBACK if it throws. */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  // A connection whose ROLLBACK failed is broken: destroy it rather than return it to the pool.
  let broken = false;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
