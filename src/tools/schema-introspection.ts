import type { z } from 'zod';

/** The shape of one argument as the front ends need it: for coercion, help, and generated forms. */
export interface ArgumentInfo {
  name: string;
  kind: 'string' | 'number' | 'boolean' | 'enum' | 'array' | 'other';
  required: boolean;
  defaultValue?: unknown;
  options?: string[];
  description?: string;
}

interface ZodInternals {
  _zod: { def: { type: string; innerType?: z.ZodType; in?: z.ZodType; defaultValue?: unknown } };
  description?: string;
  options?: readonly unknown[];
}

function internals(schema: z.ZodType): ZodInternals {
  return schema as unknown as ZodInternals;
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
    case 'string':
    case 'number':
    case 'boolean':
    case 'array':
      return { ...base, kind: type };
    case 'enum':
      return { ...base, kind: 'enum', options: (internals(current).options ?? []).map(String) };
    default:
      return { ...base, kind: 'other' };
  }
}

/** Lists a tool's arguments in declaration order. */
export function argumentsOf(schema: z.ZodObject): ArgumentInfo[] {
  return Object.entries(schema.shape).map(([name, field]) => ({
    name,
    ...describeSchema(field as z.ZodType),
  }));
}
