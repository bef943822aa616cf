import type { LogLevel } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/log.js';

/** One log line as the bot writes it. */
export interface CapturedLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** A logger whose output a test reads back. */
export interface LogCapture {
  logger: Logger;
  /** Every line written so far, parsed. */
  lines(): CapturedLine[];
  /** Everything written so far, as written (JSON lines): to check that a secret never got out. */
  text(): string;
}

/**
 * The bot's own logger (createLogger: JSON lines, redaction, secret scrubbing), writing to memory
 * instead of stderr. `level` as LOG_LEVEL [trace: every line].
 */
export function captureLogger(level: LogLevel = 'trace'): LogCapture {
  const written: string[] = [];
  const logger = createLogger(level, { write: (line: string) => written.push(line) });
  return {
    logger,
    lines: () => written.map((line) => JSON.parse(line) as CapturedLine),
    text: () => written.join(''),
  };
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
