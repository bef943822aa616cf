import { describe, expect, it } from 'vitest';
import { firewallRuleRecordSchema } from '../../../src/records/firewall-rule-record.js';
import {
  addressIssue,
  buildRulePayload,
  describeIndexBlocks,
  indexFitsRuleset,
  type NewRule,
  newRuleWarnings,
  nextFreeIndex,
  planRuleUpdate,
  ruleArgumentIssues,
  sortRules,
  toFirewallRule,
} from '../../../src/tools/firewall/firewall-rule-model.js';

const base: NewRule = {
  name: 'r',
  action: 'drop',
  ruleset: 'LAN_IN',
  rule_index: 20000,
  src_networkconf_type: 'NETv4',
  dst_networkconf_type: 'NETv4',
  state_established: false,
  state_related: false,
  state_new: false,
  state_invalid: false,
  logging: false,
  enabled: true,
};

const record = (fields: Record<string, unknown>) =>
  firewallRuleRecordSchema.parse({ _id: 'x', name: 'r', ...fields });

describe('buildRulePayload', () => {
  it('sends port as the string dst_port and a network type only with its id', () => {
    const payload = buildRulePayload({ ...base, protocol: 'udp', port: 53, dst_networkconf_id: 'n1' });
    expect(payload).toMatchObject({
      protocol: 'udp',
      dst_port: '53',
      dst_networkconf_id: 'n1',
      dst_networkconf_type: 'NETv4',
    });
    expect(payload).not.toHaveProperty('src_networkconf_type');
    expect(payload).not.toHaveProperty('src_networkconf_id');
  });

  it('sends protocol all when none is given', () => {
    expect(buildRulePayload(base).protocol).toBe('all');
  });
});

describe('ruleArgumentIssues', () => {
  it('allows a port with tcp, udp and the stored tcp_udp only', () => {
    expect(ruleArgumentIssues({ protocol: 'tcp', port: 1 })).toEqual([]);
    expect(ruleArgumentIssues({ protocol: 'tcp_udp', port: 1 })).toEqual([]);
    expect(ruleArgumentIssues({ protocol: 'icmp', port: 1 })).toEqual([
      { field: 'port', rule: 'only applies with protocol tcp or udp (protocol is icmp)' },
    ]);
  });

  it('refuses an address and a network on the same side', () => {
    expect(ruleArgumentIssues({ dst_address: '10.0.0.1', dst_networkconf_id: 'n' })).toEqual([
      { field: 'dst_address', rule: 'give dst_address or dst_networkconf_id, not both' },
    ]);
  });
});

describe('newRuleWarnings', () => {
  it('warns on a type without its network and on networks on both sides outside a LAN ruleset', () => {
    expect(newRuleWarnings({ ...base, rule_index: 2500, src_networkconf_type: 'ADDRv4' })).toEqual([
      'src_networkconf_type applies only with src_networkconf_id; it is not sent',
    ]);
    expect(
      newRuleWarnings({ ...base, ruleset: 'WANv6_IN', src_networkconf_id: 'a', dst_networkconf_id: 'b' }),
    ).toEqual([
      'an inter-VLAN rule (source and destination networks) usually belongs in LAN_IN, not WANv6_IN',
    ]);
    expect(
      newRuleWarnings({ ...base, ruleset: 'LANv6_IN', src_networkconf_id: 'a', dst_networkconf_id: 'b' }),
    ).toEqual([]);
  });
});

describe('index blocks', () => {
  it.each([
    ['LAN_IN', '2000–2999 or 20000–29999'],
    ['LANv6_LOCAL', '2000–2999 or 20000–29999'],
    ['WAN_OUT', '3000–3999 or 30000–39999'],
    ['WANv6_IN', '3000–3999 or 30000–39999'],
    ['GUEST_LOCAL', '4000–4999 or 40000–49999'],
    ['GUESTv6_OUT', '4000–4999 or 40000–49999'],
  ])('gives %s the blocks %s, edges included', (ruleset, words) => {
    expect(describeIndexBlocks(ruleset)).toBe(words);
    const [low = 0, high = 0] = words.split(' or ')[1]?.split('–').map(Number) ?? [];
    expect([low - 1, low, high, high + 1].map((i) => indexFitsRuleset(ruleset, i))).toEqual([
      false,
      true,
      true,
      false,
    ]);
  });

  it('puts a new rule after the last one of the five-digit block, else in the first free index', () => {
    const rules = [
      record({ _id: 'a', ruleset: 'WAN_IN', rule_index: 30000 }),
      record({ _id: 'b', ruleset: 'WAN_IN', rule_index: 30007 }),
      record({ _id: 'c', ruleset: 'WAN_IN', rule_index: 3500 }),
      record({ _id: 'd', ruleset: 'WAN_OUT', rule_index: 30020 }),
    ];
    expect(nextFreeIndex(rules, 'WAN_IN')).toBe(30008);
    expect(nextFreeIndex(rules, 'WAN_LOCAL')).toBe(30000);
    expect(nextFreeIndex([record({ ruleset: 'LAN_IN', rule_index: 29999 })], 'LAN_IN')).toBe(20000);
    const full = Array.from({ length: 10000 }, (_, i) =>
      record({ _id: `r${i}`, ruleset: 'GUEST_IN', rule_index: 40000 + i }),
    );
    expect(nextFreeIndex(full, 'GUEST_IN')).toBe(4000);
  });

  it('names the right IP version for an address, by ruleset', () => {
    expect(addressIssue('LANv6_IN', 'src_address', '2001:db8::/64')).toBeUndefined();
    expect(addressIssue('LAN_IN', 'src_address', '10.0.0.0/8')).toBeUndefined();
    expect(addressIssue('GUESTv6_IN', 'dst_address', '10.0.0.1')?.rule).toBe(
      'must be an IPv6 address or CIDR such as 2001:db8::/64: GUESTv6_IN is an IPv6 ruleset',
    );
    expect(addressIssue('WAN_OUT', 'dst_address', 'fe80::1')?.rule).toBe(
      'must be an IPv4 address or CIDR such as 10.0.0.0/24: WAN_OUT is an IPv4 ruleset (IPv6 rules go in WANv6_OUT)',
    );
  });
});

describe('IPv6 rulesets', () => {
  // Deliberately alike: each payload builder is checked on a base record with its own overrides.
  it('send protocol_v6 and *_address_ipv6, with ICMP named icmpv6', () => {
    const payload = buildRulePayload({
      ...base,
      ruleset: 'WANv6_LOCAL',
      protocol: 'icmp',
      src_address: '2001:db8::/32',
      dst_address: '2001:db8::1',
    });
    expect(payload).toMatchObject({
      protocol_v6: 'icmpv6',
      src_address_ipv6: '2001:db8::/32',
      dst_address_ipv6: '2001:db8::1',
    });
    expect(Object.keys(payload)).not.toEqual(expect.arrayContaining(['protocol']));
    expect(payload).not.toHaveProperty('src_address');
    expect(payload).not.toHaveProperty('dst_address');
  });

  it('update the v6 fields of a v6 rule', () => {
    const plan = planRuleUpdate(record({ ruleset: 'LANv6_IN', protocol_v6: 'tcp', dst_port: '22' }), {
      protocol: 'icmp',
      src_address: '2001:db8::/48',
    });
    expect(plan.set).toEqual({ src_address_ipv6: '2001:db8::/48', protocol_v6: 'icmpv6', dst_port: '' });
    expect(plan.protocol).toBe('icmpv6');
  });
});

describe('planRuleUpdate', () => {
  it('sets only supplied fields, and returns the final protocol', () => {
    expect(planRuleUpdate(record({ protocol: 'tcp', dst_port: '80' }), { name: 'n', port: 8080 })).toEqual({
      set: { name: 'n', dst_port: '8080' },
      warnings: [],
      protocol: 'tcp',
    });
  });

  it('drops a port the new protocol cannot carry, and a network an address replaces', () => {
    const plan = planRuleUpdate(record({ protocol: 'udp', dst_port: '53', dst_networkconf_id: 'n1' }), {
      protocol: 'all',
      dst_address: '10.0.0.0/8',
    });
    expect(plan.set).toEqual({
      dst_address: '10.0.0.0/8',
      dst_networkconf_id: '',
      protocol: 'all',
      dst_port: '',
    });
    expect(plan.warnings).toEqual([
      'dst_address replaces the destination network',
      'the destination port 53 is dropped: ports apply to tcp and udp only',
    ]);
  });
});

describe('toFirewallRule and sortRules', () => {
  it('shows empty controller strings as null and a port list as text', () => {
    const rule = toFirewallRule(
      record({ dst_port: '80,443', src_address: '', rule_index: '20001' }),
      () => null,
    );
    expect(rule).toMatchObject({
      port: '80,443',
      src_address: null,
      rule_index: 20001,
      enabled: true,
      protocol: 'all',
    });
  });

  it('orders by ruleset, then rule_index, then name', () => {
    const rules = [
      record({ _id: '1', name: 'b', ruleset: 'WAN_IN', rule_index: 20000 }),
      record({ _id: '2', name: 'a', ruleset: 'WAN_IN', rule_index: 20000 }),
      record({ _id: '3', name: 'c', ruleset: 'LAN_IN', rule_index: 29999 }),
      record({ _id: '4', name: 'd', ruleset: 'WAN_IN', rule_index: 2000 }),
    ].map((r) => toFirewallRule(r, () => null));
    expect(sortRules(rules).map((r) => r.id)).toEqual(['3', '4', '2', '1']);
  });
});
