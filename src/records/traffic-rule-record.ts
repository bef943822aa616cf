import { z } from 'zod';
import { boolish, lenientArray, numberish, stringish } from './lenient.js';

/** A v2 traffic rule exactly as stored: a full-replace PUT must send every field back unchanged. */
export const storedTrafficRuleSchema = z.looseObject({ _id: z.string().min(1) });

/** A stored traffic rule (every key kept as the controller sent it). */
export type StoredTrafficRule = z.output<typeof storedTrafficRuleSchema>;

const portRangeSchema = z.looseObject({ port_start: numberish, port_stop: numberish });

/** One destination address of an `IP` rule, with its ports. */
export const trafficRuleAddressSchema = z.looseObject({
  ip_or_subnet: z.string().min(1),
  ip_version: stringish,
  ports: lenientArray(z.number()).transform((v) => v ?? []),
  port_ranges: lenientArray(portRangeSchema).transform((v) => v ?? []),
});

/** Whom a rule applies to: every client, one client (by MAC), or one network. */
export const trafficRuleTargetSchema = z.looseObject({
  type: z.string(),
  client_mac: stringish,
  network_id: stringish,
});

/**
 * A DPI catalogue id. Stored rules carry `app_ids` as strings (aiounifi types them `list[str]`),
 * older payloads and hand-made ones as numbers: both are read.
 */
const catalogueId = z.union([z.int().nonnegative(), z.string().regex(/^\d+$/).transform(Number)]);

/** A v2 `trafficrules` record (Traffic Management rule), typed where the tools read it. */
export const trafficRuleRecordSchema = z.looseObject({
  _id: z.string().min(1),
  action: stringish,
  description: stringish.transform((v) => v ?? ''),
  enabled: boolish,
  matching_target: stringish,
  bandwidth_limit: z
    .looseObject({ download_limit_kbps: numberish, upload_limit_kbps: numberish, enabled: boolish })
    .optional()
    .catch(undefined),
  ip_addresses: lenientArray(trafficRuleAddressSchema).transform((v) => v ?? []),
  target_devices: lenientArray(trafficRuleTargetSchema).transform((v) => v ?? []),
  app_ids: lenientArray(catalogueId).transform((v) => v ?? []),
  app_category_ids: lenientArray(catalogueId).transform((v) => v ?? []),
  // Networks an `LOCAL_NETWORK` rule matches as destination (classic `_id`s).
  network_ids: lenientArray(z.string()).transform((v) => v ?? []),
});

/** A parsed traffic rule. */
export type TrafficRuleRecord = z.output<typeof trafficRuleRecordSchema>;
