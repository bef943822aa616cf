import { describe, expect, it } from 'vitest';
import { syntheticSite } from '../../bench/synthetic-site.js';
import { clientRecordSchema } from '../../src/records/client-record.js';
import { deviceRecordSchema } from '../../src/records/device-record.js';
import { buildTopology } from '../../src/topology/build.js';
import { layeredLayout } from '../../src/topology/layout.js';
import { portMappings } from '../../src/topology/queries.js';
import {
  type TopologyClient,
  type TopologyDevice,
  topologyClientSchema,
  topologyDeviceSchema,
} from '../../src/topology/records.js';
import type { Topology, TopologyConnection, TopologyNode } from '../../src/topology/types.js';
import { fixtureRecords } from '../helpers/fixtures.js';

const OPTIONS = { siteId: 'default', generatedAt: '2026-01-01T00:00:00.000Z' };

const devicesOf = (...files: string[]): TopologyDevice[] =>
  files.flatMap((f) => fixtureRecords(`classic/${f}`)).map((r) => topologyDeviceSchema.parse(r));
const clientsOf = (file: string): TopologyClient[] =>
  fixtureRecords(`classic/${file}`).map((r) => topologyClientSchema.parse(r));

function node(topology: Topology, id: string): TopologyNode {
  const found = topology.nodes.find((n) => n.node_id === id);
  if (!found) throw new Error(`no node ${id}`);
  return found;
}

function link(topology: Topology, id: string): TopologyConnection {
  const found = topology.connections.find((c) => c.connection_id === id);
  if (!found) throw new Error(`no connection ${id}`);
  return found;
}

// The aiounifi devices: USG → Switch 8 → (Switch 16, AC Pro); the Flex Mini names a parent
// (fc:ec:00:11:22:33) that is not in the list.
const USG = '78:8a:20:33:44:55';
const SWITCH_8 = 'f0:9f:11:22:33:44';
const SWITCH_16 = 'fc:ec:da:11:22:33';
const FLEX_MINI = '74:ac:b9:a1:01:01';
const AC_PRO = '80:2a:a8:00:01:02';
const WIRED_CLIENT = 'ac:cc:de:12:34:56';
const WIRELESS_CLIENT = '00:00:00:00:00:01';

describe('buildTopology over the aiounifi fixtures', () => {
  const topology = buildTopology(
    devicesOf('stat-device.aiounifi.json'),
    clientsOf('stat-sta.aiounifi.json'),
    OPTIONS,
  );

  it('takes device parents from uplink_mac, with a null port where uplink_remote_port is missing', () => {
    const parents = topology.nodes
      .filter((n) => n.node_type === 'device')
      .map((n) => [n.name, n.uplink_device_id, n.uplink_port, n.uplink_depth]);

    expect(parents).toEqual([
      ['USG', null, null, 0],
      ['Switch 8', USG, null, 0],
      ['ACCESS POINT AC PRO', SWITCH_8, 6, 1],
      ['Switch 16', SWITCH_8, 5, 1],
      // Its parent is not an adopted device here, so it is a root rather than an error.
      ['UniFi Switch Flex Mini', null, null, 0],
    ]);
    expect(topology.max_depth).toBe(1);
  });

  it('describes device uplinks with ports on both ends, speed and status', () => {
    expect(link(topology, `uplink:${SWITCH_8}`)).toEqual({
      connection_id: `uplink:${SWITCH_8}`,
      source_node_id: USG,
      target_node_id: SWITCH_8,
      connection_type: 'uplink',
      source_port: null,
      target_port: 2,
      speed_mbps: 1000,
      is_uplink: true,
      status: 'up',
    });
    expect(link(topology, `uplink:${SWITCH_16}`)).toMatchObject({ source_port: 5, target_port: 1 });
    expect(link(topology, `uplink:${AC_PRO}`)).toMatchObject({ source_port: 6, target_port: null });
    expect(topology.connections.some((c) => c.target_node_id === FLEX_MINI)).toBe(false);
  });

  it('hangs the wired client off sw_mac/sw_port and the wireless one off ap_mac, not its sw_mac', () => {
    expect(node(topology, WIRED_CLIENT)).toEqual({
      node_id: WIRED_CLIENT,
      node_type: 'client',
      // name is "" in the record: the hostname is shown instead.
      name: 'camera-acccde123456',
      mac: WIRED_CLIENT,
      ip: '192.168.0.2',
      uplink_device_id: SWITCH_16,
      uplink_port: 3,
      uplink_depth: 2,
      state: 1,
    });
    expect(link(topology, `client:${WIRED_CLIENT}`)).toMatchObject({
      source_node_id: SWITCH_16,
      connection_type: 'wired',
      source_port: 3,
      speed_mbps: 1000,
      is_uplink: false,
      status: 'up',
    });
    expect(node(topology, WIRELESS_CLIENT)).toMatchObject({ uplink_device_id: AC_PRO, uplink_port: null });
    expect(link(topology, `client:${WIRELESS_CLIENT}`)).toMatchObject({
      source_node_id: AC_PRO,
      connection_type: 'wireless',
      source_port: null,
      speed_mbps: null,
    });
  });

  it('counts nodes and connections, and gives devices but not clients a model', () => {
    expect([topology.total_devices, topology.total_clients, topology.total_connections]).toEqual([5, 2, 5]);
    expect(node(topology, SWITCH_16).model).toBe('US16P150');
    expect(node(topology, SWITCH_16).device_type).toBe('usw');
    expect('model' in node(topology, WIRED_CLIENT)).toBe(false);
    expect(topology.has_coordinates).toBe(false);
    expect(topology.nodes.some((n) => 'x' in n)).toBe(false);
  });

  it('gives the same topology from the full record schemas as from the narrowed ones', () => {
    const full = buildTopology(
      fixtureRecords('classic/stat-device.aiounifi.json').map((r) => deviceRecordSchema.parse(r)),
      fixtureRecords('classic/stat-sta.aiounifi.json').map((r) => clientRecordSchema.parse(r)),
      OPTIONS,
    );

    expect(full).toEqual(topology);
  });
});

describe('buildTopology over the unpoller fixtures', () => {
  it('makes the switch whose uplink names its own MAC a root instead of looping', () => {
    const topology = buildTopology(devicesOf('stat-device.unpoller-usw.json'), [], OPTIONS);

    expect(topology.nodes.map((n) => [n.name, n.uplink_device_id, n.uplink_depth, n.state])).toEqual([
      ['switch', null, 0, 1],
    ]);
    expect(topology.connections).toEqual([]);
  });

  it('keeps the AP whose switch is not in the list as a root with no connection', () => {
    const topology = buildTopology(devicesOf('stat-device.unpoller-uap.json'), [], OPTIONS);

    expect(topology.nodes).toEqual([
      {
        node_id: '80:22:22:22:22:22',
        node_type: 'device',
        name: 'wap-lower',
        mac: '80:22:22:22:22:22',
        ip: '192.168.1.8',
        model: 'U7PG2',
        device_type: 'uap',
        uplink_device_id: null,
        uplink_port: null,
        uplink_depth: 0,
        state: 1,
      },
    ]);
  });

  it('keeps the first of two records that share a MAC (the anonymised gateway and switch do)', () => {
    const topology = buildTopology(
      devicesOf(
        'stat-device.unpoller-ugw.json',
        'stat-device.unpoller-usw.json',
        'stat-device.unpoller-uap.json',
      ),
      [],
      OPTIONS,
    );

    expect(topology.nodes.map((n) => [n.name, n.device_type])).toEqual([
      ['gateway', 'ugw'],
      ['wap-lower', 'uap'],
    ]);
  });

  it('lists the switch ports that are up with connected_to null when no peer is known', () => {
    const [usw] = devicesOf('stat-device.unpoller-usw.json');
    if (!usw) throw new Error('fixture missing');
    const mappings = portMappings(buildTopology([usw], [], OPTIONS), usw);

    expect(Object.keys(mappings.ports).map(Number)).toEqual([
      1, 3, 6, 7, 9, 10, 11, 12, 13, 15, 16, 17, 18, 19, 21, 22, 23, 24,
    ]);
    expect(mappings.ports[13]).toEqual({
      connected_to: null,
      connected_names: [],
      connection_type: null,
      speed_mbps: 1000,
      status: 'up',
      port_name: 'Upstairs WAP',
      connected_nodes: [],
    });
    expect(mappings.unmapped).toEqual([]);
  });
});

describe('buildTopology on awkward inputs', () => {
  const device = (mac: string, extra: Record<string, unknown> = {}) =>
    topologyDeviceSchema.parse({ mac, name: `dev ${mac.slice(-2)}`, type: 'usw', state: 1, ...extra });

  it('reads an offline device from last_uplink and marks it and its links down', () => {
    const gateway = device('00:00:00:00:00:01', { type: 'udm', uplink: { type: 'wire', up: true } });
    const offline = device('00:00:00:00:00:02', {
      state: 0,
      last_uplink: { uplink_mac: '00:00:00:00:00:01', uplink_remote_port: 4, port_idx: 1 },
    });
    const behind = device('00:00:00:00:00:03', {
      uplink: { type: 'wire', up: true, speed: 1000, uplink_mac: '00:00:00:00:00:02', uplink_remote_port: 2 },
    });
    const client = topologyClientSchema.parse({
      mac: 'AA:00:00:00:00:09',
      is_wired: true,
      sw_mac: '00:00:00:00:00:02',
      sw_port: 7,
    });

    const topology = buildTopology([behind, offline, gateway], [client], OPTIONS);

    expect(node(topology, '00:00:00:00:00:02')).toMatchObject({
      state: 0,
      uplink_device_id: '00:00:00:00:00:01',
      uplink_port: 4,
    });
    expect(link(topology, 'uplink:00:00:00:00:00:02')).toMatchObject({
      status: 'down',
      speed_mbps: null,
      target_port: 1,
    });
    expect(link(topology, 'uplink:00:00:00:00:00:03')).toMatchObject({ status: 'down' });
    expect(link(topology, 'client:aa:00:00:00:00:09')).toMatchObject({ status: 'down', source_port: 7 });
  });

  it('marks a wired uplink reported with up:false down, and a mesh uplink wireless with no port', () => {
    const gateway = device('00:00:00:00:00:01', { type: 'udm' });
    const cut = device('00:00:00:00:00:02', {
      uplink: { type: 'wire', up: false, uplink_mac: '00:00:00:00:00:01', uplink_remote_port: 3 },
    });
    const mesh = device('00:00:00:00:00:03', {
      type: 'uap',
      uplink: {
        type: 'wireless',
        up: true,
        uplink_mac: '00:00:00:00:00:01',
        uplink_remote_port: 9,
        rssi: 30,
      },
    });

    const topology = buildTopology([gateway, cut, mesh], [], OPTIONS);

    expect(link(topology, 'uplink:00:00:00:00:00:02').status).toBe('down');
    expect(link(topology, 'uplink:00:00:00:00:00:03')).toMatchObject({
      connection_type: 'wireless',
      is_uplink: true,
      source_port: null,
      speed_mbps: null,
      status: 'up',
    });
  });

  it('names devices and clients by MAC when they have no name, and skips a client that reuses a device MAC', () => {
    const bare = topologyDeviceSchema.parse({ mac: 'F0:9F:11:22:33:44', state: 1 });
    const unnamed = topologyClientSchema.parse({
      mac: '02:00:00:00:00:aa',
      name: '  ',
      is_wired: false,
      ap_mac: 'f0:9f:11:22:33:44',
    });
    const clash = topologyClientSchema.parse({ mac: 'f0:9f:11:22:33:44' });

    const topology = buildTopology([bare], [unnamed, clash], OPTIONS);

    expect(topology.nodes.map((n) => [n.node_id, n.name])).toEqual([
      ['f0:9f:11:22:33:44', 'f0:9f:11:22:33:44'],
      ['02:00:00:00:00:aa', '02:00:00:00:00:aa'],
    ]);
    expect(topology.total_clients).toBe(1);
  });

  it('gives the same nodes and connections when the records come in another order', () => {
    const a = syntheticSite({ devices: 120, clients: 600, seed: 7 });
    const devices = a.devices.map((r) => topologyDeviceSchema.parse(r));
    const clients = a.clients.map((r) => topologyClientSchema.parse(r));

    const forward = buildTopology(devices, clients, OPTIONS);
    const backward = buildTopology([...devices].reverse(), [...clients].reverse(), OPTIONS);

    expect(backward).toEqual(forward);
    expect(forward.max_depth).toBeGreaterThanOrEqual(2);
  });
});

describe('layout', () => {
  it('puts the gateway on top, each level on its own row, children under their parent, without overlaps', () => {
    const site = syntheticSite({ devices: 60, clients: 300, seed: 3 });
    const topology = buildTopology(
      site.devices.map((r) => topologyDeviceSchema.parse(r)),
      site.clients.map((r) => topologyClientSchema.parse(r)),
      { ...OPTIONS, includeCoordinates: true },
    );
    const byId = new Map(topology.nodes.map((n) => [n.node_id, n]));
    const gateway = topology.nodes[0];

    expect(topology.has_coordinates).toBe(true);
    expect(gateway?.device_type).toBe('udm');
    expect(gateway?.y).toBe(0);
    for (const n of topology.nodes) {
      expect(typeof n.x).toBe('number');
      const parent = n.uplink_device_id ? byId.get(n.uplink_device_id) : undefined;
      if (!parent) continue;
      expect(n.y).toBe((parent.y ?? 0) + 120);
    }
    const rows = new Map<number, number[]>();
    for (const n of topology.nodes) rows.set(n.y ?? -1, [...(rows.get(n.y ?? -1) ?? []), n.x ?? 0]);
    for (const xs of rows.values()) {
      xs.sort((p, q) => p - q);
      for (let i = 1; i < xs.length; i++) expect((xs[i] ?? 0) - (xs[i - 1] ?? 0)).toBeGreaterThanOrEqual(160);
    }
  });

  it('centres a parent over its first and last child', () => {
    // root(0) → a(1), b(2), c(3); a → a1(4), a2(5)
    const { x, y } = layeredLayout([-1, 0, 0, 0, 1, 1]);

    expect([...x]).toEqual([280, 80, 320, 480, 0, 160]);
    expect([...y]).toEqual([0, 120, 120, 120, 240, 240]);
  });

  it('puts several roots side by side on the top row, in index order', () => {
    const { x, y } = layeredLayout([-1, 0, -1, 9]);

    expect([...x]).toEqual([0, 0, 160, 320]);
    expect([...y]).toEqual([0, 120, 0, 0]);
  });
});
