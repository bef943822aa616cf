/**
 * Small pieces every change spec uses, and the builders for objects read by id through a
 * get or list tool and written by create / update / delete tools.
 */

import { isRecord } from '../../lib/is-record.js';
import type { ChangeSpec, ImageRead, InverseInput, InversePlan, Json } from './change-spec.js';

export type { Json } from './change-spec.js';

export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export function field(value: unknown, ...path: string[]): unknown {
  let at = value;
  for (const key of path) {
    if (!isRecord(at)) return undefined;
    at = at[key];
  }
  return at;
}

export function siteOf(args: Json): Json {
  // In a fleet the object lives on the change's console: its reads and its undoing go there too.
  return {
    ...(typeof args.console === 'string' ? { console: args.console } : {}),
    ...(typeof args.site_id === 'string' ? { site_id: args.site_id } : {}),
  };
}

/** `{field: to}` of an update preview's or result's `changes`. */
export function changesTo(...sources: unknown[]): Json | undefined {
  for (const source of sources) {
    const changes = field(source, 'changes');
    if (!isRecord(changes)) continue;
    const fields: Json = {};
    for (const [key, change] of Object.entries(changes)) {
      if (isRecord(change) && 'to' in change) fields[key] = change.to;
    }
    return fields;
  }
  return undefined;
}

/** An update's expectation: the fields its result (or else its preview) says it changes, as they are to be. */
export const updatedFields: NonNullable<ChangeSpec['expected']> = (_args, preview, result) => {
  const fields = changesTo(result, preview);
  return fields ? { kind: 'fields', fields } : undefined;
};

export const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

export function notRevertible(reason: string): ChangeSpec {
  return { kind: 'action', inverse: () => ({ reason }) };
}

/** An object found by id (or name) in the answer of a list tool. */
export function listRead(kind: string, tool: string, args: Json, ref: string, extra: Json = {}): ImageRead {
  return {
    kind,
    ref,
    tool,
    args: { ...siteOf(args), ...extra },
    select: (answer) => {
      if (!Array.isArray(answer)) return undefined;
      const records = answer.filter(isRecord);
      return (
        records.find((r) => r.id === ref) ??
        records.find((r) => typeof r.name === 'string' && r.name.toLowerCase() === ref.toLowerCase())
      );
    },
  };
}

/** An object read by a get tool (`{<idArg>: ref}`); a missing object reads as gone. */
export function getRead(kind: string, tool: string, idArg: string, args: Json, ref: string): ImageRead {
  return { kind, ref, tool, args: { ...siteOf(args), [idArg]: ref } };
}

/**
 * How an update tool puts one field of the object's image back: the arguments, or why it cannot
 * (a note in the preview; the revert still puts back what it can).
 */
export type PutBack = (value: unknown, before: Json) => Json | { cannot: string };

/** What a create / update / delete family needs for its three specs. */
export interface CrudFamily {
  kind: string;
  /** Reads the object by id or name (the argument the update and delete tools take). */
  read(args: Json, ref: string): ImageRead;
  /** The argument naming the object in the delete tool (and the update tool unless updateIdArg). */
  idArg: string;
  updateIdArg?: string;
  createTool: string;
  updateTool?: string;
  deleteTool: string;
  /** The id of what a create made, from its result. */
  createdId(result: unknown): string | undefined;
  /** The fields a create should leave on the object (from its arguments). */
  createdFields?(args: Json): Json;
  /** Per image field: how the update tool sets it back. Fields not listed are derived (ignored). */
  putBack: Record<string, PutBack>;
  /** Image fields the update tool cannot set, with why (a note when they changed). */
  fixed?: Record<string, string>;
  /** The create arguments that re-create a deleted object from its image, or why it cannot. */
  recreate(before: Json, args: Json): Json | { cannot: string };
  /** Notes on a re-creation (besides "new id"). */
  recreateNotes?(input: InverseInput): string[];
  /** Notes on undoing a create (what deleting it does not put back). */
  undoCreateNotes?(input: InverseInput): string[];
  /** Notes on undoing an update. */
  undoUpdateNotes?(input: InverseInput): string[];
  /** The create tool refuses a taken name: the result key naming the created object (`zone`). */
  uniqueNameResult?: string;
}

const idOf = (object: Json | null | undefined): string | undefined =>
  str(object?.id) ?? str(object?._id) ?? undefined;

/** The update that puts back every field a change made different (compared image to image). */
export function updateInverse(family: CrudFamily, input: InverseInput): InversePlan | { reason: string } {
  const { before, after, args } = input;
  if (!family.updateTool) return { reason: `${family.kind} has no update tool` };
  if (!before)
    return {
      reason: `the ${family.kind} could not be read before the change, so what to put back is unknown`,
    };
  const keys = after
    ? [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => !same(before[k], after[k]))
    : Object.keys(family.putBack);
  const back: Json = {};
  const notes: string[] = [...(family.undoUpdateNotes?.(input) ?? [])];
  for (const key of keys) {
    const put = family.putBack[key];
    const fixed = family.fixed?.[key];
    if (put) {
      const set = put(before[key], before);
      if ('cannot' in set) notes.push(`${key} is not put back: ${String(set.cannot)}`);
      else Object.assign(back, set);
    } else if (fixed) notes.push(`${key} is not put back: ${fixed}`);
  }
  if (Object.keys(back).length === 0)
    return {
      reason:
        notes.length > 0
          ? `nothing the ${family.updateTool} tool can set was changed (${notes.join('; ')})`
          : `the change left no field of the ${family.kind} different`,
    };
  const idArg = family.updateIdArg ?? family.idArg;
  const id = idOf(before) ?? str(args[idArg]) ?? '';
  return { tool: family.updateTool, args: { ...siteOf(args), [idArg]: id, ...back }, notes };
}

/** The create, update and delete specs of a family. */
export function crudSpecs(family: CrudFamily): Record<string, ChangeSpec> {
  const specs: Record<string, ChangeSpec> = {
    [family.createTool]: {
      kind: 'create',
      afterRead: (args, result) => {
        const id = family.createdId(result);
        return id ? family.read(args, id) : undefined;
      },
      expected: (args) =>
        family.createdFields ? { kind: 'fields', fields: family.createdFields(args) } : undefined,
      inverse: (input) => {
        const id = family.createdId(input.result);
        if (!id) return { reason: `the result does not name the ${family.kind} created` };
        return {
          tool: family.deleteTool,
          args: { ...siteOf(input.args), [family.idArg]: id },
          notes: family.undoCreateNotes?.(input) ?? [],
        };
      },
      ...(family.uniqueNameResult
        ? {
            createdByName: {
              read: (args: Json) =>
                typeof args.name === 'string' ? family.read(args, args.name) : undefined,
              result: (object: Json) => ({ [family.uniqueNameResult as string]: object }),
            },
          }
        : {}),
    },
    [family.deleteTool]: {
      kind: 'delete',
      beforeRead: (args) => family.read(args, String(args[family.idArg])),
      afterRead: (args, _result, before) => family.read(args, idOf(before) ?? String(args[family.idArg])),
      expected: () => ({ kind: 'gone' }),
      inverse: (input) => {
        if (!input.before)
          return {
            reason: `the ${family.kind} could not be read before it was deleted, so it cannot be re-created`,
          };
        const create = family.recreate(input.before, input.args);
        if ('cannot' in create) return { reason: String(create.cannot) };
        return {
          tool: family.createTool,
          args: { ...siteOf(input.args), ...create },
          notes: [
            `re-created with a new id: objects that referred to the old id are not rewired`,
            ...(family.recreateNotes?.(input) ?? []),
          ],
        };
      },
    },
  };
  if (family.updateTool) {
    const idArg = family.updateIdArg ?? family.idArg;
    specs[family.updateTool] = {
      kind: 'update',
      beforeRead: (args) => family.read(args, String(args[idArg])),
      afterRead: (args, _result, before) => family.read(args, idOf(before) ?? String(args[idArg])),
      expected: updatedFields,
      inverse: (input) => updateInverse(family, input),
    };
  }
  return specs;
}

/** `{arg: value}` unless the value is empty (then the tool's default stands). */
export function given(arg: string, value: unknown): Json {
  return value === null || value === undefined || value === '' ? {} : { [arg]: value };
}

/** A put-back that sets one argument to the stored value as it is. */
export const asArg =
  (arg: string): PutBack =>
  (value) => ({ [arg]: value });
