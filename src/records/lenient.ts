import { z } from 'zod';

/**
 * A number the controller may send as a number, a numeric string, or "" (seen on `vlan`,
 * `dhcpd_leasetime`, `rule_index`). Anything unusable becomes undefined instead of failing the record.
 */
export const numberish = z
  .union([z.number(), z.string(), z.null()])
  .transform((v) => {
    if (v === null || v === '') return undefined;
    const n = typeof v === 'number' ? v : Number(v.trim());
    return Number.isFinite(n) ? n : undefined;
  })
  .optional();

/** A boolean that tolerates the controller's occasional "true"/"false" strings. */
export const boolish = z
  .union([z.boolean(), z.literal('true'), z.literal('false'), z.null()])
  .transform((v) => (v === null ? undefined : v === true || v === 'true'))
  .optional();

/** A string field that tolerates null and numbers. */
export const stringish = z
  .union([z.string(), z.number(), z.null()])
  .transform((v) => (v === null ? undefined : String(v)))
  .optional();

// The element schema of every lenientArray, so fast-lenient.ts can parse its elements its own way.
const elements = new WeakMap<object, z.ZodType>();

/** The element schema of a lenientArray field; undefined for any other schema. */
export function lenientElementOf(schema: object): z.ZodType | undefined {
  return elements.get(schema);
}

/** An array whose elements are parsed one by one; bad elements are dropped, never fatal to the record. */
export function lenientArray<T extends z.ZodType>(element: T) {
  const schema = z
    .array(z.unknown())
    .transform((items) =>
      items.flatMap((item) => {
        const parsed = element.safeParse(item);
        return parsed.success ? [parsed.data as z.output<T>] : [];
      }),
    )
    .optional();
  elements.set(schema, element);
  return schema;
}
