import type pg from 'pg';
import { BotError } from '../../errors.js';
import { DeadlineLedgerReader, deadlineDiscrepancies } from '../deadline-audit.js';
import {
  type Anchor,
  ChainChecker,
  GENESIS_HASH,
  isSigned,
  macMatches,
  parseEvent,
  sha256Hex,
  type VerifyResult,
} from '../journal-format.js';
import type { JournalHead } from '../types.js';
import { PostgresDeadlineStore } from './deadlines.js';

/*
 * The journal in PostgreSQL checked as a whole: at open (the head, and with JOURNAL_KEY every MAC)
 * and by audit:verify, each from one consistent snapshot.
 */

const VERIFY_BATCH = 1_000;

type Queryable = pg.Pool | pg.PoolClient;

/** The database's journal does not hang together; the bot refuses to run on it rather than guess. */
export class StoreIntegrityError extends BotError {
  readonly code = 'journal_invalid';
  constructor(readonly reason: string) {
    super(`the PostgreSQL journal fails verification: ${reason}. Run \`npm run audit:verify\` for details.`);
  }
}

export async function readHead(db: Queryable): Promise<JournalHead> {
  const head = await db.query<{ seq: string; hash: string }>(
    'SELECT seq, hash FROM netops_journal_head WHERE id = 1',
  );
  const row = head.rows[0];
  if (!row) throw new StoreIntegrityError('the chain head row is missing');
  return { count: Number(row.seq), head: row.hash };
}

/**
 * Verifies the whole chain in the database from one consistent snapshot: each row's text (seq,
 * hash links, schema), that its columns say what its text says, and that the head row matches the
 * last event, so an edited, deleted, inserted, reordered or cut-off row is reported by position.
 */
export async function verifyDatabaseJournal(
  pool: pg.Pool,
  options: { key?: string; anchors?: readonly Anchor[]; requireSigned?: boolean } = {},
): Promise<VerifyResult> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const checker = new ChainChecker({ unit: 'entry', ...options });
    let position = 0;
    let after = 0;
    for (;;) {
      const batch = await client.query<{ seq: string; request_id: string; type: string; line: string }>(
        'SELECT seq, request_id, type, line FROM netops_journal WHERE seq > $1 ORDER BY seq LIMIT $2',
        [after, VERIFY_BATCH],
      );
      for (const row of batch.rows) {
        position += 1;
        const failure = checker.push(row.line) ?? columnMismatch(row, position);
        if (failure) return failure;
        after = Number(row.seq);
      }
      if (batch.rows.length < VERIFY_BATCH) break;
    }
    const result = checker.end();
    if (!result.ok) return result;
    const head = await readHead(client);
    if (head.count !== result.events || head.head !== result.head) {
      return {
        ok: false,
        line: result.events,
        reason:
          `the chain head records ${head.count} events ending in ${head.head.slice(0, 12)}, ` +
          `but the journal has ${result.events} ending in ${result.head.slice(0, 12)}: entries were removed or added at the end`,
      };
    }
    return result;
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
  }
}

/**
 * netops_deadlines against the journal (see deadlineDiscrepancies), read from one snapshot. Run
 * after the chain verified: the events read here are the signed ones.
 */
export async function databaseDeadlineDiscrepancies(pool: pg.Pool): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const reader = new DeadlineLedgerReader();
    let after = 0;
    for (;;) {
      const batch = await client.query<{ seq: string; line: string }>(
        `SELECT seq, line FROM netops_journal WHERE seq > $1 AND type IN ('succeeded', 'deadline')
          ORDER BY seq LIMIT $2`,
        [after, VERIFY_BATCH],
      );
      for (const row of batch.rows) {
        reader.add(parseEvent(row.line));
        after = Number(row.seq);
      }
      if (batch.rows.length < VERIFY_BATCH) break;
    }
    const stored = await new PostgresDeadlineStore(client).list();
    return deadlineDiscrepancies(reader.deadlines, stored);
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
  }
}

/** A row whose indexed columns disagree with its (hashed) text was edited outside the bot. */
function columnMismatch(
  row: { seq: string; request_id: string; type: string; line: string },
  position: number,
): VerifyResult | undefined {
  let text: { seq?: unknown; id?: unknown; type?: unknown };
  try {
    text = JSON.parse(row.line) as typeof text;
  } catch {
    // The chain checker reports unparsable text at this position.
    return undefined;
  }
  const columns: [string, unknown, unknown][] = [
    ['seq', Number(row.seq), text.seq],
    ['request_id', row.request_id, text.id],
    ['type', row.type, text.type],
  ];
  const wrong = columns.find(([, column, inText]) => column !== inText);
  if (!wrong) return undefined;
  return {
    ok: false,
    line: position,
    reason: `the row's ${wrong[0]} column (${String(wrong[1])}) differs from its text (${String(wrong[2])}): the row was edited`,
  };
}

/**
 * At open: the head row must match the last event, or the chain was cut or edited at its end; a
 * signed last event needs JOURNAL_KEY, and its MAC must match it (a wrong key is found at once).
 */
export async function checkHead(pool: pg.Pool, key: string | undefined): Promise<void> {
  const head = await readHead(pool);
  const last = await pool.query<{ seq: string; line: string }>(
    'SELECT seq, line FROM netops_journal ORDER BY seq DESC LIMIT 1',
  );
  const row = last.rows[0];
  const count = row ? Number(row.seq) : 0;
  const hash = row ? sha256Hex(row.line) : GENESIS_HASH;
  if (count !== head.count || hash !== head.head) {
    throw new StoreIntegrityError(
      `the chain head records ${head.count} events, but the last journal entry is number ${count}` +
        (count === head.count ? ' and its hash differs' : ''),
    );
  }
  if (!row || !isSigned(row.line)) return;
  if (key === undefined) {
    throw new StoreIntegrityError(
      'the journal is signed (its entries carry MACs) but JOURNAL_KEY is not set: set it to the key the journal was written with',
    );
  }
  if (!macMatches(row.line, key)) {
    throw new StoreIntegrityError(
      `the MAC of the last journal entry (number ${count}) does not match JOURNAL_KEY: the key is not the one the journal was written with, or the entry was forged`,
    );
  }
}

/**
 * With JOURNAL_KEY, the whole chain and every MAC, as audit:verify checks them: a replica never
 * serves a journal audit:verify rejects (a journal forged without the key, MACs stripped and the
 * chain rebuilt, would pass the head check and then run a different change).
 */
export async function checkWholeChain(pool: pg.Pool, key: string): Promise<void> {
  const result = await verifyDatabaseJournal(pool, { key, requireSigned: true });
  if (!result.ok) throw new StoreIntegrityError(`at entry ${result.line}: ${result.reason}`);
}
