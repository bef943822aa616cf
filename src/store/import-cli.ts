// `npm run store:import -- <DATA_DIR>`: copies a file store (approvals.jsonl, verified first, and
// bot-data.json) into the PostgreSQL database of DATABASE_URL (+ DATABASE_SSL, DATABASE_CA_FILE).
// Exit 0 imported, 1 the file journal fails verification (nothing imported), 2 could not import.
// A program only (no exports).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadStoreConfig } from '../config.js';
import { scrubSecrets, silentLogger } from '../log.js';
import { finishCli } from './cli-output.js';
import { JournalIntegrityError } from './file/journal.js';

async function run(argv: string[]): Promise<{ exitCode: 0 | 1 | 2; line: string }> {
  const [source, ...rest] = argv;
  if (!source || rest.length > 0) {
    return { exitCode: 2, line: 'usage: npm run store:import -- <DATA_DIR>   (with DATABASE_URL set)' };
  }
  const dataDir = resolve(source);
  if (!existsSync(dataDir)) return { exitCode: 2, line: `not imported: ${dataDir} does not exist` };
  const config = loadStoreConfig();
  if (!config.database) {
    return { exitCode: 2, line: 'not imported: set DATABASE_URL to the PostgreSQL database to import into' };
  }
  const { createPool } = await import('./postgres/pool.js');
  const { migrate } = await import('./postgres/migrate.js');
  const { importDataDir } = await import('./postgres/import.js');
  const { describeDatabase } = await import('./postgres/report.js');
  const where = describeDatabase(config.database.url);
  const pool = createPool(config.database, silentLogger());
  try {
    await migrate(pool, silentLogger());
    const done = await importDataDir(
      dataDir,
      pool,
      config.journalKey !== undefined ? { key: config.journalKey } : {},
    );
    return {
      exitCode: 0,
      line:
        `imported ${done.events} journal events (${done.requests} change requests) and ${done.dataKeys} ` +
        `bot data keys from ${dataDir} into ${where}; chain verified, head ${done.head.slice(0, 12)}`,
    };
  } catch (error) {
    const message = scrubSecrets(error instanceof Error ? error.message : String(error));
    return { exitCode: error instanceof JournalIntegrityError ? 1 : 2, line: `not imported: ${message}` };
  } finally {
    await pool.end().catch(() => undefined);
  }
}

finishCli(run(process.argv.slice(2)), 'not imported');
