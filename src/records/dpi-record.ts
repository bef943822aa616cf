import { z } from 'zod';
import { lenientArray, numberish } from './lenient.js';

// Ids are integers; newer builds reportedly send some as strings, names included, so both are kept.
const dpiId = z.union([z.number(), z.string()]).optional().catch(undefined);

// Deliberately alike: record schemas list their own fields with the shared lenient types; each types only what its tools read.
/** Counters of one application: `cat` and `app` are unique together (global id `cat << 16 | app`). */
export const dpiAppRowSchema = z.looseObject({
  app: dpiId,
  cat: dpiId,
  rx_bytes: numberish,
  tx_bytes: numberish,
});

/** A `by_app` row. */
export type DpiAppRow = z.output<typeof dpiAppRowSchema>;

/** Counters of one category (`by_cat`); `apps` lists the category's application ids when present. */
export const dpiCategoryRowSchema = z.looseObject({
  cat: dpiId,
  rx_bytes: numberish,
  tx_bytes: numberish,
  apps: lenientArray(z.number()),
});

/** A `by_cat` row. */
export type DpiCategoryRow = z.output<typeof dpiCategoryRowSchema>;

/** The one element of `stat/sitedpi`'s `data`: `by_app` or `by_cat`, depending on the request. */
export const siteDpiRecordSchema = z.looseObject({
  by_app: lenientArray(dpiAppRowSchema).transform((v) => v ?? []),
  by_cat: lenientArray(dpiCategoryRowSchema).transform((v) => v ?? []),
  last_updated: numberish,
});

/** One client of `stat/stadpi`. */
export const clientDpiRecordSchema = z.looseObject({
  mac: z.string().min(1),
  by_app: lenientArray(dpiAppRowSchema).transform((v) => v ?? []),
  last_updated: numberish,
});

const catalogueNumber = z.union([z.number(), z.string().regex(/^\d+$/).transform(Number)]);

/**
 * An Integration DPI catalogue entry (`dpi/categories`, `dpi/applications`): `{id, name}`, and on
 * applications often `categoryId`.
 */
export const dpiCatalogueEntrySchema = z.looseObject({
  id: catalogueNumber,
  name: z.string().min(1),
  categoryId: catalogueNumber.optional().catch(undefined),
});
