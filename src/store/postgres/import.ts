import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { BotError } from '../../errors.js';
import { JsonFileStore } from '../../lib/json-file-store.js';
import type { ChangeRequest } from '../../model/change-request.js';
import { applyEvent } from '../apply-event.js';
import { BOT_DATA_FILE } from '../file/file-store.js';
import { JOURNAL_FILE, readJournal } from '../file/journal.js';
import { verifyDatabaseJournal } from './journal-check.js';
import { inTransaction } from './pool.js';

/** What store:import copied. */
export interface ImportResult {
  events: number;
  requests: number;
  dataKeys: number;
  head: string;
}

/** The target already holds a journal: importing would fork the chain or mix two histories. */
export class ImportRefusedError extends BotError {
  readonly code = 'conflict';
}

const BATCH = 500;

/**
 * Copies DATA_DIR's journal (verified first; JournalIntegrityError if it does not) and bot data
 * into a migrated PostgreSQL database whose journal is empty, in one transaction. Lines are copied
 * verbatim, so the chain and its head hash stay the same; requests are rebuilt by replaying it.
 * Runs caught mid-way in the file become `unknown` at the first sweep of a bot on the database.
 */
export async function importDataDir(
  dataDir: string,
  pool: pg.Pool,
  options: { key?: string } = {},
): Promise<ImportResult> {
  // With a key, the file must be signed throughout, as a replica with the key requires at open.
  const checks = options.key !== undefined ? { key: options.key, requireSigned: true } : {};
  const journal = readJournal(join(dataDir, JOURNAL_FILE), checks);
  const dataPath = join(dataDir, BOT_DATA_FILE);
  const data = existsSync(dataPath) ? new JsonFileStore(dataPath) : undefined;
  const keys = data ? await data.keys() : [];
  const requests = new Map<string, ChangeRequest>();
  for (const event of journal.events) requests.set(event.id, applyEvent(requests.get(event.id), event));

  await inTransaction(pool, async (client) => {
    const head = await client.query<{ seq: string }>(
      'SELECT seq FROM netops_journal_head WHERE id = 1 FOR UPDATE',
    );
    const existing = await client.query<{ n: string }>('SELECT count(*) AS n FROM netops_change_requests');
    if (Number(head.rows[0]?.seq ?? 0) > 0 || Number(existing.rows[0]?.n ?? 0) > 0) {
      throw new ImportRefusedError(
        `the database already holds a journal (${head.rows[0]?.seq ?? 0} events); store:import copies into an empty one only`,
      );
    }
    for (let start = 0; start < journal.events.length; start += BATCH) {
      const slice = journal.events.slice(start, start + BATCH);
      await client.query(
        `INSERT INTO netops_journal (seq, at, request_id, type, line)
         SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::text[], $4::text[], $5::text[])`,
        [
          slice.map((e) => e.seq),
          slice.map((e) => e.at),
          slice.map((e) => e.id),
          slice.map((e) => e.type),
          journal.lines.slice(start, start + BATCH),
        ],
      );
    }
    await insertChangeRequests(client, [...requests.values()]);
    await client.query('UPDATE netops_journal_head SET seq = $1, hash = $2 WHERE id = 1', [
      journal.events.length,
      journal.head,
    ]);
    for (const key of keys) {
      await client.query(
        `INSERT INTO netops_bot_data (key, value) VALUES ($1, $2::jsonb)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
        [key, JSON.stringify(await data?.get(key))],
      );
    }
  });
  const verified = await verifyDatabaseJournal(pool, checks);
  if (!verified.ok) {
    throw new Error(`the imported journal does not verify at entry ${verified.line}: ${verified.reason}`);
  }
  return {
    events: journal.events.length,
    requests: requests.size,
    dataKeys: keys.length,
    head: verified.head,
  };
}

/** Writes change requests as rows, a batch per statement (a fresh table: no conflict is expected). */
export async function insertChangeRequests(
  db: Pick<pg.ClientBase, 'query'>,
  requests: readonly ChangeRequest[],
): Promise<void> {
  for (let start = 0; start < requests.length; start += BATCH) {
    const slice = requests.slice(start, start + BATCH);
    await db.query(
      `INSERT INTO netops_change_requests (id, tool, site, requester, channel, state, created_at, expires_at, data)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                            $7::timestamptz[], $8::timestamptz[], $9::jsonb[])`,
      [
        slice.map((r) => r.id),
        slice.map((r) => r.tool),
        slice.map((r) => r.site),
        slice.map((r) => r.requester.userId),
        slice.map((r) => r.channel ?? null),
        slice.map((r) => r.state),
        slice.map((r) => r.createdAt),
        slice.map((r) => r.expiresAt),
        slice.map((r) => JSON.stringify(r)),
      ],
    );
  }
}
