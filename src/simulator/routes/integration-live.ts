import { DEMO_CORE_SWITCH_UUID, DEMO_DEVICES } from '../demo-ids.js';
import { json } from '../envelopes.js';
import type { Router } from '../router.js';
import type { ClientRecord, DeviceRecord, SiteState } from '../state.js';
import { type Handler, param, uuidSite } from './context.js';
import { listPage, notFound } from './integration-common.js';

/*
 * Integration `devices` and `clients` (GET only), computed from the same stat/device and stat/sta
 * records the classic routes serve, so both APIs always agree. Shapes follow the official Network
 * API document (10.1.85) and the captured fixtures: a device's `state` is ONLINE, OFFLINE,
 * UPDATING, PENDING_ADOPTION…; a client's `type` WIRED, WIRELESS or VPN, and `access.type`.
 */

/**
 * The Integration UUID of a device or client: the core switch keeps the one an ACL rule names;
 * the others are derived from the MAC, so they are stable across resets and seeds.
 */
export function integrationIdOf(mac: string): string {
  if (mac === DEMO_DEVICES.coreSwitch.mac) return DEMO_CORE_SWITCH_UUID;
  const hex = mac.replaceAll(':', '').toLowerCase().padStart(12, '0');
  return `00000000-0000-4000-8000-${hex}`;
}

// classic state int → Integration state (aiounifi DeviceState for the ints).
const STATES: Record<number, string> = {
  0: 'OFFLINE',
  1: 'ONLINE',
  2: 'PENDING_ADOPTION',
  4: 'UPDATING',
  5: 'GETTING_READY',
  7: 'ADOPTING',
  9: 'CONNECTION_INTERRUPTED',
  10: 'ADOPTION_FAILED',
  11: 'ISOLATED',
};

function deviceState(device: DeviceRecord): string {
  return STATES[device.state] ?? 'OFFLINE';
}

function deviceOverview(device: DeviceRecord) {
  const radios = Array.isArray(device.radio_table) && device.radio_table.length > 0;
  const ports = Array.isArray(device.port_table) && device.port_table.length > 0;
  return {
    id: integrationIdOf(device.mac),
    macAddress: device.mac,
    ipAddress: device.ip,
    name: device.name ?? '',
    model: device.model,
    state: deviceState(device),
    features: [...(device.type === 'uap' ? ['accessPoint'] : ['switching'])],
    interfaces: [...(ports ? ['ports'] : []), ...(radios ? ['radios'] : [])],
  };
}

interface PortRow {
  port_idx?: number;
  up?: boolean;
  speed?: number;
  media?: string;
  port_poe?: boolean;
  poe_enable?: boolean;
}

function deviceDetail(site: SiteState, device: DeviceRecord) {
  const uplinkMac = (device.uplink as { uplink_mac?: string } | undefined)?.uplink_mac;
  const parent = uplinkMac ? site.devices.find((d) => d.mac === uplinkMac) : undefined;
  const ports = ((device.port_table as PortRow[] | undefined) ?? []).map((row) => ({
    idx: row.port_idx,
    state: row.up ? 'UP' : 'DOWN',
    connector: row.media === 'SFP+' ? 'SFPPLUS' : 'RJ45',
    speedMbps: row.speed ?? 0,
    ...(row.port_poe
      ? { poe: { enabled: row.poe_enable === true, state: row.poe_enable ? 'UP' : 'DOWN' } }
      : {}),
  }));
  return {
    ...deviceOverview(device),
    supported: true,
    firmwareVersion: device.version,
    firmwareUpdatable: device.upgradable === true,
    ...(parent ? { uplink: { deviceId: integrationIdOf(parent.mac) } } : {}),
    interfaces: { ports, radios: [] },
  };
}

function clientView(site: SiteState, client: ClientRecord) {
  const uplinkMac = (client.ap_mac ?? client.sw_mac) as string | undefined;
  const type = client.is_wired ? (client.sw_mac === undefined ? 'VPN' : 'WIRED') : 'WIRELESS';
  const assoc = typeof client.assoc_time === 'number' ? client.assoc_time : undefined;
  return {
    id: integrationIdOf(client.mac),
    type,
    name: client.name || client.hostname || client.mac,
    macAddress: client.mac,
    ipAddress: client.ip,
    ...(assoc !== undefined
      ? { connectedAt: new Date(assoc * 1000).toISOString().replace('.000Z', 'Z') }
      : {}),
    access: { type: client.is_guest ? 'GUEST' : 'DEFAULT' },
    ...(uplinkMac && site.devices.some((d) => d.mac === uplinkMac)
      ? { uplinkDeviceId: integrationIdOf(uplinkMac) }
      : {}),
  };
}

/** Registers GET `devices`, `devices/{id}`, `clients` and `clients/{id}` under a site. */
export function registerIntegrationLive(router: Router<Handler>): void {
  const base = '/integration/v1/sites/:siteId';
  // Deliberately alike: route registrations share the router's chain shape; each handler reads its own records.
  router
    .on(
      'GET',
      `${base}/devices`,
      uuidSite((ctx, site) => listPage(ctx, site.devices.map(deviceOverview))),
    )
    .on(
      'GET',
      `${base}/devices/:id`,
      uuidSite((ctx, site) => {
        const id = param(ctx, 'id');
        const device = site.devices.find((d) => integrationIdOf(d.mac) === id);
        if (!device) throw notFound('Device', id);
        return json(deviceDetail(site, device));
      }),
    )
    .on(
      'GET',
      `${base}/clients`,
      uuidSite((ctx, site) =>
        listPage(
          ctx,
          site.clients.map((c) => clientView(site, c)),
        ),
      ),
    )
    .on(
      'GET',
      `${base}/clients/:id`,
      uuidSite((ctx, site) => {
        const id = param(ctx, 'id');
        const client = site.clients.find((c) => integrationIdOf(c.mac) === id);
        if (!client) throw notFound('Client', id);
        return json(clientView(site, client));
      }),
    );
}
