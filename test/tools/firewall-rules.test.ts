import { describe, expect, it } from 'vitest';
import { ConfirmationRequiredError, GatewayRejectedError, ResourceNotFoundError } from '../../src/errors.js';
import { DEMO_NETWORKS } from '../../src/simulator/index.js';
import type { FirewallRule } from '../../src/tools/firewall-rule-model.js';
import { rejection, useTestBot, validationIssues } from '../helpers/tool-test.js';

const N = DEMO_NETWORKS;
const RULES_ROUTE = '/api/s/default/rest/firewallrule';
const TELNET = '65b3c8e1f4a9d20c7e5a1104';
const IOT_TO_LAN = '65b3c8e1f4a9d20c7e5a1102';
const BELOW_ZONE_BASED =
  'rule_index 2000 is below 20000: zone-based consoles (Network 9+) refuse it (FirewallRuleIndexOutOfRange); use 20000 or more there';

const bot = useTestBot();

function storedRule(id: string) {
  const rule = bot.site().firewallRules.find((r) => r._id === id);
  if (!rule) throw new Error(`no rule ${id}`);
  return rule;
}

describe('list_firewall_rules', () => {
  it('lists every rule by ruleset then rule_index, with network names and the port as a number', async () => {
    const rules = (await bot.run('list_firewall_rules')) as FirewallRule[];
    expect(rules.map((r) => [r.ruleset, r.rule_index, r.name])).toEqual([
      ['LAN_IN', 20000, 'Allow established/related'],
      ['LAN_IN', 20001, 'Block IoT to LAN'],
      ['WAN_IN', 20003, 'Drop Telnet from WAN'],
      ['WAN_IN', 20004, 'Allow Plex to NAS'],
      ['WAN_OUT', 20002, 'Cameras: no internet'],
    ]);
    expect(rules[1]).toEqual({
      id: IOT_TO_LAN,
      name: 'Block IoT to LAN',
      action: 'drop',
      ruleset: 'LAN_IN',
      rule_index: 20001,
      enabled: true,
      protocol: 'all',
      src_address: null,
      dst_address: null,
      port: null,
      src_networkconf_id: N.iot.id,
      src_networkconf_type: 'NETv4',
      src_network_name: 'IoT',
      dst_networkconf_id: N.defaultLan.id,
      dst_networkconf_type: 'NETv4',
      dst_network_name: 'Default',
      state_established: false,
      state_related: false,
      state_new: false,
      state_invalid: false,
      logging: false,
    });
    expect(rules[2]).toMatchObject({ protocol: 'tcp', port: 23, logging: true, src_networkconf_type: null });
  });

  it('pages with limit and offset (defaults 100 and 0)', async () => {
    const page = (await bot.run('list_firewall_rules', { limit: '2', offset: '1' })) as FirewallRule[];
    expect(page.map((r) => r.name)).toEqual(['Block IoT to LAN', 'Drop Telnet from WAN']);
    expect(bot.app.registry.validate('list_firewall_rules', {})).toEqual({
      site_id: 'default',
      limit: 100,
      offset: 0,
    });
  });

  it('refuses an out-of-range limit or offset without asking the controller', async () => {
    expect(await validationIssues(bot, 'list_firewall_rules', { limit: 0, offset: -1 })).toEqual([
      { field: 'limit', rule: 'must be a whole number from 1 to 10000' },
      { field: 'offset', rule: 'must be a whole number from 0 to 1000000' },
    ]);
    expect(bot.sim.requests).toHaveLength(0);
  });
});

describe('create_firewall_rule', () => {
  it("sends the spec's defaults in the POST body and warns about the zone-based index range", async () => {
    const result = (await bot.run('create_firewall_rule', {
      name: 'Block SSH',
      action: 'drop',
      confirm: true,
    })) as {
      success: boolean;
      rule: FirewallRule;
      warnings: string[];
    };
    const posts = bot.writes();
    expect(posts.map((r) => [r.method, r.route])).toEqual([['POST', RULES_ROUTE]]);
    expect(posts[0]?.body).toEqual({
      name: 'Block SSH',
      enabled: true,
      ruleset: 'WAN_IN',
      rule_index: 2000,
      action: 'drop',
      protocol: 'all',
      logging: false,
      state_established: false,
      state_related: false,
      state_new: false,
      state_invalid: false,
    });
    expect(result.success).toBe(true);
    expect(result.rule).toMatchObject({
      name: 'Block SSH',
      ruleset: 'WAN_IN',
      rule_index: 2000,
      enabled: true,
    });
    expect(result.warnings).toEqual([BELOW_ZONE_BASED]);
    expect(bot.site().firewallRules.some((r) => r._id === result.rule.id)).toBe(true);
  });

  it('sends port as the string dst_port, and addresses as given', async () => {
    await bot.run('create_firewall_rule', {
      name: 'Allow HTTPS to web',
      action: 'accept',
      protocol: 'tcp',
      port: '443',
      dst_address: '192.168.1.30',
      src_address: '198.51.100.0/24',
      rule_index: 20010,
      confirm: true,
    });
    expect(bot.writes()[0]?.body).toMatchObject({
      protocol: 'tcp',
      dst_port: '443',
      dst_address: '192.168.1.30',
      src_address: '198.51.100.0/24',
      rule_index: 20010,
    });
  });

  it('builds an inter-VLAN rule from network names, each id with its type', async () => {
    const result = (await bot.run('create_firewall_rule', {
      name: 'Block Guest to IoT',
      action: 'drop',
      ruleset: 'LAN_IN',
      rule_index: 20020,
      src_networkconf_id: 'Guest',
      dst_networkconf_id: N.iot.uuid,
      dst_networkconf_type: 'ADDRv4',
      confirm: true,
    })) as { rule: FirewallRule; warnings: string[] };
    expect(bot.writes()[0]?.body).toEqual({
      name: 'Block Guest to IoT',
      enabled: true,
      ruleset: 'LAN_IN',
      rule_index: 20020,
      action: 'drop',
      protocol: 'all',
      logging: false,
      state_established: false,
      state_related: false,
      state_new: false,
      state_invalid: false,
      src_networkconf_id: N.guest.id,
      src_networkconf_type: 'NETv4',
      dst_networkconf_id: N.iot.id,
      dst_networkconf_type: 'ADDRv4',
    });
    expect(result.rule).toMatchObject({ src_network_name: 'Guest', dst_network_name: 'IoT' });
    expect(result.warnings).toEqual([]);
  });

  it('previews {dry_run, would_create} with warnings, and changes nothing', async () => {
    const before = JSON.stringify(bot.site().firewallRules);
    const preview = await bot.run('create_firewall_rule', {
      name: 'IoT to Guest',
      action: 'reject',
      rule_index: 20000,
      src_networkconf_id: 'IoT',
      dst_networkconf_id: 'Guest',
      dry_run: true,
    });
    expect(preview).toEqual({
      dry_run: true,
      would_create: {
        name: 'IoT to Guest',
        enabled: true,
        ruleset: 'WAN_IN',
        rule_index: 20000,
        action: 'reject',
        protocol: 'all',
        logging: false,
        state_established: false,
        state_related: false,
        state_new: false,
        state_invalid: false,
        src_networkconf_id: N.iot.id,
        src_networkconf_type: 'NETv4',
        dst_networkconf_id: N.guest.id,
        dst_networkconf_type: 'NETv4',
      },
      warnings: [
        'an inter-VLAN rule (source and destination networks) usually belongs in LAN_IN, not WAN_IN',
      ],
    });
    expect(JSON.stringify(bot.site().firewallRules)).toBe(before);
    expect(bot.writes()).toHaveLength(0);
  });

  it('warns when the index is already taken in the ruleset', async () => {
    const preview = (await bot.run('create_firewall_rule', {
      name: 'x',
      action: 'drop',
      ruleset: 'WAN_IN',
      rule_index: 20003,
      dry_run: true,
    })) as { warnings: string[] };
    expect(preview.warnings).toEqual([
      'rule "Drop Telnet from WAN" already has index 20003 in WAN_IN; indexes are not renumbered, so their order is undefined',
    ]);
  });

  it.each([
    [{ protocol: 'icmp', port: 7 }, 'port', 'only applies with protocol tcp or udp (protocol is icmp)'],
    [{ port: 22 }, 'port', 'only applies with protocol tcp or udp (protocol is all)'],
    [{ protocol: 'tcp', port: 0 }, 'port', 'must be a whole number from 1 to 65535'],
    [{ protocol: 'udp', port: 65536 }, 'port', 'must be a whole number from 1 to 65535'],
    [{ protocol: 'gre' }, 'protocol', 'must be one of tcp, udp, icmp, all'],
    [{ action: 'allow' }, 'action', 'must be one of accept, drop, reject'],
    [
      { ruleset: 'WAN' },
      'ruleset',
      'must be a ruleset such as WAN_IN, WAN_OUT, LAN_IN, LAN_OUT, LAN_LOCAL, GUEST_IN',
    ],
    [{ rule_index: 1999 }, 'rule_index', 'must be a whole number from 2000 to 49999'],
    [{ rule_index: 50000 }, 'rule_index', 'must be a whole number from 2000 to 49999'],
    [{ src_address: '10.0.0.300' }, 'src_address', 'must be an IPv4 address or CIDR such as 10.0.0.0/24'],
    [{ dst_address: '10.0.0.0/33' }, 'dst_address', 'must be an IPv4 address or CIDR such as 10.0.0.0/24'],
    [
      { src_networkconf_type: 'NET' },
      'src_networkconf_type',
      'must be NETv4 (the whole subnet) or ADDRv4 (the gateway address)',
    ],
    [
      { src_address: '10.0.0.1', src_networkconf_id: 'IoT' },
      'src_address',
      'give src_address or src_networkconf_id, not both',
    ],
    [{ name: '' }, 'name', 'must not be empty'],
  ])('refuses %o naming %s, with no request sent', async (bad, field, rule) => {
    const issues = await validationIssues(bot, 'create_firewall_rule', {
      name: 'r',
      action: 'drop',
      ...bad,
      confirm: true,
    });
    expect(issues).toEqual([{ field, rule }]);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it('raises ResourceNotFoundError for an unknown network and sends nothing', async () => {
    const error = await rejection(
      bot.run('create_firewall_rule', {
        name: 'r',
        action: 'drop',
        src_networkconf_id: 'Nope',
        confirm: true,
      }),
    );
    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect(error.message).toBe('network Nope not found');
    expect(bot.writes()).toHaveLength(0);
  });

  it("passes the controller's index refusal through as a sentence mentioning 20000", async () => {
    const error = await rejection(
      bot.run('create_firewall_rule', { name: 'r', action: 'drop', rule_index: 3000, confirm: true }),
    );
    expect(error).toBeInstanceOf(GatewayRejectedError);
    expect((error as GatewayRejectedError).controllerCode).toBe('api.err.FirewallRuleIndexOutOfRange');
    expect(error.message).toContain('rule_index ≥ 20000');
  });

  it('sends nothing at all without confirm', async () => {
    await expect(bot.run('create_firewall_rule', { name: 'r', action: 'drop' })).rejects.toBeInstanceOf(
      ConfirmationRequiredError,
    );
    expect(bot.sim.requests).toHaveLength(0);
  });
});

describe('update_firewall_rule', () => {
  it('PUTs the stored rule with only the supplied fields changed', async () => {
    const stored = structuredClone(storedRule(TELNET));
    const result = await bot.run('update_firewall_rule', {
      rule_id: TELNET,
      port: 2323,
      enabled: false,
      confirm: true,
    });
    const puts = bot.writes();
    expect(puts.map((r) => [r.method, r.route])).toEqual([['PUT', `${RULES_ROUTE}/${TELNET}`]]);
    const { _id, site_id, ...editable } = stored;
    expect(puts[0]?.body).toEqual({ ...editable, dst_port: '2323', enabled: false });
    expect(result).toMatchObject({
      success: true,
      rule_id: TELNET,
      name: 'Drop Telnet from WAN',
      changes: { enabled: { from: true, to: false }, dst_port: { from: '23', to: '2323' } },
      rule: { port: 2323, enabled: false },
    });
    expect(storedRule(TELNET)).toMatchObject({ dst_port: '2323', enabled: false });
  });

  it('finds the rule by name, previews a diff and the body, and changes nothing', async () => {
    const before = JSON.stringify(bot.site().firewallRules);
    const preview = (await bot.run('update_firewall_rule', {
      rule_id: 'drop telnet from wan',
      action: 'reject',
      dry_run: true,
    })) as { dry_run: boolean; changes: unknown; would_send: Record<string, unknown> };
    expect(preview.dry_run).toBe(true);
    expect(preview.changes).toEqual({ action: { from: 'drop', to: 'reject' } });
    expect(preview.would_send).toMatchObject({
      name: 'Drop Telnet from WAN',
      action: 'reject',
      dst_port: '23',
    });
    expect(JSON.stringify(bot.site().firewallRules)).toBe(before);
    expect(bot.writes()).toHaveLength(0);
  });

  it('drops a stored port when the protocol changes to one without ports, and says so', async () => {
    const result = (await bot.run('update_firewall_rule', {
      rule_id: TELNET,
      protocol: 'icmp',
      confirm: true,
    })) as {
      changes: unknown;
      warnings: string[];
    };
    expect(result.changes).toEqual({
      protocol: { from: 'tcp', to: 'icmp' },
      dst_port: { from: '23', to: '' },
    });
    expect(result.warnings).toEqual(['the destination port 23 is dropped: ports apply to tcp and udp only']);
  });

  it('replaces a source network by an address, and says so', async () => {
    const result = (await bot.run('update_firewall_rule', {
      rule_id: IOT_TO_LAN,
      src_address: '10.20.0.0/25',
      confirm: true,
    })) as { warnings: string[] };
    expect(bot.writes()[0]?.body).toMatchObject({ src_address: '10.20.0.0/25', src_networkconf_id: '' });
    expect(result.warnings).toEqual(['src_address replaces the source network']);
  });

  it('refuses a port for a stored protocol without ports, after reading but before writing', async () => {
    expect(
      await validationIssues(bot, 'update_firewall_rule', { rule_id: IOT_TO_LAN, port: 22, confirm: true }),
    ).toEqual([{ field: 'port', rule: 'only applies with protocol tcp or udp (protocol is all)' }]);
    expect(bot.writes()).toHaveLength(0);
  });

  it.each([
    [{ protocol: 'icmp', port: 22 }, 'port', 'only applies with protocol tcp or udp (protocol is icmp)'],
    [{ action: 'deny' }, 'action', 'must be one of accept, drop, reject'],
    [{ port: 70000 }, 'port', 'must be a whole number from 1 to 65535'],
    [{ dst_address: 'nas' }, 'dst_address', 'must be an IPv4 address or CIDR such as 10.0.0.0/24'],
    [
      { rule_index: 20000 },
      'rule_index',
      expect.stringMatching(/^is not an argument of update_firewall_rule/),
    ],
  ])('refuses %o naming %s, with no request sent', async (bad, field, rule) => {
    expect(
      await validationIssues(bot, 'update_firewall_rule', { rule_id: TELNET, ...bad, confirm: true }),
    ).toEqual([{ field, rule }]);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it('sends no PUT when nothing would change', async () => {
    const result = await bot.run('update_firewall_rule', { rule_id: TELNET, action: 'drop', confirm: true });
    expect(result).toMatchObject({ success: true, changes: {} });
    expect(bot.writes()).toHaveLength(0);
  });

  it('raises ResourceNotFoundError for a missing rule, and sends nothing without confirm', async () => {
    await expect(
      bot.run('update_firewall_rule', { rule_id: 'ffffffffffffffffffffffff', name: 'x', confirm: true }),
    ).rejects.toBeInstanceOf(ResourceNotFoundError);
    bot.sim.clearRequests();
    await expect(bot.run('update_firewall_rule', { rule_id: TELNET, name: 'x' })).rejects.toBeInstanceOf(
      ConfirmationRequiredError,
    );
    expect(bot.sim.requests).toHaveLength(0);
  });
});

describe('delete_firewall_rule', () => {
  it('deletes and answers {success, deleted_rule_id}', async () => {
    const result = await bot.run('delete_firewall_rule', { rule_id: TELNET, confirm: true });
    expect(result).toEqual({ success: true, deleted_rule_id: TELNET });
    expect(bot.writes().map((r) => [r.method, r.route])).toEqual([['DELETE', `${RULES_ROUTE}/${TELNET}`]]);
    expect(bot.site().firewallRules.some((r) => r._id === TELNET)).toBe(false);
  });

  it('previews the rule and deletes nothing on a dry run', async () => {
    const preview = (await bot.run('delete_firewall_rule', {
      rule_id: 'Drop Telnet from WAN',
      dry_run: true,
    })) as {
      would_delete: FirewallRule;
      warnings: string[];
    };
    expect(preview.would_delete).toMatchObject({ id: TELNET, port: 23 });
    expect(preview.warnings).toEqual(['deletion is irreversible']);
    expect(bot.site().firewallRules.some((r) => r._id === TELNET)).toBe(true);
    expect(bot.writes()).toHaveLength(0);
  });

  it('raises ResourceNotFoundError for a missing rule, on a dry run too, and sends no DELETE', async () => {
    for (const args of [{ confirm: true }, { dry_run: true }]) {
      const error = await rejection(
        bot.run('delete_firewall_rule', { rule_id: 'ffffffffffffffffffffffff', ...args }),
      );
      expect(error).toBeInstanceOf(ResourceNotFoundError);
      expect(error.message).toBe('firewall rule ffffffffffffffffffffffff not found');
    }
    expect(bot.writes()).toHaveLength(0);
  });

  it('refuses an empty rule_id unsent, and sends nothing without confirm', async () => {
    expect(await validationIssues(bot, 'delete_firewall_rule', { rule_id: ' ', confirm: true })).toEqual([
      { field: 'rule_id', rule: 'must be a firewall rule id or name' },
    ]);
    await expect(bot.run('delete_firewall_rule', { rule_id: TELNET })).rejects.toBeInstanceOf(
      ConfirmationRequiredError,
    );
    expect(bot.sim.requests).toHaveLength(0);
  });
});
