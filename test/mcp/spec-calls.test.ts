import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpBot, SPEC_CALLS, startMcpBot, textOf } from '../helpers/mcp.js';

// The spec's own argument objects, sent over MCP as an assistant would (writes as dry runs, so
// nothing changes): each must be accepted and answered on the demo site, the traditional-rule
// tools on its legacy flavour.
describe('every spec tool called over MCP with the spec’s argument names', () => {
  let zoneBased: McpBot;
  let legacy: McpBot;
  beforeAll(async () => {
    [zoneBased, legacy] = await Promise.all([startMcpBot(), startMcpBot({ firewall: 'legacy' })]);
  });
  afterAll(async () => {
    await Promise.all([zoneBased?.close(), legacy?.close()]);
  });

  it('answers each read and previews each write without an error, changing nothing', async () => {
    const registry = zoneBased.app.registry;
    const failures: string[] = [];
    for (const { tool, args } of SPEC_CALLS) {
      const definition = registry.require(tool);
      const bot = definition.firewall === 'legacy' ? legacy : zoneBased;
      const call = definition.access === 'write' ? { ...args, dry_run: true } : args;
      const result = await bot.call(tool, call);
      if (result.isError) failures.push(`${tool}: ${textOf(result)}`);
      else if (definition.access === 'write')
        expect(result.structuredContent, tool).toMatchObject({ dry_run: true });
    }
    expect(failures).toEqual([]);
    expect([...zoneBased.writes(), ...legacy.writes()]).toEqual([]);
  });
});
