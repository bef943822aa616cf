import { z } from 'zod';
import { lenientArray, stringish } from './lenient.js';
import { trafficRuleTargetSchema } from './traffic-rule-record.js';

/** A v2 `trafficroutes` record (policy-based route), only as far as the tools read it. */
export const trafficRouteRecordSchema = z.looseObject({
  _id: z.string().min(1),
  description: stringish.transform((v) => v ?? ''),
  // The egress network (a WAN or a VPN client network), classic `_id`.
  network_id: stringish,
  target_devices: lenientArray(trafficRuleTargetSchema).transform((v) => v ?? []),
});

/** A parsed traffic route record. */
export type TrafficRouteRecord = z.output<typeof trafficRouteRecordSchema>;
