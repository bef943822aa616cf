import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
// Deliberately alike: the demo firewall fixtures both simulator firewall files check against.
import {
  DEMO_FIREWALL_POLICIES,
  DEMO_FIREWALL_POLICY_UUIDS,
  DEMO_NETWORKS,
  DEMO_ZONE_IDS,
  DEMO_ZONES,
  type Simulator,
  startSimulator,
} from '../../src/simulator/index.js';
import { NAS_ADDRESS_DESTINATION } from '../helpers/official-bodies.js';
import { api, I } from './support.js';

// The official firewall policy routes of a 10.1 console, over the same state as v2.

let sim: Simulator;
let old: Simulator;
beforeAll(async () => {
  [sim, old] = await Promise.all([startSimulator(), startSimulator({ apiVersion: '9.0' })]);
});
afterAll(() => Promise.all([sim.close(), old.close()]));
beforeEach(() => sim.reset());

const POLICIES = `${I}/firewall/policies`;
const V2 = '/v2/api/site/default/firewall-policies';
const ordering = (source: string, destination: string) =>
  `${POLICIES}/ordering?sourceFirewallZoneId=${source}&destinationFirewallZoneId=${destination}`;

// Deliberately alike: an official policy body is data; the model's test reads the same policy.
/** A whole official body: a network source with a port, an address destination, a weekly schedule. */
const body = {
  enabled: true,
  name: 'Cameras to NAS',
  description: 'backups',
  action: { type: 'ALLOW', allowReturnTraffic: true },
  source: {
    zoneId: DEMO_ZONES.iotDevices,
    trafficFilter: {
      type: 'NETWORK',
      networkFilter: { networkIds: [DEMO_NETWORKS.cameras.uuid], matchOpposite: false },
    },
  },
  destination: NAS_ADDRESS_DESTINATION,
  ipProtocolScope: {
    ipVersion: 'IPV4',
    protocolFilter: { type: 'PROTOCOL_NUMBER', protocolNumber: 6, matchOpposite: false },
  },
  connectionStateFilter: ['NEW', 'ESTABLISHED'],
  ipsecFilter: 'MATCH_NOT_ENCRYPTED',
  loggingEnabled: true,
  schedule: {
    mode: 'EVERY_WEEK',
    repeatOnDays: ['MONDAY', 'FRIDAY'],
    timeFilter: { startTime: '09:00', stopTime: '17:00' },
  },
};

describe('official firewall policies on a 10.1 console', () => {
  it('shows a v2 policy in the official model, by its UUID, with its metadata', async () => {
    const got = await api(sim, 'GET', `${POLICIES}/${DEMO_FIREWALL_POLICY_UUIDS.allowPlexFromWan}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      id: DEMO_FIREWALL_POLICY_UUIDS.allowPlexFromWan,
      enabled: false,
      name: 'Allow Plex from WAN',
      description: '',
      index: 10000,
      action: { type: 'ALLOW', allowReturnTraffic: true },
      source: { zoneId: DEMO_ZONES.external },
      destination: {
        zoneId: DEMO_ZONES.internal,
        // Deliberately alike: an official traffic filter written out in full; the simulator test and the bot's mapping test each build their own.
        trafficFilter: {
          type: 'IP_ADDRESS',
          ipAddressFilter: {
            type: 'IP_ADDRESSES',
            matchOpposite: false,
            items: [{ type: 'IP_ADDRESS', value: '192.168.1.20' }],
          },
          portFilter: { type: 'PORTS', matchOpposite: false, items: [{ type: 'PORT_NUMBER', value: 32400 }] },
        },
      },
      ipProtocolScope: {
        ipVersion: 'IPV4',
        protocolFilter: { type: 'NAMED_PROTOCOL', protocol: { name: 'tcp' }, matchOpposite: false },
      },
      loggingEnabled: false,
      metadata: { origin: 'USER_DEFINED' },
    });
    const list = await api(sim, 'GET', `${POLICIES}?limit=200`);
    const data = (list.body as { data: { id: string; metadata: { origin: string } }[] }).data;
    expect(data).toHaveLength(sim.state.site('default')?.firewallPolicies.length ?? -1);
    expect(data.filter((p) => p.metadata.origin === 'SYSTEM_DEFINED')).toHaveLength(4);
  });

  it('stores an official POST as the v2 record, so v2 reads it back, and the official view gives the body back', async () => {
    const created = await api(sim, 'POST', POLICIES, { body });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    const { id: _id, index, metadata, ...echoed } = created.body as Record<string, unknown>;
    // Protocol 6 is stored as tcp, which the console shows by name (as a protocol picked in its UI).
    expect(echoed).toEqual({
      ...body,
      ipProtocolScope: {
        ipVersion: 'IPV4',
        protocolFilter: { type: 'NAMED_PROTOCOL', protocol: { name: 'tcp' }, matchOpposite: false },
      },
    });
    expect(metadata).toEqual({ origin: 'USER_DEFINED' });
    expect(index).toBe(10001);

    const v2 = (await api(sim, 'GET', V2)).body as Record<string, unknown>[];
    const stored = v2.find((p) => p.external_id === id);
    expect(stored).toMatchObject({
      name: 'Cameras to NAS',
      action: 'ALLOW',
      create_allow_respond: true,
      protocol: 'tcp',
      ip_version: 'IPV4',
      logging: true,
      connection_state_type: 'CUSTOM',
      schedule: {
        mode: 'EVERY_WEEK',
        repeat_on_days: ['mon', 'fri'],
        time_all_day: false,
        time_range_start: '09:00',
        time_range_end: '17:00',
      },
      source: {
        zone_id: DEMO_ZONE_IDS.iotDevices,
        matching_target: 'NETWORK',
        network_ids: [DEMO_NETWORKS.cameras.id],
      },
      destination: {
        zone_id: DEMO_ZONE_IDS.internal,
        matching_target: 'IP',
        ips: ['192.168.1.20', '192.168.1.64/28'],
        port_matching_type: 'SPECIFIC',
        port: '445,8000-8100',
      },
    });
  });

  it('reads a policy written through v2 back through the official API, and replaces and deletes it there', async () => {
    const v2 = await api(sim, 'POST', V2, {
      body: {
        name: 'From v2',
        action: 'BLOCK',
        enabled: true,
        protocol: 'udp',
        source: { zone_id: DEMO_ZONE_IDS.iotDevices, matching_target: 'ANY' },
        destination: {
          zone_id: DEMO_ZONE_IDS.external,
          matching_target: 'ANY',
          port_matching_type: 'SPECIFIC',
          port: '53',
        },
      },
    });
    const uuid = (v2.body as { external_id: string }).external_id;
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
    const got = (await api(sim, 'GET', `${POLICIES}/${uuid}`)).body;
    expect(got).toMatchObject({
      name: 'From v2',
      action: { type: 'BLOCK' },
      destination: {
        zoneId: DEMO_ZONES.external,
        trafficFilter: { type: 'PORT', portFilter: { items: [{ type: 'PORT_NUMBER', value: 53 }] } },
      },
    });
    const replaced = await api(sim, 'PUT', `${POLICIES}/${uuid}`, { body: { ...body, name: 'Renamed' } });
    expect(replaced.status).toBe(200);
    const record = sim.state.site('default')?.firewallPolicies.find((p) => p.external_id === uuid);
    expect(record).toMatchObject({ name: 'Renamed', _id: (v2.body as { _id: string })._id });
    expect((await api(sim, 'DELETE', `${POLICIES}/${uuid}`)).status).toBe(200);
    expect((await api(sim, 'GET', `${POLICIES}/${uuid}`)).status).toBe(404);
  });

  it('orders a zone pair: GET and PUT take every user policy of the pair, before and after the system ones', async () => {
    const created = (await api(sim, 'POST', POLICIES, { body })).body as { id: string };
    const pair = ordering(DEMO_ZONES.iotDevices, DEMO_ZONES.internal);
    expect((await api(sim, 'GET', pair)).body).toEqual({
      orderedFirewallPolicyIds: {
        beforeSystemDefined: [DEMO_FIREWALL_POLICY_UUIDS.blockIotToInternal, created.id],
        afterSystemDefined: [],
      },
    });
    const moved = await api(sim, 'PUT', pair, {
      body: {
        orderedFirewallPolicyIds: {
          beforeSystemDefined: [created.id],
          afterSystemDefined: [DEMO_FIREWALL_POLICY_UUIDS.blockIotToInternal],
        },
      },
    });
    expect(moved.body).toEqual({
      orderedFirewallPolicyIds: {
        beforeSystemDefined: [created.id],
        afterSystemDefined: [DEMO_FIREWALL_POLICY_UUIDS.blockIotToInternal],
      },
    });
    // v2 sees the same order in its indexes.
    const v2 = (await api(sim, 'GET', V2)).body as { _id: string; index: number }[];
    expect(v2.find((p) => p._id === DEMO_FIREWALL_POLICIES.blockIotToInternal)?.index).toBe(40000);

    const partial = await api(sim, 'PUT', pair, {
      body: { orderedFirewallPolicyIds: { beforeSystemDefined: [created.id], afterSystemDefined: [] } },
    });
    expect(partial.status).toBe(400);
    expect(
      (await api(sim, 'GET', `${POLICIES}/ordering?sourceFirewallZoneId=${DEMO_ZONES.internal}`)).status,
    ).toBe(400);
  });

  it('refuses changes to system-defined policies, filters it does not model, and unknown properties', async () => {
    const system = sim.state.site('default')?.firewallPolicies.find((p) => p.predefined);
    const refused = await api(sim, 'PUT', `${POLICIES}/${system?.external_id}`, { body });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'api.firewall-policy.system-defined' });
    const region = await api(sim, 'POST', POLICIES, {
      body: { ...body, source: { zoneId: DEMO_ZONES.external, trafficFilter: { type: 'REGION' } } },
    });
    expect(region.status).toBe(400);
    expect(JSON.stringify(region.body)).toContain('REGION');
    expect((await api(sim, 'POST', POLICIES, { body: { ...body, index: 3 } })).status).toBe(400);
    expect(
      (
        await api(sim, 'PATCH', `${POLICIES}/${DEMO_FIREWALL_POLICY_UUIDS.kidsBedtime}`, {
          body: { loggingEnabled: true },
        })
      ).status,
    ).toBe(200);
    expect(sim.state.site('default')?.firewallPolicies.find((p) => p.name === "Kids' bedtime")?.logging).toBe(
      true,
    );
  });

  it('does not exist on a 9.0 console (404), where v2 serves the same policies', async () => {
    expect((await api(old, 'GET', POLICIES)).status).toBe(404);
    expect((await api(old, 'GET', ordering(DEMO_ZONES.internal, DEMO_ZONES.external))).status).toBe(404);
    expect(((await api(old, 'GET', V2)).body as unknown[]).length).toBeGreaterThan(4);
  });
});
