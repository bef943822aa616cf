import { describe, expect, it } from 'vitest';
// Deliberately alike: the error classes this file's refusals are checked against, as the zone tests import them.
import {
  ConfirmationRequiredError,
  ConflictError,
  GatewayRejectedError,
  NotSupportedError,
  ResourceNotFoundError,
} from '../../../src/errors.js';
import { DEMO_NETWORKS } from '../../../src/simulator/index.js';
import type { FirewallRule } from '../../../src/tools/firewall/firewall-rule-model.js';
import { expectPagingDefaults, expectPagingRangeRefused } from '../../helpers/list-paging.js';
import { rejection, useTestBot, validationIssues } from '../../helpers/tool-test.js';

// Deliberately alike: ids of the demo rules this file addresses, named once; other files name their own ids the same way.
const N = DEMO_NETWORKS;
const RULES_ROUTE = '/api/s/default/rest/firewallrule';
const TELNET = '65b3c8e1f4a9d20c7e5a1104';
const PLEX = '65b3c8e1f4a9d20c7e5a1105';
const IOT_TO_LAN = '65b3c8e1f4a9d20c7e5a1102';
const ICMPV6 = '65b3c8e1f4a9d20c7e5a1106';
const WAN_BLOCKS = 'must be 3000–3999 or 30000–39999 for WAN_IN';

// Traditional rules exist only on a console that was never migrated to the zone-based firewall.
const bot = useTestBot({ simulator: { firewall: 'legacy' } });

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
      ['WAN_IN', 30000, 'Drop Telnet from WAN'],
      ['WAN_IN', 30001, 'Allow Plex to NAS'],
      ['WAN_OUT', 30000, 'Cameras: no internet'],
      ['WANv6_IN', 30000, 'Allow ICMPv6 echo to LAN'],
    ]);
    expect(rules[1]).toEqual({
      id: IOT_TO_LAN,
      name: 'Block IoT to LAN',
      action: 'drop',
      ruleset: 'LAN_IN',
      rule_index: 20001,
      ip_version: 'v4',
      enabled: true,
      protocol: 'all',
      src_address: null,
      dst_address: null,
      icmp_typename: null,
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

  it('shows an IPv6 rule from its protocol_v6, *_address_ipv6 and icmpv6_typename fields', async () => {
    const rules = (await bot.run('list_firewall_rules')) as FirewallRule[];
    expect(rules.find((r) => r.id === ICMPV6)).toMatchObject({
      ruleset: 'WANv6_IN',
      ip_version: 'v6',
      protocol: 'icmpv6',
      src_address: null,
      dst_address: '2001:db8:10::/64',
      icmp_typename: 'echo-request',
    });
  });

  it('pages with limit and offset (defaults 100 and 0)', async () => {
    const page = (await bot.run('list_firewall_rules', { limit: '2', offset: '1' })) as FirewallRule[];
    expect(page.map((r) => r.name)).toEqual(['Block IoT to LAN', 'Drop Telnet from WAN']);
    expectPagingDefaults(bot, 'list_firewall_rules');
  });

  it('refuses an out-of-range limit or offset without asking the controller', async () => {
    await expectPagingRangeRefused(bot, 'list_firewall_rules');
  });
});

describe('create_firewall_rule', () => {
  it('puts a WAN_IN rule given no index after the ruleset’s last rule, in the WAN block, previewed then created', async () => {
    const args = { name: 'Block', action: 'drop', ruleset: 'WAN_IN' };
    const preview = (await bot.run('create_firewall_rule', { ...args, dry_run: true })) as {
      would_create: Record<string, unknown>;
    };
    expect(preview.would_create.rule_index).toBe(30002);
    expect(bot.writes()).toHaveLength(0);

    const result = (await bot.run('create_firewall_rule', { ...args, confirm: true })) as {
      success: boolean;
      rule: FirewallRule;
      warnings: string[];
    };
    const posts = bot.writes();
    expect(posts.map((r) => [r.method, r.route])).toEqual([['POST', RULES_ROUTE]]);
    expect(posts[0]?.body).toEqual({
      name: 'Block',
      enabled: true,
      ruleset: 'WAN_IN',
      rule_index: 30002,
      action: 'drop',
      protocol: 'all',
      logging: false,
      state_established: false,
      state_related: false,
      state_new: false,
      state_invalid: false,
    });
    expect(result.success).toBe(true);
    expect(result.rule).toMatchObject({ name: 'Block', ruleset: 'WAN_IN', rule_index: 30002, enabled: true });
    expect(result.rule.rule_index).toBeGreaterThanOrEqual(30000);
    expect(result.rule.rule_index).toBeLessThanOrEqual(39999);
    expect(result.warnings).toEqual([]);
    expect(bot.site().firewallRules.some((r) => r._id === result.rule.id)).toBe(true);
  });

  it('starts an empty ruleset at its family block: LAN 20000, GUEST 40000, and the v6 twins the same', async () => {
    for (const [ruleset, index] of [
      ['LAN_OUT', 20000],
      ['GUEST_IN', 40000],
      ['GUESTv6_LOCAL', 40000],
      ['WAN_LOCAL', 30000],
    ] as const) {
      const preview = (await bot.run('create_firewall_rule', {
        name: 'x',
        action: 'drop',
        ruleset,
        dry_run: true,
      })) as { would_create: { rule_index: number } };
      expect(preview.would_create.rule_index, ruleset).toBe(index);
    }
  });

  it('refuses rule_index=2000 for WAN_IN before sending anything, naming the allowed ranges', async () => {
    const issues = await validationIssues(bot, 'create_firewall_rule', {
      name: 'Block',
      action: 'drop',
      ruleset: 'WAN_IN',
      rule_index: 2000,
      confirm: true,
    });
    expect(issues).toEqual([
      {
        field: 'rule_index',
        rule: `${WAN_BLOCKS}: each ruleset family (LAN, WAN, GUEST, and their v6 twins) has its own index block`,
      },
    ]);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it('refuses an index already used in the ruleset before sending, naming its rule and the next free index', async () => {
    const error = await rejection(
      bot.run('create_firewall_rule', {
        name: 'Block',
        action: 'drop',
        ruleset: 'WAN_IN',
        rule_index: 30000,
        confirm: true,
      }),
    );
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.message).toBe(
      `rule_index 30000 is already used in WAN_IN by rule "Drop Telnet from WAN" (${TELNET}); the next free index there is 30002`,
    );
    expect(bot.writes()).toHaveLength(0);
    await expect(
      bot.run('create_firewall_rule', {
        name: 'x',
        action: 'drop',
        ruleset: 'WAN_IN',
        rule_index: 30000,
        dry_run: true,
      }),
    ).rejects.toBeInstanceOf(ConflictError);
  });

  it('takes an index used only in another ruleset', async () => {
    await bot.run('create_firewall_rule', {
      name: 'Local block',
      action: 'drop',
      ruleset: 'WAN_LOCAL',
      rule_index: 30000,
      confirm: true,
    });
    expect(bot.writes()[0]?.body).toMatchObject({ ruleset: 'WAN_LOCAL', rule_index: 30000 });
  });

  // Deliberately alike: tool tests share the harness's call-then-check shape; the tool, its arguments and the expected answer differ.
  it('sends a LANv6_IN rule with src_address_ipv6 and protocol_v6 instead of the IPv4 fields', async () => {
    const result = (await bot.run('create_firewall_rule', {
      name: 'Block a v6 prefix',
      action: 'drop',
      ruleset: 'LANv6_IN',
      src_address: '2001:db8::/64',
      protocol: 'icmp',
      confirm: true,
    })) as { rule: FirewallRule };
    const body = bot.writes()[0]?.body as Record<string, unknown>;
    expect(body).toMatchObject({
      ruleset: 'LANv6_IN',
      rule_index: 20000,
      src_address_ipv6: '2001:db8::/64',
      protocol_v6: 'icmpv6',
    });
    expect(body).not.toHaveProperty('src_address');
    expect(body).not.toHaveProperty('protocol');
    expect(result.rule).toMatchObject({ ip_version: 'v6', src_address: '2001:db8::/64', protocol: 'icmpv6' });
    expect(bot.site().firewallRules.find((r) => r._id === result.rule.id)).toMatchObject({
      src_address_ipv6: '2001:db8::/64',
    });
  });

  it('refuses an IPv4 address in an IPv6 ruleset, and an IPv6 one in an IPv4 ruleset, sending nothing', async () => {
    expect(
      await validationIssues(bot, 'create_firewall_rule', {
        name: 'r',
        action: 'drop',
        ruleset: 'LANv6_IN',
        src_address: '10.0.0.0/8',
        confirm: true,
      }),
    ).toEqual([
      {
        field: 'src_address',
        rule: 'must be an IPv6 address or CIDR such as 2001:db8::/64: LANv6_IN is an IPv6 ruleset',
      },
    ]);
    expect(
      await validationIssues(bot, 'create_firewall_rule', {
        name: 'r',
        action: 'drop',
        ruleset: 'LAN_IN',
        dst_address: '2001:db8::1',
        confirm: true,
      }),
    ).toEqual([
      {
        field: 'dst_address',
        rule: 'must be an IPv4 address or CIDR such as 10.0.0.0/24: LAN_IN is an IPv4 ruleset (IPv6 rules go in LANv6_IN)',
      },
    ]);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it('sends port as the string dst_port, and addresses as given', async () => {
    await bot.run('create_firewall_rule', {
      name: 'Allow HTTPS to web',
      action: 'accept',
      protocol: 'tcp',
      port: '443',
      dst_address: '192.168.1.30',
      src_address: '198.51.100.0/24',
      rule_index: 30010,
      confirm: true,
    });
    expect(bot.writes()[0]?.body).toMatchObject({
      protocol: 'tcp',
      dst_port: '443',
      dst_address: '192.168.1.30',
      src_address: '198.51.100.0/24',
      rule_index: 30010,
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
      rule_index: 30005,
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
        rule_index: 30005,
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
      // Each network id the rule sends is shown with its name, as update_firewall_rule shows them.
      names: { [N.iot.id]: 'IoT', [N.guest.id]: 'Guest' },
      warnings: [
        'an inter-VLAN rule (source and destination networks) usually belongs in LAN_IN, not WAN_IN',
      ],
    });
    expect(JSON.stringify(bot.site().firewallRules)).toBe(before);
    expect(bot.writes()).toHaveLength(0);
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
    [
      { rule_index: 1999 },
      'rule_index',
      expect.stringMatching(/^must be 3000–3999 or 30000–39999 for WAN_IN:/),
    ],
    [
      { rule_index: 50000 },
      'rule_index',
      expect.stringMatching(/^must be 3000–3999 or 30000–39999 for WAN_IN:/),
    ],
    [
      { ruleset: 'GUEST_IN', rule_index: 20000 },
      'rule_index',
      expect.stringMatching(/^must be 4000–4999 or 40000–49999 for GUEST_IN:/),
    ],
    [{ rule_index: 30000.5 }, 'rule_index', 'must be a whole number'],
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

  // Deliberately alike: each write tool proves its own refusals (bad fields, unknown names); acl-rules.test.ts does the same for its tool.
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

  it("passes a controller's index refusal through as a sentence naming the ruleset's block", async () => {
    bot.sim.injectFault({
      kind: 'status',
      method: 'POST',
      route: 'rest/firewallrule',
      status: 400,
      body: { meta: { rc: 'error', msg: 'api.err.FirewallRuleIndexOutOfRange' }, data: [] },
    });
    const error = await rejection(
      bot.run('create_firewall_rule', { name: 'r', action: 'drop', rule_index: 3000, confirm: true }),
    );
    expect(error).toBeInstanceOf(GatewayRejectedError);
    expect((error as GatewayRejectedError).controllerCode).toBe('api.err.FirewallRuleIndexOutOfRange');
    expect(error.message).toContain(
      "rule_index 3000 is outside WAN_IN's block: WAN rulesets take 3000–3999 or 30000–39999",
    );
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
    [
      { dst_address: 'nas' },
      'dst_address',
      'must be an IPv4 or IPv6 address or CIDR such as 10.0.0.0/24 or 2001:db8::/64',
    ],
    [{ rule_index: 'first' }, 'rule_index', 'must be a whole number'],
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

describe('update_firewall_rule: index and IPv6', () => {
  it('moves a rule to a free index of its ruleset', async () => {
    const result = await bot.run('update_firewall_rule', { rule_id: PLEX, rule_index: 30005, confirm: true });
    expect(bot.writes()[0]?.body).toMatchObject({ rule_index: 30005, name: 'Allow Plex to NAS' });
    expect(result).toMatchObject({ changes: { rule_index: { from: 30001, to: 30005 } } });
  });

  it('refuses an index another rule of the ruleset holds, naming it and the next free one', async () => {
    const error = await rejection(
      bot.run('update_firewall_rule', { rule_id: PLEX, rule_index: 30000, confirm: true }),
    );
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.message).toBe(
      `rule_index 30000 is already used in WAN_IN by rule "Drop Telnet from WAN" (${TELNET}); the next free index there is 30001`,
    );
    expect(bot.writes()).toHaveLength(0);
  });

  it('refuses an index outside the rule’s ruleset block, after reading but before writing', async () => {
    expect(
      await validationIssues(bot, 'update_firewall_rule', { rule_id: PLEX, rule_index: 2000, confirm: true }),
    ).toEqual([{ field: 'rule_index', rule: expect.stringMatching(new RegExp(`^${WAN_BLOCKS}`)) }]);
    expect(bot.writes()).toHaveLength(0);
  });

  it('keeps its own index as no change', async () => {
    const result = await bot.run('update_firewall_rule', { rule_id: PLEX, rule_index: 30001, confirm: true });
    expect(result).toMatchObject({ changes: {} });
    expect(bot.writes()).toHaveLength(0);
  });

  it('writes an IPv6 rule’s address to *_address_ipv6 and its protocol to protocol_v6', async () => {
    const result = await bot.run('update_firewall_rule', {
      rule_id: ICMPV6,
      src_address: '2001:db8:99::/48',
      protocol: 'tcp',
      confirm: true,
    });
    const body = bot.writes()[0]?.body as Record<string, unknown>;
    expect(body).toMatchObject({ src_address_ipv6: '2001:db8:99::/48', protocol_v6: 'tcp' });
    expect(result).toMatchObject({
      changes: {
        src_address_ipv6: { from: '', to: '2001:db8:99::/48' },
        protocol_v6: { from: 'icmpv6', to: 'tcp' },
      },
    });
  });

  it('refuses an IPv4 address for an IPv6 rule, naming the field', async () => {
    expect(
      await validationIssues(bot, 'update_firewall_rule', {
        rule_id: ICMPV6,
        dst_address: '10.0.0.1',
        confirm: true,
      }),
    ).toEqual([
      {
        field: 'dst_address',
        rule: 'must be an IPv6 address or CIDR such as 2001:db8::/64: WANv6_IN is an IPv6 ruleset',
      },
    ]);
    expect(bot.writes()).toHaveLength(0);
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

describe('on a console with the zone-based firewall', () => {
  const zoneBased = useTestBot();

  it.each([
    ['list_firewall_rules', {}],
    ['create_firewall_rule', { name: 'Block', action: 'drop', ruleset: 'WAN_IN', confirm: true }],
    ['update_firewall_rule', { rule_id: TELNET, enabled: false, confirm: true }],
    ['delete_firewall_rule', { rule_id: TELNET, dry_run: true }],
  ])(
    '%s refuses, naming the zone-based firewall and the policy tools, and sends nothing',
    async (tool, args) => {
      const error = await rejection(zoneBased.run(tool, args));
      expect(error).toBeInstanceOf(NotSupportedError);
      expect(error.message).toContain('site default uses the zone-based firewall');
      expect(error.message).toContain(
        'list_firewall_policies, get_firewall_policy, create_firewall_policy, update_firewall_policy, delete_firewall_policy',
      );
      expect(zoneBased.writes()).toHaveLength(0);
      expect(zoneBased.sim.requests.some((r) => r.route.includes('/rest/firewallrule'))).toBe(false);
    },
  );
});
