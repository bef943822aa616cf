import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_NETWORKS, type Simulator, startSimulator } from '../../src/simulator/index.js';
import { api, classicData, I, type JsonResponse } from './support.js';

// The simulated 10.1 console serves the official network writes and references over the
// one store the classic networkconf routes use; a 9.0 console has none of them.

let sim: Simulator;
let old: Simulator;
beforeAll(async () => {
  [sim, old] = await Promise.all([startSimulator(), startSimulator({ apiVersion: '9.0' })]);
});
afterAll(async () => {
  await Promise.all([sim.close(), old.close()]);
});
beforeEach(() => sim.reset());

// Deliberately alike: the official network body whole, as a console takes it; networks-official.test.ts expects the tool to send this shape.
const LAB = {
  management: 'GATEWAY',
  name: 'Lab',
  enabled: true,
  vlanId: 40,
  isolationEnabled: false,
  cellularBackupEnabled: false,
  internetAccessEnabled: true,
  mdnsForwardingEnabled: false,
  ipv4Configuration: {
    autoScaleEnabled: false,
    hostIpAddress: '10.70.0.1',
    prefixLength: 24,
    dhcpConfiguration: {
      mode: 'SERVER',
      ipAddressRange: { start: '10.70.0.10', stop: '10.70.0.200' },
      leaseTimeSeconds: 3600,
      pingConflictDetectionEnabled: false,
      dnsServerIpAddressesOverride: ['9.9.9.9'],
      domainName: 'lab.example.com',
    },
  },
};

const body = (response: JsonResponse) => response.body as Record<string, unknown>;
const classicNetwork = async (name: string) =>
  classicData(await api(sim, 'GET', '/api/s/default/rest/networkconf')).find((n) => n.name === name);

// "Network overview" (10.1.85): what every variant of the list item may carry, and must.
const OVERVIEW_KEYS = ['management', 'id', 'name', 'enabled', 'vlanId', 'metadata', 'default'];
const VARIANT_OVERVIEW_KEYS: Record<string, string[]> = {
  GATEWAY: ['zoneId'],
  SWITCH: ['deviceId'],
  UNMANAGED: [],
};

describe('Integration networks: the list is an overview, the details are per network', () => {
  it('lists each network as the document’s "Network overview", and GET networks/{id} answers its details', async () => {
    const list = body(await api(sim, 'GET', `${I}/networks`)).data as Record<string, unknown>[];
    expect(list.length).toBeGreaterThanOrEqual(5);
    for (const item of list) {
      const allowed = [...OVERVIEW_KEYS, ...(VARIANT_OVERVIEW_KEYS[String(item.management)] ?? [])];
      expect(
        Object.keys(item).filter((key) => !allowed.includes(key)),
        String(item.name),
      ).toEqual([]);
      expect(Object.keys(item)).toEqual(expect.arrayContaining(OVERVIEW_KEYS));
    }
    const iot = body(await api(sim, 'GET', `${I}/networks/${DEMO_NETWORKS.iot.uuid}`));
    expect(iot).toMatchObject({
      management: 'GATEWAY',
      isolationEnabled: false,
      ipv4Configuration: {
        hostIpAddress: '10.20.0.1',
        prefixLength: 24,
        dhcpConfiguration: { mode: 'SERVER' },
      },
    });
  });
});

describe('Integration networks: writes over the one store', () => {
  it('creates with POST (201); classic networkconf shows the same network with the same UUID', async () => {
    const created = await api(sim, 'POST', `${I}/networks`, { body: LAB });
    expect(created.status).toBe(201);
    const id = String(body(created).id);
    expect(body(created)).toMatchObject({ ...LAB, id, metadata: { origin: 'USER_DEFINED' }, default: false });
    expect(await classicNetwork('Lab')).toMatchObject({
      external_id: id,
      purpose: 'corporate',
      vlan_enabled: true,
      vlan: 40,
      ip_subnet: '10.70.0.1/24',
      dhcpd_enabled: true,
      dhcpd_start: '10.70.0.10',
      dhcpd_stop: '10.70.0.200',
      dhcpd_leasetime: 3600,
      dhcpd_dns_enabled: true,
      dhcpd_dns_1: '9.9.9.9',
      domain_name: 'lab.example.com',
    });
    // A new gateway network joins the Internal zone, as a classic create does.
    const internal = sim.state.site('default')?.zones.find((z) => z.name === 'Internal');
    expect(internal?.networkIds).toContain(id);
  });

  it('replaces with PUT: DHCP left out is DHCP off, an isolated network is guest, classic-only keys stay', async () => {
    const before = await classicNetwork('IoT');
    const { dhcpConfiguration: _dhcp, ...ipv4 } = LAB.ipv4Configuration;
    const put = await api(sim, 'PUT', `${I}/networks/${DEMO_NETWORKS.iot.uuid}`, {
      body: { ...LAB, name: 'IoT', vlanId: 20, isolationEnabled: true, ipv4Configuration: ipv4 },
    });
    expect(put.status).toBe(200);
    expect(body(put)).toMatchObject({ id: DEMO_NETWORKS.iot.uuid, isolationEnabled: true });
    expect(body(put).ipv4Configuration).not.toHaveProperty('dhcpConfiguration');
    const after = await classicNetwork('IoT');
    expect(after).toMatchObject({
      _id: DEMO_NETWORKS.iot.id,
      purpose: 'guest',
      ip_subnet: '10.70.0.1/24',
      dhcpd_enabled: false,
      igmp_snooping: before?.igmp_snooping,
    });
    // A server turned off keeps its range stored, as the classic UI does.
    expect(after?.dhcpd_start).toBe(before?.dhcpd_start);
    // Read back through the official API: the same network.
    const read = await api(sim, 'GET', `${I}/networks/${DEMO_NETWORKS.iot.uuid}`);
    expect(body(read)).toEqual(body(put));
  });

  it('a vlan-only (unmanaged) network has no address plan; a classic write reads the same officially', async () => {
    const put = await api(sim, 'PUT', `${I}/networks/${DEMO_NETWORKS.cameras.uuid}`, {
      body: { management: 'UNMANAGED', name: 'Cameras', enabled: true, vlanId: 60 },
    });
    expect(body(put)).toEqual({
      management: 'UNMANAGED',
      id: DEMO_NETWORKS.cameras.uuid,
      name: 'Cameras',
      enabled: true,
      vlanId: 60,
      metadata: { origin: 'USER_DEFINED' },
      default: false,
    });
    expect(await classicNetwork('Cameras')).toMatchObject({ purpose: 'vlan-only' });
    expect(await classicNetwork('Cameras')).not.toHaveProperty('ip_subnet');
    await api(sim, 'PUT', `/api/s/default/rest/networkconf/${DEMO_NETWORKS.servers.id}`, {
      body: { vlan: 55 },
    });
    const servers = await api(sim, 'GET', `${I}/networks/${DEMO_NETWORKS.servers.uuid}`);
    expect(body(servers)).toMatchObject({ management: 'UNMANAGED', vlanId: 55 });
  });

  it('stores another value than sent on a store-as fault, at the top level or nested by a dotted key, on PUT and POST', async () => {
    const route = /\/integration\/v1\/sites\/[^/]+\/networks/;
    const iot = body(await api(sim, 'GET', `${I}/networks/${DEMO_NETWORKS.iot.uuid}`));
    const { id: _id, metadata: _metadata, default: _default, zoneId: _zone, ...sent } = iot;
    const stop = 'ipv4Configuration.dhcpConfiguration.ipAddressRange.stop';
    sim.injectFault({ kind: 'store-as', method: 'PUT', route, set: { vlanId: 1071, [stop]: '10.20.0.199' } });
    const put = await api(sim, 'PUT', `${I}/networks/${DEMO_NETWORKS.iot.uuid}`, {
      body: { ...sent, vlanId: 21 },
    });
    expect(put.status).toBe(200);
    expect(await classicNetwork('IoT')).toMatchObject({
      vlan: 1071,
      dhcpd_start: '10.20.0.100',
      dhcpd_stop: '10.20.0.199',
    });
    sim.injectFault({
      kind: 'store-as',
      method: 'POST',
      route,
      set: { 'ipv4Configuration.prefixLength': 16 },
    });
    const created = await api(sim, 'POST', `${I}/networks`, { body: LAB });
    expect(created.status).toBe(201);
    expect(body(created)).toMatchObject({
      ipv4Configuration: { hostIpAddress: '10.70.0.1', prefixLength: 16 },
    });
    // Used up: the next write is stored as sent.
    const again = await api(sim, 'PUT', `${I}/networks/${DEMO_NETWORKS.iot.uuid}`, {
      body: { ...sent, vlanId: 21 },
    });
    expect(body(again)).toMatchObject({
      vlanId: 21,
      ipv4Configuration: { dhcpConfiguration: { ipAddressRange: { stop: '10.20.0.250' } } },
    });
  });

  it('refuses a taken VLAN, a missing field and a switch-managed network with 400, changing nothing', async () => {
    const taken = await api(sim, 'POST', `${I}/networks`, { body: { ...LAB, vlanId: 20 } });
    expect(taken.status).toBe(400);
    expect(body(taken)).toMatchObject({ code: 'api.err.VlanUsed' });
    const { enabled: _enabled, ...noEnabled } = LAB;
    expect((await api(sim, 'POST', `${I}/networks`, { body: noEnabled })).status).toBe(400);
    expect((await api(sim, 'POST', `${I}/networks`, { body: { ...LAB, management: 'SWITCH' } })).status).toBe(
      400,
    );
    expect(await classicNetwork('Lab')).toBeUndefined();
  });

  it('deletes (200, empty), out of its zone; a system network is refused', async () => {
    const deleted = await api(sim, 'DELETE', `${I}/networks/${DEMO_NETWORKS.cameras.uuid}`);
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe('');
    expect(await classicNetwork('Cameras')).toBeUndefined();
    const zones = sim.state.site('default')?.zones ?? [];
    expect(zones.some((z) => z.networkIds.includes(DEMO_NETWORKS.cameras.uuid))).toBe(false);
    const system = await api(sim, 'DELETE', `${I}/networks/${DEMO_NETWORKS.defaultLan.uuid}`);
    expect(system.status).toBe(400);
    expect((await api(sim, 'DELETE', `${I}/networks/${DEMO_NETWORKS.cameras.uuid}`)).status).toBe(404);
  });

  it('answers references: the clients and SSIDs on the network', async () => {
    const site = sim.state.site('default');
    const clients = site?.clients.filter((c) => c.network_id === DEMO_NETWORKS.defaultLan.id).length ?? 0;
    const ssids = site?.wlans.filter((w) => w.networkconf_id === DEMO_NETWORKS.defaultLan.id).length ?? 0;
    const refs = await api(sim, 'GET', `${I}/networks/${DEMO_NETWORKS.defaultLan.uuid}/references`);
    expect(refs.status).toBe(200);
    const resources = (body(refs).referenceResources ?? []) as {
      resourceType: string;
      referenceCount: number;
      references: unknown[];
    }[];
    expect(resources.map((r) => [r.resourceType, r.referenceCount, r.references.length])).toEqual([
      ['CLIENT', clients, clients],
      ['WIFI', ssids, ssids],
    ]);
    expect(clients).toBeGreaterThan(0);
    expect(ssids).toBeGreaterThan(0);
    const lab = body(await api(sim, 'POST', `${I}/networks`, { body: LAB }));
    const none = await api(sim, 'GET', `${I}/networks/${String(lab.id)}/references`);
    expect(body(none)).toEqual({ referenceResources: [] });
  });

  it('a 9.0 console has no network write or references route (404) and still lists nothing officially', async () => {
    for (const [method, path] of [
      ['POST', `${I}/networks`],
      ['PUT', `${I}/networks/${DEMO_NETWORKS.iot.uuid}`],
      ['DELETE', `${I}/networks/${DEMO_NETWORKS.iot.uuid}`],
      ['GET', `${I}/networks/${DEMO_NETWORKS.iot.uuid}/references`],
      ['GET', `${I}/networks`],
    ] as const) {
      const answer = await api(
        old,
        method,
        path,
        method === 'GET' || method === 'DELETE' ? {} : { body: LAB },
      );
      expect(answer.status, `${method} ${path}`).toBe(404);
    }
  });
});
