import { silentLogger } from '../../src/log.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { useTestDatabase } from '../helpers/postgres.js';
import { describeStoreContract } from './contract.js';

const db = useTestDatabase();

const open = () =>
  PostgresStore.open({ database: { url: db.url }, logger: silentLogger(), leaseSeconds: 30 });

describeStoreContract('PostgreSQL', () => ({
  async fresh() {
    await db.reset();
    return open();
  },
  async reopen(previous) {
    await previous.close();
    return open();
  },
}));
