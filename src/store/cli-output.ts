import { scrubSecrets } from '../log.js';

/** A store command's outcome: its exit code and the one line it prints. */
export interface CliOutcome {
  exitCode: number;
  line: string;
}

/**
 * Prints a store command's one line and sets its exit code. A failure the command did not turn
 * into an outcome prints `<failedAs>: <message>` on one line, secrets scrubbed, and exits 2
 * (could not run), so a script reading the line never sees a stack or a password.
 */
export function finishCli(outcome: Promise<CliOutcome>, failedAs: string): void {
  outcome.then(
    ({ exitCode, line }) => {
      process.stdout.write(`${line}\n`);
      process.exitCode = exitCode;
    },
    (error: unknown) => {
      const message = scrubSecrets(error instanceof Error ? error.message : String(error));
      process.stdout.write(`${failedAs}: ${message.replace(/\s*\n\s*/g, '; ')}\n`);
      process.exitCode = 2;
    },
  );
}
