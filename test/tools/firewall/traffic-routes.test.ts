import { describe, expect, it } from 'vitest';
import { ConfirmationRequiredError, NotSupportedError, ResourceNotFoundError } from '../../../src/errors.js';
import { DEMO_NETWORKS } from '../../../src/simulator/index.js';
import type { TrafficRoute } from '../../../src/tools/firewall/traffic-route-model.js';
import { rejection, useTestBot, validationIssues } from '../../helpers/tool-test.js';

const bot = useTestBot();

const RULES = '/v2/api/site/default/trafficrules';
const GUEST_CAP = '65b3c8e1f4a9d20c7e5a1203';
const NO_LIMIT = { download_limit_kbps: 1024, enabled: false, upload_limit_kbps: 1024 };
const EMPTY = { app_category_ids: [], app_ids: [], domains: [], ip_ranges: [], network_ids: [], regions: [] };
const ALWAYS = { mode: 'ALWAYS', repeat_on_days: [], time_all_day: false };

async function routes(): Promise<TrafficRoute[]> {
  return (await bot.run('list_traffic_routes')) as TrafficRoute[];
}

function storedRules(): unknown {
  return JSON.parse(JSON.stringify(bot.site().trafficRules));
}

describe('list_traffic_routes', () => {
  it("lists every traffic rule in the spec's route shape", async () => {
    const list = await routes();

    expect(list).toEqual([
      {
        id: '65b3c8e1f4a9d20c7e5a1201',
        name: 'Block social media on IoT',
        action: 'deny',
        dscp_marking: null,
        priority: null,
        enabled: true,
        // An APP rule: nothing the spec's criteria can say, so they are null.
        match_criteria: { destination_port: null, protocol: null, destination_ip: null, vlan_id: 20 },
        bandwidth_limit_kbps: null,
        matching_target: 'APP',
        applications: ['Facebook (1572867)', 'Instagram (1573022)'],
        applies_to: ['network IoT (VLAN 20)'],
      },
      {
        id: '65b3c8e1f4a9d20c7e5a1202',
        name: 'Allow NAS offsite backup',
        action: 'allow',
        dscp_marking: null,
        priority: null,
        enabled: true,
        match_criteria: {
          destination_port: 22,
          protocol: 'all',
          destination_ip: '198.51.100.50',
          vlan_id: null,
        },
        bandwidth_limit_kbps: null,
        matching_target: 'IP',
        applications: null,
        applies_to: ['client 00:11:32:8a:bc:04'],
      },
      {
        id: GUEST_CAP,
        name: 'Guest bandwidth cap',
        action: 'shape',
        dscp_marking: null,
        priority: null,
        enabled: true,
        match_criteria: { destination_port: null, protocol: 'all', destination_ip: null, vlan_id: 30 },
        bandwidth_limit_kbps: 20480,
        matching_target: 'INTERNET',
        applications: null,
        applies_to: ['network Guest (VLAN 30)'],
      },
    ]);
    // Never the static-route resource nor v2 trafficroutes (policy-based routing).
    const routesAsked = bot.sim.requests.map((r) => r.route).filter((route) => route !== '/');
    expect(routesAsked.sort()).toEqual(['/api/s/default/rest/networkconf', RULES]);
  });

  it('skips a record it cannot read rather than failing the list', async () => {
    bot.site().trafficRules.push({ _id: '', action: 'ALLOW' } as never);

    // The rule the bot could not read is counted in the answer, not silently dropped.
    expect(await bot.run('list_traffic_routes')).toMatchObject({
      result: expect.any(Array),
      unreadable_records: 1,
    });
    expect(((await bot.run('list_traffic_routes')) as { result: unknown[] }).result).toHaveLength(3);
  });
});

describe('create_traffic_route', () => {
  it('round-trips allow, deny and shape: create, list, disable, delete', async () => {
    const cases = [
      {
        args: {
          name: 'Allow backup host',
          action: 'allow',
          destination_ip: '203.0.113.7',
          destination_port: 22,
        },
        action: 'allow',
      },
      {
        args: { name: 'Block telnet out', action: 'deny', destination_ip: '0.0.0.0/0', destination_port: 23 },
        action: 'deny',
      },
      {
        args: { name: 'Cap IoT', action: 'shape', vlan_id: 20, bandwidth_limit_kbps: 5000 },
        action: 'shape',
      },
    ];
    for (const { args, action } of cases) {
      bot.sim.clearRequests();
      const created = (await bot.run('create_traffic_route', { ...args, confirm: true })) as {
        traffic_route: TrafficRoute;
      };
      const id = created.traffic_route.id;
      expect(created.traffic_route).toMatchObject({ name: args.name, action, enabled: true });
      expect((await routes()).find((r) => r.id === id)).toEqual(created.traffic_route);

      const disabled = await bot.run('update_traffic_route', { route_id: id, enabled: false, confirm: true });
      expect(disabled).toMatchObject({ success: true, traffic_route: { id, enabled: false } });
      expect((await routes()).find((r) => r.id === id)?.enabled).toBe(false);

      expect(await bot.run('delete_traffic_route', { route_id: id, confirm: true })).toEqual({
        success: true,
        deleted_route_id: id,
      });
      expect((await routes()).map((r) => r.id)).not.toContain(id);
      expect(bot.writes().map((w) => [w.method, w.route])).toEqual([
        ['POST', RULES],
        ['PUT', `${RULES}/${id}`],
        ['DELETE', `${RULES}/${id}`],
      ]);
    }
  });

  it('sends a deny to an address and port as a BLOCK rule matching that IP for every client', async () => {
    await bot.run('create_traffic_route', {
      name: 'Block bad host',
      action: 'deny',
      destination_ip: '198.51.100.0/24',
      destination_port: 443,
      protocol: 'all',
      confirm: true,
    });

    expect(bot.writes()[0]?.body).toEqual({
      ...EMPTY,
      action: 'BLOCK',
      bandwidth_limit: NO_LIMIT,
      description: 'Block bad host',
      enabled: true,
      ip_addresses: [{ ip_or_subnet: '198.51.100.0/24', ip_version: 'v4', port_ranges: [], ports: [443] }],
      matching_target: 'IP',
      schedule: ALWAYS,
      target_devices: [{ type: 'ALL_CLIENTS' }],
    });
  });

  it('sends a shape as ALLOW with an enabled bandwidth limit both ways, for the network of vlan_id', async () => {
    const result = await bot.run('create_traffic_route', {
      name: 'Cap cameras',
      action: 'shape',
      vlan_id: 60,
      bandwidth_limit_kbps: 2048,
      enabled: false,
      confirm: true,
    });

    expect(bot.writes()[0]?.body).toMatchObject({
      action: 'ALLOW',
      bandwidth_limit: { download_limit_kbps: 2048, enabled: true, upload_limit_kbps: 2048 },
      enabled: false,
      ip_addresses: [],
      matching_target: 'INTERNET',
      target_devices: [{ network_id: DEMO_NETWORKS.cameras.id, type: 'NETWORK' }],
    });
    expect(result).toMatchObject({
      success: true,
      traffic_route: { action: 'shape', bandwidth_limit_kbps: 2048, enabled: false },
      warnings: [
        'without destination_ip the rule matches all internet traffic of the network',
        'the limit applies to download and upload alike (2048 kbps each)',
      ],
    });
  });

  it('applies a route to the network whose subnet is source_ip, and to IPv6 destinations', async () => {
    await bot.run('create_traffic_route', {
      name: 'Guests to v6 DNS',
      action: 'allow',
      source_ip: '10.30.0.0/24',
      destination_ip: '2001:4860:4860::8888',
      confirm: true,
    });

    expect(bot.writes()[0]?.body).toMatchObject({
      ip_addresses: [{ ip_or_subnet: '2001:4860:4860::8888', ip_version: 'v6', port_ranges: [], ports: [] }],
      target_devices: [{ network_id: DEMO_NETWORKS.guest.id, type: 'NETWORK' }],
    });
  });

  it('defaults enabled to true', () => {
    expect(bot.app.registry.validate('create_traffic_route', { name: 'x', action: 'allow' })).toEqual({
      site_id: 'default',
      name: 'x',
      action: 'allow',
      enabled: true,
    });
  });

  it('refuses mark and dscp_marking: the controller has no DSCP marking (no request sent)', async () => {
    for (const args of [
      { action: 'mark', dscp_marking: 46 },
      { action: 'mark' },
      { action: 'allow', dscp_marking: 34 },
    ]) {
      const error = await rejection(
        bot.run('create_traffic_route', { name: 'Voice', ...args, dry_run: true }),
      );
      expect(error).toBeInstanceOf(NotSupportedError);
      expect((error as Error).message).toContain('DSCP marking is not available on the controller');
      expect((error as Error).message).toContain('QoS rules (v2 qos-rules)');
    }
    expect(bot.sim.requests).toHaveLength(0);
  });

  it.each([
    ['priority', { priority: 10 }, 'priority cannot be set'],
    ['source_port', { source_port: 5060 }, 'source_port cannot be matched'],
    ['protocol tcp', { protocol: 'tcp' }, 'protocol tcp cannot be matched'],
    ['protocol icmp', { protocol: 'icmp' }, 'protocol icmp cannot be matched'],
  ])('refuses %s, which traffic rules cannot express', async (_label, extra, message) => {
    const error = await rejection(
      bot.run('create_traffic_route', { name: 'x', action: 'deny', ...extra, confirm: true }),
    );

    expect(error).toBeInstanceOf(NotSupportedError);
    expect((error as Error).message).toContain(message);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it.each([
    ['action', { action: 'drop' }, 'must be one of allow, deny, mark, shape'],
    ['priority', { priority: 0 }, 'must be a whole number from 1 to 1000'],
    ['priority', { priority: 1001 }, 'must be a whole number from 1 to 1000'],
    ['dscp_marking', { dscp_marking: 64 }, 'must be a whole number from 0 to 63'],
    ['dscp_marking', { dscp_marking: -1 }, 'must be a whole number from 0 to 63'],
    ['destination_port', { destination_port: 0 }, 'must be a whole number from 1 to 65535'],
    ['source_port', { source_port: 65536 }, 'must be a whole number from 1 to 65535'],
    ['vlan_id', { vlan_id: 4095 }, 'must be a whole number from 1 to 4094'],
    ['vlan_id', { vlan_id: 0 }, 'must be a whole number from 1 to 4094'],
    ['protocol', { protocol: 'sctp' }, 'must be one of tcp, udp, icmp, all'],
    [
      'destination_ip',
      { destination_ip: '10.0.0.300' },
      'must be an IP address or CIDR such as 203.0.113.0/24',
    ],
    ['bandwidth_limit_kbps', { bandwidth_limit_kbps: 0 }, 'must be a whole number from 1 to 10000000'],
  ])('refuses a bad %s, naming it, without asking the controller', async (field, extra, rule) => {
    const issues = await validationIssues(bot, 'create_traffic_route', {
      name: 'x',
      action: 'deny',
      ...extra,
      confirm: true,
    });

    expect(issues).toEqual([{ field, rule }]);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it('refuses arguments that do not fit together', async () => {
    expect(
      await validationIssues(bot, 'create_traffic_route', { name: 'x', action: 'shape', confirm: true }),
    ).toEqual([{ field: 'bandwidth_limit_kbps', rule: 'is required for action shape', missing: true }]);
    expect(
      await validationIssues(bot, 'create_traffic_route', {
        name: 'x',
        action: 'deny',
        bandwidth_limit_kbps: 100,
        destination_port: 80,
        confirm: true,
      }),
    ).toEqual([
      { field: 'bandwidth_limit_kbps', rule: 'applies only to action shape' },
      {
        field: 'destination_port',
        rule: 'needs destination_ip: traffic rules match ports per destination address',
      },
    ]);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it('refuses a vlan_id no network carries, and a source_ip that is no network subnet', async () => {
    const vlan = await rejection(
      bot.run('create_traffic_route', { name: 'x', action: 'deny', vlan_id: 99, confirm: true }),
    );
    const source = await validationIssues(bot, 'create_traffic_route', {
      name: 'x',
      action: 'deny',
      source_ip: '192.168.1.50',
      confirm: true,
    });

    expect(vlan).toBeInstanceOf(ResourceNotFoundError);
    expect((vlan as Error).message).toBe('no network on site default has VLAN 99');
    expect(source[0]?.field).toBe('source_ip');
    expect(source[0]?.rule).toContain('is not the subnet of a network on site default');
    expect(bot.writes()).toEqual([]);
  });

  it('previews the rule body on a dry run and changes nothing', async () => {
    const before = storedRules();

    const preview = await bot.run('create_traffic_route', {
      name: 'Block all',
      action: 'deny',
      dry_run: true,
    });

    expect(preview).toEqual({
      dry_run: true,
      would_create: {
        ...EMPTY,
        action: 'BLOCK',
        bandwidth_limit: NO_LIMIT,
        description: 'Block all',
        enabled: true,
        ip_addresses: [],
        matching_target: 'INTERNET',
        schedule: ALWAYS,
        target_devices: [{ type: 'ALL_CLIENTS' }],
      },
      warnings: ['without destination_ip the rule matches all internet traffic of every client'],
    });
    expect(bot.writes()).toEqual([]);
    expect(storedRules()).toEqual(before);
  });

  it('changes nothing without confirm', async () => {
    const error = await rejection(bot.run('create_traffic_route', { name: 'x', action: 'deny' }));

    expect(error).toBeInstanceOf(ConfirmationRequiredError);
    expect(bot.sim.requests).toHaveLength(0);
  });
});

describe('update_traffic_route', () => {
  it('PUTs the whole stored rule back with only enabled changed', async () => {
    const stored = JSON.parse(JSON.stringify(bot.site().trafficRules[2])) as Record<string, unknown>;

    const result = await bot.run('update_traffic_route', {
      route_id: 'Guest bandwidth cap',
      enabled: false,
      confirm: true,
    });

    expect(bot.writes().map((w) => [w.method, w.route, w.body])).toEqual([
      ['PUT', `${RULES}/${GUEST_CAP}`, { ...stored, enabled: false }],
    ]);
    expect(result).toMatchObject({
      success: true,
      route_id: GUEST_CAP,
      name: 'Guest bandwidth cap',
      changes: { enabled: { from: true, to: false } },
      traffic_route: { id: GUEST_CAP, action: 'shape', enabled: false },
    });
    // The schedule and limit survive the full replace.
    expect(bot.site().trafficRules[2]).toMatchObject({
      enabled: false,
      schedule: { mode: 'CUSTOM', repeat_on_days: ['fri', 'sat', 'sun'] },
      bandwidth_limit: { download_limit_kbps: 20480, enabled: true },
    });
  });

  it('previews the change and the body on a dry run, and changes nothing', async () => {
    const before = storedRules();

    const preview = (await bot.run('update_traffic_route', {
      route_id: '65b3c8e1f4a9d20c7e5a1201',
      enabled: false,
      dry_run: true,
    })) as Record<string, unknown>;

    expect(preview).toMatchObject({
      dry_run: true,
      route_id: '65b3c8e1f4a9d20c7e5a1201',
      name: 'Block social media on IoT',
      changes: { enabled: { from: true, to: false } },
      warnings: ['traffic this rule blocks will flow again'],
      would_send: { _id: '65b3c8e1f4a9d20c7e5a1201', action: 'BLOCK', enabled: false },
      // The network the stored rule targets, named for the approver.
      names: { [DEMO_NETWORKS.iot.id]: 'IoT' },
    });
    expect(bot.writes()).toEqual([]);
    expect(storedRules()).toEqual(before);
  });

  it('sends the stored app_ids back as the strings they are stored as', async () => {
    const stored = JSON.parse(JSON.stringify(bot.site().trafficRules[0])) as Record<string, unknown>;
    expect(stored.app_ids).toEqual(['1572867', '1573022']);

    await bot.run('update_traffic_route', {
      route_id: 'Block social media on IoT',
      enabled: false,
      confirm: true,
    });

    expect(bot.writes()[0]?.body).toEqual({ ...stored, enabled: false });
  });

  it('reads app ids given as numbers too, and names categories', async () => {
    const [rule] = bot.site().trafficRules;
    if (!rule) throw new Error('no demo rule');
    rule.app_ids = [1572867, 'x'];
    rule.app_category_ids = ['24', 99];

    const [route] = (await bot.run('list_traffic_routes')) as TrafficRoute[];

    expect(route?.applications).toEqual([
      'Facebook (1572867)',
      'category Social Networks (24)',
      'category 99',
    ]);
  });

  it('sends nothing when the route is already in that state', async () => {
    const result = await bot.run('update_traffic_route', {
      route_id: GUEST_CAP,
      enabled: true,
      confirm: true,
    });

    expect(result).toMatchObject({ success: true, changes: {} });
    expect(bot.writes()).toEqual([]);
  });

  it('requires enabled, and refuses a non-boolean, naming the field', async () => {
    expect(
      await validationIssues(bot, 'update_traffic_route', { route_id: GUEST_CAP, confirm: true }),
    ).toEqual([{ field: 'enabled', rule: 'is required', missing: true }]);
    const wrongType = await validationIssues(bot, 'update_traffic_route', {
      route_id: GUEST_CAP,
      enabled: 'maybe',
      confirm: true,
    });
    expect(wrongType.map((i) => i.field)).toEqual(['enabled']);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it('raises ResourceNotFoundError for an unknown route, also on a dry run', async () => {
    const error = await rejection(
      bot.run('update_traffic_route', { route_id: 'ffffffffffffffffffffffff', enabled: true, dry_run: true }),
    );

    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect((error as Error).message).toBe('traffic route ffffffffffffffffffffffff not found');
  });

  it('changes nothing without confirm', async () => {
    const error = await rejection(bot.run('update_traffic_route', { route_id: GUEST_CAP, enabled: false }));

    expect(error).toBeInstanceOf(ConfirmationRequiredError);
    expect(bot.sim.requests).toHaveLength(0);
  });
});

describe('delete_traffic_route', () => {
  it('previews the route on a dry run, with what is lost, and changes nothing', async () => {
    const preview = (await bot.run('delete_traffic_route', { route_id: GUEST_CAP, dry_run: true })) as {
      would_delete: TrafficRoute;
    };

    expect(preview).toMatchObject({
      dry_run: true,
      would_delete: { id: GUEST_CAP, name: 'Guest bandwidth cap', action: 'shape' },
      warnings: ['deletion is irreversible', 'its bandwidth limit is lifted'],
    });
    expect(bot.writes()).toEqual([]);
    expect(bot.site().trafficRules).toHaveLength(3);
  });

  it('raises ResourceNotFoundError for an unknown route, also on a dry run', async () => {
    const error = await rejection(bot.run('delete_traffic_route', { route_id: 'Nope', dry_run: true }));

    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect(bot.writes()).toEqual([]);
  });

  it('changes nothing without confirm', async () => {
    const error = await rejection(bot.run('delete_traffic_route', { route_id: GUEST_CAP }));

    expect(error).toBeInstanceOf(ConfirmationRequiredError);
    expect(bot.sim.requests).toHaveLength(0);
  });
});
