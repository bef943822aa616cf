import type { DatabaseConfig } from '../../config.js';
import { scrubSecrets, silentLogger } from '../../log.js';
import { discrepancyText } from '../deadline-audit.js';
import { type Anchor, verifiedSummary } from '../journal-format.js';
import { databaseDeadlineDiscrepancies, verifyDatabaseJournal } from './journal-check.js';
import { createPool } from './pool.js';

/** An audit:verify answer: one line to print and the exit code (0 verified, 1 tampered, 2 not checked). */
export interface Report {
  exitCode: 0 | 1 | 2;
  line: string;
}

/** The database as a person names it, without the credentials: host:port/database. */
export function describeDatabase(url: string): string {
  const parsed = new URL(url);
  return `PostgreSQL ${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname || '/'}`;
}

/** Verifies the journal in PostgreSQL (read only: it neither migrates nor writes). */
export async function databaseJournalReport(
  database: DatabaseConfig,
  options: { key?: string; anchors?: readonly Anchor[] } = {},
): Promise<Report> {
  const where = describeDatabase(database.url);
  const pool = createPool(database, silentLogger());
  try {
    const exists = await pool.query<{ ok: boolean }>(
      "SELECT to_regclass('netops_journal') IS NOT NULL AND to_regclass('netops_journal_head') IS NOT NULL AS ok",
    );
    if (!exists.rows[0]?.ok) {
      return {
        exitCode: 2,
        line: `journal not checked: ${where} holds no netops journal (has the bot run on it?)`,
      };
    }
    const result = await verifyDatabaseJournal(pool, { ...options, requireSigned: true });
    if (result.ok) {
      const found = await databaseDeadlineDiscrepancies(pool);
      if (found.length > 0)
        return { exitCode: 1, line: `deadlines TAMPERED: ${discrepancyText(found)} (${where})` };
      return {
        exitCode: 0,
        line: `journal OK: ${verifiedSummary(result, options)} (${where}, anchor ${result.events}:${result.head})`,
      };
    }
    return { exitCode: 1, line: `journal TAMPERED at entry ${result.line}: ${result.reason} (${where})` };
  } catch (error) {
    const message = scrubSecrets(error instanceof Error ? error.message : String(error));
    return { exitCode: 2, line: `journal not checked: ${message} (${where})` };
  } finally {
    await pool.end().catch(() => undefined);
  }
}
