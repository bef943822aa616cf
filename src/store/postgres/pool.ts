import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { DatabaseConfig } from '../../config.js';
import { StoreUnavailableError } from '../../errors.js';
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

// Node's socket errors when the database host cannot be reached or drops the connection.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);
// pg's own wording for a connection it could not open in time or lost.
const LOST_CONNECTION =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/**
 * A database that cannot be reached (or is shutting down, or has no connection left) as the bot's
 * StoreUnavailableError, so users read "not recorded, nothing was run" instead of an internal
 * error; any other failure (a constraint, a bug) is returned unchanged.
 */
export function storeErrorOf(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof StoreUnavailableError) return error;
  const code = (error as { code?: unknown }).code;
  const sqlState = typeof code === 'string' ? code : '';
  // SQLSTATE classes 08 (connection exception) and 53 (insufficient resources), and 57P01–57P03
  // (the server shutting down, crashed, or not accepting connections yet).
  const unreachable =
    NETWORK_CODES.has(sqlState) ||
    sqlState.startsWith('08') ||
    sqlState.startsWith('53') ||
    /^57P0[123]$/.test(sqlState) ||
    LOST_CONNECTION.test(error.message);
  if (!unreachable) return error;
  return new StoreUnavailableError(`the database cannot be reached (${sqlState || error.message})`);
}

/**
 * The pool as the stores use it: `query` and `connect` fail with StoreUnavailableError when the
 * database cannot be reached. Queries on a connected client go through inTransaction, which does
 * the same.
 */
export function guardedPool(pool: pg.Pool): pg.Pool {
  return new Proxy(pool, {
    get(target, property, receiver) {
      if (property !== 'query' && property !== 'connect') return Reflect.get(target, property, receiver);
      const method = Reflect.get(target, property, target) as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        const result = method.apply(target, args);
        return result instanceof Promise
          ? result.catch((error: unknown) => {
              throw storeErrorOf(error);
            })
          : result;
      };
    },
  });
}

/** Runs `work` in one transaction on one connection: COMMIT if it resolves, ROLLBACK if it throws. */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  // A connection whose ROLLBACK failed is broken: destroy it rather than return it to the pool.
  let broken = false;
  // A connection lost between two statements is reported by the next one; without a listener, pg
  // would raise it as an uncaught exception.
  const lost = () => {
    broken = true;
  };
  client.on('error', lost);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw storeErrorOf(error);
  } finally {
    client.off('error', lost);
    client.release(broken);
  }
}
