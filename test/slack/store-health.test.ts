import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { useTestDatabase } from '../helpers/postgres.js';
import { startSlackBot } from '../helpers/slack-bot.js';

const db = useTestDatabase();

describe('/healthz with PostgreSQL as the store', () => {
  it('answers 200 with the store while the database answers, and 503 (not ready) while it does not', async () => {
    const store = await PostgresStore.open({
      database: { url: db.url },
      logger: silentLogger(),
      leaseSeconds: 30,
    });
    const bot = await startSlackBot({ store });
    const health = async () => {
      const response = await fetch(`http://127.0.0.1:${bot.port}/healthz`);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    try {
      const up = await health();
      await db.admin(`ALTER DATABASE ${db.name} WITH ALLOW_CONNECTIONS false`);
      await db.admin('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [db.name]);
      let down: Awaited<ReturnType<typeof health>>;
      try {
        down = await health();
      } finally {
        await db.admin(`ALTER DATABASE ${db.name} WITH ALLOW_CONNECTIONS true`);
      }
      const back = await health();

      expect(up).toEqual({
        status: 200,
        body: expect.objectContaining({
          status: 'ok',
          store: { kind: 'postgres', ok: true },
          pending_changes: 0,
        }),
      });
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ status: 'unavailable', store: { kind: 'postgres', ok: false } });
      expect(String((down.body.store as { error?: string }).error)).toMatch(/^database unreachable: /);
      expect(down.body).not.toHaveProperty('pending_changes');
      expect(JSON.stringify(down.body)).not.toContain(db.url);
      expect(back.status).toBe(200);
    } finally {
      await bot.close();
    }
  });
});
