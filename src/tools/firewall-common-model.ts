import type { z } from 'zod';
import { BotError, GatewayUnavailableError } from '../errors.js';

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
