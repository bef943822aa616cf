// `npm run audit:verify`: checks the journal's hash chain, in DATA_DIR or in PostgreSQL when
// DATABASE_URL is set, and prints one line. Exit 0 verified, 1 tampered, 2 could not check.
// It reads only the store's variables, so it runs without the bot's Slack or controller settings.
// A program only (no exports), so it cannot be imported by mistake and silently do nothing.
import { loadStoreConfig } from '../config.js';
import { scrubSecrets } from '../log.js';
import { journalReport } from './file/journal.js';

async function report(): Promise<{ exitCode: 0 | 1 | 2; line: string }> {
  const config = loadStoreConfig();
  if (!config.database) return journalReport(config.dataDir);
  const { databaseJournalReport } = await import('./postgres/report.js');
  return databaseJournalReport(config.database);
}

report().then(
  ({ exitCode, line }) => {
    process.stdout.write(`${line}\n`);
    process.exitCode = exitCode;
  },
  (error: unknown) => {
    const message = scrubSecrets(error instanceof Error ? error.message : String(error));
    process.stdout.write(`journal not checked: ${message.replace(/\s*\n\s*/g, '; ')}\n`);
    process.exitCode = 2;
  },
);
