import { describe, expect, it } from 'vitest';
import { firewallRuleRecordSchema } from '../../src/gateway/records/firewall-rule-record.js';
import {
  buildRulePayload,
  type NewRule,
  newRuleWarnings,
  planRuleUpdate,
  ruleArgumentIssues,
  sortRules,
  toFirewallRule,
} from '../../src/tools/firewall-rule-model.js';

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
  it('warns below 20000, on a taken index, and on a type without its network', () => {
    const warnings = newRuleWarnings({ ...base, rule_index: 2500, src_networkconf_type: 'ADDRv4' }, [
      record({ ruleset: 'LAN_IN', rule_index: '2500', name: 'old' }),
    ]);
    expect(warnings).toEqual([
      expect.stringMatching(/^rule_index 2500 is below 20000/),
      'rule "old" already has index 2500 in LAN_IN; indexes are not renumbered, so their order is undefined',
      'src_networkconf_type applies only with src_networkconf_id; it is not sent',
    ]);
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
