import { createHash } from 'node:crypto';
import { DEMO_DEVICES, DEMO_NETWORKS, DEMO_SITE } from './demo-ids.js';
import type { ClientRecord, DeviceRecord, SiteState } from './state.js';

/**
 * The on-call actions as the simulated controller carries them out, with one
 * consistent state behind both APIs: a restarted device goes offline with everything behind it and
 * comes back after `actionDelayMs`; a power-cycled PoE port drops what it powers for the same
 * time; a kicked client reconnects after it; a blocked client, or one whose SSID is disabled,
 * stays away until unblocked or re-enabled. Time is checked lazily (`settle`, before every
 * request), so nothing runs between requests and a test controls it with the delay alone.
 */

/** Why a client is not in `stat/sta` right now. */
export type AwayReason = 'blocked' | 'kicked' | 'device-restart' | 'port-power-cycle' | 'wifi-disabled';

/** A client that has dropped off the network: back at `until` (epoch ms), or when its cause ends (null). */
export interface AwayClient {
  record: ClientRecord;
  reason: AwayReason;
  until: number | null;
}

/** A device restarting (or unpowered): `state` 0 until `until` (epoch ms). */
export interface DeviceOutage {
  mac: string;
  until: number;
}

/** A guest's authorization, as Integration `grantedAuthorization` shows it. */
export interface GuestAuthorization {
  authorizedAt: string;
  authorizationMethod: 'MANUAL' | 'VOUCHER';
  expiresAt: string;
  timeLimitMinutes: number;
  dataUsageLimitMBytes?: number;
  rxRateLimitKbps?: number;
  txRateLimitKbps?: number;
}

/** A hotspot voucher; classic `stat/voucher` and Integration `hotspot/vouchers` are two views of it. */
export interface Voucher {
  _id: string;
  id: string;
  /** Ten digits; shown as 12345-67890. */
  code: string;
  createdAt: number;
  note: string;
  timeLimitMinutes: number;
  /** How many guests may use it; null = any number. */
  authorizedGuestLimit: number | null;
  authorizedGuestCount: number;
  dataUsageLimitMBytes?: number;
  rxRateLimitKbps?: number;
  txRateLimitKbps?: number;
}

/** What the actions add to a site. */
export interface LiveActionState {
  away: AwayClient[];
  outages: DeviceOutage[];
  /** MACs of blocked clients (classic `rest/user` shows them with `blocked: true`). */
  blocked: string[];
  guestAuthorizations: Record<string, GuestAuthorization>;
  vouchers: Voucher[];
}

/** The action state of a freshly seeded site: one blocked client and two vouchers. */
export function demoLiveActionState(now: number): LiveActionState {
  const voucher = (
    n: number,
    code: string,
    note: string,
    minutes: number,
    limit: number | null,
  ): Voucher => ({
    _id: `65b3c8e1f4a9d20c7e5a17${String(n).padStart(2, '0')}`,
    id: uuidFrom(`voucher:${n}`),
    code,
    createdAt: now,
    note,
    timeLimitMinutes: minutes,
    authorizedGuestLimit: limit,
    authorizedGuestCount: 0,
  });
  // One client blocked earlier: known to the controller (rest/user), not online, until unblocked.
  const blockedTablet: ClientRecord = {
    _id: '65b3c8e1f4a9d20c7e5a1801',
    mac: '5a:3e:77:21:c4:2b',
    site_id: DEMO_SITE.id,
    name: 'Unknown Tablet',
    hostname: 'android-77c42b',
    oui: '',
    ip: '10.30.0.66',
    is_wired: false,
    is_guest: true,
    network: DEMO_NETWORKS.guest.name,
    network_id: DEMO_NETWORKS.guest.id,
    ap_mac: DEMO_DEVICES.livingAp.mac,
    essid: 'Guest WiFi',
    radio: 'na',
    authorized: false,
    first_seen: Math.round(now / 1000) - 86_400,
    last_seen: Math.round(now / 1000) - 3600,
    uptime: 0,
  };
  return {
    away: [{ record: blockedTablet, reason: 'blocked', until: null }],
    outages: [],
    blocked: [blockedTablet.mac],
    guestAuthorizations: {},
    vouchers: [
      voucher(1, '4861409510', 'Front desk', 1440, 1),
      voucher(2, '7302218845', 'Conference room', 480, null),
    ],
  };
}

/** A stable UUID-shaped id from a text (the Integration ids of the demo vouchers and SSIDs). */
export function uuidFrom(text: string): string {
  const hex = createHash('sha256').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Devices whose current or last uplink is `mac`, recursively (what loses its path when `mac` goes down). */
function downstreamDevices(site: SiteState, mac: string): DeviceRecord[] {
  const found: DeviceRecord[] = [];
  const queue = [mac];
  const seen = new Set(queue);
  while (queue.length > 0) {
    const parent = queue.shift();
    for (const device of site.devices) {
      if (seen.has(device.mac) || parentOf(device) !== parent) continue;
      seen.add(device.mac);
      found.push(device);
      queue.push(device.mac);
    }
  }
  return found;
}

function uplinkOf(device: DeviceRecord): { uplink_mac?: unknown; uplink_remote_port?: unknown } {
  const uplink = (device.uplink ?? device.last_uplink) as Record<string, unknown> | undefined;
  return uplink ?? {};
}

function parentOf(device: DeviceRecord): string | undefined {
  const mac = uplinkOf(device).uplink_mac;
  return typeof mac === 'string' ? mac : undefined;
}

/** Is the client attached to the device (wired to its port, or associated with it)? */
function attachedTo(client: ClientRecord, mac: string): boolean {
  return client.is_wired ? client.sw_mac === mac : client.ap_mac === mac;
}

function dropClients(
  site: SiteState,
  leaving: (c: ClientRecord) => boolean,
  reason: AwayReason,
  until: number | null,
) {
  const staying: ClientRecord[] = [];
  for (const client of site.clients) {
    if (leaving(client)) site.away.push({ record: client, reason, until });
    else staying.push(client);
  }
  site.clients = staying;
}

function takeDown(site: SiteState, devices: readonly DeviceRecord[], until: number, reason: AwayReason) {
  const macs = new Set(devices.map((d) => d.mac));
  for (const device of devices) {
    device.state = 0;
    site.outages = site.outages.filter((o) => o.mac !== device.mac);
    site.outages.push({ mac: device.mac, until });
  }
  dropClients(site, (c) => [...macs].some((mac) => attachedTo(c, mac)), reason, until);
}

/** `cmd/devmgr restart` and Integration `RESTART`: the device and everything behind it drop until `until`. */
export function restartDevice(site: SiteState, device: DeviceRecord, until: number): void {
  takeDown(site, [device, ...downstreamDevices(site, device.mac)], until, 'device-restart');
}

/** Whether a port delivers PoE now (the controller refuses a power cycle otherwise). */
export function portGivesPoe(port: Record<string, unknown> | undefined): boolean {
  return port !== undefined && port.port_poe === true && port.poe_enable === true;
}

/** A device's port by index. */
export function portOf(device: DeviceRecord, idx: number): Record<string, unknown> | undefined {
  const table = Array.isArray(device.port_table) ? (device.port_table as Record<string, unknown>[]) : [];
  return table.find((row) => row.port_idx === idx);
}

/** `power-cycle` / `POWER_CYCLE`: what the port powers (a client or a device and its tree) drops until `until`. */
export function powerCyclePort(site: SiteState, device: DeviceRecord, idx: number, until: number): void {
  const powered = site.devices.filter(
    (d) => parentOf(d) === device.mac && uplinkOf(d).uplink_remote_port === idx,
  );
  const tree = powered.flatMap((d) => [d, ...downstreamDevices(site, d.mac)]);
  if (tree.length > 0) takeDown(site, tree, until, 'port-power-cycle');
  dropClients(
    site,
    (c) => c.is_wired && c.sw_mac === device.mac && c.sw_port === idx,
    'port-power-cycle',
    until,
  );
}

/** `block-sta`: the client drops and stays away until unblocked. */
export function blockClient(site: SiteState, mac: string): void {
  if (!site.blocked.includes(mac)) site.blocked.push(mac);
  dropClients(site, (c) => c.mac === mac, 'blocked', null);
  for (const away of site.away) if (away.record.mac === mac) away.until = null;
}

/** `unblock-sta`: a blocked client may reconnect; it is back at `until`. */
export function unblockClient(site: SiteState, mac: string, until: number): void {
  site.blocked = site.blocked.filter((m) => m !== mac);
  for (const away of site.away) {
    if (away.record.mac === mac && away.reason === 'blocked') {
      away.reason = 'kicked';
      away.until = until;
    }
  }
}

/** `kick-sta`: the client disconnects and reconnects at `until`. */
export function kickClient(site: SiteState, mac: string, until: number): void {
  dropClients(site, (c) => c.mac === mac, 'kicked', until);
}

/** An SSID disabled drops its clients until it is enabled again; enabled, they return at `until`. */
export function setWlanEnabled(site: SiteState, name: string, enabled: boolean, until: number): void {
  if (!enabled) {
    dropClients(site, (c) => !c.is_wired && c.essid === name, 'wifi-disabled', null);
    return;
  }
  for (const away of site.away) {
    if (away.reason === 'wifi-disabled' && away.record.essid === name) {
      away.reason = 'kicked';
      away.until = until;
    }
  }
}

/** Brings back what is due at `now`: devices online again (uptime from zero), clients reconnected. */
export function settleSite(site: SiteState, now: number): void {
  if (site.outages.length > 0) {
    const due = site.outages.filter((o) => o.until <= now);
    site.outages = site.outages.filter((o) => o.until > now);
    for (const outage of due) {
      const device = site.devices.find((d) => d.mac === outage.mac);
      if (!device) continue;
      device.state = 1;
      device.uptime = Math.max(1, Math.round((now - outage.until) / 1000));
    }
  }
  if (site.away.length === 0) return;
  const down = new Set(site.outages.map((o) => o.mac));
  const disabled = new Set(site.wlans.filter((w) => !w.enabled).map((w) => w.name));
  const back: ClientRecord[] = [];
  site.away = site.away.filter((away) => {
    if (away.until === null || away.until > now) return true;
    const mac = away.record.mac;
    if (site.blocked.includes(mac)) {
      away.reason = 'blocked';
      away.until = null;
      return true;
    }
    const via = away.record.is_wired ? away.record.sw_mac : away.record.ap_mac;
    if (typeof via === 'string' && down.has(via)) return true;
    if (!away.record.is_wired && disabled.has(String(away.record.essid))) {
      away.reason = 'wifi-disabled';
      away.until = null;
      return true;
    }
    back.push({ ...away.record, uptime: 0, assoc_time: Math.round(now / 1000) });
    return false;
  });
  site.clients.push(...back);
}

/** Every client the site knows (online and away), as classic `rest/user` lists them. */
export function knownClients(site: SiteState): (ClientRecord & { blocked: boolean })[] {
  return [...site.clients, ...site.away.map((a) => a.record)].map((client) => ({
    ...client,
    blocked: site.blocked.includes(client.mac),
  }));
}

/** A new ten-digit voucher code that no voucher of the site has. */
export function newVoucherCode(site: SiteState, random: () => number): string {
  for (;;) {
    const code = String(Math.floor(random() * 9_000_000_000) + 1_000_000_000);
    if (!site.vouchers.some((v) => v.code === code)) return code;
  }
}
