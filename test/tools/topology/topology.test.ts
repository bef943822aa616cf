import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { ResourceNotFoundError, ValidationError } from '../../../src/errors.js';
import { DEMO_DEVICES } from '../../../src/simulator/index.js';
import type {
  PortMappings,
  Topology,
  TopologyConnection,
  TopologyStatistics,
} from '../../../src/topology/types.js';
import { startTestBot } from '../../helpers/test-bot.js';
import { useTestBot } from '../../helpers/tool-test.js';

const bot = useTestBot();

const GATEWAY = DEMO_DEVICES.gateway.mac;
const CORE = DEMO_DEVICES.coreSwitch.mac;
const OFFICE = DEMO_DEVICES.officeSwitch.mac;
const FLEX = DEMO_DEVICES.flexSwitch.mac;
const LIVING_AP = DEMO_DEVICES.livingAp.mac;
const MESH_AP = DEMO_DEVICES.meshAp.mac;
const GARAGE_AP = DEMO_DEVICES.garageAp.mac;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

const topology = async (args: Record<string, unknown> = {}) =>
  (await bot.run('get_network_topology', args)) as Topology;

function statRoutes(): string[] {
  return bot.sim.requests
    .filter((r) => r.route.includes('/stat/'))
    .map((r) => `${r.method} ${r.route}`)
    .sort();
}

describe('get_network_topology', () => {
  it('counts the demo site: 7 devices, 41 clients (one on VPN, with no link), 46 connections, depth 3', async () => {
    const result = await topology();

    expect(result).toMatchObject({
      site_id: 'default',
      total_devices: 7,
      total_clients: 41,
      total_connections: 46,
      max_depth: 3,
      has_coordinates: false,
    });
    expect(result.nodes).toHaveLength(48);
    expect(result.connections).toHaveLength(46);
    expect(Date.parse(result.generated_at)).not.toBeNaN();
  });

  it('numbers depth from the gateway: it and the core switch 0, then one per device in between', async () => {
    const result = await topology();
    const depths = Object.fromEntries(
      result.nodes.filter((n) => n.node_type === 'device').map((n) => [n.name, n.uplink_depth]),
    );

    expect(depths).toEqual({
      'Dream Machine Pro': 0,
      'Core Switch': 0,
      'Garage AP': 1,
      'Media Cabinet Flex': 1,
      'Office Switch': 1,
      'Living Room AP': 2,
      'Garden Mesh AP': 3,
    });
    expect(result.nodes[0]).toEqual({
      node_id: GATEWAY,
      node_type: 'device',
      name: 'Dream Machine Pro',
      mac: GATEWAY,
      ip: '203.0.113.24',
      model: 'UDMPRO',
      device_type: 'udm',
      uplink_device_id: null,
      uplink_port: null,
      uplink_depth: 0,
      state: 1,
    });
  });

  it('types the mesh AP uplink as wireless, with no port and no speed', async () => {
    const result = await topology();

    expect(result.connections.find((c) => c.target_node_id === MESH_AP)).toEqual({
      connection_id: `uplink:${MESH_AP}`,
      source_node_id: LIVING_AP,
      target_node_id: MESH_AP,
      connection_type: 'wireless',
      source_port: null,
      target_port: null,
      speed_mbps: null,
      is_uplink: true,
      status: 'up',
    });
    expect(result.nodes.find((n) => n.node_id === MESH_AP)).toMatchObject({
      uplink_device_id: LIVING_AP,
      uplink_port: null,
    });
  });

  it('marks the offline Garage AP state 0 and its link down, placed from last_uplink', async () => {
    const result = await topology();

    expect(result.nodes.find((n) => n.node_id === GARAGE_AP)).toMatchObject({
      state: 0,
      uplink_device_id: CORE,
      uplink_port: 8,
    });
    expect(result.connections.find((c) => c.target_node_id === GARAGE_AP)).toMatchObject({
      source_node_id: CORE,
      source_port: 8,
      status: 'down',
      speed_mbps: null,
    });
    expect(result.connections.filter((c) => c.status === 'down')).toHaveLength(1);
  });

  it('gives the office switch uplink the core switch port it names, and names unnamed clients', async () => {
    const result = await topology();

    expect(result.connections.find((c) => c.target_node_id === OFFICE)).toMatchObject({
      source_node_id: CORE,
      source_port: 23,
      target_port: 16,
      speed_mbps: 1000,
      status: 'up',
    });
    const names = new Map(result.nodes.map((n) => [n.node_id, n.name]));
    expect(names.get('ac:bc:32:7d:01:0a')).toBe('Pixel-8');
    expect(names.get('5c:e9:1e:43:2d:0d')).toBe('5c:e9:1e:43:2d:0d');
    expect(names.get('9c:b6:d0:4e:11:07')).toBe('Living Room "Big" TV');
  });

  it('hangs wireless clients off their AP (not the switch in their record) and wired ones off their port', async () => {
    const result = await topology();
    const byTarget = new Map(result.connections.map((c) => [c.target_node_id, c]));

    expect(byTarget.get('a4:83:e7:11:22:01')).toMatchObject({
      source_node_id: LIVING_AP,
      connection_type: 'wireless',
      source_port: null,
    });
    expect(byTarget.get('64:16:7f:aa:31:06')).toMatchObject({
      source_node_id: OFFICE,
      connection_type: 'wired',
      source_port: 2,
      speed_mbps: 100,
    });
    const wireless = result.connections.filter((c) => c.connection_type === 'wireless' && !c.is_uplink);
    expect(wireless).toHaveLength(20);
  });

  it('adds a layered layout with include_coordinates: gateway on top, a row per level', async () => {
    const result = await topology({ include_coordinates: 'true' });
    const position = new Map(result.nodes.map((n) => [n.node_id, [n.x, n.y]]));

    expect(result.has_coordinates).toBe(true);
    expect(position.get(GATEWAY)?.[1]).toBe(0);
    expect(position.get(CORE)?.[1]).toBe(120);
    expect(position.get(OFFICE)?.[1]).toBe(240);
    expect(position.get(MESH_AP)?.[1]).toBe(480);
    expect(position.get(GATEWAY)?.[0]).toBe(position.get(CORE)?.[0]);
    expect(result.nodes.every((n) => typeof n.x === 'number' && typeof n.y === 'number')).toBe(true);
  });

  it('makes exactly two upstream reads: stat/device and stat/sta', async () => {
    await topology();

    expect(statRoutes()).toEqual(['GET /api/s/default/stat/device', 'GET /api/s/default/stat/sta']);
  });

  it('gives the same depths when the controller lists the devices in another order', async () => {
    const before = await topology();
    const site = bot.site();
    site.devices.reverse();
    const last = site.devices.pop();
    if (last) site.devices.splice(3, 0, last);

    const after = await topology();

    const depths = (t: Topology) =>
      t.nodes.map((n) => [n.node_id, n.uplink_depth, n.uplink_device_id]).sort();
    expect(depths(after)).toEqual(depths(before));
    expect(after.nodes).toEqual(before.nodes);
  });
});

describe('export_topology', () => {
  it('exports GraphML, DOT and pretty JSON of the site', async () => {
    const graphml = (await bot.run('export_topology', { format: 'graphml' })) as string;
    const dot = (await bot.run('export_topology', { format: 'dot' })) as string;
    const json = (await bot.run('export_topology', { format: 'json' })) as string;

    expect(XMLValidator.validate(graphml)).toBe(true);
    expect(graphml).toContain('<node id="74:ac:b9:1c:20:01">');
    expect(dot.startsWith('digraph "topology-default" {')).toBe(true);
    expect(dot).toContain(`"${CORE}" -> "${FLEX}"`);
    const parsed = JSON.parse(json) as Topology;
    expect(parsed).toMatchObject({ total_devices: 7, total_clients: 41, has_coordinates: true });
    expect(json).toContain('\n  "nodes": [\n    {\n');
  });

  it('refuses GraphML, png or any other spelling with a ValidationError listing the three formats', async () => {
    for (const format of ['GraphML', 'png', 'DOT']) {
      const error = await rejection(bot.run('export_topology', { format }));
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues).toEqual([
        { field: 'format', rule: 'must be one of json, graphml, dot (case-sensitive)' },
      ]);
    }
    expect(statRoutes()).toEqual([]);
  });
});

describe('get_device_connections', () => {
  it('lists the connections of one device as source or target, found by name, MAC or id', async () => {
    const byName = (await bot.run('get_device_connections', {
      device_id: 'office switch',
    })) as TopologyConnection[];
    const byMac = (await bot.run('get_device_connections', {
      device_id: 'F4-92-BF-3A-41-12',
    })) as TopologyConnection[];
    const byId = (await bot.run('get_device_connections', {
      device_id: DEMO_DEVICES.officeSwitch.id,
    })) as TopologyConnection[];

    expect(byName.map((c) => c.connection_id)).toEqual([
      `uplink:${OFFICE}`,
      `uplink:${LIVING_AP}`,
      'client:ac:cc:8e:44:55:22',
      'client:e0:63:da:c1:00:21',
      'client:e4:5f:01:bb:0c:0c',
      'client:e0:63:da:c1:00:29',
      'client:64:16:7f:aa:31:06',
    ]);
    expect(byMac).toEqual(byName);
    expect(byId).toEqual(byName);
    expect(byName.every((c) => c.source_node_id === OFFICE || c.target_node_id === OFFICE)).toBe(true);
  });

  it('lists every connection without a device', async () => {
    const all = (await bot.run('get_device_connections')) as TopologyConnection[];

    expect(all).toHaveLength(46);
  });

  it('answers ResourceNotFoundError for a device that is not on the site', async () => {
    const error = await rejection(bot.run('get_device_connections', { device_id: 'aa:bb:cc:dd:ee:ff' }));

    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect(error).toMatchObject({ resource: 'device', id: 'aa:bb:cc:dd:ee:ff' });
  });
});

describe('get_port_mappings', () => {
  it('maps the core switch ports: its uplink, downstream devices on the ports they name, and clients', async () => {
    const result = (await bot.run('get_port_mappings', { device_id: 'Core Switch' })) as PortMappings;

    expect(result.device_id).toBe(CORE);
    expect(Object.keys(result.ports).map(Number)).toEqual([
      1, 2, 3, 5, 6, 7, 8, 10, 11, 12, 13, 14, 22, 23, 24,
    ]);
    expect(result.ports[24]).toEqual({
      connected_to: GATEWAY,
      connected_names: ['Dream Machine Pro'],
      connection_type: 'uplink',
      speed_mbps: 1000,
      status: 'up',
      port_name: 'Uplink',
      connected_nodes: [GATEWAY],
    });
    expect(result.ports[22]).toMatchObject({ connected_to: FLEX, connection_type: 'uplink', status: 'up' });
    expect(result.ports[8]).toMatchObject({
      connected_to: GARAGE_AP,
      connection_type: 'uplink',
      status: 'down',
    });
    expect(result.ports[1]).toMatchObject({
      connected_to: '00:11:32:8a:bc:04',
      connected_names: ['Synology NAS'],
      connection_type: 'wired',
      speed_mbps: 1000,
      status: 'up',
    });
    // Port 23 feeds the office switch: its uplink names the port, so the port names the switch.
    expect(result.ports[23]).toEqual({
      connected_to: OFFICE,
      connected_names: ['Office Switch'],
      connection_type: 'uplink',
      speed_mbps: 1000,
      status: 'up',
      port_name: 'Office Switch',
      connected_nodes: [OFFICE],
    });
    expect(result.unmapped).toEqual([]);
  });

  it('puts the links of an AP that have no port index under unmapped', async () => {
    const result = (await bot.run('get_port_mappings', {
      device_id: LIVING_AP.toUpperCase(),
    })) as PortMappings;

    expect(Object.keys(result.ports)).toEqual(['1']);
    expect(result.ports[1]).toMatchObject({ connected_to: OFFICE, connection_type: 'uplink' });
    expect(result.unmapped).toHaveLength(14);
    expect(result.unmapped[0]).toMatchObject({ connected_to: MESH_AP, connection_type: 'wireless' });
  });

  it('requires a device and answers ResourceNotFoundError for an unknown one', async () => {
    const missing = await rejection(bot.run('get_port_mappings', {}));
    const unknown = await rejection(bot.run('get_port_mappings', { device_id: 'Basement Switch' }));

    expect(missing).toBeInstanceOf(ValidationError);
    expect((missing as ValidationError).issues).toEqual([
      { field: 'device_id', rule: 'is required', missing: true },
    ]);
    expect(unknown).toBeInstanceOf(ResourceNotFoundError);
    expect((unknown as ResourceNotFoundError).message).toBe('device Basement Switch not found');
  });
});

describe('get_topology_statistics', () => {
  it('reports the totals of the full topology', async () => {
    const stats = (await bot.run('get_topology_statistics')) as TopologyStatistics;

    expect(stats).toMatchObject({
      site_id: 'default',
      total_devices: 7,
      total_clients: 41,
      total_connections: 46,
      max_depth: 3,
      offline_devices: 1,
      down_connections: 1,
      wired_clients: 20,
      wireless_clients: 20,
    });
    expect(Date.parse(stats.generated_at)).not.toBeNaN();
  });

  it('costs the same two upstream reads as get_network_topology', async () => {
    await bot.run('get_topology_statistics');
    const statistics = statRoutes();
    bot.sim.clearRequests();
    await topology();

    expect(statistics).toEqual(statRoutes());
    expect(statistics).toHaveLength(2);
  });
});

describe('the read cache', () => {
  it('lets all five topology tools share one pair of upstream reads', async () => {
    const cached = await startTestBot({ gateway: { cacheTtlSeconds: 30 } });
    try {
      await cached.run('get_network_topology');
      await cached.run('export_topology', { format: 'dot' });
      await cached.run('get_device_connections', { device_id: 'Core Switch' });
      await cached.run('get_port_mappings', { device_id: 'Core Switch' });
      await cached.run('get_topology_statistics');

      const reads = cached.sim.requests.filter((r) => r.route.includes('/stat/')).map((r) => r.route);
      expect(reads.sort()).toEqual(['/api/s/default/stat/device', '/api/s/default/stat/sta']);
    } finally {
      await cached.close();
    }
  });
});
