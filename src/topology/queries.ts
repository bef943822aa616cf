import { ResourceNotFoundError } from '../errors.js';
import { findByIdOrName } from '../lib/find-by-id-or-name.js';
import { normalizeMac } from '../lib/mac.js';
import { macId } from './mac.js';
import { portsOf, type TopologyDevice } from './records.js';
import type {
  PortEntry,
  PortMappings,
  Topology,
  TopologyConnection,
  TopologyNode,
  TopologyStatistics,
} from './types.js';

/**
 * Finds a device by MAC (any common notation), `_id`, or name (case-insensitive). A name shared
 * by several devices is refused rather than guessed; nothing matching is ResourceNotFoundError.
 */
export function findDevice(
  devices: readonly TopologyDevice[],
  ref: string,
  field = 'device_id',
): TopologyDevice {
  const mac = normalizeMac(ref.trim());
  return findByIdOrName(devices, ref, {
    resource: 'device',
    field,
    id: (d) => macId(d.mac),
    name: (d) => d.name?.trim() ?? '',
    matchesId: (d, wanted) => (mac !== undefined && macId(d.mac) === mac) || d._id === wanted,
  });
}

/** Connections where the node is source or target; every connection when `nodeId` is undefined. */
export function connectionsOf(topology: Topology, nodeId?: string): TopologyConnection[] {
  if (nodeId === undefined) return topology.connections;
  return topology.connections.filter((c) => c.source_node_id === nodeId || c.target_node_id === nodeId);
}

/** Counts from a built topology (get_topology_statistics). */
export function topologyStatistics(topology: Topology): TopologyStatistics {
  let offline = 0;
  for (const node of topology.nodes) if (node.node_type === 'device' && node.state !== 1) offline += 1;
  let down = 0;
  let wired = 0;
  let wireless = 0;
  for (const c of topology.connections) {
    if (c.status === 'down') down += 1;
    if (!c.is_uplink && c.connection_type === 'wired') wired += 1;
    if (!c.is_uplink && c.connection_type === 'wireless') wireless += 1;
  }
  return {
    site_id: topology.site_id,
    total_devices: topology.total_devices,
    total_clients: topology.total_clients,
    total_connections: topology.total_connections,
    max_depth: topology.max_depth,
    generated_at: topology.generated_at,
    offline_devices: offline,
    down_connections: down,
    wired_clients: wired,
    wireless_clients: wireless,
  };
}

interface Peer {
  node: string;
  connection: TopologyConnection;
  /** Devices before clients, so a port's `connected_to` names the switch or AP behind it. */
  rank: number;
}

function entryOf(peers: Peer[], portName: string | null, nameOf: (node: string) => string): PortEntry {
  peers.sort((a, b) => a.rank - b.rank || (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
  const first = peers[0];
  return {
    connected_to: first ? first.node : null,
    connected_names: peers.map((p) => nameOf(p.node)),
    connection_type: first ? first.connection.connection_type : null,
    speed_mbps: first ? first.connection.speed_mbps : null,
    status: peers.some((p) => p.connection.status === 'up') ? 'up' : 'down',
    port_name: portName,
    connected_nodes: peers.map((p) => p.node),
  };
}

/**
 * The ports of one device (get_port_mappings), keyed by port index: its own uplink port (when
 * the record names it), the ports its downstream devices and wired clients hang off, and every
 * other port its port table reports up, with `connected_to: null` (something is plugged in that
 * the controller does not manage or report, such as an unmanaged switch or a device whose uplink
 * lacks `uplink_remote_port`). Links without a port index go to `unmapped`.
 */
export function portMappings(topology: Topology, device: TopologyDevice): PortMappings {
  const id = macId(device.mac);
  const node: TopologyNode | undefined = topology.nodes.find((n) => n.node_id === id);
  if (!node) throw new ResourceNotFoundError('device', device.mac);
  const typeOf = new Map<string, string>();
  // A port lists who is on it by the name people know, as get_device does.
  const nameById = new Map<string, string>();
  for (const n of topology.nodes) {
    typeOf.set(n.node_id, n.node_type);
    nameById.set(n.node_id, n.name);
  }
  const nameOf = (nodeId: string) => nameById.get(nodeId) ?? nodeId;

  const byPort = new Map<number, Peer[]>();
  const loose: Peer[] = [];
  const add = (port: number | null, peer: Peer) => {
    if (port === null) {
      loose.push(peer);
      return;
    }
    const list = byPort.get(port);
    if (list) list.push(peer);
    else byPort.set(port, [peer]);
  };
  for (const c of topology.connections) {
    if (c.target_node_id === id) {
      add(c.target_port, { node: c.source_node_id, connection: c, rank: 0 });
    } else if (c.source_node_id === id) {
      const rank = typeOf.get(c.target_node_id) === 'device' ? 1 : 2;
      add(c.source_port, { node: c.target_node_id, connection: c, rank });
    }
  }

  const table = portsOf(device);
  const names = new Map<number, string>();
  const ports: Record<number, PortEntry> = {};
  for (const row of table) {
    if (row.port_idx === undefined) continue;
    const name = row.name?.trim();
    if (name) names.set(row.port_idx, name);
  }
  const indexes = new Set(byPort.keys());
  for (const row of table) {
    if (row.port_idx !== undefined && row.up === true) indexes.add(row.port_idx);
  }
  for (const index of [...indexes].sort((a, b) => a - b)) {
    const peers = byPort.get(index);
    if (peers) {
      ports[index] = entryOf(peers, names.get(index) ?? null, nameOf);
      continue;
    }
    const row = table.find((p) => p.port_idx === index);
    ports[index] = {
      connected_to: null,
      connected_names: [],
      connection_type: null,
      speed_mbps: row?.speed !== undefined && row.speed > 0 ? row.speed : null,
      status: 'up',
      port_name: names.get(index) ?? null,
      connected_nodes: [],
    };
  }
  const unmapped = loose.map((peer) => entryOf([peer], null, nameOf));
  return { device_id: id, name: node.name, ports, unmapped };
}

/** True when a value has the shape of a Topology (front ends get tool results as `unknown`). */
export function isTopology(value: unknown): value is Topology {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<Record<keyof Topology, unknown>>;
  return typeof v.site_id === 'string' && Array.isArray(v.nodes) && Array.isArray(v.connections);
}
