import { z } from 'zod';

/**
 * Values an enum's type names (the spec's) but its tool refuses, each with a short note on why.
 * Help shows the note next to the value and a form's select leaves the value out; the schema's own
 * check refuses it with the full reason (see `refusingValues` in arg-types.ts).
 */
export const refusedValues = z.registry<{ refused: Readonly<Record<string, string>> }>();

/** The shape of one argument as the front ends need it: for coercion, help, and generated forms. */
export interface ArgumentInfo {
  name: string;
  kind: 'string' | 'number' | 'boolean' | 'enum' | 'array' | 'other';
  required: boolean;
  defaultValue?: unknown;
  options?: string[];
  /** Enum values the tool refuses, with a short note on why (listed in help, left out of forms). */
  refused?: Readonly<Record<string, string>>;
  description?: string;
  /** Bounds from the zod checks: a number's value, or a text's or list's length. */
  min?: number;
  max?: number;
  /** A number that must be whole. */
  integer?: boolean;
}

interface ZodCheckInternals {
  _zod: { def: { check?: string; minimum?: unknown; maximum?: unknown } };
}

interface ZodInternals {
  _zod: {
    def: {
      type: string;
      innerType?: z.ZodType;
      in?: z.ZodType;
      defaultValue?: unknown;
      checks?: readonly ZodCheckInternals[];
    };
  };
  description?: string;
  options?: readonly unknown[];
  minValue?: number | null;
  maxValue?: number | null;
  isInt?: boolean;
  minLength?: number | null;
  maxLength?: number | null;
}

function internals(schema: z.ZodType): ZodInternals {
  return schema as unknown as ZodInternals;
}

/** Keeps only bounds a person would type near: zod reports ±MAX_SAFE_INTEGER for "no bound". */
function bounds(min: unknown, max: unknown): Pick<ArgumentInfo, 'min' | 'max'> {
  const usable = (v: unknown): v is number =>
    typeof v === 'number' && Number.isFinite(v) && Math.abs(v) < Number.MAX_SAFE_INTEGER;
  return { ...(usable(min) ? { min } : {}), ...(usable(max) ? { max } : {}) };
}

function numberBounds(schema: ZodInternals): Pick<ArgumentInfo, 'min' | 'max' | 'integer'> {
  return { ...bounds(schema.minValue, schema.maxValue), ...(schema.isInt === true ? { integer: true } : {}) };
}

function arrayBounds(schema: ZodInternals): Pick<ArgumentInfo, 'min' | 'max'> {
  const checks = (schema._zod.def.checks ?? []).map((c) => c._zod.def);
  const min = checks.find((c) => c.check === 'min_length')?.minimum;
  const max = checks.find((c) => c.check === 'max_length')?.maximum;
  return bounds(min, max);
}

/** Unwraps optional/default/nullable/pipe wrappers down to the value's own type. */
function describeSchema(schema: z.ZodType): Omit<ArgumentInfo, 'name'> {
  let current = schema;
  let required = true;
  let defaultValue: unknown;
  let description = internals(schema).description;
  for (;;) {
    const def = internals(current)._zod.def;
    description ??= internals(current).description;
    if (def.type === 'optional' || def.type === 'nullable') {
      required = false;
    } else if (def.type === 'default' || def.type === 'prefault') {
      required = false;
      defaultValue = def.defaultValue;
    } else if (def.type !== 'pipe') {
      break;
    }
    const next = def.type === 'pipe' ? def.in : def.innerType;
    if (!next) break;
    current = next;
  }
  const type = internals(current)._zod.def.type;
  const base = { required, defaultValue, description };
  switch (type) {
    case 'number':
      return { ...base, kind: type, ...numberBounds(internals(current)) };
    case 'string':
      return { ...base, kind: type, ...bounds(internals(current).minLength, internals(current).maxLength) };
    case 'array':
      return { ...base, kind: type, ...arrayBounds(internals(current)) };
    case 'boolean':
      return { ...base, kind: type };
    case 'enum': {
      const refused = refusedValues.get(current)?.refused;
      return {
        ...base,
        kind: 'enum',
        options: (internals(current).options ?? []).map(String),
        ...(refused ? { refused } : {}),
      };
    }
    default:
      return { ...base, kind: 'other' };
  }
}

// Tool schemas never change at run time, and every command's validation and every help answer
// reads them: each schema is described once (callers get their own array of shared descriptions).
const described = new WeakMap<z.ZodObject, readonly Readonly<ArgumentInfo>[]>();

/** Lists a tool's arguments in declaration order. */
export function argumentsOf(schema: z.ZodObject): ArgumentInfo[] {
  let infos = described.get(schema);
  if (infos === undefined) {
    infos = Object.entries(schema.shape).map(([name, field]) =>
      Object.freeze({ name, ...describeSchema(field as z.ZodType) }),
    );
    described.set(schema, infos);
  }
  return [...infos];
}
