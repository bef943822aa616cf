import { z } from 'zod';
import { stringish } from './lenient.js';

/** A v2 `site-feature-migration` entry: a feature the site has been migrated to (`ZONE_BASED_FIREWALL`). */
export const siteFeatureRecordSchema = z.looseObject({ feature: stringish });

/** A parsed site feature migration entry. */
export type SiteFeatureRecord = z.output<typeof siteFeatureRecordSchema>;
