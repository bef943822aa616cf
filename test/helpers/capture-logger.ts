import { createLogger, type Logger } from '../../src/log.js';

/** One log line as the bot writes it. */
export interface CapturedLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** A real logger (JSON lines, redaction) whose lines a test can read back. */
export function captureLogger(): { logger: Logger; lines(): CapturedLine[] } {
  const written: string[] = [];
  const logger = createLogger('trace', { write: (line: string) => written.push(line) });
  return { logger, lines: () => written.map((line) => JSON.parse(line) as CapturedLine) };
}

/** A Bolt logger that says nothing (the receivers' tests hand one to Bolt). */
export const silentBoltLogger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => 'info' as never,
  setName: () => {},
};
