import { describe, expect, it } from 'vitest';
import { resolveCommand } from '../../../src/commands/aliases.js';
import { parseCommandLine } from '../../../src/commands/parse-command-line.js';
import { NotSupportedError } from '../../../src/errors.js';
import { POLICY_TOOL_NAMES, RULE_TOOL_NAMES } from '../../../src/tools/core/firewall-generation.js';
import { exampleLine } from '../../../src/tools/core/tool-help.js';
import type { ToolDefinition } from '../../../src/tools/index.js';
import { rejection, useTestBots } from '../../helpers/tool-test.js';

// The demo site is zone-based, as a console on current firmware; a tool that works only on the
// traditional firewall (`firewall: 'legacy'`) runs its example on the legacy demo.
const [zoneBased, legacy] = useTestBots({}, { simulator: { firewall: 'legacy' } });

const botFor = (tool: ToolDefinition) => (tool.firewall === 'legacy' ? legacy : zoneBased);
const otherBot = (tool: ToolDefinition) => (tool.firewall === 'legacy' ? zoneBased : legacy);

/** The example as a person types it, through the same grammar every front end uses. */
function exampleCall(tool: string) {
  const line = exampleLine(zoneBased.app.registry.require(tool));
  if (line === undefined) throw new Error(`${tool} has no example`);
  return resolveCommand(parseCommandLine(line), zoneBased.app.registry);
}

describe('every tool’s help example works on the simulator’s demo site', () => {
  const tools = () => zoneBased.app.registry.list();

  it('every tool has one, and it names the tool itself', () => {
    // The spec's 40, five firewall policy tools, four live reads and 13 on-call actions,
    // top_clients, show_policy and check_policy, keep_change, get_digest, and the fleet's three reads.
    expect(tools()).toHaveLength(45 + 4 + 13 + 1 + 2 + 1 + 1 + 3);
    for (const tool of tools()) expect(exampleCall(tool.name).tool, tool.name).toBe(tool.name);
  });

  it('every write example validates and previews (dry run) without a change', async () => {
    const writes = tools().filter((t) => t.access === 'write');
    expect(writes.length).toBeGreaterThanOrEqual(20);
    for (const tool of writes) {
      const { args } = exampleCall(tool.name);
      expect(() => zoneBased.app.registry.validate(tool.name, args), tool.name).not.toThrow();
      const preview = await botFor(tool).run(tool.name, { ...args, dry_run: true });
      expect(preview, tool.name).toMatchObject({ dry_run: true });
    }
    expect([...zoneBased.writes(), ...legacy.writes()]).toEqual([]);
  });

  it('every read example runs and answers something', async () => {
    for (const tool of tools().filter((t) => t.access === 'read')) {
      const result = await botFor(tool).run(tool.name, exampleCall(tool.name).args);
      expect(result, tool.name).toBeTruthy();
      if (Array.isArray(result)) expect(result.length, tool.name).toBeGreaterThan(0);
    }
    expect([...zoneBased.writes(), ...legacy.writes()]).toEqual([]);
  });

  it('a tool bound to one firewall generation is refused on the other, as its help says', async () => {
    const bound = tools().filter((t) => t.firewall !== undefined);
    expect(bound.filter((t) => t.firewall === 'legacy').map((t) => t.name)).toEqual([...RULE_TOOL_NAMES]);
    expect(bound.map((t) => t.name)).toEqual(expect.arrayContaining([...POLICY_TOOL_NAMES]));
    for (const tool of bound) {
      const { args } = exampleCall(tool.name);
      const call = tool.access === 'write' ? { ...args, dry_run: true } : args;
      const error = await rejection(otherBot(tool).run(tool.name, call));
      expect(error, tool.name).toBeInstanceOf(NotSupportedError);
      expect(zoneBased.app.registry.toolHelp(tool.name), tool.name).toContain(
        tool.firewall === 'legacy' ? 'A zone-based console refuses it' : 'zone-based consoles only',
      );
    }
  });
});
