import { PassThrough } from 'node:stream';
import type { ConsoleDeps } from '../../src/console/console.js';
import { captureLogger } from './capture-logger.js';
import { TextSink } from './text-sink.js';

/** A console's deps with its streams in reach: what a test types, and what it is told. */
export interface ConsoleHarness {
  deps: ConsoleDeps;
  input: PassThrough;
  output: TextSink;
  errorOutput: TextSink;
  /** What the console logged at error level. */
  logged(): string;
}

/** Streams and an error-level logger around `parts` (a registry and context at least). */
export function consoleHarness(
  parts: Pick<ConsoleDeps, 'registry' | 'context'> & Partial<ConsoleDeps>,
): ConsoleHarness {
  const { logger, text: logged } = captureLogger('error');
  const input = new PassThrough();
  const output = new TextSink();
  const errorOutput = new TextSink();
  return { deps: { input, output, errorOutput, logger, ...parts }, input, output, errorOutput, logged };
}
