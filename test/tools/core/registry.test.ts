import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfirmationRequiredError, ValidationError } from '../../../src/errors.js';
import type { Gateway } from '../../../src/gateway/types.js';
import { MemoryStore } from '../../../src/lib/json-file-store.js';
import { silentLogger } from '../../../src/log.js';
import { confirm, dryRun, intInRange, siteId } from '../../../src/tools/core/arg-types.js';
import { defineTool, type ToolContext } from '../../../src/tools/core/define-tool.js';
import { MISSING_PARAMS } from '../../../src/tools/core/missing-values.js';
import { ToolRegistry } from '../../../src/tools/core/registry.js';
import { createRegistry } from '../../../src/tools/index.js';

const untouchableGateway = new Proxy({} as Gateway, {
  get() {
    throw new Error('the gateway must not be used in this test');
  },
});
const context: ToolContext = {
  gateway: untouchableGateway,
  logger: silentLogger(),
  store: new MemoryStore(),
};

function echoTools(calls: Record<string, unknown>[]) {
  const read = defineTool({
    name: 'read_thing',
    description: 'Echo the arguments',
    access: 'read',
    args: z.object({
      site_id: siteId,
      count: intInRange(1, 10).default(3),
      tags: z.array(z.string()).optional(),
      loud: z.boolean().optional(),
      label: z.string().optional(),
    }),
    async run(args) {
      calls.push(args);
      return args;
    },
  });
  const write = defineTool({
    name: 'write_thing',
    description: 'Pretend to change something',
    access: 'write',
    args: z.object({ site_id: siteId, name: z.string(), confirm, dry_run: dryRun }),
    async run(args) {
      calls.push(args);
      return { done: true };
    },
  });
  return [read, write];
}

describe('ToolRegistry', () => {
  it('refuses two tools with the same name', () => {
    const tools = echoTools([]);
    expect(
      () => new ToolRegistry([{ title: 'A', tools: [...tools, ...tools] }], { site: 'default' }),
    ).toThrow(/duplicate tool name: read_thing/);
  });

  it('fills site_id from the default, accepts site= as an alias, and coerces text to declared types', async () => {
    const calls: Record<string, unknown>[] = [];
    const registry = new ToolRegistry([{ title: 'T', tools: echoTools(calls) }], { site: 'hq' });
    await registry.run('read_thing', { count: '7', tags: 'one', loud: 'yes', label: 42 }, context);
    await registry.run('read_thing', { site: 'branch', tags: ['a', 'b'] }, context);
    expect(calls).toEqual([
      { site_id: 'hq', count: 7, tags: ['one'], loud: true, label: '42' },
      { site_id: 'branch', count: 3, tags: ['a', 'b'] },
    ]);
  });

  it('refuses unknown arguments by name instead of ignoring them', () => {
    const registry = new ToolRegistry([{ title: 'T', tools: echoTools([]) }], { site: 'default' });
    expect(() => registry.validate('read_thing', { cnt: '2' })).toThrow(ValidationError);
    try {
      registry.validate('read_thing', { cnt: '2' });
    } catch (error) {
      expect((error as ValidationError).issues[0]?.field).toBe('cnt');
      expect((error as ValidationError).issues[0]?.rule).toContain('site_id, count, tags, loud, label');
    }
  });

  it('reports each broken rule with the field name, and missing ones as required', () => {
    const registry = new ToolRegistry([{ title: 'T', tools: echoTools([]) }], { site: 'default' });
    let caught: unknown;
    try {
      registry.validate('read_thing', { count: '11', loud: 'maybe' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    const issues = (caught as ValidationError).issues;
    expect(issues).toContainEqual({ field: 'count', rule: 'must be a whole number from 1 to 10' });
    expect(issues).toContainEqual({
      field: 'loud',
      rule: 'Invalid input: expected boolean, received string',
    });
    expect(() => registry.validate('write_thing', {})).toThrow(/name: is required/);
  });

  it('does not run a write without confirm, runs a dry run, and runs with confirm', async () => {
    const calls: Record<string, unknown>[] = [];
    const registry = new ToolRegistry([{ title: 'T', tools: echoTools(calls) }], { site: 'default' });
    await expect(registry.run('write_thing', { name: 'x' }, context)).rejects.toBeInstanceOf(
      ConfirmationRequiredError,
    );
    await expect(
      registry.run('write_thing', { name: 'x', confirm: 'false' }, context),
    ).rejects.toBeInstanceOf(ConfirmationRequiredError);
    expect(calls).toHaveLength(0);
    await registry.run('write_thing', { name: 'x', dry_run: 'true' }, context);
    await registry.run('write_thing', { name: 'x', confirm: 'true' }, context);
    expect(calls.map((c) => [c.dry_run, c.confirm])).toEqual([
      [true, undefined],
      [undefined, true],
    ]);
  });

  it('suggests close tool names for an unknown one', () => {
    const registry = new ToolRegistry([{ title: 'T', tools: echoTools([]) }], { site: 'default' });
    expect(() => registry.require('thing_read')).toThrow(/did you mean read_thing, write_thing/);
  });

  it('marks missing values, from the schema or from a refinement, apart from wrong ones', () => {
    const conditional = defineTool({
      name: 'make_thing',
      description: 'Needs a size unless it is small',
      access: 'write',
      args: z
        .object({ site_id: siteId, kind: z.enum(['small', 'big']), size: intInRange(1, 9).optional() })
        .superRefine((args, ctx) => {
          if (args.kind === 'big' && args.size === undefined) {
            ctx.addIssue({
              code: 'custom',
              path: ['size'],
              message: 'is required when kind is big',
              params: MISSING_PARAMS,
            });
          }
        }),
      run: async () => ({}),
    });
    const registry = new ToolRegistry([{ title: 'T', tools: [conditional] }], { site: 'default' });
    const issuesOf = (raw: Record<string, unknown>) => {
      try {
        registry.validate('make_thing', raw);
      } catch (error) {
        return (error as ValidationError).issues;
      }
      return [];
    };
    expect(issuesOf({})).toEqual([{ field: 'kind', rule: 'is required', missing: true }]);
    expect(issuesOf({ kind: 'big' })).toEqual([
      { field: 'size', rule: 'is required when kind is big', missing: true },
    ]);
    expect(issuesOf({ kind: 'big', size: '12' })).toEqual([
      { field: 'size', rule: 'must be a whole number from 1 to 9' },
    ]);
    expect(issuesOf({ kind: 'small' })).toEqual([]);
  });

  it('suggests the argument an unknown name stands for, the way it does for tools', () => {
    const registry = createRegistry('default');
    let caught: unknown;
    try {
      registry.validate('create_network', { name: 'Lab', vlan: '40', subnet: '10.70.0.0/24' });
    } catch (error) {
      caught = error;
    }
    expect((caught as ValidationError).issues).toEqual([
      { field: 'vlan', rule: 'is not an argument of create_network; did you mean vlan_id?' },
    ]);
    expect(() => registry.require('create_netwrok')).toThrow(/did you mean create_network\?/);
  });

  it('reads bounds from the zod checks: value ranges, text and list lengths', () => {
    const registry = createRegistry('default');
    const arg = (tool: string, name: string) => registry.argumentsOf(tool).find((a) => a.name === name);
    expect(arg('create_network', 'vlan_id')).toMatchObject({
      kind: 'number',
      min: 1,
      max: 4094,
      integer: true,
    });
    expect(arg('create_network', 'name')).toMatchObject({ kind: 'string', min: 1, max: 128 });
    expect(arg('create_traffic_matching_list', 'items')).toMatchObject({ kind: 'array', min: 1 });
    expect(arg('create_network', 'subnet')).not.toHaveProperty('max');
    expect(arg('create_network', 'purpose')).toMatchObject({
      kind: 'enum',
      options: ['corporate', 'guest', 'vlan-only', 'wan'],
      defaultValue: 'corporate',
    });
  });

  it('generates help and a Markdown table from the definitions', () => {
    const registry = new ToolRegistry([{ title: 'Things', tools: echoTools([]) }], { site: 'default' });
    const help = registry.helpText();
    expect(help).toContain('Things:');
    expect(help).toMatch(/read_thing \[count\] \[tags\] \[loud\] \[label\] {2}— Echo the arguments/);
    expect(help).toMatch(/write_thing name {2}— Pretend to change something \(write\)/);
    const table = registry.toolTableMarkdown();
    expect(table).toContain('| `read_thing` | read | count=3, tags, loud, label | Echo the arguments |');
    expect(table).toContain('| `write_thing` | write | **name** | Pretend to change something |');
  });
});

describe('the registered tools', () => {
  const registry = createRegistry('default');

  it('are the 40 tools of the spec, the 5 zone-based firewall policy tools, 4 live reads, 13 on-call actions and top_clients', () => {
    // And show_policy and check_policy, keep_change, get_digest, and the fleet's three reads.
    expect(registry.list()).toHaveLength(45 + 4 + 13 + 1 + 2 + 1 + 1 + 3);
    expect(registry.groups.find((g) => g.title === 'Consoles')?.tools.map((t) => t.name)).toEqual([
      'list_consoles',
      'find_client',
      'get_fleet_status',
    ]);
    expect(
      registry.groups.find((g) => g.title.startsWith('Firewall policies'))?.tools.map((t) => t.name),
    ).toEqual([
      'list_firewall_policies',
      'get_firewall_policy',
      'create_firewall_policy',
      'update_firewall_policy',
      'delete_firewall_policy',
    ]);
  });

  it('give every write confirm and dry_run (approvals preview every write), and no read either', () => {
    for (const tool of registry.list()) {
      const names = registry.argumentsOf(tool.name).map((a) => a.name);
      const guarded = names.includes('confirm') && names.includes('dry_run');
      expect(guarded, tool.name).toBe(tool.access === 'write');
      // keep_change acts on a recorded change, which names its own site.
      if (tool.name !== 'keep_change') expect(names[0], tool.name).toBe('site_id');
    }
  });

  it('name tools verb-first in snake_case', () => {
    for (const tool of registry.list())
      expect(tool.name).toMatch(
        // The on-call actions add their own verbs (MCP annotations know each); top_clients reads as
        // "top clients", the name it is asked by; the policy tools show and check the policy;
        // find_client looks across every console.
        /^(list|get|create|update|delete|assign|unassign|export|restart|power|locate|block|unblock|reconnect|authorize|unauthorize|revoke|set|top|show|check|keep|find)_[a-z_]+$/,
      );
  });
});
