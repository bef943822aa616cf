import { z } from 'zod';
import { boolish, lenientArray, stringish } from './lenient.js';

/** `metadata` of an Integration object: who made it, and whether a system one may be edited. */
export const integrationMetadataSchema = z
  .looseObject({ origin: stringish, configurable: boolish })
  .optional()
  .catch(undefined);

/** An Integration `firewall/zones` record; `networkIds` are Integration network UUIDs. */
export const zoneRecordSchema = z.looseObject({
  id: z.string().min(1),
  name: stringish.transform((v) => v ?? ''),
  networkIds: lenientArray(z.string()).transform((v) => v ?? []),
  metadata: integrationMetadataSchema,
});

/** A parsed firewall zone record. */
export type ZoneRecord = z.output<typeof zoneRecordSchema>;
