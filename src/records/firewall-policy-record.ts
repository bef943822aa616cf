import { z } from 'zod';
import { boolish, lenientArray, numberish, stringish } from './lenient.js';

/** A v2 `firewall/zone` record: the zone by its v2 `_id`, members as networkconf `_id`s. */
export const v2ZoneRecordSchema = z.looseObject({
  _id: z.string().min(1),
  name: stringish.transform((v) => v ?? ''),
  zone_key: stringish,
  default_zone: boolish,
  network_ids: lenientArray(z.string()).transform((v) => v ?? []),
  /** The Integration UUID of the same zone. */
  external_id: stringish,
});

/** A parsed v2 zone. */
export type V2ZoneRecord = z.output<typeof v2ZoneRecordSchema>;

/** One side of a policy: its zone and what it matches there (go-unifi `FirewallPolicySource`). */
export const policyEndpointSchema = z.looseObject({
  zone_id: stringish.transform((v) => v ?? ''),
  matching_target: stringish.transform((v) => v ?? 'ANY'),
  matching_target_type: stringish,
  ips: lenientArray(z.string()).transform((v) => v ?? []),
  network_ids: lenientArray(z.string()).transform((v) => v ?? []),
  port_matching_type: stringish.transform((v) => v ?? 'ANY'),
  port: stringish,
});

/** A parsed policy side. */
export type PolicyEndpoint = z.output<typeof policyEndpointSchema>;

/** A policy schedule (`mode` ALWAYS, EVERY_DAY, EVERY_WEEK, ONE_TIME_ONLY, CUSTOM). */
export const policyScheduleSchema = z.looseObject({
  mode: stringish.transform((v) => v ?? 'ALWAYS'),
  repeat_on_days: lenientArray(z.string()).transform((v) => v ?? []),
  time_all_day: boolish,
  time_range_start: stringish,
  time_range_end: stringish,
  date_start: stringish,
  date_end: stringish,
});

// Deliberately alike: record schemas list their own fields with the shared lenient types; each types only what its tools read.
/** A v2 `firewall-policies` record (zone-based firewall), typed where the tools read it. */
export const firewallPolicyRecordSchema = z.looseObject({
  _id: z.string().min(1),
  name: stringish.transform((v) => v ?? ''),
  description: stringish,
  enabled: boolish,
  action: stringish,
  protocol: stringish,
  ip_version: stringish,
  index: numberish,
  predefined: boolish,
  logging: boolish,
  connection_state_type: stringish,
  schedule: policyScheduleSchema.optional().catch(undefined),
  source: policyEndpointSchema,
  destination: policyEndpointSchema,
});

/** A parsed firewall policy. */
export type FirewallPolicyRecord = z.output<typeof firewallPolicyRecordSchema>;

/**
 * An official (Integration, Network 10.1+) `firewall/policies` record, typed where the tools read
 * it. Its parts are kept loose: filters the tools do not write (regions, domains, applications…)
 * pass through untouched, so a full-replacement PUT can send them back as they were.
 */
export const officialPolicyRecordSchema = z.looseObject({
  id: z.string().min(1),
  name: stringish.transform((v) => v ?? ''),
  description: stringish,
  enabled: boolish,
  index: numberish,
  loggingEnabled: boolish,
  action: z.looseObject({ type: stringish, allowReturnTraffic: boolish }).optional().catch(undefined),
  source: z.looseObject({ zoneId: stringish.transform((v) => v ?? '') }),
  destination: z.looseObject({ zoneId: stringish.transform((v) => v ?? '') }),
  ipProtocolScope: z.looseObject({ ipVersion: stringish }).optional().catch(undefined),
  schedule: z.looseObject({ mode: stringish }).optional().catch(undefined),
  metadata: z.looseObject({ origin: stringish }).optional().catch(undefined),
});

/** A parsed official policy. */
export type OfficialPolicyRecord = z.output<typeof officialPolicyRecordSchema>;

/** `firewall/policies/ordering` of one zone pair: user policies before and after the system ones. */
export const officialPolicyOrderingSchema = z.looseObject({
  orderedFirewallPolicyIds: z.looseObject({
    beforeSystemDefined: lenientArray(z.string()).transform((v) => v ?? []),
    afterSystemDefined: lenientArray(z.string()).transform((v) => v ?? []),
  }),
});
