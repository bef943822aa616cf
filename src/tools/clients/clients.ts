import { z } from 'zod';
import { NotSupportedError } from '../../errors.js';
import type { Gateway } from '../../gateway/types.js';
import { byName } from '../../lib/collate.js';
import { normalizeMac } from '../../lib/mac.js';
import { clientDpiRecordSchema } from '../../records/dpi-record.js';
import { fastLenientObject } from '../../records/fast-lenient.js';
import { type NetworkRecord, networkRecordSchema } from '../../records/network-record.js';
import { intInRange, nonEmpty, siteId } from '../core/arg-types.js';
import { defineTool } from '../core/define-tool.js';
import { bandOf, formatBytesShort, formatDuration, formatRate, isoFromEpoch } from '../core/live-format.js';
import {
  clientLabel,
  deviceLabel,
  findClient,
  findLiveDevice,
  type LiveClient,
  type LiveDevice,
  liveClientRecords,
  liveDeviceSchema,
} from '../core/live-targets.js';
import { applicationsOf, BUNDLED_NAMES } from '../dpi/dpi-model.js';
import { findNetwork, vlanOf } from '../networks/network-model.js';

/*
 * Who is on the network now. Everything comes from three classic reads made
 * together (stat/sta, stat/device, rest/networkconf; cached like every read), which carry all the
 * facts asked for (port, SSID, signal, rates, byte counters, VLAN). The Integration client list
 * has none of those and pages at 200 (250 round trips for 50,000 clients); it is read only for
 * what classic records do not say: whether a client is a VPN client (docs/decisions.md).
 */

export const CONNECTIONS = ['wired', 'wireless', 'vpn', 'guest'] as const;
const CONNECTION_RULE = `must be one of ${CONNECTIONS.join(', ')}`;

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 500;

/** How a client is connected, as list_clients shows and filters it. */
export type ClientConnection = 'wired' | 'wireless' | 'vpn';

// Shared with every other reader of stat/sta (live-targets.ts): one parse per answer.
export { liveClientRecords };

/** The device fields the client tools read (name, MAC, id, type), not the port tables and radios. */
const siteDeviceSchema = z.object({
  _id: liveDeviceSchema.shape._id,
  mac: liveDeviceSchema.shape.mac,
  name: liveDeviceSchema.shape.name,
  type: liveDeviceSchema.shape.type,
});
type SiteDevice = Pick<LiveDevice, '_id' | 'mac' | 'name' | 'type'>;
const siteDeviceRecords = fastLenientObject(siteDeviceSchema);

interface SiteView {
  clients: LiveClient[];
  devices: SiteDevice[];
  /** The devices by lower-case MAC. */
  devicesByMac: Map<string, SiteDevice>;
  networks: NetworkRecord[];
  /** MACs the Integration API types VPN or TELEPORT; empty without an API key. */
  vpn: Set<string>;
}

const integrationClientSchema = z.looseObject({
  macAddress: z.string(),
  type: z.string().optional().catch(undefined),
});

/**
 * The Integration API is the only one that says a client is a VPN client (`type: VPN` or
 * `TELEPORT`); one filtered read. Without an API key (NotSupportedError) no client is VPN-typed.
 */
async function vpnMacs(gateway: Gateway, site: string): Promise<Set<string>> {
  try {
    const list = await gateway.integrationList(site, 'clients', integrationClientSchema, {
      filter: "or(type.eq('VPN'), type.eq('TELEPORT'))",
    });
    return new Set(
      list.items
        .filter((c) => c.type === 'VPN' || c.type === 'TELEPORT')
        .map((c) => normalizeMac(c.macAddress) ?? c.macAddress.toLowerCase()),
    );
  } catch (error) {
    if (error instanceof NotSupportedError) return new Set();
    throw error;
  }
}

/**
 * The three classic reads, and the VPN read beside them. `afterClients` runs as soon as the
 * clients are known, alongside the VPN read (which waits for the site's Integration id): a
 * first call then costs two waves of requests, not three.
 */
async function readSite(
  gateway: Gateway,
  site: string,
  afterClients?: (clients: LiveClient[]) => Promise<void>,
): Promise<SiteView> {
  const vpn = vpnMacs(gateway, site);
  // Awaited below; a failure meanwhile must not count as unhandled.
  vpn.catch(() => undefined);
  const [clients, devices, networks] = await Promise.all([
    gateway.classicRead(site, 'stat/sta', liveClientRecords),
    gateway.classicRead(site, 'stat/device', siteDeviceRecords),
    gateway.classicRead(site, 'rest/networkconf', networkRecordSchema),
  ]);
  const [vpnSet] = await Promise.all([vpn, afterClients?.(clients.items)]);
  const devicesByMac = new Map<string, SiteDevice>();
  // The first record of a MAC wins, as Array.find did.
  for (const device of devices.items) {
    const mac = device.mac.toLowerCase();
    if (!devicesByMac.has(mac)) devicesByMac.set(mac, device);
  }
  return {
    clients: clients.items,
    devices: devices.items,
    devicesByMac,
    networks: networks.items,
    vpn: vpnSet,
  };
}

/** wired, wireless or vpn. */
export function connectionOf(client: LiveClient, vpn: ReadonlySet<string>): ClientConnection {
  if (vpn.has(normalizeMac(client.mac) ?? client.mac)) return 'vpn';
  return client.is_wired === false ? 'wireless' : 'wired';
}

/** Current rates in bits per second: the controller's own short averages (`*-r`, bytes/s). */
export function currentRates(client: LiveClient): { down: number; up: number } {
  const wired = client.is_wired !== false;
  const rx = (wired ? client['wired-rx_bytes-r'] : undefined) ?? client['rx_bytes-r'] ?? 0;
  const tx = (wired ? client['wired-tx_bytes-r'] : undefined) ?? client['tx_bytes-r'] ?? 0;
  // The simulator's and this bot's convention (docs/decisions.md): rx = what the client received.
  return { down: Math.round(rx * 8), up: Math.round(tx * 8) };
}

/** Bytes since the client connected, down and up. */
export function bytesSinceConnect(client: LiveClient): { down: number; up: number } {
  return {
    down: client.rx_bytes ?? client['wired-rx_bytes'] ?? 0,
    up: client.tx_bytes ?? client['wired-tx_bytes'] ?? 0,
  };
}

/** The network a client is on: its `network_id`, or for a record without one, its VLAN (what `who` shows). */
export function networkOf(client: LiveClient, networks: readonly NetworkRecord[]): NetworkRecord | undefined {
  if (client.network_id) {
    const byId = networks.find((n) => n._id === client.network_id);
    if (byId) return byId;
  }
  // Records without network_id (a real case) still carry their VLAN.
  if (client.vlan !== undefined && client.vlan > 0) return networks.find((n) => vlanOf(n) === client.vlan);
  return undefined;
}

interface Where {
  /** The switch or AP (by name), or `VPN`. */
  device: string | null;
  device_mac: string | null;
  port: number | null;
  ssid: string | null;
  band: string | null;
  signal_dbm: number | null;
  /** One line: `Core Switch port 13`, `Living Room AP · Home-IoT · 5 GHz · -48 dBm`. */
  text: string;
}

function whereOf(client: LiveClient, connection: ClientConnection, view: SiteView): Where {
  const { devices } = view;
  const byMac = (mac: string | undefined) =>
    mac === undefined ? undefined : view.devicesByMac.get(mac.toLowerCase());
  if (connection === 'vpn') {
    const gateway = devices.find((d) => d.type === 'udm' || d.type === 'ugw' || d.type === 'uxg');
    const name = gateway ? deviceLabel(gateway) : null;
    return {
      device: name,
      device_mac: gateway?.mac ?? null,
      port: null,
      ssid: null,
      band: null,
      signal_dbm: null,
      text: name ? `VPN via ${name}` : 'VPN',
    };
  }
  if (connection === 'wireless') {
    const ap = byMac(client.ap_mac);
    const device = ap ? deviceLabel(ap) : (client.ap_mac ?? null);
    const band = bandOf(client.radio);
    const signal = client.signal ?? (client.rssi !== undefined ? client.rssi - 95 : undefined);
    const parts = [
      device ?? 'unknown AP',
      client.essid,
      band,
      signal !== undefined ? `${signal} dBm` : undefined,
    ];
    return {
      device,
      device_mac: client.ap_mac ?? null,
      port: null,
      ssid: client.essid ?? null,
      band,
      signal_dbm: signal ?? null,
      text: parts.filter((p) => p !== undefined && p !== null && p !== '').join(' · '),
    };
  }
  const sw = byMac(client.sw_mac);
  const device = sw ? deviceLabel(sw) : (client.sw_mac ?? null);
  const port = client.sw_port ?? null;
  return {
    device,
    device_mac: client.sw_mac ?? null,
    port,
    ssid: null,
    band: null,
    signal_dbm: null,
    text: device ? (port !== null ? `${device} port ${port}` : device) : 'wired (switch not reported)',
  };
}

/** One row of list_clients: short enough that a page is a table on one screen (exact numbers: get_client). */
function clientRow(client: LiveClient, view: SiteView) {
  const connection = connectionOf(client, view.vpn);
  const network = networkOf(client, view.networks);
  const where = whereOf(client, connection, view);
  const rate = currentRates(client);
  const bytes = bytesSinceConnect(client);
  const vlan = network ? vlanOf(network) : client.vlan && client.vlan > 0 ? client.vlan : null;
  const networkName = network?.name ?? client.network ?? null;
  return {
    name: clientLabel(client),
    ip: client.ip ?? null,
    mac: client.mac,
    network:
      networkName === null
        ? vlan !== null
          ? `VLAN ${vlan}`
          : null
        : vlan !== null
          ? `${networkName}/${vlan}`
          : networkName,
    where: connection === 'wired' ? where.text.replace(' port ', ' #') : where.text,
    uptime: formatDuration(client.uptime)?.split(' ')[0] ?? null,
    rate: `${compactRate(rate.down)}/${compactRate(rate.up)}`,
    since_connect: `${compactBytes(bytes.down)}/${compactBytes(bytes.up)}`,
  };
}

/** `36G`, `1.6G`, `933M`: bytes in a table cell. */
function compactBytes(bytes: number): string {
  if (bytes >= 1e12) return `${(bytes / 1e12).toFixed(1)}T`;
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(bytes >= 1e10 ? 0 : 1)}G`;
  if (bytes >= 1e6) return `${Math.round(bytes / 1e6)}M`;
  if (bytes >= 1e3) return `${Math.round(bytes / 1e3)}k`;
  return `${bytes}`;
}

/** `1.8M`, `146k`, `0`: a rate in a table cell. */
function compactRate(bps: number): string {
  if (bps >= 1e9) return `${(bps / 1e9).toFixed(1)}G`;
  if (bps >= 1e6) return `${(bps / 1e6).toFixed(1)}M`;
  if (bps >= 1e3) return `${Math.round(bps / 1e3)}k`;
  return `${bps}`;
}

const clientRowSchema = z.object({
  name: z.string().describe('Alias, else hostname, else MAC'),
  ip: z.string().nullable(),
  mac: z.string(),
  network: z.string().nullable().describe('Network name and VLAN: IoT/20'),
  where: z.string().describe('Switch #port, or AP · SSID · band · signal, by name; VPN via the gateway'),
  uptime: z.string().nullable(),
  rate: z.string().describe('Current rate down/up in bits per second (k, M, G)'),
  since_connect: z.string().describe('Bytes down/up since the client connected (k, M, G, T)'),
});

const ref = (what: string) => nonEmpty(`must be ${what}`);

const listClients = defineTool({
  name: 'list_clients',
  description:
    'Online clients with network, VLAN, where they are connected (switch port, or AP, SSID, band, signal), uptime, current rate and bytes; busiest first',
  access: 'read',
  example: 'network_id=IoT',
  args: z.object({
    site_id: siteId,
    network_id: ref('a network id or name')
      .optional()
      .describe('Only clients on this network (id or name, e.g. IoT)'),
    device_id: ref('a device id, MAC or name')
      .optional()
      .describe('Only clients on this switch or AP (id, MAC or name)'),
    connection: z
      .enum(CONNECTIONS, { error: CONNECTION_RULE })
      .optional()
      .describe('wired, wireless, vpn or guest'),
    search: ref('text to look for')
      .optional()
      .describe('Part of a name, hostname, IP or MAC (case-insensitive)'),
    limit: intInRange(1, MAX_LIMIT).default(DEFAULT_LIMIT).describe(`Rows per page (1-${MAX_LIMIT})`),
    offset: intInRange(0, 1_000_000).default(0).describe('Rows to skip (paging)'),
  }),
  output: z.object({
    site_id: z.string(),
    filter: z.string().describe('The filters applied, in words'),
    total: z.number().describe('Clients matching, all pages'),
    offset: z.number(),
    next_offset: z.number().nullable().describe('Offset of the next page; null on the last'),
    clients: z.array(clientRowSchema),
  }),
  async run({ site_id, network_id, device_id, connection, search, limit, offset }, { gateway }) {
    const view = await readSite(gateway, site_id);
    const words: string[] = [];
    let selected = view.clients;
    if (network_id !== undefined) {
      const network = findNetwork(view.networks, network_id, 'network_id');
      const vlan = vlanOf(network);
      words.push(`network ${network.name}${vlan !== null ? ` (VLAN ${vlan})` : ''}`);
      selected = selected.filter((c) => networkOf(c, view.networks)?._id === network._id);
    }
    if (device_id !== undefined) {
      const device = findLiveDevice(view.devices, device_id, 'device_id');
      const mac = device.mac.toLowerCase();
      words.push(`on ${deviceLabel(device)}`);
      selected = selected.filter((c) =>
        c.is_wired === false ? c.ap_mac?.toLowerCase() === mac : c.sw_mac?.toLowerCase() === mac,
      );
    }
    if (connection !== undefined) {
      words.push(connection);
      selected = selected.filter((c) =>
        connection === 'guest' ? c.is_guest === true : connectionOf(c, view.vpn) === connection,
      );
    }
    if (search !== undefined) {
      const needle = search.toLowerCase();
      const mac = normalizeMac(search);
      words.push(`matching "${search}"`);
      selected = selected.filter(
        (c) =>
          [c.name, c.hostname, c.ip, c.mac].some((f) => f?.toLowerCase().includes(needle)) ||
          (mac !== undefined && c.mac.toLowerCase() === mac),
      );
    }
    // Each sort key computed once (not twice per comparison), and rows built for the page only.
    const keyed = selected.map((client) => {
      const rate = currentRates(client);
      return { client, total: rate.down + rate.up, label: clientLabel(client) };
    });
    keyed.sort((a, b) => b.total - a.total || byName(a.label, b.label));
    const page = keyed.slice(offset, offset + limit).map(({ client }) => clientRow(client, view));
    const next = offset + limit < keyed.length ? offset + limit : null;
    return {
      site_id,
      filter: words.length > 0 ? words.join(', ') : 'all online clients',
      total: keyed.length,
      offset,
      next_offset: next,
      clients: page,
    };
  },
});

const TOP_APPS = 5;

const getClient = defineTool({
  name: 'get_client',
  description:
    'Everything about one client: where and since when, VLAN, IP (fixed or leased), Wi-Fi signal and experience, current rate, traffic, top applications, blocked, guest authorization',
  access: 'read',
  example: 'client=Galaxy-S23',
  args: z.object({
    site_id: siteId,
    client: ref('a MAC, IP address, name or hostname').describe(
      'The client: MAC (any notation), IP address, name or hostname',
    ),
  }),
  // Deliberately alike: get_client's output schema types its own fields for MCP; other zod objects merely share the field syntax.
  output: z.object({
    name: z.string(),
    hostname: z.string().nullable(),
    mac: z.string(),
    ip: z.string().nullable(),
    ip_assignment: z.string().describe('fixed (DHCP reservation) or leased'),
    network: z.string().nullable(),
    vlan: z.number().nullable(),
    connection: z.enum(['wired', 'wireless', 'vpn']),
    connected_to: z.string(),
    switch_or_ap: z.string().nullable(),
    port: z.number().nullable(),
    ssid: z.string().nullable(),
    band: z.string().nullable(),
    signal_dbm: z.number().nullable(),
    experience_percent: z
      .number()
      .nullable()
      .describe('The controller satisfaction score (Wi-Fi experience)'),
    connected_since: z.string().nullable().describe('ISO 8601'),
    uptime: z.string().nullable(),
    down: z.string(),
    up: z.string(),
    rate_down_bps: z.number(),
    rate_up_bps: z.number(),
    traffic_since_connect: z.string().describe('Bytes down and up since this connection began'),
    down_bytes: z.number(),
    up_bytes: z.number(),
    top_applications: z.array(z.object({ application: z.string(), category: z.string(), bytes: z.number() })),
    blocked: z.boolean(),
    guest: z.boolean(),
    guest_authorization: z.string().describe('authorized, not authorized, or not a guest'),
    vendor: z.string().nullable(),
  }),
  async run({ site_id, client: value }, { gateway }) {
    let dpiRows: z.output<typeof clientDpiRecordSchema>[] = [];
    const view = await readSite(gateway, site_id, async (clients) => {
      const found = findClient(clients, value, 'client');
      const dpi = await gateway.classicRead(site_id, 'stat/stadpi', clientDpiRecordSchema, {
        body: { type: 'by_app', macs: [found.mac] },
      });
      dpiRows = dpi.items;
    });
    const client = findClient(view.clients, value, 'client');
    const mine = dpiRows.find((r) => r.mac.toLowerCase() === client.mac.toLowerCase());
    const apps = applicationsOf(mine?.by_app ?? [], BUNDLED_NAMES).slice(0, TOP_APPS);
    const connection = connectionOf(client, view.vpn);
    const network = networkOf(client, view.networks);
    const where = whereOf(client, connection, view);
    const rate = currentRates(client);
    const bytes = bytesSinceConnect(client);
    const since = client.latest_assoc_time ?? client.assoc_time;
    const guest = client.is_guest === true;
    return {
      name: clientLabel(client),
      hostname: client.hostname || null,
      mac: client.mac,
      ip: client.ip ?? null,
      ip_assignment:
        client.use_fixedip === true
          ? `fixed (DHCP reservation ${client.fixed_ip ?? client.ip ?? ''})`.trim()
          : 'leased',
      network: network?.name ?? client.network ?? null,
      vlan: network ? vlanOf(network) : client.vlan && client.vlan > 0 ? client.vlan : null,
      connection,
      connected_to: where.text,
      switch_or_ap: where.device,
      port: where.port,
      ssid: where.ssid,
      band: where.band,
      signal_dbm: where.signal_dbm,
      experience_percent: connection === 'wireless' ? (client.satisfaction ?? null) : null,
      connected_since: isoFromEpoch(since),
      uptime: formatDuration(client.uptime),
      down: formatRate(rate.down),
      up: formatRate(rate.up),
      rate_down_bps: rate.down,
      rate_up_bps: rate.up,
      traffic_since_connect: `${formatBytesShort(bytes.down)} down, ${formatBytesShort(bytes.up)} up`,
      down_bytes: bytes.down,
      up_bytes: bytes.up,
      top_applications: apps.map((a) => ({
        application: a.application,
        category: a.category,
        bytes: a.total_bytes,
      })),
      blocked: client.blocked === true,
      guest,
      guest_authorization: guest
        ? client.authorized === false
          ? 'not authorized'
          : 'authorized'
        : 'not a guest',
      vendor: client.oui || null,
    };
  },
});

/** Who is on the network now. */
export const clientTools = [listClients, getClient];
