import { expect } from 'vitest';
import type { TestBot } from './test-bot.js';
import { validationIssues } from './tool-test.js';

/** The issue a list tool's `limit` raises outside 1..10000. */
export const LIMIT_ISSUE = { field: 'limit', rule: 'must be a whole number from 1 to 10000' };

/** The issue a list tool's `offset` raises outside 0..1000000. */
export const OFFSET_ISSUE = { field: 'offset', rule: 'must be a whole number from 0 to 1000000' };

/** A list tool called with nothing reads the default site from its start, 100 at a time. */
export function expectPagingDefaults(bot: TestBot, tool: string): void {
  expect(bot.app.registry.validate(tool, {})).toEqual({ site_id: 'default', limit: 100, offset: 0 });
}

/** A list tool refuses limit 0 and offset -1, naming both, without asking the controller. */
export async function expectPagingRangeRefused(bot: TestBot, tool: string): Promise<void> {
  expect(await validationIssues(bot, tool, { limit: 0, offset: -1 })).toEqual([LIMIT_ISSUE, OFFSET_ISSUE]);
  expect(bot.sim.requests).toHaveLength(0);
}
