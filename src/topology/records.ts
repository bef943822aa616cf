import { z } from 'zod';
import { clientRecordSchema } from '../records/client-record.js';
import { deviceRecordSchema, portSchema, uplinkSchema } from '../records/device-record.js';
import { fastLenientObject } from '../records/fast-lenient.js';

/*
 * The record schemas narrowed to the fields the topology reads. Same field rules as the full
 * schemas (they are picked from them), but unknown keys are stripped instead of copied, and port
 * tables are parsed only when a port is looked at (portsOf): on a site with 50,000 clients and
 * 2,000 switches and APs this makes record parsing several times faster (docs/performance.md).
 * The gateway caches the raw payload, so other tools reading the same path with the full schemas
 * still share the one upstream call.
 */

const uplink = uplinkSchema
  .pick({ type: true, up: true, speed: true, port_idx: true, uplink_mac: true, uplink_remote_port: true })
  .strip();

const port = portSchema.pick({ port_idx: true, name: true, up: true, speed: true, is_uplink: true }).strip();

/** One row of a device's port table, as the topology reads it. */
export type TopologyPort = z.output<typeof port>;

// Kept as the raw rows; anything that is not an array counts as no port table.
const rawRows = z.unknown().transform((value) => (Array.isArray(value) ? (value as unknown[]) : undefined));

/** A `stat/device` record with only what the topology needs (mac, names, state, uplinks, ports). */
export const topologyDeviceSchema = deviceRecordSchema
  .pick({ _id: true, mac: true, name: true, model: true, type: true, ip: true, state: true })
  .extend({
    uplink: uplink.optional().catch(undefined),
    last_uplink: uplink.optional().catch(undefined),
    port_table: rawRows.optional(),
  })
  .strip();

/** A parsed, narrowed device record; a full DeviceRecord is assignable to it. */
export type TopologyDevice = z.output<typeof topologyDeviceSchema>;

/** The zod rule of a topology client record: the picked fields of the client schema, unknown keys dropped. */
export const topologyClientFields = clientRecordSchema
  .pick({
    mac: true,
    ip: true,
    hostname: true,
    name: true,
    is_wired: true,
    sw_mac: true,
    sw_port: true,
    ap_mac: true,
    wired_rate_mbps: true,
  })
  .strip();

/**
 * A `stat/sta` record with only what the topology needs (mac, names, ip, where it is attached).
 * Parsed as `topologyClientFields` would, without zod's per-field work (fastLenientObject;
 * 50,000 of these were most of the topology's record step).
 */
export const topologyClientSchema = fastLenientObject(topologyClientFields);

/** A parsed, narrowed client record; a full ClientRecord is assignable to it. */
export type TopologyClient = z.output<typeof topologyClientSchema>;

const parsedPorts = new WeakMap<object, TopologyPort[]>();

/**
 * The port table of a device, parsed on first use and remembered: rows that do not parse are
 * dropped (never fatal), as the full schema does. Most ports are never looked at while building
 * the topology, so most rows are never parsed.
 */
export function portsOf(device: TopologyDevice): TopologyPort[] {
  const known = parsedPorts.get(device);
  if (known) return known;
  const rows: TopologyPort[] = [];
  for (const row of device.port_table ?? []) {
    const parsed = port.safeParse(row);
    if (parsed.success) rows.push(parsed.data);
  }
  parsedPorts.set(device, rows);
  return rows;
}
