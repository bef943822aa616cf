import { z } from 'zod';
import type { Gateway } from '../../gateway/types.js';
import { intInRange, nonEmpty, siteId } from '../core/arg-types.js';
import { defineTool } from '../core/define-tool.js';
import { bandOf, formatDuration, isoFromEpoch } from '../core/live-format.js';
import {
  clientLabel,
  deviceLabel,
  findLiveDevice,
  type LiveClient,
  type LiveDevice,
  liveClientRecords,
  liveDeviceRecords,
} from '../core/live-targets.js';

/*
 * What is up, what is down. Classic stat/device (one read) carries every fact
 * asked for (uptime, clients, last seen, upgrade, ports with PoE and errors, radio load); the
 * Integration device list lacks uptime, client counts and last seen, and its statistics come one
 * device per request (docs/decisions.md).
 */

export const DEVICE_STATES = ['online', 'offline', 'upgrading', 'pending', 'all'] as const;
const STATE_RULE = `must be one of ${DEVICE_STATES.join(', ')}`;

/** What a device's state is called in answers and filters. */
export type DeviceState = Exclude<(typeof DEVICE_STATES)[number], 'all'>;

// The classic state codes (aiounifi DeviceState) and their words.
const STATE_DETAIL: Record<number, string> = {
  0: 'disconnected',
  1: 'connected',
  2: 'pending adoption',
  3: 'firmware mismatch',
  4: 'upgrading',
  5: 'provisioning',
  6: 'heartbeat missed',
  7: 'adopting',
  8: 'deleting',
  9: 'inform error',
  10: 'adoption failed',
  11: 'isolated',
};

/** online, offline, upgrading or pending, from the classic `state` code. */
export function deviceState(device: Pick<LiveDevice, 'state'>): DeviceState {
  switch (device.state) {
    case 1:
    case 3:
    case 5:
      return 'online';
    case 4:
      return 'upgrading';
    case 2:
    case 7:
    case 10:
      return 'pending';
    default:
      return 'offline';
  }
}

const DEFAULT_LIMIT = 25;
const MAX_LIMIT = 500;

function speedText(mbps: number | undefined): string | null {
  if (mbps === undefined || mbps <= 0) return null;
  return mbps >= 1000 ? `${mbps / 1000} Gbps` : `${mbps} Mbps`;
}

function deviceRow(device: LiveDevice) {
  const state = deviceState(device);
  return {
    name: deviceLabel(device),
    model: device.model ?? null,
    ip: device.ip ?? null,
    mac: device.mac,
    version: device.version ?? null,
    state,
    uptime: state === 'online' ? formatDuration(device.uptime) : null,
    clients: device.num_sta ?? 0,
    last_seen: isoFromEpoch(device.last_seen)?.slice(0, 16).replace('T', ' ') ?? null,
    upgrade: device.upgradable === true ? (device.upgrade_to_firmware ?? 'available') : 'no',
  };
}

const deviceRowSchema = z.object({
  name: z.string(),
  model: z.string().nullable(),
  ip: z.string().nullable(),
  mac: z.string(),
  version: z.string().nullable().describe('Firmware version'),
  state: z.enum(['online', 'offline', 'upgrading', 'pending']),
  uptime: z.string().nullable(),
  clients: z.number(),
  last_seen: z.string().nullable().describe('UTC, YYYY-MM-DD HH:MM'),
  upgrade: z.string().describe('The firmware it can upgrade to, or no'),
});

async function readDevices(gateway: Gateway, site: string): Promise<LiveDevice[]> {
  return (await gateway.classicRead(site, 'stat/device', liveDeviceRecords)).items;
}

// Deliberately alike: the tools below are defineTool declarations, whose shape the framework fixes; each differs in args and run.
const listDevices = defineTool({
  name: 'list_devices',
  description:
    'Adopted devices with model, IP, MAC, firmware, uptime, state, clients, last seen and upgrade; offline ones first',
  access: 'read',
  example: 'state=offline',
  args: z.object({
    site_id: siteId,
    state: z
      .enum(DEVICE_STATES, { error: STATE_RULE })
      .default('all')
      .describe('online, offline, upgrading, pending or all'),
    limit: intInRange(1, MAX_LIMIT).default(DEFAULT_LIMIT).describe(`Rows per page (1-${MAX_LIMIT})`),
    offset: intInRange(0, 1_000_000).default(0).describe('Rows to skip (paging)'),
  }),
  output: z.object({
    site_id: z.string(),
    state: z.string(),
    total: z.number().describe('Devices in that state, all pages'),
    offline: z.array(z.string()).describe('Names of every offline device on the site'),
    offset: z.number(),
    next_offset: z.number().nullable().describe('Offset of the next page; null on the last'),
    devices: z.array(deviceRowSchema),
  }),
  async run({ site_id, state, limit, offset }, { gateway }) {
    const devices = await readDevices(gateway, site_id);
    const order: Record<DeviceState, number> = { offline: 0, pending: 1, upgrading: 2, online: 3 };
    const rows = devices
      .filter((d) => state === 'all' || deviceState(d) === state)
      .map(deviceRow)
      .sort((a, b) => order[a.state] - order[b.state] || a.name.localeCompare(b.name));
    const next = offset + limit < rows.length ? offset + limit : null;
    return {
      site_id,
      state,
      total: rows.length,
      offline: devices.filter((d) => deviceState(d) === 'offline').map(deviceLabel),
      offset,
      next_offset: next,
      devices: rows.slice(offset, offset + limit),
    };
  },
});

/** What hangs off each port of `device`, by name: downstream devices first, then wired clients. */
function portNeighbours(device: LiveDevice, devices: readonly LiveDevice[], clients: readonly LiveClient[]) {
  const mac = device.mac.toLowerCase();
  const byPort = new Map<number, string[]>();
  const add = (port: number | undefined, name: string) => {
    if (port === undefined) return;
    byPort.set(port, [...(byPort.get(port) ?? []), name]);
  };
  for (const other of devices) {
    const link = other.uplink?.uplink_mac ? other.uplink : other.last_uplink;
    if (link?.uplink_mac?.toLowerCase() === mac) add(link.uplink_remote_port, deviceLabel(other));
  }
  for (const client of clients) {
    if (client.is_wired !== false && client.sw_mac?.toLowerCase() === mac)
      add(client.sw_port, clientLabel(client));
  }
  return byPort;
}

function uplinkText(device: LiveDevice, devices: readonly LiveDevice[]): string {
  const link = device.uplink?.uplink_mac ? device.uplink : device.last_uplink;
  if (!link?.uplink_mac) return device.uplink ? 'WAN (this is the gateway)' : 'unknown';
  const parent = devices.find((d) => d.mac.toLowerCase() === link.uplink_mac?.toLowerCase());
  const name = parent ? deviceLabel(parent) : (link.uplink_device_name ?? link.uplink_mac);
  const current = device.uplink?.uplink_mac !== undefined;
  if (link.type === 'wireless') {
    return `wireless mesh from ${name}${link.rssi !== undefined ? ` (signal ${link.rssi - 95} dBm)` : ''}`;
  }
  const port = link.uplink_remote_port !== undefined ? ` port ${link.uplink_remote_port}` : '';
  const speed = current ? speedText(link.speed) : null;
  return `${name}${port}${speed ? ` at ${speed}` : ''}${current ? '' : ' (last known)'}`;
}

/** `1-3, 5, 9-12` for a sorted list of port numbers. */
function ranges(numbers: readonly number[]): string {
  const parts: string[] = [];
  let start: number | undefined;
  let prev: number | undefined;
  for (const n of [...numbers, Number.NaN]) {
    if (start !== undefined && prev !== undefined && n === prev + 1) {
      prev = n;
      continue;
    }
    if (start !== undefined && prev !== undefined)
      parts.push(start === prev ? `${start}` : `${start}-${prev}`);
    start = n;
    prev = n;
  }
  return parts.join(', ');
}

const portRowSchema = z.object({
  port: z.number(),
  name: z.string().nullable(),
  up: z.boolean(),
  speed: z.string().nullable(),
  connected: z.string().describe('What is plugged in, by name (device or client); - when unknown'),
  poe_watts: z.number().nullable().describe('PoE draw; null on ports without PoE'),
  errors: z.number().describe('Receive and transmit errors since the counters were reset'),
});

// Deliberately alike: each output row schema lists its own columns for MCP (device, port, radio).
const radioRowSchema = z.object({
  radio: z.string(),
  band: z.string().nullable(),
  channel: z.number().nullable(),
  clients: z.number(),
  channel_use_percent: z.number().nullable().describe('Airtime in use on the channel (all senders)'),
  tx_power_dbm: z.number().nullable(),
});

const getDevice = defineTool({
  name: 'get_device',
  description:
    'One device: state, firmware, uptime, clients, its uplink, each port with what is connected by name, PoE draw, speed and errors, and radio load for an AP',
  access: 'read',
  example: 'device_id="Core Switch"',
  args: z.object({
    site_id: siteId,
    device_id: nonEmpty('must be a device id, MAC or name').describe(
      'The device: id, MAC (any notation) or name',
    ),
  }),
  output: deviceRowSchema.extend({
    id: z.string().nullable(),
    type: z.string().nullable(),
    state_detail: z.string().describe('The controller state in words (connected, heartbeat missed…)'),
    uplink: z.string().describe('What it hangs off, by name, with port and speed'),
    experience_percent: z.number().nullable(),
    down_ports: z.string().describe('Ports that are down with nothing on them, as ranges'),
    ports: z
      .array(portRowSchema)
      .describe('Ports that are up, draw PoE, count errors or have something on them'),
    radios: z.array(radioRowSchema),
  }),
  async run({ site_id, device_id }, { gateway }) {
    const [devices, clients] = await Promise.all([
      readDevices(gateway, site_id),
      gateway.classicRead(site_id, 'stat/sta', liveClientRecords).then((r) => r.items),
    ]);
    const device = findLiveDevice(devices, device_id, 'device_id');
    const neighbours = portNeighbours(device, devices, clients);
    const ports: z.output<typeof portRowSchema>[] = [];
    const idle: number[] = [];
    for (const row of device.port_table ?? []) {
      if (row.port_idx === undefined) continue;
      const watts = row.poe_power !== undefined ? Number(row.poe_power) : undefined;
      const poe =
        row.port_poe === true || (row.poe_caps ?? 0) > 0 ? (Number.isFinite(watts) ? (watts ?? 0) : 0) : null;
      const errors = (row.rx_errors ?? 0) + (row.tx_errors ?? 0);
      const names = neighbours.get(row.port_idx) ?? [];
      const connected =
        row.is_uplink === true && names.length === 0
          ? `uplink: ${uplinkText(device, devices)}`
          : names.join(', ');
      if (row.up !== true && names.length === 0 && !poe && errors === 0) {
        idle.push(row.port_idx);
        continue;
      }
      const up = row.up === true;
      ports.push({
        port: row.port_idx,
        name: row.name ?? null,
        up,
        speed: up ? speedText(row.speed) : null,
        connected: connected || '-',
        poe_watts: poe,
        errors,
      });
    }
    const radios = (device.radio_table_stats ?? []).map((r) => ({
      radio: r.name ?? r.radio ?? '?',
      band: bandOf(r.radio),
      channel: r.channel ?? null,
      clients: r.num_sta ?? 0,
      channel_use_percent: r.cu_total ?? null,
      tx_power_dbm: r.tx_power ?? null,
    }));
    return {
      ...deviceRow(device),
      id: device._id ?? null,
      type: device.type ?? null,
      state_detail: (device.state !== undefined ? STATE_DETAIL[device.state] : undefined) ?? 'unknown',
      uplink: uplinkText(device, devices),
      experience_percent: device.satisfaction ?? null,
      down_ports: idle.length > 0 ? ranges(idle.sort((a, b) => a - b)) : 'none',
      ports,
      radios,
    };
  },
});

/** The devices, and one device in detail. */
export const deviceTools = [listDevices, getDevice];
