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
