import { describe, expect, it } from 'vitest';
import { syntheticSite } from '../../bench/synthetic-site.js';
import { buildTopology } from '../../src/topology/build.js';
import { macId } from '../../src/topology/mac.js';
import type { TopologyClient, TopologyDevice } from '../../src/topology/records.js';
import { behind, uplinkIndex } from '../../src/topology/uplinks.js';

const OPTIONS = { siteId: 'default', generatedAt: '2026-01-01T00:00:00.000Z' };

/** The walk as the previews made it before: breadth first over the built topology's connections. */
function behindOnTopology(
  devices: readonly TopologyDevice[],
  clients: readonly TopologyClient[],
  root: string,
  port?: number,
): { devices: string[]; clients: string[] } {
  const topology = buildTopology(devices, clients, OPTIONS);
  const children = new Map<string, string[]>();
  for (const c of topology.connections) {
    if (c.source_node_id === root && port !== undefined && c.source_port !== port) continue;
    children.set(c.source_node_id, [...(children.get(c.source_node_id) ?? []), c.target_node_id]);
  }
  const kinds = new Map(topology.nodes.map((n) => [n.node_id, n.node_type]));
  const found = { devices: [] as string[], clients: [] as string[] };
  const seen = new Set([root]);
  const queue = [root];
  while (queue.length > 0) {
    const id = queue.shift() as string;
    for (const child of children.get(id) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      if (kinds.get(child) === 'client') found.clients.push(child);
      else {
        found.devices.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

function walk(
  devices: readonly TopologyDevice[],
  clients: readonly TopologyClient[],
  root: string,
  port?: number,
) {
  const found = behind(uplinkIndex(devices, clients), [root], port);
  return {
    devices: found.devices.map((d) => macId(d.mac)),
    clients: found.clients.map((c) => macId(c.mac)).sort(),
  };
}

describe('the uplink index', () => {
  const site = syntheticSite({ devices: 120, clients: 3000, seed: 11 });
  const devices = site.devices as unknown as TopologyDevice[];
  const clients = site.clients as unknown as TopologyClient[];

  it('finds behind every device what a walk of the built topology finds, devices in the same order', () => {
    for (const device of devices) {
      const root = device.mac.toLowerCase();
      const expected = behindOnTopology(devices, clients, root);
      expect(walk(devices, clients, root)).toEqual({
        devices: expected.devices,
        clients: expected.clients.sort(),
      });
    }
  });

  it('behind one port of a switch, only what hangs off that port', () => {
    const switches = devices.filter((d) => d.type === 'usw').slice(0, 10);
    expect(switches.length).toBeGreaterThan(2);
    let nonEmpty = 0;
    for (const device of switches) {
      const root = device.mac.toLowerCase();
      for (const port of [1, 2, 5, 8, 24]) {
        const expected = behindOnTopology(devices, clients, root, port);
        const got = walk(devices, clients, root, port);
        expect(got).toEqual({ devices: expected.devices, clients: expected.clients.sort() });
        if (got.clients.length + got.devices.length > 0) nonEmpty += 1;
      }
    }
    expect(nonEmpty).toBeGreaterThan(0);
  });

  it('breaks a cycle as the topology does, skips a MAC listed twice, and builds once per pair of lists', () => {
    const a = { mac: 'aa:00:00:00:00:01', name: 'A', state: 1, uplink: { uplink_mac: 'aa:00:00:00:00:02' } };
    const b = { mac: 'aa:00:00:00:00:02', name: 'B', state: 1, uplink: { uplink_mac: 'aa:00:00:00:00:01' } };
    const c = {
      mac: 'AA-00-00-00-00-03',
      name: 'C',
      state: 0,
      last_uplink: { uplink_mac: 'aa:00:00:00:00:02' },
    };
    const twice = { ...c, name: 'C again', uplink: { uplink_mac: 'aa:00:00:00:00:01' } };
    const looped = [a, b, c, twice] as TopologyDevice[];
    const phone = {
      mac: 'cc:00:00:00:00:01',
      is_wired: false,
      ap_mac: 'aa:00:00:00:00:03',
    } as TopologyClient;
    for (const root of ['aa:00:00:00:00:01', 'aa:00:00:00:00:02', 'aa:00:00:00:00:03']) {
      const expected = behindOnTopology(looped, [phone], root);
      expect(walk(looped, [phone], root)).toEqual(expected);
    }
    const list = [phone];
    expect(uplinkIndex(looped, list)).toBe(uplinkIndex(looped, list));
    expect(uplinkIndex(looped, [phone])).not.toBe(uplinkIndex(looped, list));
  });
});
