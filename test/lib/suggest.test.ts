import { describe, expect, it } from 'vitest';
import { editDistance, suggestNames } from '../../src/lib/suggest.js';

describe('editDistance', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('vlan_id', 'vlan_id')).toBe(0);
    expect(editDistance('vlanid', 'vlan_id')).toBe(1);
    expect(editDistance('subnt', 'subnet')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });
});

describe('suggestNames', () => {
  const createNetwork = ['site_id', 'name', 'vlan_id', 'subnet', 'purpose', 'dhcp_enabled', 'dhcp_start'];

  it('suggests the argument a prefix or a typo stands for', () => {
    expect(suggestNames('vlan', createNetwork)).toEqual(['vlan_id']);
    expect(suggestNames('VLANID', createNetwork)).toEqual(['vlan_id']);
    expect(suggestNames('subnt', createNetwork)).toEqual(['subnet']);
    expect(suggestNames('purpse', createNetwork)).toEqual(['purpose']);
  });

  it('finds a name contained in a longer one, and lists several prefixes in declaration order', () => {
    expect(suggestNames('zone_id', ['site_id', 'firewall_zone_id', 'name'])).toEqual(['firewall_zone_id']);
    expect(suggestNames('dhcp', createNetwork)).toEqual(['dhcp_enabled', 'dhcp_start']);
  });

  it('falls back to names sharing a word, and hides them when a close match exists', () => {
    expect(suggestNames('thing_read', ['read_thing', 'write_thing', 'other'])).toEqual([
      'read_thing',
      'write_thing',
    ]);
    expect(suggestNames('list_vlan', ['list_vlans', 'list_acl_rules', 'list_firewall_zones'])).toEqual([
      'list_vlans',
    ]);
  });

  it('suggests nothing for an unrelated word, and stops at the maximum', () => {
    expect(suggestNames('frobnicate', createNetwork)).toEqual([]);
    expect(suggestNames('create_x', ['create_a', 'create_b', 'create_c', 'create_d'], 2)).toHaveLength(2);
  });
});
