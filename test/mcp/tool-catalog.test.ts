import { describe, expect, it } from 'vitest';
import { annotationsOf, registryToolsFor, verbOf } from '../../src/mcp/tool-catalog.js';
import { createRegistry } from '../../src/tools/index.js';
import { exampleArguments, SPEC_CALLS, SPEC_TOOLS, schemaValidator } from '../helpers/mcp.js';

const registry = createRegistry('default');
const approval = registryToolsFor(registry, { defaultSite: 'default', writes: 'approval' });

describe('MCP tools come from the registry', () => {
  it('lists every registry tool, with its name and description, in every write mode but off', () => {
    const names = registry.list().map((t) => t.name);
    expect(names).toHaveLength(45 + 4 + 13 + 1 + 2 + 1 + 1 + 3);
    for (const writes of ['approval', 'confirm'] as const) {
      const listed = registryToolsFor(registry, { defaultSite: 'default', writes });
      expect(listed.map((t) => t.name)).toEqual(names);
      for (const tool of listed) {
        expect(tool.description).toContain(registry.require(tool.name).description);
      }
    }
  });

  it('lists no write tool when MCP_WRITES=off', () => {
    const listed = registryToolsFor(registry, { defaultSite: 'default', writes: 'off' });
    const reads = registry.list().filter((t) => t.access === 'read');
    expect(listed.map((t) => t.name)).toEqual(reads.map((t) => t.name));
    expect(listed.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
  });

  it('generates input schemas that accept every tool’s example and the spec’s argument tables', () => {
    const check = schemaValidator(approval);
    const calls = [...exampleArguments(registry), ...SPEC_CALLS];
    expect(calls.length).toBeGreaterThan(60);
    for (const { tool, args } of calls)
      expect(check(tool, args), `${tool} ${JSON.stringify(args)}`).toEqual([]);
  });

  it('has a spec call for every tool the spec defines, each one in the registry', () => {
    expect(SPEC_TOOLS).toHaveLength(40);
    expect(new Set(SPEC_TOOLS).size).toBe(40);
    const names = registry.list().map((t) => t.name);
    expect(SPEC_TOOLS.filter((tool) => !names.includes(tool))).toEqual([]);
    const called = new Set(SPEC_CALLS.map((c) => c.tool));
    expect(SPEC_TOOLS.filter((tool) => !called.has(tool))).toEqual([]);
    // The spec requires site_id on every tool and confirm on every write.
    for (const { tool, args } of SPEC_CALLS) {
      expect(args.site_id, tool).toBe('default');
      expect(args.confirm, tool).toBe(registry.require(tool).access === 'write' ? true : undefined);
    }
  });

  it('refuses in the schema what the registry refuses: unknown names, wrong types, values out of range', () => {
    const check = schemaValidator(approval);
    expect(check('create_network', { name: 'Lab', vlan_id: 40, vlan: 40 })).not.toEqual([]);
    expect(check('create_network', { name: 'Lab', vlan_id: '40' })).not.toEqual([]);
    expect(check('create_network', { name: 'Lab', vlan_id: 5000 })).not.toEqual([]);
    expect(check('create_network', { vlan_id: 40 })).not.toEqual([]);
    expect(check('export_topology', { format: 'png' })).not.toEqual([]);
  });

  it('lets site_id be left out, defaulting to the configured site', () => {
    const tool = registryToolsFor(registry, { defaultSite: 'branch', writes: 'confirm' }).find(
      (t) => t.name === 'get_subnet_info',
    );
    expect(tool?.inputSchema.required).toEqual(['network_id']);
    expect(tool?.inputSchema.properties?.site_id).toMatchObject({ type: 'string', default: 'branch' });
  });

  it('takes console and site on every tool; a fleet names its consoles and refuses others in the schema', () => {
    const fleet = registryToolsFor(registry, {
      defaultSite: 'default',
      writes: 'confirm',
      consoles: ['berlin', 'munich'],
    });
    const check = schemaValidator(fleet);
    for (const tool of fleet) {
      const properties = tool.inputSchema.properties as Record<string, { description?: string }>;
      expect(properties.console?.description, tool.name).toMatch(/console/);
      // keep_change names a change, which already knows its site.
      if (tool.name !== 'keep_change') expect(properties.site?.description, tool.name).toMatch(/site_id/);
    }
    const vlans = fleet.find((t) => t.name === 'list_vlans');
    expect(JSON.stringify(vlans?.inputSchema.properties?.console)).toContain('one of berlin, munich');
    expect(check('list_vlans', { console: 'munich', site: 'default' })).toEqual([]);
    expect(check('list_vlans', { console: 'hamburg' })).not.toEqual([]);
    // list_consoles and find_client declare console themselves (only this one): it is described once.
    expect(fleet.find((t) => t.name === 'list_consoles')?.inputSchema.properties?.console).toMatchObject({
      description: 'Only this console (by name)',
    });
    // One console: console is accepted, described as not needed, and lists no names.
    const single = approval.find((t) => t.name === 'list_vlans')?.inputSchema.properties?.console;
    expect(single).toMatchObject({ type: 'string' });
    expect(JSON.stringify(single)).not.toContain('enum');
    expect(schemaValidator(approval)('list_vlans', { console: 'default' })).toEqual([]);
  });

  it('says in the description and the confirm argument what confirm does in each mode', () => {
    const byMode = (writes: 'approval' | 'confirm') =>
      registryToolsFor(registry, { defaultSite: 'default', writes }).find((t) => t.name === 'delete_network');
    expect(byMode('approval')?.description).toMatch(/for a person to approve in Slack/);
    expect(JSON.stringify(byMode('approval')?.inputSchema.properties?.confirm)).toMatch(
      /approves it in Slack/,
    );
    expect(byMode('confirm')?.description).toMatch(/confirm=true runs it/);
    expect(approval.find((t) => t.name === 'list_firewall_rules')?.description).toMatch(
      /Traditional firewall only/,
    );
  });
});

describe('annotations', () => {
  const hints = (name: string) => approval.find((t) => t.name === name)?.annotations;

  it('marks reads read-only, deletes destructive and idempotent, creates neither', () => {
    for (const tool of registry.list().filter((t) => t.access === 'read')) {
      expect(hints(tool.name), tool.name).toMatchObject({ readOnlyHint: true });
    }
    expect(hints('delete_network')).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(hints('unassign_network_from_zone')).toMatchObject({ destructiveHint: true });
    expect(hints('create_network')).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
    expect(hints('assign_network_to_zone')).toMatchObject({ destructiveHint: false, idempotentHint: true });
    expect(hints('update_network')).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(hints('list_vlans')).toMatchObject({ title: 'List vlans', openWorldHint: false });
  });

  it('knows the verb of every write tool, and refuses one it does not know', () => {
    const verbs = new Set(
      registry
        .list()
        .filter((t) => t.access === 'write')
        .map((t) => verbOf(t.name)),
    );
    expect([...verbs].sort()).toEqual([
      'assign',
      'authorize',
      'block',
      'create',
      'delete',
      'keep',
      'locate',
      'power',
      'reconnect',
      'restart',
      'revoke',
      'set',
      'unassign',
      'unauthorize',
      'unblock',
      'update',
    ]);
    const tool = { ...registry.require('create_network'), name: 'rename_network' };
    expect(() => annotationsOf(tool)).toThrow(/rename_network: its verb has no MCP annotations/);
  });
});
