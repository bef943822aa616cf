import { z } from 'zod';
import { stringish } from './lenient.js';

/** An Integration `/networks` record, only as far as id translation needs it. */
export const integrationNetworkRecordSchema = z.looseObject({
  id: z.string().min(1),
  name: stringish.transform((v) => v ?? ''),
});

/** A parsed Integration network record. */
export type IntegrationNetworkRecord = z.output<typeof integrationNetworkRecordSchema>;
