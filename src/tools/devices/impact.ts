import { normalizeMac } from '../../lib/mac.js';
import type { ImpactFacts } from '../../policy/types.js';
import { buildTopology } from '../../topology/build.js';
import { addressIs, affected, type ImpactInput } from '../core/guardrails.js';
import {
  clientLabel,
  deviceLabel,
  findLiveDevice,
  type LiveClient,
  type LiveDevice,
  readLiveClients,
  readLiveDevices,
} from '../core/live-targets.js';

/** The blast radius of a device action: what hangs off the device (or one of its ports). */

/** Devices and clients behind `rootMac` (or only behind its port `port`) on the uplink tree. */
function downstream(
  devices: readonly LiveDevice[],
  clients: readonly LiveClient[],
  rootMac: string,
  port?: number,
): { devices: LiveDevice[]; clients: LiveClient[] } {
  const topology = buildTopology(devices, clients, { siteId: '', generatedAt: '' });
  const children = new Map<string, string[]>();
  const root = normalizeMac(rootMac) ?? rootMac.toLowerCase();
  for (const c of topology.connections) {
    if (c.source_node_id === root && port !== undefined && c.source_port !== port) continue;
    const list = children.get(c.source_node_id);
    if (list) list.push(c.target_node_id);
    else children.set(c.source_node_id, [c.target_node_id]);
  }
  const byMac = new Map<string, LiveDevice | LiveClient>();
  for (const d of devices) byMac.set(normalizeMac(d.mac) ?? d.mac, d);
  const clientMacs = new Set<string>();
  for (const c of clients) {
    const mac = normalizeMac(c.mac) ?? c.mac;
    byMac.set(mac, c);
    clientMacs.add(mac);
  }
  const found = { devices: [] as LiveDevice[], clients: [] as LiveClient[] };
  const seen = new Set([root]);
  const queue = [root];
  while (queue.length > 0) {
    const id = queue.shift() as string;
    for (const child of children.get(id) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      const record = byMac.get(child);
      if (!record) continue;
      if (clientMacs.has(child)) found.clients.push(record as LiveClient);
      else {
        found.devices.push(record as LiveDevice);
        queue.push(child);
      }
    }
  }
  return found;
}

export async function deviceImpact(input: ImpactInput): Promise<ImpactFacts> {
  const { context, site, tool, args, position } = input;
  const live = { gateway: context.gateway, site };
  const [devices, clients] = await Promise.all([
    readLiveDevices(live, { fresh: true }),
    readLiveClients(live, { fresh: true }),
  ]);
  const device = findLiveDevice(devices, String(args.device_id ?? ''));
  const port = tool === 'power_cycle_port' && typeof args.port_idx === 'number' ? args.port_idx : undefined;
  const behind = downstream(devices, clients, device.mac, port);
  const label = `device ${deviceLabel(device)}${port !== undefined ? ` port ${port}` : ''}`;
  // A restart takes the device itself down too; a port power cycle only what hangs off the port.
  const down = port === undefined ? [device, ...behind.devices] : behind.devices;
  let lockout: string | undefined;
  for (const node of [...down, ...behind.clients]) {
    const who = addressIs(position, node.ip ?? undefined);
    if (who) {
      const name = 'hostname' in node ? clientLabel(node as LiveClient) : deviceLabel(node as LiveDevice);
      lockout = `${who} ${node.ip} is ${node === device ? '' : 'behind '}${node === device ? `${label} itself` : `${label} (${name})`}`;
      break;
    }
  }
  return {
    target: label,
    targetRecord: device as Record<string, unknown>,
    clients: affected(behind.clients.map((c) => clientLabel(c))),
    devices: affected(down.map((d) => deviceLabel(d))),
    ...(lockout ? { selfLockout: lockout } : {}),
  };
}
