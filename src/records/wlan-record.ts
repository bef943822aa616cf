import { z } from 'zod';
import { stringish } from './lenient.js';

/** A classic `rest/wlanconf` record (an SSID), only as far as the tools read it. */
export const wlanRecordSchema = z.looseObject({
  _id: z.string().min(1),
  name: stringish.transform((v) => v ?? ''),
  // The network the SSID's clients join (go-unifi `WLAN.NetworkID`).
  networkconf_id: stringish,
});

/** A parsed wlanconf record. */
export type WlanRecord = z.output<typeof wlanRecordSchema>;
