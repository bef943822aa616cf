import { z } from 'zod';
import { boolish, lenientElementOf, numberish, stringish } from './lenient.js';

/*
 * The same lenient record parse as a `z.looseObject` of `numberish` / `stringish` / `boolish`
 * fields, without zod's per-field machinery. zod builds a result object per field and per unknown
 * key; on `stat/sta` of 50,000 clients (60 keys each) that is millions of short-lived objects and
 * took about four times the JSON.parse of the body (docs/performance.md, "Bandwidth at 50,000
 * clients"). This walks each record once: the three lenient kinds are decoded inline, any other
 * field (a `z.string().min(1)` MAC, a nested array) still goes through its own zod schema, and
 * unknown keys are copied as looseObject copies them. A record whose fields all already have the
 * type zod would give them (the common case) is not copied at all: it is returned as it is, so a
 * large list costs no allocation per record. Parsed records are shared and read-only anyway
 * (ReadCache), and nothing reads their key order. A record zod would reject is rejected (with the
 * field named), so the gateway counts it in unreadable_records as before.
 * test/gateway/fast-lenient.test.ts holds the output equal to the zod schema's on real fixtures and
 * on every odd value per field.
 */

const BAD = Symbol('bad');
type Decoded = unknown | typeof BAD;

function decodeNumber(v: unknown): Decoded {
  if (v === null || v === '') return undefined;
  if (typeof v === 'number') return Number.isFinite(v) ? v : BAD;
  if (typeof v === 'string') {
    const n = Number(v.trim());
    return Number.isFinite(n) ? n : undefined;
  }
  return BAD;
}

function decodeBool(v: unknown): Decoded {
  if (v === null) return undefined;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  return BAD;
}

function decodeString(v: unknown): Decoded {
  if (v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : BAD;
  return BAD;
}

/** How a field is read without zod: its decode, the rule a refused value breaks, and `same`. */
interface FieldRule {
  decode: (v: unknown) => Decoded;
  rule: string;
  // Whether decode gives the value back as it is, without decoding (the common case, asked of
  // every field of every record before a record is returned uncopied).
  same: (v: unknown) => boolean;
}

const RULES = new Map<unknown, FieldRule>([
  [
    numberish,
    {
      decode: decodeNumber,
      rule: 'must be a number, a numeric string or null',
      same: (v) => typeof v === 'number' && Number.isFinite(v),
    },
  ],
  [
    stringish,
    { decode: decodeString, rule: 'must be a string, a number or null', same: (v) => typeof v === 'string' },
  ],
  [
    boolish,
    {
      decode: decodeBool,
      rule: 'must be a boolean, "true", "false" or null',
      same: (v) => v === true || v === false,
    },
  ],
]);

/**
 * A lenientArray of records, decoded with the element's own fast parse: elements it refuses are
 * dropped, as lenientArray drops them. An array whose every element comes back as it is is itself
 * given back as it is, so a device whose port table is already in the parsed form is not copied.
 */
function lenientArrayRule(element: z.ZodObject): FieldRule {
  // Built on first use: fastLenientObject of the element is defined below this function.
  let parse: ((input: unknown) => unknown) | undefined;
  const decode = (v: unknown): Decoded => {
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) return BAD;
    parse ??= recordParserOf(fastLenientObject(element)) as (input: unknown) => unknown;
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i += 1) {
      const item: unknown = v[i];
      const parsed = parse(item);
      if (out === undefined) {
        if (parsed === item) continue;
        out = v.slice(0, i);
      }
      if (parsed !== REJECTED) out.push(parsed);
    }
    return out ?? v;
  };
  return { decode, rule: 'must be a list', same: (v) => decode(v) === v };
}

/**
 * The record schema inside `record.optional().catch(undefined)` (a device's uplink): a record, or
 * undefined when the value is not one. Undefined for any other schema.
 */
function caughtObjectOf(field: z.ZodType): z.ZodObject | undefined {
  const def = (field as unknown as { _zod: { def: { type: string; innerType?: z.ZodType } } })._zod.def;
  if (def.type !== 'catch' || def.innerType === undefined) return undefined;
  const optional = (def.innerType as unknown as { _zod: { def: { type: string; innerType?: z.ZodType } } })
    ._zod.def;
  if (optional.type !== 'optional' || !(optional.innerType instanceof z.ZodObject)) return undefined;
  // Only a catch that gives undefined: asked of a value no record schema takes.
  const probe = field.safeParse(42);
  return probe.success && probe.data === undefined ? optional.innerType : undefined;
}

/** A caught record field, decoded with the record's own fast parse; a value it refuses becomes undefined. */
function caughtObjectRule(record: z.ZodObject): FieldRule {
  // Built on first use: fastLenientObject of the record is defined below this function.
  let parse: ((input: unknown) => unknown) | undefined;
  const decode = (v: unknown): Decoded => {
    if (v === undefined) return undefined;
    parse ??= recordParserOf(fastLenientObject(record)) as (input: unknown) => unknown;
    const parsed = parse(v);
    return parsed === REJECTED ? undefined : parsed;
  };
  return {
    decode,
    rule: 'never refused',
    same: (v) => typeof v === 'object' && v !== null && decode(v) === v,
  };
}

type Field =
  | (FieldRule & { key: string })
  | { key: string; schema: z.ZodType; optin: unknown; optout: unknown; minLength?: number };

/**
 * The shortest length of a plain required `z.string()` / `z.string().min(n)` (the MAC of every
 * record), checked inline instead of through zod; undefined for any other schema.
 */
function plainStringMin(field: z.ZodType): number | undefined {
  const def = (field as unknown as { _zod: { def: { type: string; coerce?: boolean; checks?: unknown[] } } })
    ._zod.def;
  if (def.type !== 'string' || def.coerce) return undefined;
  let min = 0;
  for (const check of def.checks ?? []) {
    const c = (check as { _zod: { def: { check: string; minimum?: number } } })._zod.def;
    if (c.check !== 'min_length' || c.minimum === undefined) return undefined;
    min = Math.max(min, c.minimum);
  }
  return min;
}

/** What a record parser gives for a record it refuses (the zod schema then names the issue). */
export const REJECTED: unique symbol = Symbol('rejected');

const parsers = new WeakMap<object, (input: unknown) => unknown>();

/**
 * The parse of a fastLenientObject schema as a plain function, without zod's per-record result
 * objects (a quarter of the list's parse at 50,000 records): the record's output, or REJECTED,
 * where the schema's safeParse then gives the same refusal with its issue. Undefined for any other
 * schema.
 */
export function recordParserOf<T>(
  schema: z.ZodType<T>,
): ((input: unknown) => T | typeof REJECTED) | undefined {
  return parsers.get(schema) as ((input: unknown) => T | typeof REJECTED) | undefined;
}

/**
 * A schema that parses records exactly as `schema` (a `z.looseObject`, or a `z.object`, which drops
 * unknown keys) does, faster. Its output type is the same; use it where large lists are read (it is
 * a different schema object, so the gateway keeps its parse apart from the original's).
 */
export function fastLenientObject<S extends z.ZodObject>(schema: S): z.ZodType<z.output<S>> {
  const shape = schema.shape as Record<string, z.ZodType>;
  const fields: Field[] = Object.entries(shape).map(([key, field]) => {
    const known = RULES.get(field);
    if (known) return { key, ...known };
    const element = lenientElementOf(field);
    if (element instanceof z.ZodObject) return { key, ...lenientArrayRule(element) };
    const caught = caughtObjectOf(field);
    if (caught !== undefined) return { key, ...caughtObjectRule(caught) };
    const internals = (field as unknown as { _zod: { optin?: unknown; optout?: unknown } })._zod;
    const minLength = plainStringMin(field);
    return {
      key,
      schema: field,
      optin: internals.optin,
      optout: internals.optout,
      ...(minLength === undefined ? {} : { minLength }),
    };
  });
  const keys = new Set(Object.keys(shape));
  const catchall = (
    schema as unknown as { _zod: { def: { catchall?: { _zod: { def: { type: string } } } } } }
  )._zod.def.catchall;
  const catchallType = catchall?._zod.def.type;
  if (catchallType !== undefined && catchallType !== 'unknown' && catchallType !== 'any')
    throw new Error(`fastLenientObject: a ${catchallType} catchall is not supported`);
  const loose = catchallType !== undefined;
  // By key, for the walk over a record's own keys below.
  const byKey = new Map(fields.map((field) => [field.key, field]));
  const others = fields.filter((field) => !('decode' in field)).length;
  // True when zod's output would equal the record itself: every field as its kind outputs it.
  // Walks the record's keys (the enumeration V8 caches per shape), not every field of the schema:
  // a record holds half the fields a schema names, and a keyed load per field was most of the cost.
  const canonical = (record: Record<string, unknown>): boolean => {
    if (Object.hasOwn(record, '__proto__')) return false;
    let seen = 0;
    for (const key in record) {
      const field = byKey.get(key);
      if (field === undefined) continue;
      const value = record[key];
      if ('decode' in field) {
        if (value === undefined || !field.same(value)) return false;
        continue;
      }
      // Other fields: only when their own schema gives back the very same value (a plain string).
      seen += 1;
      if (value === undefined) return false;
      if (field.minLength !== undefined) {
        if (typeof value !== 'string' || value.length < field.minLength) return false;
        continue;
      }
      const parsed = field.schema.safeParse(value);
      if (!parsed.success || parsed.data !== value) return false;
    }
    // A field of another kind that is absent is not in zod's output as it is in the record.
    return seen === others;
  };
  // The whole parse, reporting a refusal through `fail` (zod's ctx.addIssue, or nothing).
  type Fail = (message: string, path?: (string | number)[]) => void;
  const parse = (input: unknown, fail: Fail): z.output<S> | typeof REJECTED => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      fail('expected an object');
      return REJECTED;
    }
    const record = input as Record<string, unknown>;
    if (loose && canonical(record)) return record as z.output<S>;
    const out: Record<string, unknown> = {};
    for (const field of fields) {
      const { key } = field;
      const present = key in record;
      if ('decode' in field) {
        // optional(): an absent key stays absent.
        if (!present) continue;
        const value = field.decode(record[key]);
        if (value === BAD) {
          fail(field.rule, [key]);
          return REJECTED;
        }
        out[key] = value;
        continue;
      }
      // Any other field: its own schema, with zod's rules for absent keys (handlePropertyResult).
      const optional = field.optout === 'optional';
      if (!present && optional && field.optin === 'optional') continue;
      const parsed = field.schema.safeParse(record[key]);
      if (!parsed.success) {
        if (field.optin !== undefined && optional && !present) continue;
        fail(parsed.error.issues[0]?.message ?? 'invalid', [
          key,
          ...((parsed.error.issues[0]?.path ?? []) as (string | number)[]),
        ]);
        return REJECTED;
      }
      if (!present && field.optin === undefined) {
        fail('required', [key]);
        return REJECTED;
      }
      if (parsed.data === undefined) {
        if (present) out[key] = undefined;
      } else out[key] = parsed.data;
    }
    if (!loose) return out as z.output<S>;
    for (const key in record) {
      // looseObject copies unknown keys as they are, never `__proto__`.
      if (keys.has(key) || key === '__proto__') continue;
      out[key] = record[key];
    }
    return out as z.output<S>;
  };
  const schemaOut = z.unknown().transform((input, ctx) => {
    const out = parse(input, (message, path) =>
      ctx.addIssue({ code: 'custom', message, ...(path ? { path } : {}) }),
    );
    return out === REJECTED ? z.NEVER : out;
  }) as unknown as z.ZodType<z.output<S>>;
  const ignore: Fail = () => undefined;
  parsers.set(schemaOut, (input) => parse(input, ignore));
  return schemaOut;
}
