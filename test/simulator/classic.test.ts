import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_DEVICES, DEMO_NETWORKS, type Simulator, startSimulator } from '../../src/simulator/index.js';
import { useSimulator } from '../helpers/shared-simulator.js';
import { api, classicData, type JsonResponse } from './support.js';

const NETWORKS = '/api/s/default/rest/networkconf';
const RULES = '/api/s/default/rest/firewallrule';

const sim = useSimulator();
beforeEach(() => sim.reset());

function expectError(response: JsonResponse, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.body).toMatchObject({ meta: { rc: 'error', msg: code }, data: [] });
}

const newNetwork = (overrides: Record<string, unknown> = {}) => ({
  name: 'Printers',
  purpose: 'corporate',
  vlan_enabled: true,
  vlan: 70,
  ip_subnet: '10.70.0.1/24',
  dhcpd_enabled: true,
  dhcpd_start: '10.70.0.100',
  dhcpd_stop: '10.70.0.200',
  ...overrides,
});

describe('classic envelopes and routing', () => {
  it('answers NoSiteContext for an unknown site', async () => {
    expectError(await api(sim, 'GET', '/api/s/nosuchsite/stat/device'), 400, 'api.err.NoSiteContext');
  });

  it('answers 404 NotFound for an unknown stat path and 400 InvalidObject for an unknown rest collection', async () => {
    expectError(await api(sim, 'GET', '/api/s/default/stat/event'), 404, 'api.err.NotFound');
    expectError(await api(sim, 'GET', '/api/s/default/rest/alarm'), 400, 'api.err.InvalidObject');
  });

  it('answers 400 for a body that is not JSON, without crashing', async () => {
    const response = await api(sim, 'POST', NETWORKS, {
      rawBody: '{"name": ',
      headers: { 'Content-Type': 'application/json' },
    });
    const after = await api(sim, 'GET', NETWORKS);

    expectError(response, 400, 'api.err.InvalidObject');
    expect(classicData(after)).toHaveLength(7);
  });

  it('filters stat/device by POSTed macs', async () => {
    const response = await api(sim, 'POST', '/api/s/default/stat/device', {
      body: { macs: [DEMO_DEVICES.meshAp.mac.toUpperCase()] },
    });

    expect(classicData(response).map((d) => d.name)).toEqual(['Garden Mesh AP']);
  });
});

describe('rest/networkconf', () => {
  it('creates a network with _id, site_id and an external_id, and puts it in the Internal zone', async () => {
    const response = await api(sim, 'POST', NETWORKS, { body: newNetwork() });

    const [created] = classicData(response);
    expect(created?._id).toMatch(/^[0-9a-f]{24}$/);
    expect(created?.site_id).toBe(sim.state.site('default')?._id);
    expect(created?.external_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(sim.state.findZoneByName('default', 'Internal')?.networkIds).toContain(created?.external_id);
  });

  it('gets one network, and answers IdInvalid for an unknown id', async () => {
    const one = await api(sim, 'GET', `${NETWORKS}/${DEMO_NETWORKS.iot.id}`);
    const unknown = await api(sim, 'GET', `${NETWORKS}/000000000000000000000000`);

    expect(classicData(one)).toEqual([expect.objectContaining({ name: 'IoT', vlan: 20 })]);
    expectError(unknown, 400, 'api.err.IdInvalid');
  });

  it('merges a partial PUT into the stored record', async () => {
    const response = await api(sim, 'PUT', `${NETWORKS}/${DEMO_NETWORKS.iot.id}`, {
      body: { domain_name: 'things.lan' },
    });

    expect(classicData(response)).toEqual([
      expect.objectContaining({ domain_name: 'things.lan', vlan: 20, ip_subnet: '10.20.0.1/24' }),
    ]);
    expect(sim.state.findNetworkByName('default', 'IoT')?.domain_name).toBe('things.lan');
  });

  it('refuses a VLAN taken by another network with VlanUsed', async () => {
    expectError(
      await api(sim, 'POST', NETWORKS, { body: newNetwork({ vlan: 20 }) }),
      400,
      'api.err.VlanUsed',
    );
  });

  it('refuses a VLAN outside 2–4018 with InvalidPayload naming the field', async () => {
    const response = await api(sim, 'POST', NETWORKS, { body: newNetwork({ vlan: 4094 }) });

    expectError(response, 400, 'api.err.InvalidPayload');
    expect(response.body).toMatchObject({ meta: { validationError: { field: 'vlan' } } });
  });

  it('refuses the network address as ip_subnet with IncorrectIPSubnetSpec', async () => {
    const response = await api(sim, 'POST', NETWORKS, { body: newNetwork({ ip_subnet: '10.70.0.0/24' }) });

    expectError(response, 400, 'api.err.IncorrectIPSubnetSpec');
  });

  it('refuses an overlapping subnet with SubnetOverlapped', async () => {
    const response = await api(sim, 'POST', NETWORKS, {
      body: newNetwork({
        ip_subnet: '192.168.0.1/16',
        dhcpd_start: '192.168.200.1',
        dhcpd_stop: '192.168.200.9',
      }),
    });

    expectError(response, 400, 'api.err.SubnetOverlapped');
  });

  it('refuses a DHCP range outside the subnet or reversed with InvalidDHCPRange', async () => {
    const outside = await api(sim, 'POST', NETWORKS, { body: newNetwork({ dhcpd_stop: '10.61.0.10' }) });
    const reversed = await api(sim, 'POST', NETWORKS, {
      body: newNetwork({ dhcpd_start: '10.70.0.200', dhcpd_stop: '10.70.0.100' }),
    });

    expectError(outside, 400, 'api.err.InvalidDHCPRange');
    expectError(reversed, 400, 'api.err.InvalidDHCPRange');
  });

  it('validates a PUT against the merged record (re-tag onto a used VLAN)', async () => {
    const response = await api(sim, 'PUT', `${NETWORKS}/${DEMO_NETWORKS.cameras.id}`, { body: { vlan: 30 } });

    expectError(response, 400, 'api.err.VlanUsed');
    expect(sim.state.findNetworkByName('default', 'Cameras')?.vlan).toBe(60);
  });

  it('accepts a VLAN-only network without subnet or DHCP', async () => {
    const response = await api(sim, 'POST', NETWORKS, {
      body: { name: 'Storage', purpose: 'vlan-only', vlan_enabled: true, vlan: 70 },
    });

    expect(classicData(response)[0]).toMatchObject({ name: 'Storage', vlan: 70 });
  });

  it('deletes a network (data: []) and removes it from its zone', async () => {
    const response = await api(sim, 'DELETE', `${NETWORKS}/${DEMO_NETWORKS.iot.id}`);

    expect(classicData(response)).toEqual([]);
    expect(sim.state.findNetworkByName('default', 'IoT')).toBeUndefined();
    expect(sim.state.findZoneByName('default', 'IoT Devices')?.networkIds).toEqual([
      DEMO_NETWORKS.cameras.uuid,
    ]);
  });

  it('refuses to delete the default LAN', async () => {
    expectError(
      await api(sim, 'DELETE', `${NETWORKS}/${DEMO_NETWORKS.defaultLan.id}`),
      400,
      'api.err.DeleteNotAllowed',
    );
  });

  it('sees a change made directly in the state', async () => {
    const network = sim.state.findNetworkByName('default', 'Guest');
    if (network) network.name = 'Visitors';

    const response = await api(sim, 'GET', `${NETWORKS}/${DEMO_NETWORKS.guest.id}`);

    expect(classicData(response)[0]?.name).toBe('Visitors');
  });
});

describe('rest/firewallrule (legacy firewall)', () => {
  let legacy: Simulator;
  beforeAll(async () => {
    legacy = await startSimulator({ firewall: 'legacy' });
  });
  afterAll(() => legacy.close());
  beforeEach(() => legacy.reset());

  const rule = (overrides: Record<string, unknown> = {}) => ({
    name: 'Block SSH from guests',
    ruleset: 'GUEST_IN',
    rule_index: 40010,
    action: 'drop',
    protocol: 'tcp',
    dst_port: '22',
    ...overrides,
  });

  it('creates a rule with controller defaults filled in', async () => {
    const response = await api(legacy, 'POST', RULES, { body: rule() });

    expect(classicData(response)[0]).toMatchObject({
      name: 'Block SSH from guests',
      dst_port: '22',
      enabled: true,
      src_firewallgroup_ids: [],
    });
  });

  it.each([
    ['LAN_OUT', [2000, 2999, 20000, 29999], [1999, 3000, 19999, 30000]],
    ['WAN_LOCAL', [3000, 3999, 30000, 39999], [2000, 2999, 20000, 40000]],
    ['GUEST_LOCAL', [4000, 4999, 40000, 49999], [3999, 5000, 39999, 50000]],
    ['LANv6_IN', [2000, 29999], [30000, 4000]],
    ['WANv6_OUT', [3000, 39999], [2000, 20000]],
    ['GUESTv6_IN', [4000, 49999], [20000, 30000]],
  ])(
    'accepts %s only inside its family block, refusing others with FirewallRuleIndexOutOfRange',
    async (ruleset, inside, outside) => {
      for (const [i, index] of inside.entries()) {
        const response = await api(legacy, 'POST', RULES, {
          body: rule({ ruleset, rule_index: index, name: `in ${i}`, protocol: 'all', dst_port: '' }),
        });
        expect(classicData(response)[0]).toMatchObject({ ruleset, rule_index: index });
      }
      for (const index of outside) {
        expectError(
          await api(legacy, 'POST', RULES, { body: rule({ ruleset, rule_index: index }) }),
          400,
          'api.err.FirewallRuleIndexOutOfRange',
        );
      }
    },
  );

  it('refuses an index already used in the same ruleset with FirewallRuleIndexExisted, not in another', async () => {
    const taken = await api(legacy, 'POST', RULES, { body: rule({ ruleset: 'WAN_IN', rule_index: 30000 }) });
    const otherRuleset = await api(legacy, 'POST', RULES, {
      body: rule({ ruleset: 'WAN_LOCAL', rule_index: 30000 }),
    });
    const moved = await api(legacy, 'PUT', `${RULES}/65b3c8e1f4a9d20c7e5a1105`, {
      body: { rule_index: 30000 },
    });

    expectError(taken, 400, 'api.err.FirewallRuleIndexExisted');
    expect(classicData(otherRuleset)[0]).toMatchObject({ ruleset: 'WAN_LOCAL', rule_index: 30000 });
    expectError(moved, 400, 'api.err.FirewallRuleIndexExisted');
  });

  it('stores IPv6 rules with protocol_v6 and *_address_ipv6, and refuses an IPv4 address there', async () => {
    const v6 = await api(legacy, 'POST', RULES, {
      body: rule({
        ruleset: 'LANv6_IN',
        rule_index: 20000,
        protocol: undefined,
        dst_port: undefined,
        protocol_v6: 'tcp',
        src_address_ipv6: '2001:db8::/64',
      }),
    });
    const v4There = await api(legacy, 'POST', RULES, {
      body: rule({ ruleset: 'LANv6_IN', rule_index: 20001, src_address_ipv6: '10.0.0.0/8' }),
    });
    const v6InV4Field = await api(legacy, 'POST', RULES, {
      body: rule({ ruleset: 'LAN_IN', rule_index: 20005, src_address: '2001:db8::/64' }),
    });

    expect(classicData(v6)[0]).toMatchObject({
      protocol_v6: 'tcp',
      protocol: '',
      src_address_ipv6: '2001:db8::/64',
    });
    expectError(v4There, 400, 'api.err.InvalidPayload');
    expect(v4There.body).toMatchObject({ meta: { validationError: { field: 'src_address_ipv6' } } });
    expectError(v6InV4Field, 400, 'api.err.InvalidPayload');
  });

  it('refuses a networkconf id without its type', async () => {
    const response = await api(legacy, 'POST', RULES, {
      body: rule({ src_networkconf_id: DEMO_NETWORKS.guest.id }),
    });

    expectError(response, 400, 'api.err.FirewallRuleNetworkConfTypeRequired');
  });

  it('refuses a numeric port (ports are strings)', async () => {
    const response = await api(legacy, 'POST', RULES, { body: rule({ dst_port: 22 }) });

    expectError(response, 400, 'api.err.InvalidPayload');
    expect(response.body).toMatchObject({ meta: { validationError: { field: 'dst_port' } } });
  });

  it('merges a partial PUT and answers IdInvalid for an unknown id', async () => {
    const updated = await api(legacy, 'PUT', `${RULES}/65b3c8e1f4a9d20c7e5a1105`, {
      body: { enabled: true },
    });
    const unknown = await api(legacy, 'DELETE', `${RULES}/ffffffffffffffffffffffff`);

    expect(classicData(updated)[0]).toMatchObject({
      enabled: true,
      name: 'Allow Plex to NAS',
      dst_port: '32400',
    });
    expectError(unknown, 400, 'api.err.IdInvalid');
  });
});

describe('rest/wlanconf and rest/portconf (read only)', () => {
  it('serves the SSIDs the demo clients use, each on an existing network', async () => {
    const wlans = classicData(await api(sim, 'GET', '/api/s/default/rest/wlanconf')) as {
      name: string;
      networkconf_id: string;
    }[];
    const clientEssids = new Set(
      sim.state
        .site('default')
        ?.clients.map((c) => c.essid)
        .filter(Boolean),
    );

    expect(wlans.map((w) => w.name).sort()).toEqual([...clientEssids].sort());
    expect(wlans.find((w) => w.name === 'Home-IoT')?.networkconf_id).toBe(DEMO_NETWORKS.iot.id);
  });

  it('serves port profiles with native and tagged networks, and refuses writes', async () => {
    const profiles = classicData(await api(sim, 'GET', '/api/s/default/rest/portconf')) as {
      name: string;
      native_networkconf_id?: string;
      tagged_networkconf_ids?: string[];
    }[];
    const post = await api(sim, 'POST', '/api/s/default/rest/portconf', { body: { name: 'x' } });

    expect(profiles.find((p) => p.name === 'AP trunk')).toMatchObject({
      native_networkconf_id: DEMO_NETWORKS.defaultLan.id,
      tagged_networkconf_ids: [DEMO_NETWORKS.iot.id, DEMO_NETWORKS.guest.id],
    });
    expect(post.status).not.toBe(200);
  });
});

describe('rest/firewallrule (zone-based firewall)', () => {
  it('lists no rules and refuses a new one whatever its index', async () => {
    const list = await api(sim, 'GET', RULES);
    const created = await api(sim, 'POST', RULES, {
      body: { name: 'x', ruleset: 'LAN_IN', rule_index: 20000, action: 'drop' },
    });

    expect(classicData(list)).toEqual([]);
    expectError(created, 400, 'api.err.FirewallRuleIndexOutOfRange');
  });
});
