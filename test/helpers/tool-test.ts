import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { type FieldIssue, ValidationError } from '../../src/errors.js';
import { lateBound } from './late-bound.js';
import { startTestBot, type TestBot } from './test-bot.js';

/**
 * One bot per test file, the simulator reset and its request log cleared before each test.
 */
export function useTestBot(options?: Parameters<typeof startTestBot>[0]): TestBot {
  let current: TestBot | undefined;
  beforeAll(async () => {
    current = await startTestBot(options);
  });
  afterAll(async () => {
    await current?.close();
  });
  beforeEach(() => {
    current?.sim.reset();
    current?.sim.clearRequests();
  });
  return forwardTo(() => current);
}

type BotOptions = Parameters<typeof startTestBot>[0];

/**
 * Several bots for the file, started side by side and closed after it; unlike useTestBot, nothing
 * is reset between tests (the files that use it compare the bots, and read more than they write).
 */
export function useTestBots<const T extends readonly BotOptions[]>(
  ...options: T
): { [K in keyof T]: TestBot } {
  let bots: TestBot[] = [];
  beforeAll(async () => {
    bots = await Promise.all(options.map((o) => startTestBot(o)));
  });
  afterAll(async () => {
    await Promise.all(bots.map((b) => b.close()));
  });
  return options.map((_, i) => forwardTo(() => bots[i])) as { [K in keyof T]: TestBot };
}

/** A stand-in that forwards to the bot running now, so tests read `bot.run(…)` as usual. */
function forwardTo(current: () => TestBot | undefined): TestBot {
  return lateBound(current, 'the test bot is used outside a test');
}

/** The error a call fails with; the test fails if the call succeeds. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Error) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

/** The issues of the ValidationError a tool call fails with. */
export async function validationIssues(
  bot: TestBot,
  tool: string,
  args: Record<string, unknown>,
): Promise<FieldIssue[]> {
  const error = await rejection(bot.run(tool, args));
  expect(error).toBeInstanceOf(ValidationError);
  return (error as ValidationError).issues;
}
