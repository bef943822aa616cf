import { afterEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { storeErrorOf } from '../../src/store/postgres/pool.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { useTestDatabase } from '../helpers/postgres.js';
import { type SwitchableProxy, startSwitchableProxy } from '../helpers/switchable-proxy.js';
import { sampleRequest } from './contract.js';

const db = useTestDatabase();
const ALEX = { userId: 'U0ALEX' };
let open: { store: PostgresStore; proxy: SwitchableProxy } | undefined;

/** One replica that reaches the file's database through a proxy the test can cut. */
async function replicaBehindProxy(): Promise<{ store: PostgresStore; proxy: SwitchableProxy }> {
  const direct = new URL(db.url);
  const proxy = await startSwitchableProxy(`http://${direct.hostname}:${direct.port}`);
  const url = new URL(db.url);
  url.port = new URL(proxy.url).port;
  const store = await PostgresStore.open({
    database: { url: url.toString() },
    logger: silentLogger(),
    leaseSeconds: 30,
  });
  open = { store, proxy };
  return open;
}

afterEach(async () => {
  if (!open) return;
  await open.proxy.accept();
  await open.store.close();
  await open.proxy.close();
  open = undefined;
});

describe('a PostgreSQL that cannot be reached', () => {
  it('fails requests, reads and bot data with StoreUnavailableError, not a driver error', async () => {
    // Arrange
    await db.reset();
    const { store, proxy } = await replicaBehindProxy();
    const kept = sampleRequest();
    await store.changes().create(kept, ALEX, Date.now());

    // Act
    await proxy.refuse();
    const outcomes = await Promise.allSettled([
      store.changes().create(sampleRequest(), ALEX, Date.now()),
      store.changes().get(kept.id),
      store.changes().list({ state: 'pending' }),
      store.data.get('some-key'),
      store.data.set('some-key', 1),
    ]);

    // Assert
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      const reason = outcome.status === 'rejected' ? outcome.reason : undefined;
      expect(reason).toBeInstanceOf(StoreUnavailableError);
      expect((reason as Error).message).toMatch(/^the database cannot be reached \(/);
    }
    expect((await store.health()).ok).toBe(false);
  });

  it('serves again once the database is back, with nothing recorded while it was away', async () => {
    await db.reset();
    const { store, proxy } = await replicaBehindProxy();
    await proxy.refuse();
    const lost = sampleRequest();
    await expect(store.changes().create(lost, ALEX, Date.now())).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );

    await proxy.accept();
    const kept = sampleRequest();
    await store.changes().create(kept, ALEX, Date.now());

    expect((await store.changes().get(kept.id))?.state).toBe('pending');
    expect(await store.changes().get(lost.id)).toBeUndefined();
  });
});

describe('storeErrorOf', () => {
  it.each([
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    ],
    ['a server shutting down (57P01)', Object.assign(new Error('terminating connection'), { code: '57P01' })],
    ['too many connections (53300)', Object.assign(new Error('sorry, too many clients'), { code: '53300' })],
    ['a connection exception (08006)', Object.assign(new Error('connection failure'), { code: '08006' })],
    ['a lost connection', new Error('Connection terminated unexpectedly')],
    ['a connect timeout', new Error('timeout exceeded when trying to connect')],
  ])('turns %s into StoreUnavailableError', (_name, error) => {
    expect(storeErrorOf(error)).toBeInstanceOf(StoreUnavailableError);
  });

  it('leaves other database errors (a constraint) as they are', () => {
    const unique = Object.assign(new Error('duplicate key value'), { code: '23505' });

    expect(storeErrorOf(unique)).toBe(unique);
  });
});
