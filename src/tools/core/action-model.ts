import { z } from 'zod';
import { NotSupportedError, ResourceNotFoundError } from '../../errors.js';
import type { OfficialOperation } from '../../gateway/capabilities.js';
import type { Gateway, WriteMethod } from '../../gateway/types.js';
import { normalizeMac } from '../../lib/mac.js';
import { fastLenientObject } from '../../records/fast-lenient.js';
import { stringish } from '../../records/lenient.js';
import { behind, macId, uplinkIndex } from '../../topology/index.js';
import { clientLabel, deviceLabel, type LiveClient, type LiveDevice } from './live-targets.js';

/*
 * What the on-call actions share: the one command each sends (Integration when the
 * console offers it, classic otherwise, docs/decisions.md, "On-call actions"), how it is shown in
 * a preview, and the blast radius, counted on the topology graph.
 */

/** The one controller request an action sends, shown in its preview exactly as sent. */
export type ControllerCommand =
  | { api: 'integration'; method: WriteMethod; path: string; body?: Record<string, unknown> }
  | { api: 'classic'; method: WriteMethod; path: string; body: Record<string, unknown> };

/** Sends the command once (writes are never retried); returns the controller's answer. */
export async function sendCommand(
  gateway: Gateway,
  site: string,
  command: ControllerCommand,
): Promise<unknown> {
  if (command.api === 'integration') {
    return gateway.integrationWrite(site, command.method, command.path, command.body);
  }
  return gateway.classicWrite(site, command.method, command.path, command.body);
}

/**
 * Whether the official API serves `operation` for the site: it needs an API key (a session reaches
 * only the classic API) and a console whose version offers it (the capability table).
 * Decided without a request when there is no key; else the site lookup and `info` (both cached).
 */
export async function integrationAvailable(
  gateway: Gateway,
  site: string,
  operation: OfficialOperation,
): Promise<boolean> {
  try {
    // Side by side: a first read after start costs one round trip for both, not two.
    const [, offered] = await Promise.all([gateway.resolveSiteUuid(site), gateway.offers(operation)]);
    return offered;
  } catch (error) {
    if (error instanceof NotSupportedError) return false;
    throw error;
  }
}

// Fast: a gateway's restart reads every device of the site to find its Integration id (2,000 at a large one).
const integrationIdentity = fastLenientObject(
  z.looseObject({ id: z.string().min(1), macAddress: stringish }),
);

/** The Integration id of a device (the list is short and not filterable on every version: matched by MAC). */
export async function integrationDeviceId(
  gateway: Gateway,
  site: string,
  device: LiveDevice,
): Promise<string> {
  const mac = normalizeMac(device.mac) ?? device.mac.toLowerCase();
  const { items } = await gateway.integrationList(site, 'devices', integrationIdentity, { fresh: true });
  const found = items.find((d) => d.macAddress !== undefined && normalizeMac(d.macAddress) === mac);
  if (!found) {
    throw new ResourceNotFoundError(
      'device',
      deviceLabel(device),
      `device ${deviceLabel(device)} (${mac}) is not in the Integration API's device list (is it adopted?)`,
    );
  }
  return found.id;
}

/** The Integration id of an online client, looked up with the documented `macAddress.eq(…)` filter. */
export async function integrationClientId(
  gateway: Gateway,
  site: string,
  client: LiveClient,
): Promise<string> {
  const mac = normalizeMac(client.mac) ?? client.mac.toLowerCase();
  const { items } = await gateway.integrationList(site, 'clients', integrationIdentity, {
    fresh: true,
    filter: `macAddress.eq('${mac}')`,
  });
  const found = items.find((c) => c.macAddress === undefined || normalizeMac(c.macAddress) === mac);
  if (!found) {
    throw new ResourceNotFoundError(
      'client',
      clientLabel(client),
      `client ${clientLabel(client)} (${mac}) is not connected now (the Integration API lists connected clients only)`,
    );
  }
  return found.id;
}

/** What goes dark when a device (or what one port powers) goes down. */
export interface BlastRadius {
  /** The online devices behind it, by name (not counting the device itself). */
  devices: string[];
  /** Clients attached to it or to any device behind it. */
  clients: number;
}

/**
 * The devices and clients that lose their path when the devices `roots` go down: the roots'
 * subtrees on the topology graph (device uplinks, wired and wireless client links).
 */
export function blastRadius(
  devices: readonly LiveDevice[],
  clients: readonly LiveClient[],
  roots: readonly string[],
): BlastRadius {
  const found = behind(
    uplinkIndex(devices, clients),
    roots.map((r) => normalizeMac(r) ?? r.toLowerCase()),
  );
  // An offline device is down already: it loses nothing, but what hangs off it is still counted.
  const online = found.devices.filter((device) => device.state === 1);
  return {
    devices: online.map((device) => device.name?.trim() || macId(device.mac)),
    clients: found.clients.length,
  };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * "Core Switch: 23 clients and 3 devices behind it lose connectivity for about 2 minutes". The
 * counts are live, so the sentence is a warning (warnings are left out of the drift check).
 */
export function outageSentence(
  subject: string,
  radius: BlastRadius,
  duration: string,
  extraClients = 0,
): string {
  const clients = radius.clients + extraClients;
  const parts = [
    ...(clients > 0 ? [plural(clients, 'client')] : []),
    ...(radius.devices.length > 0
      ? [`${plural(radius.devices.length, 'device')} (${radius.devices.join(', ')})`]
      : []),
  ];
  if (parts.length === 0)
    return `${subject}: nothing else is connected through it; it is unreachable ${duration}`;
  const they = clients + radius.devices.length === 1 ? 'loses' : 'lose';
  return `${subject}: ${parts.join(' and ')} behind it ${they} connectivity ${duration}`;
}

/** How long a device is away after a restart, as the preview says it (a gateway takes longer). */
export function restartDuration(device: LiveDevice): string {
  return ['udm', 'ugw', 'uxg'].includes(device.type ?? '') ? 'for about 5 minutes' : 'for about 2 minutes';
}

/** A device as an action's preview and result name it. */
export function deviceSummary(device: LiveDevice) {
  return {
    name: deviceLabel(device),
    mac: device.mac,
    ...(device.model ? { model: device.model } : {}),
    ...(device.ip ? { ip: device.ip } : {}),
  };
}

// Deliberately alike: device and client summaries name different optional fields; each is what its own actions show.
/** A client as an action's preview and result name it. */
export function clientSummary(client: LiveClient) {
  return {
    name: clientLabel(client),
    mac: client.mac,
    ...(client.ip ? { ip: client.ip } : {}),
    ...(client.network ? { network: client.network } : {}),
  };
}

/** The result shape every action shares, for MCP's output schema. */
export const actionResultSchema = z.object({
  success: z.literal(true).describe('The controller accepted the command'),
  action: z.string().describe('What was done'),
  sent: z
    .looseObject({ api: z.enum(['integration', 'classic']), method: z.string(), path: z.string() })
    .describe('The one request sent to the controller'),
  warnings: z.array(z.string()).describe('What the action affects (blast radius) and notes'),
});
