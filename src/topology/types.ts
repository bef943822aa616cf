/** Whether a node is an adopted device (gateway, switch, AP…) or a client. */
export type NodeType = 'device' | 'client';

/** `uplink` is a wired device-to-device link; `wired`/`wireless` are client links, and a mesh uplink is `wireless`. */
export type ConnectionType = 'uplink' | 'wired' | 'wireless';

/** A link is up or down; spec §3. */
export type LinkStatus = 'up' | 'down';

/** A node of the topology (spec §2.5), keyed by its lower-case MAC. */
export interface TopologyNode {
  node_id: string;
  node_type: NodeType;
  /** Display name: device name, else client alias, else hostname, else the MAC. */
  name: string;
  mac: string;
  ip: string | null;
  /** Devices only (the key is absent on clients, as the spec says). */
  model?: string | null;
  /** Devices only: the controller's `type` (`udm`, `ugw`, `usw`, `uap`…), for styling and grouping. */
  device_type?: string | null;
  /** The upstream device, or null for a root (the gateway, or a device whose uplink is unknown or cut). */
  uplink_device_id: string | null;
  /** Port index on the upstream device; null when unknown or wireless. */
  uplink_port: number | null;
  /** Devices between this node and its root: 0 for the gateway and everything directly on it (spec §2.5). */
  uplink_depth: number;
  /** 1 online, 0 offline (a device `state` other than 1 counts as offline). */
  state: 0 | 1;
  /** Layered-layout position, present only when coordinates were asked for. */
  x?: number;
  y?: number;
}

/** A link between two nodes (spec §2.5); the source is always the upstream end. */
export interface TopologyConnection {
  /** `uplink:<child-mac>` for device links, `client:<client-mac>` for client links. */
  connection_id: string;
  source_node_id: string;
  target_node_id: string;
  connection_type: ConnectionType;
  /** Port index on the source (upstream) device; null when unknown or wireless. */
  source_port: number | null;
  /** The target device's own port for a device uplink; null for clients and when unknown. */
  target_port: number | null;
  speed_mbps: number | null;
  is_uplink: boolean;
  status: LinkStatus;
}

/** The result of get_network_topology (spec §4.9). */
export interface Topology {
  site_id: string;
  generated_at: string;
  nodes: TopologyNode[];
  connections: TopologyConnection[];
  total_devices: number;
  total_clients: number;
  total_connections: number;
  max_depth: number;
  has_coordinates: boolean;
}

/** One port of get_port_mappings (spec §2.5), with the bot's additions noted. */
export interface PortEntry {
  /** The peer's node id; null for a port that is up with no known peer. */
  connected_to: string | null;
  /**
   * The bot's addition: the names of `connected_nodes`, in the same order (device, client alias,
   * hostname, else MAC).
   */
  connected_names: string[];
  connection_type: ConnectionType | null;
  speed_mbps: number | null;
  status: LinkStatus;
  /** Addition: the port's name from the device's port table, when it has one. */
  port_name: string | null;
  /** Addition: every peer seen on the port (several clients behind an unmanaged switch share one). */
  connected_nodes: string[];
}

/** The result of get_port_mappings. */
export interface PortMappings {
  device_id: string;
  name: string;
  /** Keyed by port index. */
  ports: Record<number, PortEntry>;
  /** Addition: links of the device without a port index (wireless clients, mesh links, unreported remote ports). */
  unmapped: PortEntry[];
}

/** The result of get_topology_statistics (spec §4.9 plus a few counts the topology already holds). */
export interface TopologyStatistics {
  site_id: string;
  total_devices: number;
  total_clients: number;
  total_connections: number;
  max_depth: number;
  generated_at: string;
  offline_devices: number;
  down_connections: number;
  wired_clients: number;
  wireless_clients: number;
}
