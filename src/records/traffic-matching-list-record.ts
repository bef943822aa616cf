import { z } from 'zod';
import { lenientArray, stringish } from './lenient.js';

/** A bound of a range item: an integer port, or an address. */
const bound = z.union([z.number(), z.string()]).optional();

/** One typed item of a list (`PORT_NUMBER`, `PORT_NUMBER_RANGE`, `IP_ADDRESS`, `SUBNET`, `IP_ADDRESS_RANGE`). */
export const trafficMatchingItemSchema = z.looseObject({
  type: z.string(),
  value: bound,
  start: bound,
  stop: bound,
});

/** A typed item as the controller stores it. */
export type TrafficMatchingItemRecord = z.output<typeof trafficMatchingItemSchema>;

/** An Integration `traffic-matching-lists` object: `{type, id, name, items}`. */
export const trafficMatchingListRecordSchema = z.looseObject({
  id: z.string().min(1),
  type: z.string(),
  name: stringish.transform((v) => v ?? ''),
  items: lenientArray(trafficMatchingItemSchema).transform((v) => v ?? []),
});

/** A parsed traffic matching list. */
export type TrafficMatchingListRecord = z.output<typeof trafficMatchingListRecordSchema>;
