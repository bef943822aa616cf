import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { StoreIntegrityError } from '../../src/store/postgres/journal-check.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { databaseJournalReport } from '../../src/store/postgres/report.js';
import { usePostgresReplicas } from '../helpers/postgres.js';
import { runToSuccess, sampleRequest } from './contract.js';

const KEY = 'journal-key-for-tests-0123456789abcdef';
const RITA = { userId: 'U0RITA' };
const ALEX = { userId: 'U0ALEX' };
const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const { db, stores, open } = usePostgresReplicas();

/** One replica; `null`: without JOURNAL_KEY. */
const replica = (key: string | null = KEY) => open(key ? { key } : {});

// Deliberately alike: the same five events as postgres-store.test.ts, written by a replica that signs with JOURNAL_KEY.
/** Five signed events: one request run, one pending. */
async function fiveEvents(): Promise<PostgresStore> {
  const store = await replica();
  const changes = store.changes();
  await runToSuccess(changes, await changes.create(sampleRequest(), RITA, T0), ALEX, T0);
  await changes.create(sampleRequest(), RITA, T0 + 4000);
  return store;
}

async function rows(): Promise<string[]> {
  const found = await db.query<{ line: string }>('SELECT line FROM netops_journal ORDER BY seq');
  return found.rows.map((r) => r.line);
}

/** Writes lines back as rows 1…n and points the head row at the last, as a careful forger would. */
async function replaceJournal(lines: string[]): Promise<void> {
  await db.query('DELETE FROM netops_journal');
  for (const [i, line] of lines.entries()) {
    const event = JSON.parse(line) as { at: string; id: string; type: string };
    await db.query(
      'INSERT INTO netops_journal (seq, at, request_id, type, line) VALUES ($1, $2, $3, $4, $5)',
      [i + 1, event.at, event.id, event.type, line],
    );
  }
  await db.query('UPDATE netops_journal_head SET seq = $1, hash = $2', [
    lines.length,
    sha256(lines.at(-1) ?? ''),
  ]);
}

function rechain(lines: string[]): string[] {
  const out: string[] = [];
  for (const [i, line] of lines.entries()) {
    const event = JSON.parse(line) as Record<string, unknown>;
    event.prev = i === 0 ? '0'.repeat(64) : sha256(out[i - 1] ?? '');
    out.push(JSON.stringify(event));
  }
  return out;
}

describe('JOURNAL_KEY with PostgreSQL', () => {
  it('signs every row and verifies every MAC', async () => {
    await fiveEvents();

    const report = await databaseJournalReport({ url: db.url }, { key: KEY });

    for (const line of await rows()) expect(line).toMatch(/,"mac":"[0-9a-f]{64}"\}$/);
    expect(report.exitCode).toBe(0);
    expect(report.line).toMatch(
      /^journal OK: 5 events, chain verified; every event's MAC verified \(JOURNAL_KEY\)/,
    );
  });

  it('detects a re-chained edit (with the head row updated to match) that the chain alone accepts', async () => {
    await fiveEvents();
    const edited = await rows();
    edited[3] = (edited[3] ?? '').replace('"success":true', '"success":false');
    await replaceJournal(rechain(edited));

    const withoutKey = await databaseJournalReport({ url: db.url });
    const withKey = await databaseJournalReport({ url: db.url }, { key: KEY });

    expect(withoutKey.exitCode).toBe(0);
    expect(withKey.exitCode).toBe(1);
    expect(withKey.line).toMatch(
      /^journal TAMPERED at entry 4: its MAC does not match: the entry was forged or changed/,
    );
  });

  it('detects a forged append with the right prev', async () => {
    await fiveEvents();
    const lines = await rows();
    const pending = JSON.parse(lines[4] ?? '{}') as { id: string };
    const forged = JSON.stringify({
      seq: 6,
      at: '2030-01-01T00:10:00.000Z',
      prev: sha256(lines[4] ?? ''),
      type: 'cancelled',
      id: pending.id,
      actor: RITA,
    });
    await replaceJournal([...lines, forged]);

    const report = await databaseJournalReport({ url: db.url }, { key: KEY });

    expect(report.exitCode).toBe(1);
    expect(report.line).toMatch(
      /^journal TAMPERED at entry 6: it has no MAC although entry 1 before it has one/,
    );
  });

  it('detects a cut tail with the head row moved back, given an anchor from before the cut', async () => {
    await fiveEvents();
    const lines = await rows();
    const anchor = { count: 5, head: sha256(lines[4] ?? '') };
    await replaceJournal(lines.slice(0, 3));

    const keyOnly = await databaseJournalReport({ url: db.url }, { key: KEY });
    const anchored = await databaseJournalReport({ url: db.url }, { key: KEY, anchors: [anchor] });

    expect(keyOnly.exitCode).toBe(0);
    expect(anchored.exitCode).toBe(1);
    expect(anchored.line).toMatch(
      /^journal TAMPERED at entry 3: the anchor 5:[0-9a-f]{12}… records 5 events but the journal has 3: entries were cut/,
    );
  });

  it('refuses to open with a different key, or with none, a journal signed with one', async () => {
    await fiveEvents();
    for (const store of stores.splice(0)) await store.close();

    await expect(replica('another-journal-key-0123456789abcdefgh')).rejects.toThrow(
      /the MAC of the last journal entry \(number 5\) does not match JOURNAL_KEY/,
    );
    await expect(replica(null)).rejects.toBeInstanceOf(StoreIntegrityError);
    await expect(replica(null)).rejects.toThrow(/journal is signed .* but JOURNAL_KEY is not set/);
  });
});
