import { isRecord } from '../lib/is-record.js';
import type { ChangeImage, ChangeRequest } from '../model/change-request.js';
import { imageObject } from './images.js';
import { changeSpec, type ImageRead, type InversePlan, noSpecReason } from './tool-changes.js';

type Json = Record<string, unknown>;

/**
 * The write that undoes a change that ran, or why there is none: it did not run (or not
 * certainly), it was reverted already, or the tool's change cannot be taken back (a restart).
 */
export function inverseOf(request: ChangeRequest): InversePlan | { reason: string } {
  if (request.state !== 'succeeded') {
    return {
      reason:
        request.state === 'unknown'
          ? 'its outcome is unknown (the bot stopped while it ran): check the controller and change it by hand'
          : `only a change that ran can be reverted; this one is ${request.state}`,
    };
  }
  if (request.revertedBy) return { reason: `it was reverted already by ${request.revertedBy}` };
  const spec = changeSpec(request.tool);
  if (!spec) return { reason: noSpecReason(request.tool) };
  const plan = spec.inverse({
    args: request.args,
    preview: request.preview,
    result: request.result,
    before: imageObject(request.before),
    after: imageObject(request.after),
  });
  // The undoing write goes to the console the change was made on.
  const console = request.args.console;
  if ('reason' in plan || typeof console !== 'string' || plan.args.console !== undefined) return plan;
  return { ...plan, args: { console, ...plan.args } };
}

/** Whether a change offers Revert, and if not, why (the UI shows the reason instead of the button). */
export function revertability(request: ChangeRequest): { ok: true } | { ok: false; reason: string } {
  // A set is reverted as one, step by step in reverse order, while any of its steps is in place.
  if (request.set) {
    if (request.revertedBy) return { ok: false, reason: `it was reverted already by ${request.revertedBy}` };
    return request.set.steps.some((step) => step.status === 'done')
      ? { ok: true }
      : { ok: false, reason: 'none of its steps is in place' };
  }
  const plan = inverseOf(request);
  return 'reason' in plan ? { ok: false, reason: plan.reason } : { ok: true };
}

/** Where the object of a change is read now, to compare with its before- and after-images. */
export function nowRead(request: ChangeRequest): ImageRead | undefined {
  const spec = changeSpec(request.tool);
  return spec?.afterRead?.(request.args, request.result, imageObject(request.before));
}

/** One row of the before / after / now comparison. */
export interface ComparisonRow {
  field: string;
  before: unknown;
  after: unknown;
  now: unknown;
}

const cell = (object: Json | null | undefined, key: string): unknown =>
  object === null ? '(none)' : object === undefined ? '(not read)' : (object[key] ?? null);

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The object's fields before the change, right after it, and now, where any of them differ; and
 * whether the object changed since the change ran (then a revert also undoes, or collides with,
 * what someone did meanwhile).
 */
export function compareImages(
  before: ChangeImage | undefined,
  after: ChangeImage | undefined,
  now: ChangeImage,
): { changedSince: boolean; rows: ComparisonRow[]; unreadable?: string } {
  const a = imageObject(after);
  const n = imageObject(now);
  if (now.error) return { changedSince: false, rows: [], unreadable: now.error };
  if (a === undefined) return { changedSince: false, rows: [], unreadable: 'the after-image was not kept' };
  const changedSince = !same(a, n);
  if (!changedSince) return { changedSince, rows: [] };
  const b = imageObject(before);
  const keys = new Set([
    ...(isRecord(b) ? Object.keys(b) : []),
    ...(isRecord(a) ? Object.keys(a) : []),
    ...(isRecord(n) ? Object.keys(n) : []),
  ]);
  const rows: ComparisonRow[] = [];
  for (const key of keys) {
    const row = { field: key, before: cell(b, key), after: cell(a, key), now: cell(n, key) };
    if (!same(row.before, row.after) || !same(row.after, row.now)) rows.push(row);
  }
  return { changedSince, rows };
}
