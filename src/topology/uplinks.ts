/**
 * The uplink tree alone: which devices and clients hang off which device, and on which port.
 * The same edges buildTopology draws (the same uplink rules, cycles broken the same way, siblings
 * in the same order), without the nodes, names, speeds and sorting of 50,000 clients a picture or
 * an export needs. A write preview walks it for its blast radius; built once per pair of record
 * lists (a snapshot's), however many walks the preview and the policy's facts make.
 */

import { eachClient, positive, sortKey, text, uplinkFacts } from './build.js';
import { placeNodes } from './depth.js';
import { macId } from './mac.js';
import type { TopologyClient, TopologyDevice } from './records.js';

/** A device directly behind another, and the port of the upstream device it hangs off (or null). */
export interface DeviceChild<D> {
  id: string;
  port: number | null;
  record: D;
}

/** What hangs directly off one device: its devices by name, then its clients with their ports. */
export interface Children<D, C> {
  devices: DeviceChild<D>[];
  clients: C[];
  /** The port of the device each client hangs off (null: wireless, or unknown), by the clients' order. */
  clientPorts: (number | null)[];
}

export interface UplinkIndex<D, C> {
  /** Devices by node id (normalised MAC); the first record of a MAC wins, as in the topology. */
  readonly devices: ReadonlyMap<string, D>;
  /** What hangs directly off a device (nothing for an unknown id). */
  childrenOf(id: string): Children<D, C>;
}

const NONE: Children<never, never> = { devices: [], clients: [], clientPorts: [] };
const built = new WeakMap<object, WeakMap<object, UplinkIndex<never, never>>>();

/** The uplink tree of these records; the same lists give the same index, built once. */
export function uplinkIndex<D extends TopologyDevice, C extends TopologyClient>(
  deviceRecords: readonly D[],
  clientRecords: readonly C[],
): UplinkIndex<D, C> {
  let byClients = built.get(deviceRecords);
  if (byClients === undefined) {
    byClients = new WeakMap();
    built.set(deviceRecords, byClients);
  }
  const known = byClients.get(clientRecords) as UplinkIndex<D, C> | undefined;
  if (known !== undefined) return known;
  const index = buildIndex(deviceRecords, clientRecords);
  byClients.set(clientRecords, index as unknown as UplinkIndex<never, never>);
  return index;
}

function buildIndex<D extends TopologyDevice, C extends TopologyClient>(
  deviceRecords: readonly D[],
  clientRecords: readonly C[],
): UplinkIndex<D, C> {
  const devices = new Map<string, D>();
  const uplinks = new Map<string, ReturnType<typeof uplinkFacts>>();
  const children = new Map<string, Children<D, C>>();
  for (const record of deviceRecords) {
    const id = macId(record.mac);
    if (devices.has(id)) continue;
    devices.set(id, record);
    uplinks.set(id, uplinkFacts(record));
    children.set(id, { devices: [], clients: [], clientPorts: [] });
  }
  const placement = placeNodes(new Map([...uplinks].map(([id, uplink]) => [id, uplink.parent])));
  for (const [id, record] of devices) {
    const parent = placement.get(id)?.parent ?? null;
    const under = parent === null ? undefined : children.get(parent);
    under?.devices.push({ id, port: uplinks.get(id)?.remotePort ?? null, record });
  }
  // Siblings in the topology's tree order: by name as people read it, then by MAC.
  const keys = new Map<string, string>();
  const keyOf = (child: DeviceChild<D>) => {
    let key = keys.get(child.id);
    if (key === undefined) {
      key = sortKey(text(child.record.name) ?? child.id);
      keys.set(child.id, key);
    }
    return key;
  };
  const order = (a: DeviceChild<D>, b: DeviceChild<D>) => {
    const ka = keyOf(a);
    const kb = keyOf(b);
    if (ka !== kb) return ka < kb ? -1 : 1;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };
  for (const each of children.values()) if (each.devices.length > 1) each.devices.sort(order);
  eachClient(clientRecords, devices, (record, _id, wireless, parentMac) => {
    const under = parentMac ? children.get(macId(parentMac)) : undefined;
    if (under === undefined) return;
    under.clients.push(record);
    under.clientPorts.push(wireless ? null : positive(record.sw_port));
  });
  return { devices, childrenOf: (id) => children.get(id) ?? (NONE as Children<D, C>) };
}

/**
 * Everything behind `roots` (node ids) on the tree, breadth first: the devices (in the topology's
 * order) and the clients. With `port`, only what hangs off that port of the roots. A client hangs
 * off one device only (the index keeps each client MAC once), so only devices are checked for a
 * second visit, and a device's clients are taken as a list.
 */
export function behind<D, C>(
  index: UplinkIndex<D, C>,
  roots: readonly string[],
  port?: number,
): { devices: D[]; clients: C[] } {
  const found = { devices: [] as D[], clients: [] as C[] };
  const seen = new Set(roots);
  const queue = [...roots];
  for (let head = 0; head < queue.length; head += 1) {
    const children = index.childrenOf(queue[head] as string);
    const onePort = head < roots.length && port !== undefined;
    for (const child of children.devices) {
      if (onePort && child.port !== port) continue;
      if (seen.has(child.id)) continue;
      seen.add(child.id);
      found.devices.push(child.record);
      queue.push(child.id);
    }
    if (!onePort) {
      for (const client of children.clients) found.clients.push(client);
      continue;
    }
    for (let i = 0; i < children.clients.length; i += 1)
      if (children.clientPorts[i] === port) found.clients.push(children.clients[i] as C);
  }
  return found;
}
