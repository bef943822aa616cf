import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { JournalIntegrityError } from '../../src/store/file/journal.js';
import { ImportRefusedError, importDataDir } from '../../src/store/postgres/import.js';
import { migrate } from '../../src/store/postgres/migrate.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { useTestDatabase } from '../helpers/postgres.js';
import { approveAndStart, sampleRequest, succeed } from './contract.js';

const db = useTestDatabase();
const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const RITA = { userId: 'U0RITA' };
const ALEX = { userId: 'U0ALEX' };
let dir: string;
let pool: pg.Pool;

beforeEach(async () => {
  await db.reset();
  dir = mkdtempSync(join(tmpdir(), 'netops-import-'));
  pool = new pg.Pool({ connectionString: db.url });
  await migrate(pool, silentLogger());
});
afterEach(async () => {
  await pool.end();
  rmSync(dir, { recursive: true, force: true });
});

/** A DATA_DIR as a bot left it: one request ran, one was caught running by a crash, one waits; zone descriptions. */
async function dataDirWithHistory() {
  const store = new FileStore(dir);
  const changes = store.changes();
  const ran = await changes.create(sampleRequest(), RITA, T0);
  const crashed = await changes.create(sampleRequest(), RITA, T0);
  const waiting = await changes.create(sampleRequest({ ttlS: 3600 }), RITA, T0);
  for (const r of [ran, crashed]) await approveAndStart(changes, r, ALEX, T0);
  await succeed(changes, ran, ALEX, T0);
  await store.data.set('zone-description:default:z1', 'Cameras & NVR');
  const head = await changes.journalHead();
  const requests = await changes.list();
  await store.close();
  return { ran, crashed, waiting, head, requests };
}

describe('store:import', () => {
  it('copies the journal verbatim (same chain, same head) and the bot data, and rebuilds every request', async () => {
    const file = await dataDirWithHistory();

    const result = await importDataDir(dir, pool);

    expect(result).toEqual({ events: 8, requests: 3, dataKeys: 1, head: file.head.head });
    const store = await PostgresStore.open({
      database: { url: db.url },
      logger: silentLogger(),
      leaseSeconds: 30,
    });
    try {
      expect(await store.changes().journalHead()).toEqual(file.head);
      expect(await store.changes().list()).toEqual(file.requests);
      expect(await store.data.get('zone-description:default:z1')).toBe('Cameras & NVR');
      const lines = await db.query<{ line: string }>('SELECT line FROM netops_journal ORDER BY seq');
      expect(lines.rows.map((r) => r.line)).toEqual(
        readFileSync(join(dir, 'approvals.jsonl'), 'utf8').split('\n').slice(0, -1),
      );
      const recovered = await store.changes().recoverInterrupted(T0 + 5000);
      expect(recovered.map((r) => [r.request.id, r.previous])).toEqual([[file.crashed.id, 'executing']]);
      expect((await store.changes().get(file.waiting.id))?.state).toBe('pending');
      expect(await store.changes().verifyJournal()).toMatchObject({ ok: true, events: 9 });
    } finally {
      await store.close();
    }
  });

  it('refuses to import into a database that already has a journal, changing nothing', async () => {
    await dataDirWithHistory();
    await importDataDir(dir, pool);

    const again = await importDataDir(dir, pool).catch((error: unknown) => error);

    expect(again).toBeInstanceOf(ImportRefusedError);
    const head = await db.query('SELECT seq::int AS seq FROM netops_journal_head');
    expect(head.rows[0]).toEqual({ seq: 8 });
  });

  it('verifies the file journal first and imports nothing from a tampered one', async () => {
    await dataDirWithHistory();
    const path = join(dir, 'approvals.jsonl');
    writeFileSync(path, readFileSync(path, 'utf8').replace('U0ALEX', 'U0ALEY'));

    const error = await importDataDir(dir, pool).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(JournalIntegrityError);
    const counts = await db.query(
      'SELECT (SELECT count(*) FROM netops_journal)::int AS events, (SELECT count(*) FROM netops_change_requests)::int AS requests',
    );
    expect(counts.rows[0]).toEqual({ events: 0, requests: 0 });
  });

  it('runs as `npm run store:import -- <DATA_DIR>` with DATABASE_URL, exit 0 and one line', async () => {
    await dataDirWithHistory();

    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'src/store/import-cli.ts', dir],
      { env: { PATH: process.env.PATH ?? '', DATABASE_URL: db.url } },
    );

    expect(stdout).toMatch(
      /^imported 8 journal events \(3 change requests\) and 1 bot data keys from .* into PostgreSQL 127\.0\.0\.1:\d+\/netops_test_\w+; chain verified, head [0-9a-f]{12}\n$/,
    );
  }, 20_000);
});
