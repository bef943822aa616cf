import { describe, expect, it } from 'vitest';
import type { ArgumentInfo } from '../../../src/tools/core/schema-introspection.js';
import { argumentHint, exampleLine, typeText } from '../../../src/tools/core/tool-help.js';
import { createRegistry } from '../../../src/tools/index.js';

const registry = createRegistry('hq');
const lineOf = (help: string, arg: string) =>
  help.split('\n').find((l) => l.trimStart().startsWith(`${arg} `));

describe('per-tool help generated from the registry', () => {
  it('lists create_network purpose with its four values and default, and vlan_id as required 1–4094', () => {
    const help = registry.toolHelp('create_network');

    expect(help.split('\n')[0]).toBe('create_network: Create a VLAN network (subnet, DHCP, DNS)');
    expect(help).toContain('Access: write.');
    expect(lineOf(help, 'purpose')).toMatch(
      /^ {2}purpose\s+optional {2}one of corporate, guest, vlan-only, wan \(refused: a WAN is added in the controller’s UI, under Internet\) \(default: corporate\) — What the network is for: /,
    );
    expect(lineOf(help, 'vlan_id')).toMatch(/^ {2}vlan_id\s+required {2}whole number 1–4094 — VLAN tag/);
    expect(lineOf(help, 'name')).toMatch(/required {2}text, at most 128 characters — Network name/);
    expect(lineOf(help, 'dhcp_enabled')).toMatch(/optional {2}true or false \(default: true\)/);
    expect(lineOf(help, 'site_id')).toMatch(/optional {2}text \(default: hq\)/);
    expect(lineOf(help, 'confirm')).toBeUndefined();
    expect(help).toMatch(/\nExample: create_network name=Lab vlan_id=40 subnet=10\.70\.0\.0\/24$/);
  });

  it('notes a value the tool always refuses beside it: purpose=wan on update_network, protocol=icmp on ACL rules', () => {
    expect(lineOf(registry.toolHelp('update_network'), 'purpose')).toContain(
      'one of corporate, guest, vlan-only, wan (refused: a WAN is added in the controller’s UI, under Internet)',
    );
    expect(lineOf(registry.toolHelp('create_acl_rule'), 'protocol')).toContain(
      'one of tcp, udp, tcp_udp, icmp (refused: ACL rules match TCP and UDP only), all',
    );
  });

  it('marks as refused exactly the enum values each tool refuses, so help never advertises a value that fails', () => {
    const marked: string[] = [];
    for (const tool of registry.list()) {
      for (const arg of registry.argumentsOf(tool.name)) {
        for (const value of Object.keys(arg.refused ?? {})) {
          marked.push(`${tool.name} ${arg.name}=${value}`);
          const result = tool.args.safeParse({ site_id: 'default', [arg.name]: value });
          const issues = result.success ? [] : result.error.issues.filter((i) => i.path[0] === arg.name);
          expect(issues.map((i) => i.message).join(), `${tool.name} ${arg.name}=${value}`).toMatch(/cannot/);
        }
      }
    }
    expect(marked).toEqual(
      expect.arrayContaining([
        'create_network purpose=wan',
        'update_network purpose=wan',
        'create_acl_rule protocol=icmp',
        'update_acl_rule protocol=icmp',
      ]),
    );
  });

  it('says a read changes nothing, and lists its own arguments before site_id', () => {
    const help = registry.toolHelp('list_vlans');
    expect(help).toContain('Access: read. It changes nothing.');
    const names = help
      .split('\n')
      .filter((l) => /^ {2}\S/.test(l))
      .map((l) => l.trim().split(' ')[0]);
    expect(names).toEqual(['limit', 'offset', 'site_id']);
    expect(lineOf(help, 'limit')).toMatch(/whole number 1–10000 \(default: 100\)/);
  });

  it('says where a tool bound to one firewall generation works, and on which demo its example runs', () => {
    const rule = registry.toolHelp('update_firewall_rule');
    expect(rule.split('\n')[2]).toBe(
      'Firewall: traditional rules, on consoles not migrated to the zone-based firewall. ' +
        'A zone-based console refuses it: use the firewall policy tools there (list_firewall_policies, ' +
        'get_firewall_policy, create_firewall_policy, update_firewall_policy, delete_firewall_policy).',
    );
    expect(rule).toMatch(
      /\nExample \(legacy demo: SIMULATOR_FIREWALL=legacy\): update_firewall_rule rule_id="Allow Plex to NAS"/,
    );

    const policy = registry.toolHelp('create_firewall_policy');
    expect(policy.split('\n')[2]).toMatch(
      /^Firewall: zone-based consoles only\..*use the firewall rule tools there \(list_firewall_rules, create_firewall_rule,/,
    );
    expect(policy).toMatch(/\nExample: create_firewall_policy name="Cameras to NAS" /);
    expect(registry.toolHelp('create_network')).not.toContain('Firewall:');
  });

  it('refuses an unknown tool with suggestions', () => {
    expect(() => registry.toolHelp('create_netwrk')).toThrow(/did you mean create_network/);
  });
});

describe('typeText and argumentHint', () => {
  const base = { name: 'x', required: false } as const;

  it('words each kind with its values and bounds', () => {
    const cases: [ArgumentInfo, string][] = [
      [{ ...base, kind: 'number', integer: true, min: 0, max: 63 }, 'whole number 0–63'],
      [{ ...base, kind: 'number', min: 1 }, 'number at least 1'],
      [{ ...base, kind: 'string', min: 1, max: 64 }, 'text, at most 64 characters'],
      [{ ...base, kind: 'string', min: 8, max: 64 }, 'text, 8–64 characters'],
      [{ ...base, kind: 'string' }, 'text'],
      [{ ...base, kind: 'enum', options: ['json', 'dot'] }, 'one of json, dot'],
      [
        { ...base, kind: 'enum', options: ['json', 'dot'], refused: { dot: 'refused: not here' } },
        'one of json, dot (refused: not here)',
      ],
      [{ ...base, kind: 'array', min: 1 }, 'list a,b,c, at least 1 items'],
      [{ ...base, kind: 'boolean' }, 'true or false'],
    ];
    for (const [arg, text] of cases) expect(typeText(arg)).toBe(text);
  });

  it('hints a form input with its description, bounds and default, leaving enum values to the select', () => {
    const vlan = registry.argumentsOf('create_network').find((a) => a.name === 'vlan_id');
    const purpose = registry.argumentsOf('create_network').find((a) => a.name === 'purpose');
    const site = registry.argumentsOf('create_network').find((a) => a.name === 'site_id');
    if (!vlan || !purpose || !site) throw new Error('create_network lost an argument');
    expect(argumentHint(vlan, 'hq')).toBe('VLAN tag, 1–4094 · Whole number 1–4094');
    expect(argumentHint(purpose, 'hq')).toBe(
      'What the network is for: corporate (a LAN), guest (isolated) or vlan-only (a tag, no subnet or DHCP) · Default: corporate',
    );
    expect(argumentHint(site, 'hq')).toBe('Site name (defaults to DEFAULT_SITE) · Default: hq');
  });

  it('writes the example as a full call, or nothing without one', () => {
    const tool = registry.require('get_network_statistics');
    expect(exampleLine(tool)).toBe('get_network_statistics');
    expect(exampleLine({ ...tool, example: undefined })).toBeUndefined();
  });
});
