import type { z } from 'zod';
import { BotError, GatewayUnavailableError } from '../errors.js';

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

/** A create: the preview (`would_create`) or the write and its result. */
export async function applyCreate(plan: {
  dryRun: boolean | undefined;
  payload: unknown;
  warnings: string[];
  send(): Promise<unknown>;
  result(answer: unknown): Record<string, unknown>;
}): Promise<Record<string, unknown>> {
  if (plan.dryRun) return { dry_run: true, would_create: plan.payload, warnings: plan.warnings };
  const answer = await plan.send();
  return { success: true, ...plan.result(answer), warnings: plan.warnings };
}

/**
 * An update: the preview (`changes` and `would_send`), nothing at all when nothing changes, or
 * the write and its result. `subject` names the target (`{route_id, name}`).
 */
export async function applyUpdate(plan: {
  dryRun: boolean | undefined;
  subject: Record<string, unknown>;
  changes: Changes;
  body: unknown;
  warnings: string[];
  send(): Promise<unknown>;
  /** The result object; `answer` is undefined when nothing was sent. */
  result(answer: unknown): Record<string, unknown>;
}): Promise<Record<string, unknown>> {
  const summary = { ...plan.subject, changes: plan.changes, warnings: plan.warnings };
  if (plan.dryRun) return { dry_run: true, ...summary, would_send: plan.body };
  const answer = Object.keys(plan.changes).length === 0 ? undefined : await plan.send();
  return { success: true, ...summary, ...plan.result(answer) };
}

/** A delete of a target already found: the preview (`would_delete`) or the delete. */
export async function applyDelete(plan: {
  dryRun: boolean | undefined;
  preview: unknown;
  warnings: string[];
  /** `deleted_<argument>`: `deleted_list_id`. */
  idField: string;
  id: string;
  send(): Promise<unknown>;
}): Promise<Record<string, unknown>> {
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
