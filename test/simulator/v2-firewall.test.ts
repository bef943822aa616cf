import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DEMO_FIREWALL_POLICIES,
  DEMO_NETWORKS,
  DEMO_ZONE_IDS,
  DEMO_ZONES,
  type Simulator,
  startSimulator,
} from '../../src/simulator/index.js';
import { api, I, type JsonResponse } from './support.js';

const V2 = '/v2/api/site/default';
const POLICIES = `${V2}/firewall-policies`;
const Z = DEMO_ZONE_IDS;

let zoneBased: Simulator;
let legacy: Simulator;
beforeAll(async () => {
  [zoneBased, legacy] = await Promise.all([startSimulator(), startSimulator({ firewall: 'legacy' })]);
});
afterAll(() => Promise.all([zoneBased.close(), legacy.close()]));
beforeEach(() => {
  zoneBased.reset();
  legacy.reset();
});

type Policy = { _id: string; name: string; index: number; predefined: boolean } & Record<string, unknown>;

const list = (response: JsonResponse) => response.body as Policy[];

function expectV2Error(response: JsonResponse, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.body).toMatchObject({ code, errorCode: status });
}

const newPolicy = (overrides: Record<string, unknown> = {}) => ({
  name: 'Block Dmz to IoT',
  action: 'BLOCK',
  enabled: true,
  protocol: 'all',
  ip_version: 'BOTH',
  source: { zone_id: Z.dmz, matching_target: 'ANY' },
  destination: { zone_id: Z.iotDevices, matching_target: 'ANY' },
  ...overrides,
});

describe('firewall generation', () => {
  it('lists ZONE_BASED_FIREWALL in site-feature-migration on the zone-based site only', async () => {
    const migrated = await api(zoneBased, 'GET', `${V2}/site-feature-migration`);
    const classic = await api(legacy, 'GET', `${V2}/site-feature-migration`);

    expect(migrated.body).toEqual([
      { _id: expect.any(String), feature: 'ZONE_BASED_FIREWALL', timestamp: expect.any(Number) },
    ]);
    expect(classic.body).toEqual([]);
  });

  it('answers the v2 zone and policy lists empty on a legacy site, as a real one does', async () => {
    const zones = await api(legacy, 'GET', `${V2}/firewall/zone`);
    const policies = await api(legacy, 'GET', POLICIES);

    expect([zones.status, zones.body]).toEqual([200, []]);
    expect([policies.status, policies.body]).toEqual([200, []]);
  });

  it('refuses every Integration zone route on a legacy site with zone-based-firewall-not-configured', async () => {
    for (const [method, path] of [
      ['GET', `${I}/firewall/zones`],
      ['POST', `${I}/firewall/zones`],
      ['DELETE', `${I}/firewall/zones/${DEMO_ZONES.iotDevices}`],
    ] as const) {
      const response = await api(
        legacy,
        method,
        path,
        method === 'POST' ? { body: { name: 'x', networkIds: [] } } : {},
      );
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'api.firewall.zone-based-firewall-not-configured' });
    }
  });
});

describe('v2 firewall/zone', () => {
  it('shows each zone by its v2 _id with networkconf ids and the Integration UUID as external_id', async () => {
    const zones = (await api(zoneBased, 'GET', `${V2}/firewall/zone`)).body as Record<string, unknown>[];

    expect(zones.find((z) => z.name === 'IoT Devices')).toEqual({
      _id: Z.iotDevices,
      name: 'IoT Devices',
      zone_key: null,
      default_zone: false,
      attr_no_edit: false,
      network_ids: [DEMO_NETWORKS.iot.id, DEMO_NETWORKS.cameras.id],
      external_id: DEMO_ZONES.iotDevices,
    });
    expect(zones.find((z) => z.name === 'External')).toMatchObject({
      zone_key: 'external',
      attr_no_edit: true,
    });
  });
});

describe('v2 firewall-policies', () => {
  it('lists the user policies and the generated ones, whose _id is both zone ids and the index', async () => {
    const policies = list(await api(zoneBased, 'GET', POLICIES));

    expect(policies.filter((p) => !p.predefined).map((p) => p.name)).toEqual([
      'Block IoT to Internal',
      'Cameras: no internet',
      'Allow Plex from WAN',
      "Kids' bedtime",
    ]);
    const generated = policies.filter((p) => p.predefined);
    expect(generated.length).toBeGreaterThan(0);
    for (const p of generated) {
      const ends = p as unknown as { source: { zone_id: string }; destination: { zone_id: string } };
      expect(p._id).toBe(`${ends.source.zone_id}${ends.destination.zone_id}${p.index}`);
    }
  });

  it('creates a policy at the next index of its zone pair, ignoring a sent index', async () => {
    const first = await api(zoneBased, 'POST', POLICIES, { body: newPolicy({ index: 5 }) });
    const second = await api(zoneBased, 'POST', POLICIES, { body: newPolicy({ name: 'second' }) });
    const otherPair = await api(zoneBased, 'POST', POLICIES, {
      body: newPolicy({ destination: { zone_id: Z.internal, matching_target: 'ANY' } }),
    });

    expect(first.body).toMatchObject({ name: 'Block Dmz to IoT', index: 10000, predefined: false });
    expect((first.body as Policy)._id).toMatch(/^[0-9a-f]{24}$/);
    expect(second.body).toMatchObject({ index: 10001 });
    expect(otherPair.body).toMatchObject({ index: 10000 });
  });

  it.each([
    [
      'an unknown zone',
      newPolicy({ source: { zone_id: 'ffffffffffffffffffffffff', matching_target: 'ANY' } }),
    ],
    [
      'a target without matching_target_type',
      newPolicy({ source: { zone_id: Z.dmz, matching_target: 'IP', ips: ['10.0.0.1'] } }),
    ],
    [
      'an IPv4 address in an IPV6 policy',
      newPolicy({
        ip_version: 'IPV6',
        source: {
          zone_id: Z.dmz,
          matching_target: 'IP',
          matching_target_type: 'SPECIFIC',
          ips: ['10.0.0.1'],
        },
      }),
    ],
    [
      'an unknown network',
      newPolicy({
        source: {
          zone_id: Z.dmz,
          matching_target: 'NETWORK',
          matching_target_type: 'OBJECT',
          network_ids: ['nope'],
        },
      }),
    ],
    [
      'a port with protocol all',
      newPolicy({
        destination: {
          zone_id: Z.iotDevices,
          matching_target: 'ANY',
          port_matching_type: 'SPECIFIC',
          port: '22',
        },
      }),
    ],
    ['an action the controller lacks', newPolicy({ action: 'DROP' })],
  ])('refuses %s with a v2 InvalidPayload', async (_label, body) => {
    expectV2Error(await api(zoneBased, 'POST', POLICIES, { body }), 400, 'api.err.InvalidPayload');
  });

  it('refuses a return-rule request beside a blocking verdict', async () => {
    const response = await api(zoneBased, 'POST', POLICIES, {
      body: newPolicy({ create_allow_respond: true }),
    });

    expectV2Error(response, 400, 'api.err.FirewallPolicyCreateRespondTrafficNotAllowed');
  });

  it('replaces a user policy on PUT, keeping its index, and refuses generated and unknown ids', async () => {
    const id = DEMO_FIREWALL_POLICIES.blockIotToInternal;
    const stored = list(await api(zoneBased, 'GET', POLICIES)).find((p) => p._id === id);
    const put = await api(zoneBased, 'PUT', `${POLICIES}/${id}`, {
      body: { ...stored, action: 'REJECT', index: 12345, logging: true },
    });
    const generated = list(await api(zoneBased, 'GET', POLICIES)).find((p) => p.predefined);
    const refused = await api(zoneBased, 'PUT', `${POLICIES}/${generated?._id}`, { body: generated });
    const unknown = await api(zoneBased, 'DELETE', `${POLICIES}/ffffffffffffffffffffffff`);

    expect(put.body).toMatchObject({ _id: id, action: 'REJECT', logging: true, index: 10000 });
    expectV2Error(refused, 404, 'api.err.FirewallPolicyNotFound');
    expectV2Error(unknown, 404, 'api.err.FirewallPolicyNotFound');
  });

  it('deletes a user policy with an empty 200', async () => {
    const id = DEMO_FIREWALL_POLICIES.kidsBedtime;
    const response = await api(zoneBased, 'DELETE', `${POLICIES}/${id}`);

    expect([response.status, response.text]).toEqual([200, '']);
    expect(zoneBased.state.site('default')?.firewallPolicies.some((p) => p._id === id)).toBe(false);
  });

  it('reorders a zone pair with batch-reorder, refusing a list that leaves a policy out', async () => {
    const a = (await api(zoneBased, 'POST', POLICIES, { body: newPolicy({ name: 'a' }) })).body as Policy;
    const b = (await api(zoneBased, 'POST', POLICIES, { body: newPolicy({ name: 'b' }) })).body as Policy;
    const pair = { source_zone_id: Z.dmz, destination_zone_id: Z.iotDevices };

    const partial = await api(zoneBased, 'PUT', `${POLICIES}/batch-reorder`, {
      body: { ...pair, before_predefined_ids: [b._id], after_predefined_ids: [] },
    });
    const nullList = await api(zoneBased, 'PUT', `${POLICIES}/batch-reorder`, {
      body: { ...pair, before_predefined_ids: [b._id, a._id], after_predefined_ids: null },
    });
    const whole = await api(zoneBased, 'PUT', `${POLICIES}/batch-reorder`, {
      body: { ...pair, before_predefined_ids: [b._id, a._id], after_predefined_ids: [] },
    });

    expectV2Error(partial, 400, 'api.err.ShouldIncludeFirewallPolicyInBatchUpdate');
    expect(nullList.status).toBe(500);
    expect(list(whole).map((p) => [p.name, p.index])).toEqual([
      ['b', 10000],
      ['a', 10001],
    ]);
  });
});
