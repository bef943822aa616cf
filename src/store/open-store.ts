import type { StoreConfig } from '../config.js';
import type { KeyValueStore } from '../lib/json-file-store.js';
import type { Logger } from '../log.js';
import { FileStore } from './file/file-store.js';
import type { Store } from './types.js';

/**
 * The store the configuration asks for: PostgreSQL when DATABASE_URL is set (loaded only then, so
 * the embedded default needs nothing installed or reachable), else files under DATA_DIR.
 */
export async function openStore(
  config: StoreConfig,
  logger: Logger,
  options: { data?: KeyValueStore } = {},
): Promise<Store> {
  const key = config.journalKey !== undefined ? { key: config.journalKey } : {};
  if (!config.database) return new FileStore(config.dataDir, { ...options, ...key, logger });
  const { PostgresStore } = await import('./postgres/postgres-store.js');
  return PostgresStore.open({
    database: config.database,
    logger,
    leaseSeconds: config.replicaLeaseSeconds,
    ...key,
  });
}
