import { z } from 'zod';
import { ResourceNotFoundError, ValidationError } from '../../errors.js';
import type { Gateway, ReadOptions } from '../../gateway/types.js';
import { normalizeMac } from '../../lib/mac.js';
import { clientRecordSchema } from '../../records/client-record.js';
import { deviceRecordSchema, portSchema } from '../../records/device-record.js';
import { fastLenientObject } from '../../records/fast-lenient.js';
import { boolish, lenientArray, numberish, stringish } from '../../records/lenient.js';

/*
 * Shared by the on-call tools: the live records of `stat/sta` and `stat/device`, parsed
 * leniently (a bad field becomes undefined, a bad record is skipped, never fatal), and the two
 * resolvers that turn what a person types (a MAC in any notation, an IP, a name, a hostname, an
 * id) into one record, or refuse with the candidates named. The exported signatures are relied on
 * by the action and telemetry tools: keep them stable.
 */

/** A classic `stat/sta` record (an online client) with the fields the on-call tools read. */
export const liveClientSchema = clientRecordSchema.extend({
  _id: stringish,
  user_id: stringish,
  first_seen: numberish,
  assoc_time: numberish,
  latest_assoc_time: numberish,
  authorized: boolish,
  blocked: boolish,
  use_fixedip: boolish,
  fixed_ip: stringish,
  satisfaction: numberish,
  noise: numberish,
  channel: numberish,
  radio_proto: stringish,
  bssid: stringish,
  tx_power: numberish,
  sw_depth: numberish,
  usergroup_id: stringish,
  gw_mac: stringish,
  // Deliberately alike: each live schema lists the fields its own controller record carries; rate and counter keys recur across records.
  /** Current rates in bytes per second (the controller's own short average); wireless records. */
  'tx_bytes-r': numberish,
  'rx_bytes-r': numberish,
  /** The same for wired records (hyphenated keys, as the byte counters). */
  'wired-tx_bytes-r': numberish,
  'wired-rx_bytes-r': numberish,
  /** Set by some versions on remote-access VPN clients. */
  is_vpn: boolish,
  vpn_type: stringish,
});

/** A parsed live client record. */
export type LiveClient = z.output<typeof liveClientSchema>;

/** One port of a live device record, with the PoE and error counters `get_device` shows. */
export const livePortSchema = portSchema.extend({
  poe_caps: numberish,
  port_poe: boolish,
  poe_mode: stringish,
  poe_class: stringish,
  poe_voltage: stringish,
  poe_current: stringish,
  poe_good: boolish,
  rx_errors: numberish,
  tx_errors: numberish,
  rx_dropped: numberish,
  tx_dropped: numberish,
  'rx_bytes-r': numberish,
  'tx_bytes-r': numberish,
  op_mode: stringish,
  portconf_id: stringish,
});

/** A parsed port row. */
export type LivePort = z.output<typeof livePortSchema>;

/** One radio's live load (`radio_table_stats`). */
export const liveRadioStatsSchema = z.looseObject({
  name: stringish,
  radio: stringish,
  channel: numberish,
  tx_power: numberish,
  num_sta: numberish,
  'user-num_sta': numberish,
  'guest-num_sta': numberish,
  cu_total: numberish,
  cu_self_rx: numberish,
  cu_self_tx: numberish,
  satisfaction: numberish,
  state: stringish,
});

/** A parsed radio stats row. */
export type LiveRadioStats = z.output<typeof liveRadioStatsSchema>;

/** One radio's configuration (`radio_table`). */
export const liveRadioSchema = z.looseObject({
  name: stringish,
  radio: stringish,
  channel: stringish,
  ht: stringish,
  tx_power_mode: stringish,
  min_rssi_enabled: boolish,
});

/** A parsed radio row. */
export type LiveRadio = z.output<typeof liveRadioSchema>;

/** A classic `stat/device` record with the fields the on-call tools read. */
export const liveDeviceSchema = deviceRecordSchema.extend({
  uptime: numberish,
  last_seen: numberish,
  upgradable: boolish,
  upgrade_to_firmware: stringish,
  num_sta: numberish,
  'user-num_sta': numberish,
  'guest-num_sta': numberish,
  satisfaction: numberish,
  locating: boolish,
  serial: stringish,
  disabled: boolish,
  total_max_power: numberish,
  'tx_bytes-r': numberish,
  'rx_bytes-r': numberish,
  port_table: lenientArray(livePortSchema),
  radio_table: lenientArray(liveRadioSchema),
  radio_table_stats: lenientArray(liveRadioStatsSchema),
});

/** A parsed live device record. */
export type LiveDevice = z.output<typeof liveDeviceSchema>;

/** What the resolvers need: the controller and the site to look on. A ToolContext plus `site` fits. */
export interface LiveTargetContext {
  gateway: Gateway;
  site: string;
}

/** Options of the resolvers. */
export interface ResolveOptions extends ReadOptions {
  /** The argument's name in the refusal (`client`, `device_id`); defaults to those. */
  field?: string;
}

/** Options of resolveClient. */
export interface ResolveClientOptions extends ResolveOptions {
  /**
   * Also look among the clients the controller knows but that are not online now (`rest/user`:
   * blocked clients, guests that left). Such a record carries only the identity fields.
   */
  known?: boolean;
}

/** The name a person knows a client by: its alias, else its hostname, else its MAC. */
export function clientLabel(client: Pick<LiveClient, 'name' | 'hostname' | 'mac'>): string {
  return client.name?.trim() || client.hostname?.trim() || client.mac;
}

/** The name a person knows a device by: its name, else its MAC. */
export function deviceLabel(device: Pick<LiveDevice, 'name' | 'mac'>): string {
  return device.name?.trim() || device.mac;
}

/**
 * `stat/sta` records as liveClientSchema parses them, without zod's per-field cost (50,000 clients
 * at a large site; docs/performance.md). One schema object for every reader of stat/sta, so the
 * parse of one answer serves them all while it is cached (the cache is kept per schema).
 */
export const liveClientRecords = fastLenientObject(liveClientSchema);

/** `stat/device` records as liveDeviceSchema parses them, the same way. */
export const liveDeviceRecords = fastLenientObject(liveDeviceSchema);

/** The online clients of a site (`stat/sta`), parsed leniently. */
export async function readLiveClients(
  context: LiveTargetContext,
  options: ReadOptions = {},
): Promise<LiveClient[]> {
  return (await context.gateway.classicRead(context.site, 'stat/sta', liveClientRecords, options)).items;
}

/** The adopted devices of a site (`stat/device`), parsed leniently. */
export async function readLiveDevices(
  context: LiveTargetContext,
  options: ReadOptions = {},
): Promise<LiveDevice[]> {
  return (await context.gateway.classicRead(context.site, 'stat/device', liveDeviceRecords, options)).items;
}

/**
 * One client of the site, named by MAC (any common notation), IP, name or hostname (names
 * case-insensitive). A value several clients answer to is refused (ValidationError naming them);
 * one none answers to is ResourceNotFoundError naming the closest candidates. One read of
 * `stat/sta` (cached like every read), plus `rest/user` with `known`.
 */
export async function resolveClient(
  context: LiveTargetContext,
  value: string,
  options: ResolveClientOptions = {},
): Promise<LiveClient> {
  const online = await readLiveClients(context, { fresh: options.fresh });
  let clients = online;
  if (options.known) {
    const known = await context.gateway.classicRead(context.site, 'rest/user', liveClientSchema, {
      fresh: options.fresh,
    });
    const seen = new Set(online.map((c) => normalizeMac(c.mac) ?? c.mac));
    clients = [...online, ...known.items.filter((c) => !seen.has(normalizeMac(c.mac) ?? c.mac))];
  }
  return findClient(clients, value, options.field ?? 'client');
}

/**
 * One device of the site, named by `_id`, MAC (any notation) or name (case-insensitive). Refusals
 * as resolveClient's. One read of `stat/device`.
 */
export async function resolveDevice(
  context: LiveTargetContext,
  value: string,
  options: ResolveOptions = {},
): Promise<LiveDevice> {
  const devices = await readLiveDevices(context, { fresh: options.fresh });
  return findLiveDevice(devices, value, options.field ?? 'device_id');
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** resolveClient on a list already read. */
export function findClient<C extends Pick<LiveClient, 'mac' | 'ip' | 'name' | 'hostname'>>(
  clients: readonly C[],
  value: string,
  field = 'client',
): C {
  const wanted = value.trim();
  if (wanted === '')
    throw new ValidationError([{ field, rule: 'must be a MAC, IP address, name or hostname' }]);
  const mac = normalizeMac(wanted);
  if (mac !== undefined) {
    const match = clients.find((c) => (normalizeMac(c.mac) ?? c.mac.toLowerCase()) === mac);
    if (match) return match;
    throw notFound('client', wanted, field, suggestions(clients, wanted, clientLabel));
  }
  if (IPV4.test(wanted) || wanted.includes(':')) {
    const byIp = clients.filter((c) => c.ip?.trim().toLowerCase() === wanted.toLowerCase());
    return single(
      byIp,
      'client',
      wanted,
      field,
      clientLabel,
      (c) => c.mac,
      () => suggestions(clients, wanted, clientLabel),
    );
  }
  const lower = wanted.toLowerCase();
  const byName = clients.filter((c) => c.name?.trim().toLowerCase() === lower);
  const byHost = byName.length > 0 ? [] : clients.filter((c) => c.hostname?.trim().toLowerCase() === lower);
  return single(
    byName.length > 0 ? byName : byHost,
    'client',
    wanted,
    field,
    clientLabel,
    (c) => c.mac,
    () => suggestions(clients, wanted, clientLabel),
  );
}

/** resolveDevice on a list already read. */
export function findLiveDevice<D extends Pick<LiveDevice, '_id' | 'mac' | 'name'>>(
  devices: readonly D[],
  value: string,
  field = 'device_id',
): D {
  const wanted = value.trim();
  if (wanted === '') throw new ValidationError([{ field, rule: 'must be a device id, MAC or name' }]);
  const byId = devices.find((d) => d._id === wanted);
  if (byId) return byId;
  const mac = normalizeMac(wanted);
  if (mac !== undefined) {
    const match = devices.find((d) => (normalizeMac(d.mac) ?? d.mac.toLowerCase()) === mac);
    if (match) return match;
  }
  const lower = wanted.toLowerCase();
  const byName = devices.filter((d) => d.name?.trim().toLowerCase() === lower);
  return single(
    byName,
    'device',
    wanted,
    field,
    deviceLabel,
    (d) => d.mac,
    () => suggestions(devices, wanted, deviceLabel, true),
  );
}

function single<T>(
  matches: readonly T[],
  resource: string,
  wanted: string,
  field: string,
  label: (item: T) => string,
  id: (item: T) => string,
  candidates: () => string[],
): T {
  const [first] = matches;
  if (matches.length === 1 && first !== undefined) return first;
  if (matches.length > 1) {
    const named = matches.map((m) => `${label(m)} (${id(m)})`).join(', ');
    throw new ValidationError([
      {
        field,
        rule: `"${wanted}" matches ${matches.length} ${resource}s: ${named}; use a MAC to pick one`,
      },
    ]);
  }
  throw notFound(resource, wanted, field, candidates());
}

function notFound(
  resource: string,
  wanted: string,
  field: string,
  candidates: string[],
): ResourceNotFoundError {
  const hint =
    candidates.length > 0
      ? `; did you mean ${candidates.join(', ')}?`
      : resource === 'client'
        ? '; no online client has a similar name, hostname, IP or MAC (list_clients search=… lists them)'
        : '';
  return new ResourceNotFoundError(resource, wanted, `${resource} ${wanted} not found (${field})${hint}`);
}

const MAX_CANDIDATES = 5;

// The fields a person may have half-typed: name, hostname, IP and MAC, whichever the record has.
function identity(item: { mac: string; name?: string | undefined }): (string | undefined)[] {
  const { hostname, ip } = item as { hostname?: unknown; ip?: unknown };
  return [
    item.name,
    typeof hostname === 'string' ? hostname : undefined,
    typeof ip === 'string' ? ip : undefined,
    item.mac,
  ];
}

/**
 * Up to five labels close to what was typed: those containing it (or contained in it), else, for
 * devices (a short list), every label. Identity fields only; never a guess that is acted on.
 */
function suggestions<T extends { mac: string; name?: string | undefined }>(
  items: readonly T[],
  wanted: string,
  label: (item: T) => string,
  listAll = false,
): string[] {
  const lower = wanted.toLowerCase();
  const compact = lower.replace(/[^0-9a-z]/g, '');
  const close = items.filter((item) =>
    identity(item).some((field) => {
      const f = field?.trim().toLowerCase();
      if (!f) return false;
      if (f.includes(lower) || (lower.length >= 3 && lower.includes(f))) return true;
      const fc = f.replace(/[^0-9a-z]/g, '');
      return compact.length >= 4 && fc.includes(compact);
    }),
  );
  const chosen = close.length > 0 ? close : listAll ? items : [];
  const labels = [...new Set(chosen.map(label))];
  return labels.length > MAX_CANDIDATES
    ? [...labels.slice(0, MAX_CANDIDATES), `… ${labels.length - MAX_CANDIDATES} more`]
    : labels;
}
