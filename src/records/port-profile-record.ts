import { z } from 'zod';
import { lenientArray, stringish } from './lenient.js';

/** A classic `rest/portconf` record (a switch port profile), only as far as the tools read it. */
export const portProfileRecordSchema = z.looseObject({
  _id: z.string().min(1),
  name: stringish.transform((v) => v ?? ''),
  native_networkconf_id: stringish,
  tagged_networkconf_ids: lenientArray(z.string()).transform((v) => v ?? []),
  voice_networkconf_id: stringish,
});

/** A parsed portconf record. */
export type PortProfileRecord = z.output<typeof portProfileRecordSchema>;
