// `npm run audit:verify`: checks DATA_DIR/approvals.jsonl and prints one line; exit 0 verified, 1 not.
// A program only (no exports), so it cannot be imported by mistake and silently do nothing.
import { loadConfig } from '../config.js';
import { journalReport } from './journal.js';

try {
  const { exitCode, line } = journalReport(loadConfig().dataDir);
  process.stdout.write(`${line}\n`);
  process.exitCode = exitCode;
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  process.stdout.write(`journal not checked: ${message.replace(/\s*\n\s*/g, '; ')}\n`);
  process.exitCode = 1;
}
