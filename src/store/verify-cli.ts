// `npm run audit:verify` (or `node dist/store/verify-cli.js`): checks the journal's hash chain, in
// DATA_DIR or in PostgreSQL when DATABASE_URL is set, and prints one line. With JOURNAL_KEY set it
// checks every event's MAC; with `--anchor <count>:<head>` or `--anchor-file <path>` it checks
// that the journal still passes through anchors the bot posted to AUDIT_CHANNEL earlier.
// Exit 0 verified, 1 tampered, 2 could not check (bad arguments or variables, unreadable store).
// It reads only the store's variables, so it runs without the bot's Slack or controller settings.
// A program only (no exports), so it cannot be imported by mistake and silently do nothing.
import { readFileSync } from 'node:fs';
import { loadStoreConfig } from '../config.js';
import { BotError } from '../errors.js';
import { finishCli } from './cli-output.js';
import { journalReport } from './file/journal.js';
import { ANCHOR_PATTERN, type Anchor, parseAnchor } from './journal-format.js';

const USAGE =
  'usage: audit:verify [--anchor <count>:<head>]… [--anchor-file <path>]   ' +
  '(DATA_DIR or DATABASE_URL, and JOURNAL_KEY if the journal is signed)';

/** A command line the program does not take: exit 2 with the usage. */
class UsageError extends BotError {
  readonly code = 'validation_failed';
}

/** The anchors named on the command line: given directly, or every `<count>:<head>` found in a file. */
function anchorsFrom(argv: readonly string[]): Anchor[] {
  const anchors: Anchor[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const equals = arg.indexOf('=');
    const flag = equals > 0 ? arg.slice(0, equals) : arg;
    if (flag !== '--anchor' && flag !== '--anchor-file') throw new UsageError(`unknown argument ${flag}`);
    const value = equals > 0 ? arg.slice(equals + 1) : argv[++i];
    if (value === undefined) throw new UsageError(`${flag} needs a value`);
    if (flag === '--anchor') {
      const anchor = parseAnchor(value);
      if (!anchor) {
        throw new UsageError(
          '--anchor takes <count>:<the 64 hex digits of the head>, as an anchor line shows it',
        );
      }
      anchors.push(anchor);
      continue;
    }
    const text = readFileSync(value, 'utf8').toLowerCase();
    const found = [...text.matchAll(new RegExp(ANCHOR_PATTERN.source, 'g'))].map((m) => ({
      count: Number(m[1]),
      head: m[2] as string,
    }));
    if (found.length === 0) throw new UsageError(`no anchor (<count>:<64 hex digits>) in ${value}`);
    anchors.push(...found);
  }
  return anchors;
}

async function report(argv: readonly string[]): Promise<{ exitCode: 0 | 1 | 2; line: string }> {
  let anchors: Anchor[];
  try {
    anchors = anchorsFrom(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return { exitCode: 2, line: `journal not checked: ${error.message}\n${USAGE}` };
  }
  const config = loadStoreConfig();
  const options = {
    ...(config.journalKey !== undefined ? { key: config.journalKey } : {}),
    ...(anchors.length > 0 ? { anchors } : {}),
  };
  if (!config.database) return journalReport(config.dataDir, options);
  const { databaseJournalReport } = await import('./postgres/report.js');
  return databaseJournalReport(config.database, options);
}

finishCli(report(process.argv.slice(2)), 'journal not checked');
