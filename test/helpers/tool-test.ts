import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { type FieldIssue, ValidationError } from '../../src/errors.js';
import { startTestBot, type TestBot } from './test-bot.js';

/**
 * One bot per test file, the simulator reset and its request log cleared before each test.
 * Returns a stand-in that forwards to the running bot, so tests read `bot.run(…)` as usual.
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
  return new Proxy({} as TestBot, {
    get(_target, property) {
      if (!current) throw new Error('the test bot is used outside a test');
      const value = current[property as keyof TestBot];
      return typeof value === 'function' ? value.bind(current) : value;
    },
  });
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
