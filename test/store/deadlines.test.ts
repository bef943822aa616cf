import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { Store } from '../../src/store/types.js';
import { useTestDatabase } from '../helpers/postgres.js';
import { describeDeadlineContract } from './deadline-contract.js';

const dirs: string[] = [];
const open: Store[] = [];

afterAll(async () => {
  for (const store of open.splice(0)) await store.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describeDeadlineContract('files under DATA_DIR', {
  async fresh() {
    const dir = mkdtempSync(join(tmpdir(), 'netops-deadlines-'));
    dirs.push(dir);
    return {
      a: new FileStore(dir).deadlines(),
      b: new FileStore(dir).deadlines(),
      reopen: async () => new FileStore(dir).deadlines(),
    };
  },
});

const db = useTestDatabase();
const openPostgres = async () => {
  const store = await PostgresStore.open({
    database: { url: db.url },
    logger: silentLogger(),
    leaseSeconds: 30,
  });
  open.push(store);
  return store;
};

describeDeadlineContract('PostgreSQL, two replicas on one database', {
  async fresh() {
    for (const store of open.splice(0)) await store.close();
    const a = await openPostgres();
    await db.query('DELETE FROM netops_deadlines');
    const b = await openPostgres();
    return {
      a: a.deadlines(),
      b: b.deadlines(),
      async reopen() {
        await a.close();
        await b.close();
        return (await openPostgres()).deadlines();
      },
    };
  },
});
