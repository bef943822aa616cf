import { isBotError, ResourceNotFoundError } from '../errors.js';
import { isRecord } from '../lib/is-record.js';
import { redactSecrets } from '../lib/redact.js';
import { scrubSecrets } from '../lib/secret-text.js';
import type { ChangeImage, FieldMismatch, Verification } from '../model/change-request.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import { freshContext } from './fresh-context.js';
import type { Expected, ImageRead } from './tool-changes.js';

type Json = Record<string, unknown>;

function pickFields(record: Json, pick: readonly string[] | undefined): Json {
  if (!pick) return record;
  return Object.fromEntries(pick.filter((key) => key in record).map((key) => [key, record[key]]));
}

/** `network 6650…`, `client aa:bb:…`: the object by its id once read, else as it was asked for. */
function labelOf(read: ImageRead, found?: Json): string {
  const id = found?.id ?? found?._id ?? found?.mac;
  return `${read.kind} ${typeof id === 'string' ? id : read.ref}`;
}

/** The reason an image could not be read, in one line, secrets scrubbed. */
function whyNot(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = isBotError(error) ? `${error.code}: ` : '';
  return scrubSecrets(`${code}${message}`.replace(/\s+/g, ' ')).slice(0, 300);
}

/**
 * Reads one object fresh through its read tool: its record (secrets masked), `null` when the
 * controller no longer has it, or an image with `error`. Never throws: an image that cannot be
 * read never blocks, fails or repeats a write.
 */
export async function readImage(
  read: ImageRead,
  registry: ToolRegistry,
  context: ToolContext,
  now: () => number,
): Promise<ChangeImage> {
  const at = () => new Date(now()).toISOString();
  try {
    // A read of an object on a fleet's console reads that console, directly or through a tool.
    const console = read.args?.console;
    const on =
      typeof console === 'string' && context.consoles?.fleet
        ? { ...context, gateway: context.consoles.gateway(console), console }
        : context;
    const answer = read.direct
      ? await read.direct(freshContext(on))
      : await registry.run(read.tool, read.args, freshContext(on));
    const found = read.select ? read.select(answer) : isRecord(answer) ? answer : undefined;
    const object = found ? (redactSecrets(pickFields(found, read.pick)) as Json) : null;
    return { at: at(), objects: { [labelOf(read, found)]: object } };
  } catch (error) {
    if (error instanceof ResourceNotFoundError) return { at: at(), objects: { [labelOf(read)]: null } };
    return { at: at(), error: `${labelOf(read)} could not be read: ${whyNot(error)}` };
  }
}

/** The one object of an image (undefined when there is none or it could not be read). */
export function imageObject(image: ChangeImage | undefined): Json | null | undefined {
  if (!image?.objects) return undefined;
  const values = Object.values(image.objects);
  return values.length === 1 ? values[0] : undefined;
}

// A sent value and a stored value are the same when they say the same thing: `null` and absent
// are both "not set", and numbers sent as text (a lease time) compare by value.
function sameValue(sent: unknown, holds: unknown): boolean {
  const norm = (v: unknown) => (v === undefined || v === '' ? null : v);
  const a = norm(sent);
  const b = norm(holds);
  if (JSON.stringify(a) === JSON.stringify(b)) return true;
  if ((typeof a === 'number' || typeof a === 'string') && (typeof b === 'number' || typeof b === 'string')) {
    return String(a) === String(b);
  }
  return false;
}

/**
 * The after-image compared with what was sent: each field the controller holds differently, a
 * delete verified gone. Fields the read tool does not show, and masked secrets, are not compared.
 */
export function verify(expected: Expected | undefined, after: ChangeImage): Verification {
  if (after.error) return { status: 'unverified', reason: after.error };
  if (!expected) return { status: 'unverified', reason: 'nothing the change sends can be read back' };
  const entries = Object.entries(after.objects ?? {});
  const [label, object] = entries[0] ?? ['object', undefined];
  if (expected.kind === 'gone') {
    if (object === null) return { status: 'verified' };
    return {
      status: 'not_as_sent',
      mismatches: [{ object: label, field: '(exists)', sent: 'deleted', holds: 'still there' }],
    };
  }
  if (!object) {
    return {
      status: 'not_as_sent',
      mismatches: [{ object: label, field: '(exists)', sent: 'the change', holds: 'no such object' }],
    };
  }
  const mismatches: FieldMismatch[] = [];
  for (const [field, sent] of Object.entries(expected.fields)) {
    if (!(field in object) && sent !== null) continue;
    const holds = object[field];
    if (holds === '[redacted]' || sent === '[redacted]') continue;
    if (!sameValue(sent, holds)) mismatches.push({ object: label, field, sent, holds: holds ?? null });
  }
  return mismatches.length === 0 ? { status: 'verified' } : { status: 'not_as_sent', mismatches };
}
