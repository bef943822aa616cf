import type { BenchSlack } from './fake-slack.js';
import type { BenchOptions } from './options.js';
import type { BotEntry } from './processes.js';

/** What every part is given. */
export interface PartContext {
  options: BenchOptions;
  slack: BenchSlack;
  /** The bot program to spawn (resolved once per run). */
  bot: BotEntry;
  /** One progress line on stderr (the table goes to stdout). */
  progress(message: string): void;
}

/** Waits `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
