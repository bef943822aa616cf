import { placeNodes, uplinkDepth } from './depth.js';
import { isGatewayType } from './device-kinds.js';
import { layeredLayout } from './layout.js';
import { macId } from './mac.js';
import { portsOf, type TopologyClient, type TopologyDevice } from './records.js';
import type { ConnectionType, Topology, TopologyConnection, TopologyNode } from './types.js';

/** What the caller decides: the site, the timestamp (kept out so the build stays pure), and coordinates. */
export interface BuildOptions {
  siteId: string;
  generatedAt: string;
  includeCoordinates?: boolean;
}

/** The uplink a device reports: the current one when it names a parent, else the last known one. */
export interface UplinkFacts {
  parent: string | undefined;
  remotePort: number | null;
  localPort: number | null;
  wireless: boolean;
  /** `uplink.up` of a current uplink; undefined when unknown (a last_uplink carries no link state). */
  up: boolean | undefined;
  speed: number | null;
}

/** A device record reduced to what the graph needs. */
interface DeviceFacts {
  id: string;
  record: TopologyDevice;
  name: string;
  key: string;
  online: boolean;
  uplink: UplinkFacts;
  /** Position in tree order, and links from the root; set once the tree is ordered. */
  order: number;
  level: number;
}

export const positive = (n: number | undefined): number | null => (n !== undefined && n > 0 ? n : null);
export const text = (s: string | undefined): string | undefined => {
  const trimmed = s?.trim();
  return trimmed ? trimmed : undefined;
};
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A sort key that orders names the way people read them: case-insensitive, "AP 2" before "AP 10". */
export function sortKey(name: string): string {
  return name.toLowerCase().replace(/\d+/g, (digits) => digits.padStart(12, '0'));
}

/** The parent a device reports and how it hangs off it (uplinks.ts walks the same edges). */
export function uplinkFacts(record: TopologyDevice): UplinkFacts {
  const current = record.uplink?.uplink_mac ? record.uplink : undefined;
  const source = current ?? (record.last_uplink?.uplink_mac ? record.last_uplink : undefined);
  const wireless = source?.type === 'wireless';
  let localPort: number | null = null;
  if (!wireless) {
    localPort = source?.port_idx ?? null;
    // A port table row flagged as the uplink names the local port when the uplink object does not.
    if (localPort === null && source) {
      const flagged = portsOf(record).filter((p) => p.is_uplink === true && p.port_idx !== undefined);
      if (flagged.length === 1) localPort = flagged[0]?.port_idx ?? null;
    }
  }
  return {
    parent: source?.uplink_mac ? macId(source.uplink_mac) : undefined,
    remotePort: wireless ? null : positive(source?.uplink_remote_port),
    localPort,
    wireless,
    up: current ? current.up : undefined,
    speed: current && !wireless ? positive(current.speed) : null,
  };
}

/** The speed of a device's port from its port table, when that port is up. */
function portSpeed(record: TopologyDevice | undefined, port: number | null): number | null {
  if (!record || port === null) return null;
  const row = portsOf(record).find((p) => p.port_idx === port);
  return row && row.up !== false ? positive(row.speed) : null;
}

/** A client's display name: its alias, else its hostname, else its MAC. */
function clientName(client: TopologyClient, mac: string): string {
  return text(client.name) ?? text(client.hostname) ?? mac;
}

/**
 * Calls `visit` for each client record once, with whether it is wireless and the MAC of the device
 * it hangs off. Node ids must be unique: a MAC already used by a device (or an earlier client) is
 * skipped.
 */
export function eachClient<C extends TopologyClient>(
  records: readonly C[],
  devices: ReadonlyMap<string, unknown>,
  visit: (record: C, id: string, wireless: boolean, parentMac: string | undefined) => void,
): void {
  const seen = new Set<string>();
  for (const record of records) {
    const id = macId(record.mac);
    if (devices.has(id) || seen.has(id)) continue;
    seen.add(id);
    const wireless = record.is_wired === false || (record.is_wired === undefined && Boolean(record.ap_mac));
    // A wireless record also carries sw_mac/sw_port (its AP's switch port): never use those for it.
    visit(record, id, wireless, wireless ? record.ap_mac : record.sw_mac);
  }
}

/**
 * Builds the topology of one site from `stat/device` and `stat/sta` records (DESIGN §6, spec
 * §2.5). Device parents come from `uplink.uplink_mac`, else `last_uplink`; remote ports may be
 * missing (null). Wired clients hang off `sw_mac`/`sw_port`, wireless ones off `ap_mac`. Depth
 * walks the chain (order-independent; cycles broken; unknown parents make roots). The output
 * order is fixed by the data, never by the input order: devices in tree order (roots first,
 * children by name), then clients grouped under their device.
 *
 * One function: its passes over devices, ports and clients share the indexes they build, and it
 * runs once per read of a site of up to 50,000 clients, where each pass is measured
 * (docs/performance.md, "Topology").
 */
export function buildTopology(
  deviceRecords: readonly TopologyDevice[],
  clientRecords: readonly TopologyClient[],
  options: BuildOptions,
): Topology {
  const devices = new Map<string, DeviceFacts>();
  for (const record of deviceRecords) {
    const id = macId(record.mac);
    // A controller never lists a MAC twice; anonymised fixtures do. The first record wins.
    if (devices.has(id)) continue;
    devices.set(id, {
      id,
      record,
      name: text(record.name) ?? id,
      key: sortKey(text(record.name) ?? id),
      online: record.state === 1,
      uplink: uplinkFacts(record),
      order: 0,
      level: 0,
    });
  }

  const placement = placeNodes(new Map([...devices.values()].map((d) => [d.id, d.uplink.parent])));
  const childrenOf = new Map<string | null, DeviceFacts[]>();
  for (const device of devices.values()) {
    const parent = placement.get(device.id)?.parent ?? null;
    const list = childrenOf.get(parent);
    if (list) list.push(device);
    else childrenOf.set(parent, [device]);
  }
  const byName = (a: DeviceFacts, b: DeviceFacts) => byText(a.key, b.key) || byText(a.id, b.id);
  for (const list of childrenOf.values()) list.sort(byName);
  // Roots: real gateways (no parent reported) before devices whose uplink is unknown or was cut.
  const rootRank = (d: DeviceFacts) =>
    d.uplink.parent === undefined ? (isGatewayType(d.record.type) ? 0 : 1) : 2;
  childrenOf.get(null)?.sort((a, b) => rootRank(a) - rootRank(b) || byName(a, b));

  // Tree order (pre-order), iteratively.
  const ordered: DeviceFacts[] = [];
  const stack = [...(childrenOf.get(null) ?? [])].reverse();
  while (stack.length > 0) {
    const device = stack.pop();
    if (!device) break;
    ordered.push(device);
    const kids = childrenOf.get(device.id) ?? [];
    for (let i = kids.length - 1; i >= 0; i--) {
      const kid = kids[i];
      if (kid) stack.push(kid);
    }
  }

  const nodes: TopologyNode[] = [];
  const connections: TopologyConnection[] = [];
  // Parent of every node by position in `nodes`, for the layout (-1 for a root).
  const parentIndex: number[] = [];
  ordered.forEach((device, index) => {
    device.order = index;
  });
  let maxDepth = 0;
  for (const device of ordered) {
    const place = placement.get(device.id) ?? { parent: null, level: 0 };
    device.level = place.level;
    const parent = place.parent === null ? undefined : devices.get(place.parent);
    const { uplink, record } = device;
    const depth = uplinkDepth(place.level);
    if (depth > maxDepth) maxDepth = depth;
    nodes.push({
      node_id: device.id,
      node_type: 'device',
      name: device.name,
      mac: device.id,
      ip: text(record.ip) ?? null,
      model: text(record.model) ?? null,
      device_type: text(record.type) ?? null,
      uplink_device_id: parent ? parent.id : null,
      uplink_port: parent ? uplink.remotePort : null,
      uplink_depth: depth,
      state: device.online ? 1 : 0,
    });
    parentIndex.push(parent ? parent.order : -1);
    if (!parent) continue;
    const up = device.online && parent.online && uplink.up !== false;
    connections.push({
      connection_id: `uplink:${device.id}`,
      source_node_id: parent.id,
      target_node_id: device.id,
      connection_type: uplink.wireless ? 'wireless' : 'uplink',
      source_port: uplink.remotePort,
      target_port: uplink.localPort,
      speed_mbps:
        !up || uplink.wireless ? null : (uplink.speed ?? portSpeed(parent.record, uplink.remotePort)),
      is_uplink: true,
      status: up ? 'up' : 'down',
    });
  }

  // Clients are kept in flat arrays and bucketed by device (the last bucket: no known device),
  // then sorted by name within each bucket: cheaper than one big sort of wrapper objects.
  const clientNodes: TopologyNode[] = [];
  const clientLinks: (TopologyConnection | undefined)[] = [];
  const clientKeys: string[] = [];
  const buckets: number[][] = Array.from({ length: ordered.length + 1 }, () => []);
  eachClient(clientRecords, devices, (record, id, wireless, parentMac) => {
    const parent = parentMac ? devices.get(macId(parentMac)) : undefined;
    const port = parent && !wireless ? positive(record.sw_port) : null;
    const type: ConnectionType = wireless ? 'wireless' : 'wired';
    const name = clientName(record, id);
    clientNodes.push({
      node_id: id,
      node_type: 'client',
      name,
      mac: id,
      ip: text(record.ip) ?? null,
      uplink_device_id: parent ? parent.id : null,
      uplink_port: port,
      uplink_depth: uplinkDepth(parent ? parent.level + 1 : 0),
      state: 1,
    });
    const up = parent?.online === true;
    clientLinks.push(
      parent
        ? {
            connection_id: `client:${id}`,
            source_node_id: parent.id,
            target_node_id: id,
            connection_type: type,
            source_port: port,
            target_port: null,
            speed_mbps:
              !up || wireless ? null : (positive(record.wired_rate_mbps) ?? portSpeed(parent.record, port)),
            is_uplink: false,
            status: up ? 'up' : 'down',
          }
        : undefined,
    );
    clientKeys.push(sortKey(name));
    buckets[parent ? parent.order : ordered.length]?.push(clientNodes.length - 1);
  });
  const byKey = (a: number, b: number) =>
    byText(clientKeys[a] ?? '', clientKeys[b] ?? '') ||
    byText(clientNodes[a]?.node_id ?? '', clientNodes[b]?.node_id ?? '');
  buckets.forEach((bucket, owner) => {
    bucket.sort(byKey);
    for (const i of bucket) {
      const node = clientNodes[i];
      if (!node) continue;
      nodes.push(node);
      parentIndex.push(owner < ordered.length ? owner : -1);
      const connection = clientLinks[i];
      if (connection) connections.push(connection);
    }
  });

  const includeCoordinates = options.includeCoordinates === true;
  if (includeCoordinates) {
    const { x, y } = layeredLayout(parentIndex);
    nodes.forEach((node, i) => {
      node.x = x[i] ?? 0;
      node.y = y[i] ?? 0;
    });
  }
  return {
    site_id: options.siteId,
    generated_at: options.generatedAt,
    nodes,
    connections,
    total_devices: ordered.length,
    total_clients: clientNodes.length,
    total_connections: connections.length,
    max_depth: maxDepth,
    has_coordinates: includeCoordinates,
  };
}
