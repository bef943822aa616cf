import type { z } from 'zod';
import { BotError, GatewayUnavailableError } from '../../errors.js';

/** Shared flows of the write tools: previews, diffs, and the write that follows an approval. */

/** A field-by-field diff, `{field: {from, to}}`, as every update preview shows it. */
export type Changes = Record<string, { from: unknown; to: unknown }>;

/** The fields of `after` whose value differs from `before` (arrays and objects compared by value). */
export function fieldChanges(before: Record<string, unknown>, after: Record<string, unknown>): Changes {
  const changes: Changes = {};
  for (const [key, to] of Object.entries(after)) {
    const from = before[key] ?? null;
    if (JSON.stringify(from) !== JSON.stringify(to)) changes[key] = { from, to };
  }
  return changes;
}

/** The name of an id the tool read (a network, a zone), or null/undefined when it is not one it knows. */
export type NameOf = (id: string) => string | null | undefined;

/**
 * `{id: name}` for every string in `value` that `nameOf` names, so a preview can show each id it
 * carries with its name. Names are part of the preview (and its hash): a rename is a change the
 * approver should see.
 */
export function namesIn(value: unknown, nameOf: NameOf): Record<string, string> {
  const names: Record<string, string> = {};
  const visit = (item: unknown): void => {
    if (typeof item === 'string') {
      const name = nameOf(item);
      if (name) names[item] = name;
    } else if (Array.isArray(item)) {
      item.forEach(visit);
    } else if (typeof item === 'object' && item !== null) {
      Object.values(item).forEach(visit);
    }
  };
  visit(value);
  return names;
}

/** `{names}` for a preview when `nameOf` names anything in it, else nothing. */
function namesField(preview: unknown, nameOf: NameOf | undefined): { names?: Record<string, string> } {
  if (!nameOf) return {};
  const names = namesIn(preview, nameOf);
  return Object.keys(names).length > 0 ? { names } : {};
}

/** What every write flow is given: preview only or not, the warnings shown, and the write itself. */
interface WritePlan {
  dryRun: boolean | undefined;
  warnings: string[];
  send(): Promise<unknown>;
}

/** A write whose preview names the ids it carries and whose result the tool shapes. */
interface ShapedWritePlan extends WritePlan {
  /** Names the ids the preview carries (a create's payload; an update's subject, changes and body). */
  nameOf?: NameOf;
  /** The result object; `answer` is undefined when nothing was sent. */
  result(answer: unknown): Record<string, unknown>;
}

/** A create: the preview (`would_create`) or the write and its result. */
export async function applyCreate(
  plan: ShapedWritePlan & { payload: unknown },
): Promise<Record<string, unknown>> {
  if (plan.dryRun) {
    const names = namesField(plan.payload, plan.nameOf);
    return { dry_run: true, would_create: plan.payload, ...names, warnings: plan.warnings };
  }
  const answer = await plan.send();
  return { success: true, ...plan.result(answer), warnings: plan.warnings };
}

/**
 * An update: the preview (`changes` and `would_send`), nothing at all when nothing changes, or
 * the write and its result. `subject` names the target (`{route_id, name}`).
 */
export async function applyUpdate(
  plan: ShapedWritePlan & { subject: Record<string, unknown>; changes: Changes; body: unknown },
): Promise<Record<string, unknown>> {
  const summary = { ...plan.subject, changes: plan.changes, warnings: plan.warnings };
  // Nothing would change: nothing to send, approve or journal (every face says so).
  if (plan.dryRun && Object.keys(plan.changes).length === 0) return nothingToChange(summary);
  if (plan.dryRun) {
    const names = namesField([plan.subject, plan.changes, plan.body], plan.nameOf);
    return { dry_run: true, ...summary, would_send: plan.body, ...names };
  }
  const answer = Object.keys(plan.changes).length === 0 ? undefined : await plan.send();
  return { success: true, ...summary, ...plan.result(answer) };
}

/**
 * The preview of an update whose values are the current ones: `nothing_to_change` makes every face
 * answer "nothing to change" and ask nobody to approve it (src/approvals, src/console).
 */
export function nothingToChange<T extends Record<string, unknown>>(
  summary: T,
): T & { dry_run: true; nothing_to_change: true } {
  return { dry_run: true, nothing_to_change: true, ...summary };
}

/** A delete of a target already found: the preview (`would_delete`) or the delete. */
export async function applyDelete(
  plan: WritePlan & {
    preview: unknown;
    /** `deleted_<argument>`: `deleted_list_id`. */
    idField: string;
    id: string;
  },
): Promise<Record<string, unknown>> {
  if (plan.dryRun) return { dry_run: true, would_delete: plan.preview, warnings: plan.warnings };
  await plan.send();
  return { success: true, [plan.idField]: plan.id };
}

/** Deep equality for JSON values (records as the controller sends them), key order ignored. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((value, i) => sameJson(value, b[i]));
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) return false;
  const left = Object.entries(a);
  const right = b as Record<string, unknown>;
  return (
    left.length === Object.keys(right).length && left.every(([key, value]) => sameJson(value, right[key]))
  );
}

/**
 * The body of a full-replace write: the record exactly as stored (so untouched fields go back
 * byte-for-byte), without the fields the controller owns, with `set` applied on top.
 */
export function replacementBody(
  stored: Readonly<Record<string, unknown>>,
  readOnly: RegExp,
  set: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stored)) if (!readOnly.test(key)) body[key] = value;
  return { ...body, ...set };
}

/**
 * Adds to a failed write's message what earlier writes of the same change already did, so the
 * admin knows the exact state left behind. The error keeps its class and code; after a timeout
 * the failed step's outcome is unknown, and the message says so.
 */
export function withStateLeft(error: unknown, done: readonly string[], failedStep: string): unknown {
  if (!(error instanceof BotError) || done.length === 0) return error;
  const outcome =
    error instanceof GatewayUnavailableError
      ? `whether ${failedStep} reached the controller is unknown`
      : `${failedStep} did not happen`;
  error.message = `${error.message}. State left: ${done.join('; ')} (not undone); ${outcome}`;
  return error;
}

/** Raw records paired with their parse (records the schema cannot read are left out, never fatal). */
export function parseEach<R, T>(raw: readonly R[], schema: z.ZodType<T>): { raw: R; record: T }[] {
  return raw.flatMap((item) => {
    const parsed = schema.safeParse(item);
    return parsed.success ? [{ raw: item, record: parsed.data }] : [];
  });
}
