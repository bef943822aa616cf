import { normalizeMac } from '../../lib/mac.js';
import type { ImpactFacts } from '../../policy/types.js';
import { behind, uplinkIndex } from '../../topology/index.js';
import { addressIs, affected, affectedBy, type ImpactInput } from '../core/guardrails.js';
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
  const root = normalizeMac(rootMac) ?? rootMac.toLowerCase();
  return behind(uplinkIndex(devices, clients), [root], port);
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
  // The first of the devices going down, then of the clients behind, at the bot's or the controller's address.
  const lockoutOf = (node: LiveDevice | LiveClient): string | undefined => {
    const who = addressIs(position, node.ip ?? undefined);
    if (!who) return undefined;
    const name = 'hostname' in node ? clientLabel(node as LiveClient) : deviceLabel(node as LiveDevice);
    return `${who} ${node.ip} is ${node === device ? '' : 'behind '}${node === device ? `${label} itself` : `${label} (${name})`}`;
  };
  let lockout: string | undefined;
  for (const list of [down, behind.clients] as const) {
    for (let i = 0; lockout === undefined && i < list.length; i += 1)
      lockout = lockoutOf(list[i] as LiveDevice | LiveClient);
  }
  return {
    target: label,
    targetRecord: device as Record<string, unknown>,
    clients: affectedBy(behind.clients, clientLabel),
    devices: affected(down.map((d) => deviceLabel(d))),
    ...(lockout ? { selfLockout: lockout } : {}),
  };
}
