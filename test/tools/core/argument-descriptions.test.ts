import { describe, expect, it } from 'vitest';
import { registryToolsFor } from '../../../src/mcp/tool-catalog.js';
import { createRegistry } from '../../../src/tools/index.js';

// An assistant fills in arguments from their descriptions alone: every argument of every tool
// (tools added later included) says what it is for, and MCP shows the words per-tool help shows.
const registry = createRegistry('default');

describe('every tool argument has a description', () => {
  it('in the registry, which per-tool help prints', () => {
    const missing = registry
      .list()
      .flatMap((tool) =>
        registry.argumentsOf(tool.name).flatMap((a) => (a.description ? [] : [`${tool.name}.${a.name}`])),
      );
    expect(missing).toEqual([]);
  });

  it('in the MCP catalogue, the same text as help', () => {
    const tools = registryToolsFor(registry, { defaultSite: 'default', writes: 'confirm' });
    expect(tools).toHaveLength(registry.list().length);
    for (const tool of tools) {
      const properties = tool.inputSchema.properties as Record<string, { description?: string }>;
      for (const arg of registry.argumentsOf(tool.name)) {
        const shown = properties[arg.name]?.description;
        expect(shown, `${tool.name}.${arg.name}`).toBeTruthy();
        if (arg.name !== 'confirm') expect(shown, `${tool.name}.${arg.name}`).toBe(arg.description);
        if (['site_id', 'confirm', 'dry_run'].includes(arg.name)) continue;
        expect(registry.toolHelp(tool.name), `${tool.name}.${arg.name}`).toContain(arg.description ?? '?');
      }
    }
  });
});
