import { describe, expect, it } from 'vitest';
import {
  ConfirmationRequiredError,
  NotSupportedError,
  ResourceNotFoundError,
  ValidationError,
} from '../../../src/errors.js';
import { DEMO_ACL_RULES, DEMO_DEVICES, DEMO_NETWORKS, DEMO_SITE } from '../../../src/simulator/index.js';
import type { AclRule } from '../../../src/tools/firewall/acl-rule-model.js';
import { expectPagingDefaults, LIMIT_ISSUE } from '../../helpers/list-paging.js';
import { rejection, useTestBot, validationIssues } from '../../helpers/tool-test.js';

const N = DEMO_NETWORKS;
const R = DEMO_ACL_RULES;
const ACL_ROUTE = `/integration/v1/sites/${DEMO_SITE.uuid}/acl-rules`;
const ORDERING_ROUTE = `${ACL_ROUTE}/ordering`;
const SEEDED_ORDER = [R.blockIotToNas, R.allowCamerasToNvr, R.blockGuestSsh, R.blockKidsTabletMac];
const ICMP_REFUSAL =
  'icmp cannot be matched: the controller’s ACL rules match TCP and UDP only (use a firewall rule for ICMP)';

const bot = useTestBot();

/** The client the demo's "Block kids' tablet" MAC rule names. */
const KIDS_TABLET = { mac: '8c:85:90:1f:aa:0b', ip: '192.168.1.111', name: 'Küchen-Tablet' };

/** The writes the simulator saw, as [method, route, body]. */
function writes() {
  return bot.writes().map((r) => [r.method, r.route, r.body]);
}

/** The body of the only POST to acl-rules. */
async function createdBody(args: Record<string, unknown>) {
  await bot.run('create_acl_rule', { name: 'Test', action: 'deny', ...args, confirm: true });
  const posts = bot.writes().filter((r) => r.method === 'POST');
  expect(posts).toHaveLength(1);
  return posts[0]?.body as Record<string, unknown>;
}

describe('list_acl_rules', () => {
  it("lists the rules by priority in the spec's fields, network ids in classic form", async () => {
    const rules = (await bot.run('list_acl_rules')) as AclRule[];
    expect(rules.map((r) => [r.priority, r.name])).toEqual([
      [1, 'Block IoT to NAS'],
      [2, 'Allow cameras to NVR'],
      [3, 'Block guest SSH'],
      [4, "Block kids' tablet"],
    ]);
    expect(rules[0]).toEqual({
      id: R.blockIotToNas,
      name: 'Block IoT to NAS',
      action: 'deny',
      enabled: true,
      source_type: 'network',
      source_id: N.iot.uuid,
      source_name: 'IoT',
      source_network: null,
      destination_type: 'ip',
      destination_id: null,
      destination_name: null,
      destination_network: '192.168.1.20',
      protocol: 'tcp',
      src_port: null,
      dst_port: [445, 5000],
      priority: 1,
      description: 'IoT devices must not reach the file shares',
      rule_type: 'IPV4',
      origin: 'USER_DEFINED',
    });
    expect(rules[1]).toMatchObject({ action: 'allow', protocol: 'tcp_udp', source_id: N.cameras.uuid });
    expect(rules[2]).toMatchObject({ enabled: false, destination_type: 'any', dst_port: 22 });
    // A MAC filter reads as the spec's `device`, the word the write tools take.
    expect(rules[3]).toMatchObject({
      rule_type: 'MAC',
      source_type: 'device',
      source_id: '8c:85:90:1f:aa:0b',
      source_name: 'Küchen-Tablet',
    });
  });

  it('passes filter_expr to the Integration filter parameter', async () => {
    const rules = (await bot.run('list_acl_rules', { filter_expr: "action.eq('ALLOW')" })) as AclRule[];
    expect(rules.map((r) => r.name)).toEqual(['Allow cameras to NVR']);
    const list = bot.sim.requests.find((r) => r.method === 'GET' && r.route === ACL_ROUTE);
    expect(list?.query.filter).toBe("action.eq('ALLOW')");
  });

  it("translates the words the results show (deny, network) to the controller's before asking it", async () => {
    const rules = (await bot.run('list_acl_rules', {
      filter_expr: "and(action.eq('deny'), source_type.eq('network'))",
    })) as AclRule[];

    expect(rules.map((r) => r.name)).toEqual(['Block IoT to NAS', 'Block guest SSH']);
    const list = bot.sim.requests.find((r) => r.method === 'GET' && r.route === ACL_ROUTE);
    expect(list?.query.filter).toBe("and(action.eq('BLOCK'), sourceFilter.type.eq('NETWORKS'))");
  });

  it("returns the blocking rules for action.eq('deny')", async () => {
    const rules = (await bot.run('list_acl_rules', { filter_expr: "action.eq('deny')" })) as AclRule[];

    expect(rules.map((r) => [r.name, r.action])).toEqual([
      ['Block IoT to NAS', 'deny'],
      ['Block guest SSH', 'deny'],
      ["Block kids' tablet", 'deny'],
    ]);
  });

  it.each([
    ["destination_type.eq('any')", ["Block kids' tablet", 'Block guest SSH'].sort()],
    ["source_id.eq('Cameras')", ['Allow cameras to NVR']],
    ["source_id.eq('8C-85-90-1F-AA-0B')", ["Block kids' tablet"]],
    ['dst_port.eq(22)', ['Block guest SSH']],
    ["protocol.eq('tcp_udp')", ['Allow cameras to NVR']],
    ["rule_type.eq('mac')", ["Block kids' tablet"]],
    ["not(action.in('deny'))", ['Allow cameras to NVR']],
    ["and(enabled.eq(true), name.like('Block*'))", ['Block IoT to NAS', "Block kids' tablet"]],
  ])('answers %s with the rules it describes', async (filter_expr, names) => {
    const rules = (await bot.run('list_acl_rules', { filter_expr })) as AclRule[];
    expect(rules.map((r) => r.name).sort()).toEqual([...names].sort());
  });

  it.each([
    ['action.eq(', 'the expression ends too early'],
    ["action.eq('drop')", 'action is allow or deny, not drop'],
    ['priority.eq(1)', 'priority cannot be filtered on'],
    ["colour.eq('red')", 'unknown property colour'],
    ["action.like('d*')", 'action takes eq, ne, in or notIn'],
    ['name.eq(Block)', "Block is not a value: quote text ('Block')"],
    ["source_id.eq('Nowhere')", 'no network on site default is named or has id Nowhere'],
  ])('refuses %s naming filter_expr, without asking for rules', async (filter_expr, reason) => {
    const error = await rejection(bot.run('list_acl_rules', { filter_expr }));

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      { field: 'filter_expr', rule: expect.stringContaining(reason) },
    ]);
    expect(bot.sim.requests.some((r) => r.route === ACL_ROUTE)).toBe(false);
  });

  it('pages with limit and offset (defaults 100 and 0)', async () => {
    const page = (await bot.run('list_acl_rules', { limit: 2, offset: 1 })) as AclRule[];
    expect(page.map((r) => r.priority)).toEqual([2, 3]);
    expectPagingDefaults(bot, 'list_acl_rules');
  });

  it('refuses a bad limit or an empty filter_expr without asking the controller', async () => {
    expect(await validationIssues(bot, 'list_acl_rules', { limit: 10001, filter_expr: '' })).toEqual([
      LIMIT_ISSUE,
      { field: 'filter_expr', rule: 'must not be empty' },
    ]);
    expect(bot.sim.requests).toHaveLength(0);
  });
});

describe('get_acl_rule', () => {
  it('finds one rule by id or by name', async () => {
    const byId = (await bot.run('get_acl_rule', { acl_rule_id: R.blockGuestSsh })) as AclRule;
    expect(byId).toMatchObject({
      id: R.blockGuestSsh,
      name: 'Block guest SSH',
      priority: 3,
      source_id: N.guest.uuid,
    });
    expect(await bot.run('get_acl_rule', { acl_rule_id: 'block guest ssh' })).toEqual(byId);
  });

  it('raises ResourceNotFoundError for a missing rule, and refuses an empty id unsent', async () => {
    const error = await rejection(
      bot.run('get_acl_rule', { acl_rule_id: '00000000-0000-4000-8000-000000000000' }),
    );
    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect(error.message).toBe('ACL rule 00000000-0000-4000-8000-000000000000 not found');
    bot.sim.clearRequests();
    // Deliberately alike: a missing id refused per get tool before any request, naming that tool's own argument.
    expect(await validationIssues(bot, 'get_acl_rule', {})).toEqual([
      { field: 'acl_rule_id', rule: 'is required', missing: true },
    ]);
    expect(bot.sim.requests).toHaveLength(0);
  });
});

describe('create_acl_rule', () => {
  it('sends the defaults (enabled, any to any, all protocols) and appends the rule without reordering', async () => {
    const result = (await bot.run('create_acl_rule', {
      name: 'Allow all',
      action: 'allow',
      confirm: true,
    })) as {
      success: boolean;
      acl_rule: AclRule;
      warnings: string[];
    };
    const [[method, route, body] = []] = writes();
    expect([method, route]).toEqual(['POST', ACL_ROUTE]);
    expect(body).toEqual({
      type: 'IPV4',
      enabled: true,
      name: 'Allow all',
      action: 'ALLOW',
    });
    expect(writes()).toHaveLength(1);
    expect(result.success).toBe(true);
    expect(result.acl_rule).toMatchObject({
      name: 'Allow all',
      action: 'allow',
      enabled: true,
      source_type: 'any',
      destination_type: 'any',
      protocol: 'all',
      priority: 5,
    });
    expect(result.warnings).toEqual([
      'priority 100 is past the last rule: the rule goes last, at position 5',
    ]);
  });

  it('maps network sources and destinations to NETWORKS filters with Integration UUIDs', async () => {
    const body = await createdBody({
      source_type: 'network',
      source_id: 'IoT',
      destination_type: 'network',
      destination_id: N.defaultLan.uuid,
      protocol: 'udp',
    });
    expect(body).toMatchObject({
      action: 'BLOCK',
      sourceFilter: { type: 'NETWORKS', networkIds: [N.iot.uuid] },
      destinationFilter: { type: 'NETWORKS', networkIds: [N.defaultLan.uuid] },
      protocolFilter: ['UDP'],
    });
  });

  it('maps ip endpoints to IP_ADDRESSES_OR_SUBNETS and ports to portFilter', async () => {
    const body = await createdBody({
      source_type: 'ip',
      source_network: '10.20.0.0/24',
      src_port: 1024,
      destination_type: 'ip',
      destination_network: '192.168.1.20',
      dst_port: 445,
      protocol: 'tcp',
    });
    expect(body).toMatchObject({
      sourceFilter: {
        type: 'IP_ADDRESSES_OR_SUBNETS',
        ipAddressesOrSubnets: ['10.20.0.0/24'],
        portFilter: [1024],
      },
      destinationFilter: {
        type: 'IP_ADDRESSES_OR_SUBNETS',
        ipAddressesOrSubnets: ['192.168.1.20'],
        portFilter: [445],
      },
      protocolFilter: ['TCP'],
    });
  });

  it('maps a port with type any to a PORTS filter', async () => {
    const body = await createdBody({ destination_type: 'any', dst_port: 53, protocol: 'udp' });
    expect(body).toMatchObject({ destinationFilter: { type: 'PORTS', portFilter: [53] } });
    // No field is sent as null (the 10.1.85 document marks none nullable): "any" is left out.
    expect(body).not.toHaveProperty('sourceFilter');
  });

  it('maps a device to its address as a /32, found by MAC or name, and says so in the preview', async () => {
    const preview = (await bot.run('create_acl_rule', {
      name: 'Switch mgmt',
      action: 'deny',
      source_type: 'device',
      source_id: DEMO_DEVICES.officeSwitch.mac.toUpperCase(),
      destination_type: 'device',
      destination_id: 'core switch',
      dry_run: true,
    })) as { would_send: Record<string, unknown>; would_create: Partial<AclRule>; warnings: string[] };
    expect(preview.would_send).toMatchObject({
      sourceFilter: { type: 'IP_ADDRESSES_OR_SUBNETS', ipAddressesOrSubnets: ['192.168.1.3/32'] },
      destinationFilter: { type: 'IP_ADDRESSES_OR_SUBNETS', ipAddressesOrSubnets: ['192.168.1.2/32'] },
    });
    expect(preview.would_create).toMatchObject({ source_type: 'ip', source_network: '192.168.1.3/32' });
    expect(preview.warnings.slice(0, 2)).toEqual([
      `the source device Office Switch (${DEMO_DEVICES.officeSwitch.mac}) is matched by its current address 192.168.1.3/32 (the controller’s ACL rules take addresses, not devices): if its address changes, the rule no longer matches it`,
      `the destination device Core Switch (${DEMO_DEVICES.coreSwitch.mac}) is matched by its current address 192.168.1.2/32 (the controller’s ACL rules take addresses, not devices): if its address changes, the rule no longer matches it`,
    ]);
    expect(bot.writes()).toHaveLength(0);
  });

  it("accepts a client as a device endpoint: the demo's own kids' tablet, by MAC", async () => {
    const preview = (await bot.run('create_acl_rule', {
      name: 'Tablet bedtime',
      action: 'deny',
      source_type: 'device',
      source_id: KIDS_TABLET.mac,
      dry_run: true,
    })) as { would_send: Record<string, unknown>; would_create: Partial<AclRule>; warnings: string[] };

    expect(preview.would_send).toMatchObject({
      type: 'IPV4',
      sourceFilter: { type: 'IP_ADDRESSES_OR_SUBNETS', ipAddressesOrSubnets: [`${KIDS_TABLET.ip}/32`] },
    });
    expect(preview.would_send).not.toHaveProperty('destinationFilter');
    expect(preview.would_create).toMatchObject({ source_type: 'ip', source_network: `${KIDS_TABLET.ip}/32` });
    expect(preview.warnings[0]).toBe(
      `the source client ${KIDS_TABLET.name} (${KIDS_TABLET.mac}) is matched by its current address ${KIDS_TABLET.ip}/32 ` +
        '(the controller’s ACL rules take addresses, not clients): if its address changes, the rule no longer ' +
        'matches it; a fixed IP (DHCP reservation) keeps it matched',
    );
    expect(bot.writes()).toHaveLength(0);
  });

  it.each([
    ['its IP address', KIDS_TABLET.ip],
    ['its name', 'küchen-tablet'],
    ['its hostname', 'kuechen-tablet'],
    ['its MAC in another notation', '8C-85-90-1F-AA-0B'],
  ])('finds a client by %s', async (_how, ref) => {
    const body = await createdBody({ destination_type: 'device', destination_id: ref });
    expect(body).toMatchObject({
      destinationFilter: { type: 'IP_ADDRESSES_OR_SUBNETS', ipAddressesOrSubnets: [`${KIDS_TABLET.ip}/32`] },
    });
  });

  it('refuses a name two clients share, listing their MACs', async () => {
    const clients = bot.site().clients;
    const twin = clients.find((c) => c.mac !== KIDS_TABLET.mac && c.name);
    if (!twin) throw new Error('no second named client');
    twin.name = KIDS_TABLET.name;

    const issues = await validationIssues(bot, 'create_acl_rule', {
      name: 'r',
      action: 'deny',
      source_type: 'device',
      source_id: KIDS_TABLET.name,
      confirm: true,
    });

    expect(issues).toEqual([
      {
        field: 'source_id',
        rule: `"${KIDS_TABLET.name}" names 2 devices or clients; use a MAC (${twin.mac}, ${KIDS_TABLET.mac})`,
      },
    ]);
    expect(bot.writes()).toHaveLength(0);
  });

  // Deliberately alike: tool tests share the harness's call-then-check shape; the tool, its arguments and the expected answer differ.
  it('puts the rule at its priority with a PUT of the whole ordering', async () => {
    const result = (await bot.run('create_acl_rule', {
      name: 'First',
      action: 'deny',
      priority: 2,
      confirm: true,
    })) as { acl_rule: AclRule };
    const id = result.acl_rule.id;
    expect(writes()).toEqual([
      ['POST', ACL_ROUTE, expect.objectContaining({ name: 'First' })],
      ['PUT', ORDERING_ROUTE, { orderedAclRuleIds: [R.blockIotToNas, id, ...SEEDED_ORDER.slice(1)] }],
    ]);
    expect(result.acl_rule.priority).toBe(2);
    expect(bot.site().aclOrdering.indexOf(id)).toBe(1);
  });

  it('previews {dry_run, would_create, would_send} and changes nothing', async () => {
    const before = JSON.stringify(bot.site().aclRules);
    const preview = await bot.run('create_acl_rule', {
      name: 'Guest to IoT',
      action: 'deny',
      source_type: 'network',
      source_id: 'Guest',
      destination_type: 'network',
      destination_id: 'IoT',
      priority: 1,
      description: 'no crossing',
      dry_run: true,
    });
    expect(preview).toEqual({
      dry_run: true,
      would_create: {
        name: 'Guest to IoT',
        action: 'deny',
        enabled: true,
        source_type: 'network',
        source_id: N.guest.uuid,
        source_name: 'Guest',
        source_network: null,
        destination_type: 'network',
        destination_id: N.iot.uuid,
        destination_name: 'IoT',
        destination_network: null,
        protocol: 'all',
        src_port: null,
        dst_port: null,
        priority: 1,
        description: 'no crossing',
        rule_type: 'IPV4',
        origin: 'USER_DEFINED',
      },
      would_send: {
        type: 'IPV4',
        enabled: true,
        name: 'Guest to IoT',
        description: 'no crossing',
        action: 'BLOCK',
        sourceFilter: { type: 'NETWORKS', networkIds: [N.guest.uuid] },
        destinationFilter: { type: 'NETWORKS', networkIds: [N.iot.uuid] },
      },
      // Priority 1 takes an ordering PUT after the create; the new rule's id is the controller's to give.
      would_reorder: ['(the new rule)', ...SEEDED_ORDER],
      names: {
        [N.guest.uuid]: 'Guest',
        [N.iot.uuid]: 'IoT',
        [N.guest.uuid]: 'Guest',
        [N.iot.uuid]: 'IoT',
        [R.blockIotToNas]: 'Block IoT to NAS',
        [R.allowCamerasToNvr]: 'Allow cameras to NVR',
        [R.blockGuestSsh]: 'Block guest SSH',
        [R.blockKidsTabletMac]: "Block kids' tablet",
      },
      warnings: [],
    });
    expect(JSON.stringify(bot.site().aclRules)).toBe(before);
    expect(bot.writes()).toHaveLength(0);
  });

  it('refuses icmp with the reason, before any request', async () => {
    expect(
      await validationIssues(bot, 'create_acl_rule', {
        name: 'Ping',
        action: 'deny',
        protocol: 'icmp',
        confirm: true,
      }),
    ).toEqual([{ field: 'protocol', rule: ICMP_REFUSAL }]);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it.each([
    [{ source_type: 'network' }, 'source_id', 'is required when source_type is network'],
    [{ destination_type: 'device' }, 'destination_id', 'is required when destination_type is device'],
    [{ source_type: 'ip' }, 'source_network', 'is required when source_type is ip'],
    [
      { source_type: 'ip', source_network: '10.0.0.0/8', source_id: 'IoT' },
      'source_id',
      'only applies when source_type is network or device',
    ],
    [
      { destination_type: 'network', destination_id: 'IoT', destination_network: '10.0.0.0/8' },
      'destination_network',
      'only applies when destination_type is ip',
    ],
    [{ source_id: 'IoT' }, 'source_id', 'only applies when source_type is network or device'],
    [
      { source_type: 'ip', source_network: 'nas' },
      'source_network',
      'must be an IPv4 address or CIDR such as 10.0.0.0/24',
    ],
    [{ source_type: 'subnet' }, 'source_type', 'must be one of network, device, ip, any'],
    [{ protocol: 'gre' }, 'protocol', 'must be one of tcp, udp, tcp_udp, icmp, all'],
    [{ action: 'block' }, 'action', 'must be one of allow, deny'],
    [{ src_port: 0 }, 'src_port', 'must be a whole number from 1 to 65535'],
    [{ dst_port: 65536 }, 'dst_port', 'must be a whole number from 1 to 65535'],
    [{ priority: 0 }, 'priority', 'must be a whole number from 1 to 10000'],
    [{ name: '' }, 'name', 'must not be empty'],
    [{ description: 'x'.repeat(257) }, 'description', 'must be at most 256 characters'],
  ])('refuses %o naming %s, with no request sent', async (bad, field, rule) => {
    expect(
      await validationIssues(bot, 'create_acl_rule', { name: 'r', action: 'deny', ...bad, confirm: true }),
    ).toMatchObject([{ field, rule }]);
    expect(bot.sim.requests).toHaveLength(0);
  });

  // Deliberately alike: each write tool proves its own refusals (bad fields, unknown names); firewall-rules.test.ts does the same for its tool.
  it('raises ResourceNotFoundError for an unknown network or device, and sends nothing', async () => {
    const network = await rejection(
      bot.run('create_acl_rule', {
        name: 'r',
        action: 'deny',
        source_type: 'network',
        source_id: 'Nope',
        confirm: true,
      }),
    );
    expect(network).toBeInstanceOf(ResourceNotFoundError);
    expect(network.message).toBe('network Nope not found');
    const device = await rejection(
      bot.run('create_acl_rule', {
        name: 'r',
        action: 'deny',
        destination_type: 'device',
        destination_id: 'Toaster',
        confirm: true,
      }),
    );
    expect(device).toBeInstanceOf(ResourceNotFoundError);
    expect(device.message).toBe(
      'no network device or active client matches "Toaster" (give its MAC, IP address, name or id)',
    );
    expect(bot.writes()).toHaveLength(0);
  });

  it('says what state was left when the reorder fails after the create', async () => {
    bot.sim.injectFault({ method: 'PUT', route: 'acl-rules/ordering', kind: 'status', status: 400 });
    const error = await rejection(
      bot.run('create_acl_rule', { name: 'First', action: 'deny', priority: 1, confirm: true }),
    );
    expect(error.message).toMatch(
      /State left: ACL rule "First" was created \([0-9a-f-]{36}\) \(not undone\); putting it at priority 1 did not happen$/,
    );
    expect(bot.site().aclRules.some((r) => r.name === 'First')).toBe(true);
  });

  it('sends nothing at all without confirm', async () => {
    await expect(bot.run('create_acl_rule', { name: 'r', action: 'deny' })).rejects.toBeInstanceOf(
      ConfirmationRequiredError,
    );
    expect(bot.sim.requests).toHaveLength(0);
  });
});

describe('update_acl_rule', () => {
  it('PUTs the stored rule with only the supplied fields changed', async () => {
    const result = await bot.run('update_acl_rule', {
      acl_rule_id: R.blockGuestSsh,
      enabled: true,
      dst_port: 2222,
      confirm: true,
    });
    expect(writes()).toEqual([
      [
        'PUT',
        `${ACL_ROUTE}/${R.blockGuestSsh}`,
        {
          type: 'IPV4',
          enabled: true,
          name: 'Block guest SSH',
          action: 'BLOCK',
          sourceFilter: { type: 'NETWORKS', networkIds: [N.guest.uuid] },
          destinationFilter: { type: 'PORTS', portFilter: [2222] },
          protocolFilter: ['TCP'],
        },
      ],
    ]);
    expect(result).toMatchObject({
      success: true,
      acl_rule_id: R.blockGuestSsh,
      changes: { enabled: { from: false, to: true }, dst_port: { from: 22, to: 2222 } },
      acl_rule: { enabled: true, dst_port: 2222, priority: 3 },
    });
  });

  it('reorders with only an ordering PUT when only the priority changes', async () => {
    const result = await bot.run('update_acl_rule', {
      acl_rule_id: "Block kids' tablet",
      priority: 1,
      confirm: true,
    });
    expect(writes()).toEqual([
      ['PUT', ORDERING_ROUTE, { orderedAclRuleIds: [R.blockKidsTabletMac, ...SEEDED_ORDER.slice(0, 3)] }],
    ]);
    expect(result).toMatchObject({ changes: { priority: { from: 4, to: 1 } }, acl_rule: { priority: 1 } });
    expect(bot.site().aclOrdering[0]).toBe(R.blockKidsTabletMac);
  });

  it('keeps the endpoint type when only the id changes, and replaces the endpoint when the type changes', async () => {
    await bot.run('update_acl_rule', {
      acl_rule_id: R.blockIotToNas,
      source_id: 'Guest',
      destination_type: 'any',
      confirm: true,
    });
    expect(bot.writes()[0]?.body).toMatchObject({
      sourceFilter: { type: 'NETWORKS', networkIds: [N.guest.uuid] },
      destinationFilter: { type: 'PORTS', portFilter: [445, 5000] },
      description: 'IoT devices must not reach the file shares',
    });
  });

  it('clears the description with an empty one', async () => {
    await bot.run('update_acl_rule', { acl_rule_id: R.blockIotToNas, description: '', confirm: true });
    expect(bot.writes()[0]?.body).not.toHaveProperty('description');
    expect(bot.site().aclRules.find((r) => r.id === R.blockIotToNas)?.description).toBeUndefined();
  });

  it('previews the diff, the body and the new order, and changes nothing', async () => {
    const before = JSON.stringify(bot.site());
    const preview = await bot.run('update_acl_rule', {
      acl_rule_id: R.allowCamerasToNvr,
      action: 'deny',
      protocol: 'tcp',
      priority: 9,
      dry_run: true,
    });
    expect(preview).toMatchObject({
      dry_run: true,
      acl_rule_id: R.allowCamerasToNvr,
      name: 'Allow cameras to NVR',
      changes: {
        action: { from: 'allow', to: 'deny' },
        protocol: { from: 'tcp_udp', to: 'tcp' },
        priority: { from: 2, to: 4 },
      },
      would_send: { action: 'BLOCK', protocolFilter: ['TCP'] },
      would_reorder: [R.blockIotToNas, R.blockGuestSsh, R.blockKidsTabletMac, R.allowCamerasToNvr],
      names: { [R.blockGuestSsh]: 'Block guest SSH', [R.allowCamerasToNvr]: 'Allow cameras to NVR' },
      warnings: ['priority 9 is past the last rule: the rule goes last, at position 4'],
    });
    expect(JSON.stringify(bot.site())).toBe(before);
    expect(bot.writes()).toHaveLength(0);
  });

  it('checks combinations against the stored rule before writing', async () => {
    expect(
      await validationIssues(bot, 'update_acl_rule', {
        acl_rule_id: R.blockIotToNas,
        source_type: 'ip',
        confirm: true,
      }),
    ).toEqual([{ field: 'source_network', rule: 'is required when source_type is ip', missing: true }]);
    expect(
      await validationIssues(bot, 'update_acl_rule', {
        acl_rule_id: R.blockIotToNas,
        destination_id: 'IoT',
        confirm: true,
      }),
    ).toEqual([{ field: 'destination_id', rule: 'only applies when destination_type is network or device' }]);
    expect(bot.writes()).toHaveLength(0);
  });

  it.each([
    [{ protocol: 'icmp' }, 'protocol', ICMP_REFUSAL],
    [
      { source_type: 'any', source_id: 'IoT' },
      'source_id',
      'only applies when source_type is network or device',
    ],
    [{ priority: 10001 }, 'priority', 'must be a whole number from 1 to 10000'],
    [{ action: 'permit' }, 'action', 'must be one of allow, deny'],
  ])('refuses %o naming %s, with no request sent', async (bad, field, rule) => {
    expect(
      await validationIssues(bot, 'update_acl_rule', { acl_rule_id: R.blockIotToNas, ...bad, confirm: true }),
    ).toEqual([{ field, rule }]);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it('refuses to edit the filters of a MAC rule, and any rule that is not user-defined', async () => {
    const mac = await rejection(
      bot.run('update_acl_rule', { acl_rule_id: R.blockKidsTabletMac, source_type: 'any', confirm: true }),
    );
    expect(mac).toBeInstanceOf(NotSupportedError);
    expect(mac.message).toBe(
      'the source of this rule is a MAC address filter, which these tools do not edit',
    );
    const derived = bot.site().aclRules.find((r) => r.id === R.blockGuestSsh);
    if (derived) derived.metadata = { origin: 'DERIVED' };
    for (const [tool, args] of [
      ['update_acl_rule', { name: 'x' }],
      ['delete_acl_rule', {}],
    ] as const) {
      const error = await rejection(bot.run(tool, { acl_rule_id: R.blockGuestSsh, ...args, confirm: true }));
      expect(error.message).toBe(
        'ACL rule "Block guest SSH" is DERIVED (not user-defined): only user-defined rules can be changed or deleted',
      );
    }
    expect(bot.writes()).toHaveLength(0);
  });

  it('raises ResourceNotFoundError for a missing rule, and sends nothing without confirm', async () => {
    await expect(
      bot.run('update_acl_rule', { acl_rule_id: 'Nope', name: 'x', confirm: true }),
    ).rejects.toBeInstanceOf(ResourceNotFoundError);
    bot.sim.clearRequests();
    await expect(
      bot.run('update_acl_rule', { acl_rule_id: R.blockIotToNas, name: 'x' }),
    ).rejects.toBeInstanceOf(ConfirmationRequiredError);
    expect(bot.sim.requests).toHaveLength(0);
  });
});

describe('delete_acl_rule', () => {
  it('deletes and answers {success, deleted_acl_rule_id}', async () => {
    const result = await bot.run('delete_acl_rule', { acl_rule_id: R.blockGuestSsh, confirm: true });
    expect(result).toEqual({ success: true, deleted_acl_rule_id: R.blockGuestSsh });
    expect(writes()).toEqual([['DELETE', `${ACL_ROUTE}/${R.blockGuestSsh}`, undefined]]);
    expect(bot.site().aclRules.some((r) => r.id === R.blockGuestSsh)).toBe(false);
  });

  it('previews the rule and deletes nothing on a dry run', async () => {
    const preview = (await bot.run('delete_acl_rule', { acl_rule_id: 'Block guest SSH', dry_run: true })) as {
      would_delete: AclRule;
      warnings: string[];
    };
    expect(preview.would_delete).toMatchObject({ id: R.blockGuestSsh, priority: 3 });
    expect(preview.warnings).toEqual(['deletion is irreversible']);
    expect(bot.writes()).toHaveLength(0);
  });

  it('raises ResourceNotFoundError for a missing rule, on a dry run too', async () => {
    for (const args of [{ confirm: true }, { dry_run: true }]) {
      await expect(bot.run('delete_acl_rule', { acl_rule_id: 'Nope', ...args })).rejects.toBeInstanceOf(
        ResourceNotFoundError,
      );
    }
    expect(bot.writes()).toHaveLength(0);
  });

  it('refuses an empty id unsent, and sends nothing without confirm', async () => {
    expect(await validationIssues(bot, 'delete_acl_rule', { acl_rule_id: '', confirm: true })).toEqual([
      { field: 'acl_rule_id', rule: 'must be an ACL rule id or name' },
    ]);
    await expect(bot.run('delete_acl_rule', { acl_rule_id: R.blockGuestSsh })).rejects.toBeInstanceOf(
      ConfirmationRequiredError,
    );
    expect(bot.sim.requests).toHaveLength(0);
  });
});
