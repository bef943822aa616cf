import { z } from 'zod';
import { boolish, numberish, stringish } from './lenient.js';

/** A classic `stat/sta` record (an active client). Wired clients carry hyphenated byte counters. */
export const clientRecordSchema = z.looseObject({
  mac: z.string().min(1),
  ip: stringish,
  hostname: stringish,
  name: stringish,
  oui: stringish,
  is_wired: boolish,
  is_guest: boolish,
  network: stringish,
  network_id: stringish,
  vlan: numberish,
  sw_mac: stringish,
  sw_port: numberish,
  ap_mac: stringish,
  essid: stringish,
  radio: stringish,
  rssi: numberish,
  signal: numberish,
  uptime: numberish,
  last_seen: numberish,
  tx_bytes: numberish,
  rx_bytes: numberish,
  'wired-tx_bytes': numberish,
  'wired-rx_bytes': numberish,
  wired_rate_mbps: numberish,
  tx_rate: numberish,
  rx_rate: numberish,
});

/** A parsed stat/sta record. */
export type ClientRecord = z.output<typeof clientRecordSchema>;
