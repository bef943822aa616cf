import { beforeEach, describe, expect, it } from 'vitest';
import {
  DEMO_ACL_RULES,
  DEMO_NETWORKS,
  DEMO_TRAFFIC_MATCHING_LISTS,
  DEMO_ZONES,
} from '../../src/simulator/index.js';
import { useSimulator } from '../helpers/shared-simulator.js';
import { api, field, I, type JsonResponse } from './support.js';

const sim = useSimulator();
beforeEach(() => sim.reset());

interface Page {
  offset: number;
  limit: number;
  count: number;
  totalCount: number;
  data: Record<string, unknown>[];
}

const page = (response: JsonResponse): Page => response.body as Page;
const names = (response: JsonResponse) => page(response).data.map((item) => item.name);

function expectIntegrationError(response: JsonResponse, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.body).toMatchObject({
    statusCode: status,
    code,
    requestPath: expect.stringMatching(/^\/integration\/v1\//),
  });
}

describe('Integration basics', () => {
  it('reports the application version', async () => {
    expect((await api(sim, 'GET', '/integration/v1/info')).body).toEqual({ applicationVersion: '10.1.68' });
  });

  it('pages with offset and limit (default 25, max 200)', async () => {
    const first = page(await api(sim, 'GET', '/integration/v1/dpi/applications'));
    const later = page(await api(sim, 'GET', '/integration/v1/dpi/applications?offset=2270&limit=200'));
    const tooMany = await api(sim, 'GET', '/integration/v1/dpi/applications?limit=201');

    expect(first).toMatchObject({ offset: 0, limit: 25, count: 25 });
    expect(first.totalCount).toBeGreaterThan(2000);
    expect(later).toMatchObject({ offset: 2270, limit: 200, count: first.totalCount - 2270 });
    expectIntegrationError(tooMany, 400, 'api.request.argument-validation-error');
  });

  it('serves the DPI catalogue with compound application ids', async () => {
    const netflix = await api(sim, 'GET', "/integration/v1/dpi/applications?filter=name.eq('Netflix')");
    const media = await api(sim, 'GET', '/integration/v1/dpi/categories?filter=id.eq(4)');

    expect(page(netflix).data).toEqual([{ id: 262276, name: 'Netflix' }]);
    expect(page(media).data).toEqual([{ id: 4, name: 'Media Streaming' }]);
  });

  it('lists sites with internalReference and filters them', async () => {
    const all = page(await api(sim, 'GET', '/integration/v1/sites'));
    const none = page(await api(sim, 'GET', "/integration/v1/sites?filter=internalReference.eq('other')"));

    expect(all.data).toEqual([
      { id: '88f7af54-98f8-306a-a1c7-c9349722b1f6', internalReference: 'default', name: 'Default' },
    ]);
    expect(none).toMatchObject({ count: 0, totalCount: 0, data: [] });
  });

  it('answers 404 for an unknown site UUID and an unparseable filter with 400', async () => {
    const unknownSite = await api(
      sim,
      'GET',
      '/integration/v1/sites/00000000-0000-4000-8000-000000000000/networks',
    );
    const badFilter = await api(sim, 'GET', `${I}/acl-rules?filter=${encodeURIComponent('name.eq(')}`);

    expectIntegrationError(unknownSite, 404, 'api.resource-not-found');
    expectIntegrationError(badFilter, 400, 'api.request.argument-validation-error');
  });

  it('answers an unknown route with 404 and a wrong method with 405', async () => {
    const unknown = await api(sim, 'GET', `${I}/nothing-here`);
    const wrongMethod = await api(sim, 'PATCH', `${I}/firewall/zones`, { body: {} });

    expectIntegrationError(unknown, 404, 'api.resource-not-found');
    expectIntegrationError(wrongMethod, 405, 'api.request.method-not-allowed');
  });

  it('projects networks from networkconf (no WAN, vlanId 1 for the default LAN)', async () => {
    const networks = page(await api(sim, 'GET', `${I}/networks`)).data;
    const iot = await api(sim, 'GET', `${I}/networks/${DEMO_NETWORKS.iot.uuid}`);

    expect(networks.map((n) => n.name)).toEqual(['Default', 'IoT', 'Guest', 'Cameras', 'Servers']);
    expect(networks[0]).toMatchObject({ id: DEMO_NETWORKS.defaultLan.uuid, vlanId: 1, default: true });
    expect(iot.body).toMatchObject({
      id: DEMO_NETWORKS.iot.uuid,
      vlanId: 20,
      management: 'GATEWAY',
      metadata: { origin: 'USER_DEFINED' },
    });
  });
});

describe('Integration filter', () => {
  const acl = (filter: string) => api(sim, 'GET', `${I}/acl-rules?filter=${encodeURIComponent(filter)}`);

  it('supports eq, like, booleans, ids and and/or/not', async () => {
    expect(names(await acl("action.eq('ALLOW')"))).toEqual(['Allow cameras to NVR']);
    expect(names(await acl("name.like('Block*')"))).toEqual([
      'Block IoT to NAS',
      'Block guest SSH',
      "Block kids' tablet",
    ]);
    expect(names(await acl('enabled.eq(false)'))).toEqual(['Block guest SSH']);
    expect(names(await acl(`id.eq(${DEMO_ACL_RULES.blockGuestSsh})`))).toEqual(['Block guest SSH']);
    expect(names(await acl("and(enabled.eq(true), action.eq('BLOCK'))"))).toEqual([
      'Block IoT to NAS',
      "Block kids' tablet",
    ]);
    expect(names(await acl("or(type.eq('MAC'), action.eq('ALLOW'))"))).toEqual([
      'Allow cameras to NVR',
      "Block kids' tablet",
    ]);
    expect(names(await acl("not(name.like('Block*'))"))).toEqual(['Allow cameras to NVR']);
    expect(names(await acl("sourceFilter.type.eq('NETWORKS')"))).toHaveLength(3);
  });

  it('pages after filtering', async () => {
    const response = page(await acl("name.like('Block*')"));
    const second = page(
      await api(
        sim,
        'GET',
        `${I}/acl-rules?limit=1&offset=1&filter=${encodeURIComponent("name.like('Block*')")}`,
      ),
    );

    expect(response.totalCount).toBe(3);
    expect(second).toMatchObject({ offset: 1, limit: 1, count: 1, totalCount: 3 });
    expect(second.data[0]?.name).toBe('Block guest SSH');
  });
});

// Deliberately alike: the demo zones are data, listed whole here and in firewall-zones.test.ts.
describe('firewall zones', () => {
  const ZONES = `${I}/firewall/zones`;

  it('lists the system zones and the user zone', async () => {
    const zones = page(await api(sim, 'GET', ZONES));

    expect(zones.data.map((z) => z.name)).toEqual([
      'Internal',
      'External',
      'Gateway',
      'Vpn',
      'Hotspot',
      'Dmz',
      'IoT Devices',
    ]);
    expect(zones.data[0]).toMatchObject({
      networkIds: [DEMO_NETWORKS.defaultLan.uuid],
      metadata: { origin: 'SYSTEM_DEFINED', configurable: true },
    });
  });

  it('creates a zone (201) with an unassigned network', async () => {
    const response = await api(sim, 'POST', ZONES, {
      body: { name: 'Lab Zone', networkIds: [DEMO_NETWORKS.servers.uuid] },
    });

    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      name: 'Lab Zone',
      networkIds: [DEMO_NETWORKS.servers.uuid],
      metadata: { origin: 'USER_DEFINED' },
    });
  });

  it('requires both fields and refuses unknown properties such as description', async () => {
    const noNetworks = await api(sim, 'POST', ZONES, { body: { name: 'X' } });
    const description = await api(sim, 'POST', ZONES, {
      body: { name: 'X', networkIds: [], description: 'nope' },
    });

    expectIntegrationError(noNetworks, 400, 'api.request.argument-validation-error');
    expectIntegrationError(description, 400, 'api.request.argument-validation-error');
    expect(field(description, 'message')).toContain('description');
  });

  it('refuses a network that is already in another zone, and an unknown network', async () => {
    const taken = await api(sim, 'POST', ZONES, {
      body: { name: 'Y', networkIds: [DEMO_NETWORKS.iot.uuid] },
    });
    const unknown = await api(sim, 'POST', ZONES, {
      body: { name: 'Z', networkIds: ['00000000-0000-4000-8000-000000000001'] },
    });

    expectIntegrationError(taken, 400, 'api.firewall-zone.network-already-assigned');
    expect(field(taken, 'message')).toContain('IoT Devices');
    expectIntegrationError(unknown, 400, 'api.network.not-found');
  });

  it('replaces a user zone in full on PUT', async () => {
    const response = await api(sim, 'PUT', `${ZONES}/${DEMO_ZONES.iotDevices}`, {
      body: { name: 'Things', networkIds: [DEMO_NETWORKS.cameras.uuid] },
    });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: DEMO_ZONES.iotDevices,
      name: 'Things',
      networkIds: [DEMO_NETWORKS.cameras.uuid],
    });
  });

  it('protects system zones: no change if not configurable, no rename, no delete', async () => {
    const external = await api(sim, 'PUT', `${ZONES}/${DEMO_ZONES.external}`, {
      body: { name: 'External', networkIds: [] },
    });
    const rename = await api(sim, 'PUT', `${ZONES}/${DEMO_ZONES.internal}`, {
      body: { name: 'Inside', networkIds: [DEMO_NETWORKS.defaultLan.uuid] },
    });
    const networksOnly = await api(sim, 'PUT', `${ZONES}/${DEMO_ZONES.internal}`, {
      body: { name: 'Internal', networkIds: [DEMO_NETWORKS.defaultLan.uuid, DEMO_NETWORKS.servers.uuid] },
    });
    const remove = await api(sim, 'DELETE', `${ZONES}/${DEMO_ZONES.dmz}`);

    expectIntegrationError(external, 400, 'api.firewall-zone.not-configurable');
    expectIntegrationError(rename, 400, 'api.firewall-zone.name-not-editable');
    expect(networksOnly.status).toBe(200);
    expectIntegrationError(remove, 400, 'api.firewall-zone.system-defined');
  });

  it('deletes a user zone with an empty 200 and answers 404 afterwards', async () => {
    const deleted = await api(sim, 'DELETE', `${ZONES}/${DEMO_ZONES.iotDevices}`);
    const again = await api(sim, 'GET', `${ZONES}/${DEMO_ZONES.iotDevices}`);

    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe('');
    expectIntegrationError(again, 404, 'api.resource-not-found');
  });
});

describe('ACL rules', () => {
  const RULES = `${I}/acl-rules`;
  const ORDER = `${RULES}/ordering`;
  // Deliberately alike: an ACL rule body as the Integration API takes it; acl-rules.test.ts expects the bot to send its own.
  const rule = {
    type: 'IPV4',
    enabled: true,
    name: 'Block IoT DNS bypass',
    action: 'BLOCK',
    sourceFilter: { type: 'NETWORKS', networkIds: [DEMO_NETWORKS.iot.uuid] },
    destinationFilter: { type: 'PORTS', portFilter: [53] },
    protocolFilter: ['UDP'],
  };

  it('reads index as the position in the ordering', async () => {
    const before = page(await api(sim, 'GET', RULES)).data.map((r) => [r.name, r.index]);

    expect(before).toEqual([
      ['Block IoT to NAS', 0],
      ['Allow cameras to NVR', 1],
      ['Block guest SSH', 2],
      ["Block kids' tablet", 3],
    ]);
  });

  it('creates a rule (201) appended to the ordering', async () => {
    const response = await api(sim, 'POST', RULES, { body: rule });
    const order = await api(sim, 'GET', ORDER);

    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      ...rule,
      index: 4,
      enforcingDeviceFilter: null,
      metadata: { origin: 'USER_DEFINED' },
    });
    expect((field(order, 'orderedAclRuleIds') as string[]).at(-1)).toBe(field(response, 'id'));
  });

  it('refuses protocols other than TCP/UDP, and unknown networks', async () => {
    const icmp = await api(sim, 'POST', RULES, { body: { ...rule, protocolFilter: ['ICMP'] } });
    const unknownNetwork = await api(sim, 'POST', RULES, {
      body: {
        ...rule,
        sourceFilter: { type: 'NETWORKS', networkIds: ['00000000-0000-4000-8000-000000000002'] },
      },
    });

    expectIntegrationError(icmp, 400, 'api.request.argument-validation-error');
    expectIntegrationError(unknownNetwork, 400, 'api.network.not-found');
  });

  it('reorders with a permutation and refuses anything else', async () => {
    const ids = Object.values(DEMO_ACL_RULES);
    const reversed = [...ids].reverse();

    const missing = await api(sim, 'PUT', ORDER, { body: { orderedAclRuleIds: ids.slice(1) } });
    const duplicated = await api(sim, 'PUT', ORDER, {
      body: { orderedAclRuleIds: [ids[0], ...ids.slice(0, 3)] },
    });
    const ok = await api(sim, 'PUT', ORDER, { body: { orderedAclRuleIds: reversed } });
    const first = page(await api(sim, 'GET', RULES)).data[0];

    expectIntegrationError(missing, 400, 'api.acl-rule.invalid-ordering');
    expectIntegrationError(duplicated, 400, 'api.acl-rule.invalid-ordering');
    expect(ok.body).toEqual({ orderedAclRuleIds: reversed });
    expect(first).toMatchObject({ name: "Block kids' tablet", index: 0 });
  });

  it('refuses changes to rules that are not user-defined', async () => {
    const site = sim.state.site('default');
    const seeded = site?.aclRules[0];
    if (seeded) seeded.metadata = { origin: 'SYSTEM_DEFINED' };

    const response = await api(sim, 'DELETE', `${RULES}/${DEMO_ACL_RULES.blockIotToNas}`);

    expectIntegrationError(response, 400, 'api.acl-rule.not-user-defined');
  });

  it('replaces on PUT and removes from the ordering on DELETE', async () => {
    const put = await api(sim, 'PUT', `${RULES}/${DEMO_ACL_RULES.blockGuestSsh}`, {
      body: { ...rule, enabled: false },
    });
    const del = await api(sim, 'DELETE', `${RULES}/${DEMO_ACL_RULES.blockIotToNas}`);
    const order = field(await api(sim, 'GET', ORDER), 'orderedAclRuleIds');

    expect(put.body).toMatchObject({
      id: DEMO_ACL_RULES.blockGuestSsh,
      name: 'Block IoT DNS bypass',
      enabled: false,
    });
    expect(del.status).toBe(200);
    expect(order).not.toContain(DEMO_ACL_RULES.blockIotToNas);
    expect(order).toHaveLength(3);
  });
});

describe('traffic matching lists', () => {
  const LISTS = `${I}/traffic-matching-lists`;

  it('lists the three seeded lists with typed items', async () => {
    const lists = page(await api(sim, 'GET', LISTS)).data;

    expect(lists.map((l) => l.type)).toEqual(['PORTS', 'IPV4_ADDRESSES', 'IPV6_ADDRESSES']);
    expect(lists[0]?.items).toContainEqual({ type: 'PORT_NUMBER_RANGE', start: 8000, stop: 8100 });
  });

  it('creates a list and checks items against the list type', async () => {
    const ok = await api(sim, 'POST', LISTS, {
      body: {
        type: 'IPV4_ADDRESSES',
        name: 'Blocklist',
        items: [{ type: 'SUBNET', value: '203.0.113.0/24' }],
      },
    });
    const wrongType = await api(sim, 'POST', LISTS, {
      body: { type: 'PORTS', name: 'Bad', items: [{ type: 'SUBNET', value: '10.0.0.0/8' }] },
    });
    const v6InV4 = await api(sim, 'POST', LISTS, {
      body: { type: 'IPV4_ADDRESSES', name: 'Bad', items: [{ type: 'IP_ADDRESS', value: '2001:db8::1' }] },
    });
    const strings = await api(sim, 'POST', LISTS, { body: { type: 'PORTS', name: 'Bad', items: ['443'] } });
    const empty = await api(sim, 'POST', LISTS, { body: { type: 'PORTS', name: 'Bad', items: [] } });
    const reversed = await api(sim, 'POST', LISTS, {
      body: { type: 'PORTS', name: 'Bad', items: [{ type: 'PORT_NUMBER_RANGE', start: 9000, stop: 8000 }] },
    });

    expect(ok.status).toBe(201);
    for (const bad of [wrongType, v6InV4, strings, empty, reversed]) {
      expectIntegrationError(bad, 400, 'api.request.argument-validation-error');
    }
  });

  it('requires type, name and items on PUT (full replace)', async () => {
    const path = `${LISTS}/${DEMO_TRAFFIC_MATCHING_LISTS.webPorts}`;

    const partial = await api(sim, 'PUT', path, { body: { name: 'Renamed' } });
    const full = await api(sim, 'PUT', path, {
      body: { type: 'PORTS', name: 'Renamed', items: [{ type: 'PORT_NUMBER', value: 8443 }] },
    });

    expectIntegrationError(partial, 400, 'api.request.argument-validation-error');
    expect(full.body).toEqual({
      type: 'PORTS',
      id: DEMO_TRAFFIC_MATCHING_LISTS.webPorts,
      name: 'Renamed',
      items: [{ type: 'PORT_NUMBER', value: 8443 }],
    });
  });
});
