import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCommand } from '../../src/commands/aliases.js';
import { parseCommandLine } from '../../src/commands/parse-command-line.js';
import { exampleLine } from '../../src/tools/tool-help.js';
import { startTestBot, type TestBot } from '../helpers/test-bot.js';

let bot: TestBot;
beforeAll(async () => {
  bot = await startTestBot();
});
afterAll(async () => {
  await bot.close();
});

/** The example as a person types it, through the same grammar every front end uses. */
function exampleCall(tool: string) {
  const line = exampleLine(bot.app.registry.require(tool));
  if (line === undefined) throw new Error(`${tool} has no example`);
  return resolveCommand(parseCommandLine(line), bot.app.registry);
}

describe('every tool’s help example works on the simulator’s demo site', () => {
  const tools = () => bot.app.registry.list();

  it('every tool has one, and it names the tool itself', () => {
    expect(tools()).toHaveLength(40);
    for (const tool of tools()) expect(exampleCall(tool.name).tool, tool.name).toBe(tool.name);
  });

  it('every write example validates and previews (dry run) without a change', async () => {
    const writes = tools().filter((t) => t.access === 'write');
    expect(writes.length).toBeGreaterThanOrEqual(20);
    for (const tool of writes) {
      const { args } = exampleCall(tool.name);
      expect(() => bot.app.registry.validate(tool.name, args), tool.name).not.toThrow();
      const preview = await bot.run(tool.name, { ...args, dry_run: true });
      expect(preview, tool.name).toMatchObject({ dry_run: true });
    }
    expect(bot.writes()).toEqual([]);
  });

  it('every read example runs and answers something', async () => {
    for (const tool of tools().filter((t) => t.access === 'read')) {
      const result = await bot.run(tool.name, exampleCall(tool.name).args);
      expect(result, tool.name).toBeTruthy();
      if (Array.isArray(result)) expect(result.length, tool.name).toBeGreaterThan(0);
    }
    expect(bot.writes()).toEqual([]);
  });
});
