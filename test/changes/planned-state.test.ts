import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planSet, validateSet } from '../../src/changes/change-set.js';
import { resolveCommand } from '../../src/commands/aliases.js';
import { parseCommandLine } from '../../src/commands/parse-command-line.js';
import { startTestBot, type TestBot } from '../helpers/test-bot.js';

// Every write tool's own example, as a one-step set, previews on the planned state and
// records its effect there without sending anything (the planned state answers each write as the
// controller would, so the tool's confirmed run completes).

let bot: TestBot;
beforeAll(async () => {
  bot = await startTestBot();
});
afterAll(async () => {
  await bot.close();
});

describe('the planned state', () => {
  it('runs every write tool’s example (zone-based site) without sending a write', async () => {
    const failures: string[] = [];
    for (const tool of bot.app.registry.list()) {
      if (tool.access !== 'write' || tool.firewall === 'legacy' || tool.example === undefined) continue;
      if (tool.name === 'keep_change') continue;
      const { args } = resolveCommand(parseCommandLine(`${tool.name} ${tool.example}`), bot.app.registry);
      try {
        const set = validateSet(bot.app.registry, { steps: [{ tool: tool.name, args }] });
        await planSet(bot.app.registry, bot.app.context, set);
      } catch (error) {
        failures.push(`${tool.name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(bot.writes()).toEqual([]);
  });
});
