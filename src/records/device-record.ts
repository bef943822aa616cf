import { z } from 'zod';
import { boolish, lenientArray, numberish, stringish } from './lenient.js';

/** An uplink (current or last known). Gateways have one with no `uplink_mac`: that is how the root is found. */
export const uplinkSchema = z.looseObject({
  type: stringish,
  up: boolish,
  speed: numberish,
  full_duplex: boolish,
  name: stringish,
  port_idx: numberish,
  uplink_mac: stringish,
  uplink_remote_port: numberish,
  uplink_device_name: stringish,
  rssi: numberish,
});

/** One row of a device's `port_table`. */
export const portSchema = z.looseObject({
  port_idx: numberish,
  name: stringish,
  up: boolish,
  enable: boolish,
  speed: numberish,
  full_duplex: boolish,
  is_uplink: boolish,
  media: stringish,
  poe_enable: boolish,
  poe_power: stringish,
  rx_bytes: numberish,
  tx_bytes: numberish,
  ifname: stringish,
});

/** A classic `stat/device` record (an adopted device). */
export const deviceRecordSchema = z.looseObject({
  _id: stringish,
  mac: z.string().min(1),
  name: stringish,
  model: stringish,
  type: stringish,
  ip: stringish,
  version: stringish,
  adopted: boolish,
  state: numberish,
  uplink_depth: numberish,
  uplink: uplinkSchema.optional().catch(undefined),
  last_uplink: uplinkSchema.optional().catch(undefined),
  port_table: lenientArray(portSchema),
});

/** A parsed stat/device record. */
export type DeviceRecord = z.output<typeof deviceRecordSchema>;
