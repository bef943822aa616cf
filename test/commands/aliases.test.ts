import { describe, expect, it } from 'vitest';
import { aliasHelpText, listAliases, resolveCommand } from '../../src/commands/aliases.js';
import { parseCommandLine } from '../../src/commands/parse-command-line.js';
import { ValidationError } from '../../src/errors.js';
import { fakeSetup } from '../console/fake-registry.js';

function resolveLine(line: string) {
  const { registry } = fakeSetup();
  return resolveCommand(parseCommandLine(line), registry);
}

function issuesOf(line: string): { field: string; rule: string }[] {
  try {
    resolveLine(line);
  } catch (error) {
    if (error instanceof ValidationError) return error.issues;
    throw error;
  }
  throw new Error(`expected "${line}" to be refused`);
}

describe('resolveCommand', () => {
  it('maps a tool name to itself with its arguments', () => {
    expect(resolveLine('/net get_network_details network_id=net-iot site=lab')).toEqual({
      tool: 'get_network_details',
      args: { network_id: 'net-iot', site: 'lab' },
    });
  });

  it('refuses bare words after a tool name and shows the key=value form', () => {
    const issues = issuesOf('get_network_details IoT');

    expect(issues).toEqual([
      {
        field: 'arguments',
        rule: 'unexpected "IoT": get_network_details takes key=value arguments, e.g. network_id=…',
      },
    ]);
  });

  it('maps list aliases and forwards their key=value arguments', () => {
    expect(resolveLine('vlans limit=2')).toEqual({ tool: 'list_vlans', args: { limit: '2' } });
    expect(resolveLine('networks')).toEqual({ tool: 'list_vlans', args: {} });
    expect(resolveLine('stats')).toEqual({ tool: 'get_network_statistics', args: {} });
    expect(resolveLine('topology')).toEqual({ tool: 'get_network_topology', args: {} });
  });

  it('fills the alias argument from its bare word, joining several words', () => {
    expect(resolveLine('network IoT')).toEqual({ tool: 'get_network_details', args: { network_id: 'IoT' } });
    expect(resolveLine('network Guest WiFi')).toEqual({
      tool: 'get_network_details',
      args: { network_id: 'Guest WiFi' },
    });
    expect(resolveLine('export dot site=lab')).toEqual({
      tool: 'export_topology',
      args: { format: 'dot', site: 'lab' },
    });
  });

  it('accepts the alias argument given as key=value instead of a word', () => {
    expect(resolveLine('network network_id=net-iot')).toEqual({
      tool: 'get_network_details',
      args: { network_id: 'net-iot' },
    });
  });

  it('says how to use an alias whose word is missing', () => {
    expect(issuesOf('network')).toEqual([
      { field: 'network_id', rule: 'is required (usage: network <name-or-id>)' },
    ]);
  });

  it('refuses the alias argument given both ways', () => {
    expect(issuesOf('network IoT network_id=net-iot')[0]?.field).toBe('network_id');
  });

  it('refuses bare words after an alias that takes none', () => {
    expect(issuesOf('vlans IoT')[0]?.rule).toBe('unexpected "IoT": vlans takes key=value arguments only');
  });

  it('explains that an alias is unavailable when its tool is not registered', () => {
    expect(issuesOf('zones')).toEqual([
      { field: 'command', rule: '"zones" runs list_firewall_zones, which is not available in this build' },
    ]);
  });

  it('answers an unknown command with the registry suggestions', () => {
    expect(issuesOf('list_vlan')).toEqual([
      { field: 'tool', rule: 'unknown tool "list_vlan"; did you mean list_vlans?' },
    ]);
    expect(issuesOf('frobnicate')[0]?.rule).toBe('unknown tool "frobnicate"; /net help lists them');
  });
});

describe('listAliases', () => {
  it('offers only aliases whose tool is registered, with their usage', () => {
    const { registry } = fakeSetup();

    const aliases = listAliases(registry);

    expect(aliases.map((a) => a.alias)).toEqual([
      'vlans',
      'networks',
      'network',
      'stats',
      'usage',
      'topology',
      'export',
    ]);
    expect(aliases).toContainEqual({
      alias: 'network',
      tool: 'get_network_details',
      usage: 'network <name-or-id>',
    });
    expect(aliases.some((a) => a.tool === 'list_firewall_zones')).toBe(false);
  });

  it('formats the aliases as aligned help lines', () => {
    const { registry } = fakeSetup();

    const lines = aliasHelpText(registry).split('\n');

    expect(lines[0]).toBe('Shortcuts:');
    expect(lines).toContain('  vlans                      → list_vlans');
    const arrows = new Set(lines.slice(1).map((l) => l.indexOf('→')));
    expect(arrows.size).toBe(1);
  });
});
