import { describe, expect, it } from 'vitest';
import {
  ConfirmationRequiredError,
  NotSupportedError,
  ResourceNotFoundError,
  ValidationError,
} from '../../../src/errors.js';
import {
  DEMO_FIREWALL_POLICIES,
  DEMO_FIREWALL_POLICY_UUIDS,
  DEMO_NETWORKS,
  DEMO_ZONE_IDS,
  DEMO_ZONES,
  SIMULATOR_DEFAULTS,
} from '../../../src/simulator/index.js';
import type { FirewallPolicy, FirewallPolicyRow } from '../../../src/tools/firewall/firewall-policy-model.js';
import { rejection, useTestBot, validationIssues } from '../../helpers/tool-test.js';

const P = DEMO_FIREWALL_POLICIES;
const Z = DEMO_ZONE_IDS;
const N = DEMO_NETWORKS;
const POLICIES = '/v2/api/site/default/firewall-policies';

// The v2 `firewall-policies` endpoints, as a Network 9.0 console (no official policy API) serves them;
// the official endpoints of 10.1 are tested in firewall-policies-official.test.ts.
const bot = useTestBot({ simulator: { apiVersion: '9.0' } });

function stored(id: string) {
  const policy = bot.site().firewallPolicies.find((p) => p._id === id);
  if (!policy) throw new Error(`no policy ${id}`);
  return policy;
}

const writes = () => bot.writes().map((r) => [r.method, r.route]);

describe('list_firewall_policies', () => {
  it('lists the admin’s policies by zone pair, one line each with both sides in words', async () => {
    const rows = (await bot.run('list_firewall_policies')) as FirewallPolicyRow[];

    // Deliberately alike: the same rows as on 10.1 (firewall-policies-official.test.ts): a policy shows the same on both APIs but for its ids.
    expect(rows).toEqual([
      {
        id: P.allowPlexFromWan,
        name: 'Allow Plex from WAN',
        action: 'ALLOW',
        enabled: false,
        source: 'External',
        destination: 'Internal: 192.168.1.20 port 32400',
        protocol: 'tcp IPV4',
        schedule: 'always',
        index: 10000,
        predefined: false,
      },
      expect.objectContaining({
        name: "Kids' bedtime",
        source: 'Internal: 192.168.1.140',
        destination: 'External',
        schedule: 'every day 21:30–23:59',
      }),
      expect.objectContaining({
        name: 'Cameras: no internet',
        source: 'IoT Devices: Cameras',
        action: 'REJECT',
      }),
      expect.objectContaining({
        name: 'Block IoT to Internal',
        source: 'IoT Devices: IoT',
        destination: 'Internal',
      }),
    ]);
  });

  it('adds the controller’s generated policies on request, and pages', async () => {
    const all = (await bot.run('list_firewall_policies', {
      include_predefined: true,
    })) as FirewallPolicyRow[];
    const page = (await bot.run('list_firewall_policies', { limit: 1, offset: 1 })) as FirewallPolicyRow[];

    expect(all).toHaveLength(8);
    expect(all.filter((p) => p.predefined).map((p) => p.name)).toEqual([
      'Allow Return Traffic',
      'Block All Traffic',
      'Allow All Traffic',
      'Allow All Traffic',
    ]);
    expect(page.map((p) => p.name)).toEqual(["Kids' bedtime"]);
  });
});

describe('get_firewall_policy', () => {
  it('round trip of ids on 9.0: the zone ids it shows (UUIDs) and the v2 ones name the same zones; the official policy id works too', async () => {
    const policy = (await bot.run('get_firewall_policy', {
      policy_id: DEMO_FIREWALL_POLICY_UUIDS.blockIotToInternal,
    })) as FirewallPolicy;
    expect(policy).toMatchObject({
      id: P.blockIotToInternal,
      source_zone_id: DEMO_ZONES.iotDevices,
      destination_zone_id: DEMO_ZONES.internal,
    });
    for (const zone of [policy.source_zone_id, Z.iotDevices]) {
      const preview = (await bot.run('create_firewall_policy', {
        name: 'Round trip',
        action: 'BLOCK',
        source_zone: zone,
        destination_zone: policy.destination_zone_id,
        dry_run: true,
      })) as { would_create: FirewallPolicy; would_send: { source: { zone_id: string } } };
      expect(preview.would_create.source_zone_id).toBe(policy.source_zone_id);
      expect(preview.would_send.source.zone_id).toBe(Z.iotDevices);
    }
    expect(bot.writes()).toEqual([]);
  });

  it('shows every field of one policy, zones and networks by name', async () => {
    expect(await bot.run('get_firewall_policy', { policy_id: 'Block IoT to Internal' })).toEqual({
      id: P.blockIotToInternal,
      name: 'Block IoT to Internal',
      action: 'BLOCK',
      enabled: true,
      source_zone: 'IoT Devices',
      destination_zone: 'Internal',
      source_match: 'networks',
      source_networks: ['IoT'],
      source_ips: null,
      source_port: null,
      destination_match: 'any',
      destination_networks: null,
      destination_ips: null,
      destination_port: null,
      protocol: 'all',
      ip_version: 'BOTH',
      schedule: 'always',
      logging: false,
      index: 10000,
      predefined: false,
      description: null,
      source_zone_id: DEMO_ZONES.iotDevices, // the id the zone tools show
      destination_zone_id: DEMO_ZONES.internal,
    });
    expect(await bot.run('get_firewall_policy', { policy_id: P.allowPlexFromWan })).toMatchObject({
      enabled: false,
      protocol: 'tcp',
      ip_version: 'IPV4',
      destination_match: 'ips',
      destination_ips: ['192.168.1.20'],
      destination_port: '32400',
    });
  });

  it('finds one by name or id, and refuses a name the controller reuses across zone pairs', async () => {
    const byName = (await bot.run('get_firewall_policy', {
      policy_id: 'cameras: no internet',
    })) as FirewallPolicy;
    const byId = (await bot.run('get_firewall_policy', { policy_id: P.camerasNoInternet })) as FirewallPolicy;
    const ambiguous = await rejection(bot.run('get_firewall_policy', { policy_id: 'Allow All Traffic' }));

    expect(byName).toEqual(byId);
    expect(byName).toMatchObject({ action: 'REJECT', logging: true, source_networks: ['Cameras'] });
    expect(ambiguous).toBeInstanceOf(ValidationError);
    expect(ambiguous.message).toMatch(/^policy_id: "Allow All Traffic" names 2 firewall policies; use an id/);
    await expect(bot.run('get_firewall_policy', { policy_id: 'nope' })).rejects.toBeInstanceOf(
      ResourceNotFoundError,
    );
  });
});

describe('create_firewall_policy', () => {
  const args = {
    name: 'Block guests to cameras',
    action: 'BLOCK',
    source_zone: 'Hotspot',
    destination_zone: 'IoT Devices',
    destination_networks: 'Cameras',
    protocol: 'tcp',
    destination_port: '554',
  };

  it('previews what it will create, by name, and the body it will send, changing nothing', async () => {
    const preview = (await bot.run('create_firewall_policy', { ...args, dry_run: true })) as {
      dry_run: boolean;
      would_create: FirewallPolicy;
      would_send: Record<string, unknown>;
      warnings: string[];
    };

    expect(preview.dry_run).toBe(true);
    expect(preview.would_create).toMatchObject({
      id: null,
      name: 'Block guests to cameras',
      source_zone: 'Hotspot',
      destination_zone: 'IoT Devices',
      destination_networks: ['Cameras'],
      destination_port: '554',
      schedule: 'always',
    });
    // Deliberately alike: the body the controller must receive, written out apart from the tool's own builder.
    expect(preview.would_send).toEqual({
      name: 'Block guests to cameras',
      description: '',
      enabled: true,
      action: 'BLOCK',
      protocol: 'tcp',
      ip_version: 'BOTH',
      logging: false,
      create_allow_respond: false,
      connection_state_type: 'ALL',
      connection_states: [],
      match_ip_sec: false,
      match_opposite_protocol: false,
      icmp_typename: 'ANY',
      icmp_v6_typename: 'ANY',
      schedule: { mode: 'ALWAYS' },
      source: {
        zone_id: Z.hotspot,
        matching_target: 'ANY',
        port_matching_type: 'ANY',
        match_opposite_ports: false,
      },
      destination: {
        zone_id: Z.iotDevices,
        matching_target: 'NETWORK',
        matching_target_type: 'OBJECT',
        network_ids: [N.cameras.id],
        match_opposite_networks: false,
        port_matching_type: 'SPECIFIC',
        port: '554',
        match_opposite_ports: false,
      },
    });
    expect(preview.warnings).toEqual([]);
    expect(bot.writes()).toHaveLength(0);
  });

  it('sends exactly the previewed body once approved, and answers with the stored policy', async () => {
    const preview = (await bot.run('create_firewall_policy', { ...args, dry_run: true })) as {
      would_send: unknown;
    };
    const result = (await bot.run('create_firewall_policy', { ...args, confirm: true })) as {
      success: boolean;
      policy: FirewallPolicy;
    };

    expect(writes()).toEqual([['POST', POLICIES]]);
    expect(bot.writes()[0]?.body).toEqual(preview.would_send);
    expect(result.success).toBe(true);
    expect(result.policy).toMatchObject({ name: 'Block guests to cameras', index: 10000, predefined: false });
    expect(stored(result.policy.id)).toMatchObject({ action: 'BLOCK', create_allow_respond: false });
  });

  // Deliberately alike: tool tests share the harness's call-then-check shape; the tool, its arguments and the expected answer differ.
  it('asks for the return-traffic rule with ALLOW, and writes a weekly schedule', async () => {
    await bot.run('create_firewall_policy', {
      name: 'Homework hours',
      action: 'ALLOW',
      source_zone: 'Internal',
      destination_zone: 'External',
      source_ips: ['192.168.1.140', '192.168.1.141'],
      schedule: 'every_week',
      schedule_days: ['mon', 'tue', 'wed'],
      schedule_time: '16:00-18:00',
      confirm: true,
    });

    expect(bot.writes()[0]?.body).toMatchObject({
      create_allow_respond: true,
      schedule: {
        mode: 'EVERY_WEEK',
        repeat_on_days: ['mon', 'tue', 'wed'],
        time_all_day: false,
        time_range_start: '16:00',
        time_range_end: '18:00',
      },
      source: {
        matching_target: 'IP',
        matching_target_type: 'SPECIFIC',
        ips: ['192.168.1.140', '192.168.1.141'],
      },
    });
  });

  it('places a policy first in its zone pair with a reorder that names every policy of the pair', async () => {
    const request = {
      name: 'Allow NVR uploads',
      action: 'ALLOW',
      source_zone: 'IoT Devices',
      destination_zone: 'External',
      source_networks: 'Cameras',
      position: 1,
    };
    const preview = (await bot.run('create_firewall_policy', { ...request, dry_run: true })) as {
      order_after: string[];
    };
    const result = (await bot.run('create_firewall_policy', { ...request, confirm: true })) as {
      policy: FirewallPolicy;
    };

    expect(preview.order_after).toEqual(['Allow NVR uploads', 'Cameras: no internet']);
    expect(writes()).toEqual([
      ['POST', POLICIES],
      ['PUT', `${POLICIES}/batch-reorder`],
    ]);
    expect(bot.writes()[1]?.body).toEqual({
      source_zone_id: Z.iotDevices,
      destination_zone_id: Z.external,
      before_predefined_ids: [result.policy.id, P.camerasNoInternet],
      after_predefined_ids: [],
    });
    expect(result.policy.index).toBe(10000);
    expect(stored(P.camerasNoInternet).index).toBe(10001);
  });

  it('warns when a matched network is not in the side’s zone', async () => {
    const preview = (await bot.run('create_firewall_policy', {
      ...args,
      destination_networks: 'Guest',
      dry_run: true,
    })) as { warnings: string[] };

    expect(preview.warnings).toEqual([
      'network Guest is not in zone "IoT Devices": the policy never matches its traffic',
    ]);
  });

  it.each([
    [
      { source_networks: 'IoT', source_ips: '10.0.0.1' },
      'source_ips',
      'give source_networks or source_ips, not both',
    ],
    [
      { protocol: 'all', destination_port: '22' },
      'destination_port',
      'only applies with protocol tcp, udp or tcp_udp (protocol is all)',
    ],
    [
      { ip_version: 'IPV6', source_ips: '10.0.0.1' },
      'source_ips',
      'must be IPv6 addresses or CIDRs (ip_version IPV6); not 10.0.0.1',
    ],
    [
      { destination_port: '70000' },
      'destination_port',
      expect.stringMatching(/^must be a port, a list or a range/),
    ],
    [{ schedule: 'every_week' }, 'schedule_days', 'is required with schedule every_week (e.g. mon,tue,fri)'],
    [
      { schedule_time: '9-17', schedule: 'every_day' },
      'schedule_time',
      'must be a time window such as 09:00-17:00',
    ],
    [{ action: 'DROP' }, 'action', 'must be one of ALLOW, BLOCK, REJECT'],
    [{ position: 0 }, 'position', 'must be a whole number from 1 to 10000'],
  ])('refuses %o naming %s, with no request sent', async (bad, field, rule) => {
    expect(await validationIssues(bot, 'create_firewall_policy', { ...args, ...bad, confirm: true })).toEqual(
      [{ field, rule }],
    );
    expect(bot.sim.requests).toHaveLength(0);
  });

  it('refuses an unknown zone or network after reading, before writing', async () => {
    await expect(
      bot.run('create_firewall_policy', { ...args, source_zone: 'Nowhere', confirm: true }),
    ).rejects.toBeInstanceOf(ResourceNotFoundError);
    await expect(
      bot.run('create_firewall_policy', { ...args, destination_networks: 'Nope', confirm: true }),
    ).rejects.toBeInstanceOf(ResourceNotFoundError);
    expect(bot.writes()).toHaveLength(0);
  });

  it('sends nothing without confirm', async () => {
    await expect(bot.run('create_firewall_policy', args)).rejects.toBeInstanceOf(ConfirmationRequiredError);
    expect(bot.sim.requests).toHaveLength(0);
  });
});

describe('update_firewall_policy', () => {
  it('PUTs the stored policy whole with only the named fields changed, and previews a readable diff', async () => {
    const before = structuredClone(stored(P.blockIotToInternal));
    const preview = (await bot.run('update_firewall_policy', {
      policy_id: 'Block IoT to Internal',
      action: 'REJECT',
      logging: true,
      dry_run: true,
    })) as { changes: unknown; would_send: unknown };
    const result = await bot.run('update_firewall_policy', {
      policy_id: 'Block IoT to Internal',
      action: 'REJECT',
      logging: true,
      confirm: true,
    });

    expect(preview.changes).toEqual({
      action: { from: 'BLOCK', to: 'REJECT' },
      logging: { from: false, to: true },
    });
    expect(writes()).toEqual([['PUT', `${POLICIES}/${P.blockIotToInternal}`]]);
    expect(bot.writes()[0]?.body).toEqual({
      ...before,
      action: 'REJECT',
      logging: true,
      create_allow_respond: false,
    });
    expect(bot.writes()[0]?.body).toEqual(preview.would_send);
    expect(result).toMatchObject({
      success: true,
      policy_id: P.blockIotToInternal,
      policy: { action: 'REJECT', logging: true, index: 10000 },
    });
  });

  it('changes a port and keeps everything else of the side as stored', async () => {
    const before = structuredClone(stored(P.allowPlexFromWan));
    await bot.run('update_firewall_policy', {
      policy_id: P.allowPlexFromWan,
      destination_port: '443',
      confirm: true,
    });

    expect(bot.writes()[0]?.body).toEqual({
      ...before,
      destination: { ...before.destination, port: '443' },
    });
  });

  it('drops a port the new protocol cannot carry, and says so', async () => {
    const result = (await bot.run('update_firewall_policy', {
      policy_id: P.allowPlexFromWan,
      protocol: 'icmp',
      confirm: true,
    })) as { warnings: string[]; changes: Record<string, unknown> };

    expect(result.warnings).toEqual([
      'the destination port 32400 is dropped: ports apply to tcp and udp only',
    ]);
    expect(result.changes).toMatchObject({ destination_port: { from: '32400', to: null } });
    expect(bot.writes()[0]?.body).toMatchObject({ destination: { port_matching_type: 'ANY' } });
  });

  // Deliberately alike: tool tests share the harness's call-then-check shape; the tool, its arguments and the expected answer differ.
  it('moves a policy within its zone pair with a reorder only, when nothing else changes', async () => {
    const created = (await bot.run('create_firewall_policy', {
      name: 'Second',
      action: 'BLOCK',
      source_zone: 'IoT Devices',
      destination_zone: 'External',
      confirm: true,
    })) as { policy: FirewallPolicy };
    bot.sim.clearRequests();

    const result = await bot.run('update_firewall_policy', {
      policy_id: 'Second',
      position: 1,
      confirm: true,
    });

    expect(writes()).toEqual([['PUT', `${POLICIES}/batch-reorder`]]);
    expect(bot.writes()[0]?.body).toMatchObject({
      before_predefined_ids: [created.policy.id, P.camerasNoInternet],
    });
    expect(result).toMatchObject({ changes: { position: { from: 2, to: 1 } }, policy: { index: 10000 } });
  });

  // Deliberately alike: tool tests share the harness's call-then-check shape; the tool, its arguments and the expected answer differ.
  it('changes a weekly schedule’s days, keeping its time window', async () => {
    await bot.run('update_firewall_policy', {
      policy_id: "Kids' bedtime",
      schedule: 'every_week',
      schedule_days: ['fri', 'sat'],
      confirm: true,
    });

    expect(bot.writes()[0]?.body).toMatchObject({
      schedule: {
        mode: 'EVERY_WEEK',
        repeat_on_days: ['fri', 'sat'],
        time_range_start: '21:30',
        time_range_end: '23:59',
      },
    });
  });

  it('sends nothing when nothing would change', async () => {
    const result = await bot.run('update_firewall_policy', {
      policy_id: P.blockIotToInternal,
      action: 'BLOCK',
      confirm: true,
    });

    expect(result).toMatchObject({ success: true, changes: {} });
    expect(bot.writes()).toHaveLength(0);
  });

  it('refuses a policy the controller generates, and addresses of the wrong IP version', async () => {
    const generated = bot.site().firewallPolicies.find((p) => p.name === 'Block All Traffic');
    const error = await rejection(
      bot.run('update_firewall_policy', { policy_id: generated?._id, enabled: false, confirm: true }),
    );
    expect(error).toBeInstanceOf(NotSupportedError);
    expect(error.message).toContain('is generated by the controller for its zone pair and cannot be changed');

    // Deliberately alike: an address of the wrong IP version refused per tool, each naming its own field and rule.
    expect(
      await validationIssues(bot, 'update_firewall_policy', {
        policy_id: P.allowPlexFromWan,
        destination_ips: '2001:db8::5',
        confirm: true,
      }),
    ).toEqual([
      {
        field: 'destination_ips',
        rule: 'must be IPv4 addresses or CIDRs (ip_version IPV4); not 2001:db8::5',
      },
    ]);
    expect(bot.writes()).toHaveLength(0);
  });
});

describe('delete_firewall_policy', () => {
  it('previews the policy with what its removal lets through, then deletes it', async () => {
    const preview = (await bot.run('delete_firewall_policy', {
      policy_id: 'Block IoT to Internal',
      dry_run: true,
    })) as { would_delete: FirewallPolicy; warnings: string[] };
    const result = await bot.run('delete_firewall_policy', {
      policy_id: 'Block IoT to Internal',
      confirm: true,
    });

    expect(preview.would_delete).toMatchObject({ id: P.blockIotToInternal, source_networks: ['IoT'] });
    expect(preview.warnings).toEqual([
      'deletion is irreversible',
      'traffic it blocks from IoT Devices to Internal may flow again',
    ]);
    expect(result).toEqual({ success: true, deleted_policy_id: P.blockIotToInternal });
    expect(writes()).toEqual([['DELETE', `${POLICIES}/${P.blockIotToInternal}`]]);
    expect(bot.site().firewallPolicies.some((p) => p._id === P.blockIotToInternal)).toBe(false);
  });

  it('refuses a generated policy and sends no DELETE', async () => {
    const generated = bot.site().firewallPolicies.find((p) => p.name === 'Allow Return Traffic');
    await expect(
      bot.run('delete_firewall_policy', { policy_id: generated?._id, confirm: true }),
    ).rejects.toBeInstanceOf(NotSupportedError);
    expect(bot.writes()).toHaveLength(0);
  });
});

describe('on a console with the traditional firewall', () => {
  const legacy = useTestBot({ simulator: { firewall: 'legacy' } });

  it.each([
    ['list_firewall_policies', {}],
    ['get_firewall_policy', { policy_id: 'x' }],
    [
      'create_firewall_policy',
      { name: 'x', action: 'BLOCK', source_zone: 'a', destination_zone: 'b', confirm: true },
    ],
    ['update_firewall_policy', { policy_id: 'x', enabled: false, confirm: true }],
    ['delete_firewall_policy', { policy_id: 'x', dry_run: true }],
  ])('%s says the site has no zones or policies and names the rule tools', async (tool, args) => {
    const error = await rejection(legacy.run(tool, args));
    expect(error).toBeInstanceOf(NotSupportedError);
    expect(error.message).toContain('it has no firewall zones and no firewall policies');
    expect(error.message).toContain('list_firewall_rules');
    expect(legacy.sim.requests.some((r) => r.route.includes('firewall-policies'))).toBe(false);
  });
});

describe('in cloud mode', () => {
  const cloud = useTestBot({ gateway: { apiType: 'cloud', consoleId: SIMULATOR_DEFAULTS.consoleId } });

  it('refuses before any request: the connector does not forward the v2 API', async () => {
    const error = await rejection(cloud.run('list_firewall_policies'));
    expect(error).toBeInstanceOf(NotSupportedError);
    expect(error.message).toMatch(/^firewall policy tools need GATEWAY_API_TYPE=local/);
    expect(cloud.sim.requests).toHaveLength(0);
  });
});
