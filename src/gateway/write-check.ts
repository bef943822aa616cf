import { GatewayRejectedError, GatewayUnavailableError, WriteOutcomeUnknownError } from '../errors.js';
import { scrubSecrets } from '../log.js';
import type { WriteMethod } from './types.js';

/**
 * After a write that failed in a way that leaves its outcome open (an HTTP 5xx other than 503, or
 * no answer at all), the gateway reads the object back once before anything is said: a controller
 * can apply a change and then answer 500. This module decides what that read proves; the gateway
 * does the read. Writes are still never retried.
 */

/** Where a write's object can be read back: its collection, and its id (PUT, PATCH, DELETE). */
export interface ReadBackTarget {
  /** Site-relative path of the collection (`rest/networkconf`). */
  collection: string;
  id?: string;
}

/** Object ids the controller APIs use: 24-hex ObjectIds (classic, v2) and UUIDs (Integration). */
const ID = /^(?:[0-9a-f]{24}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/**
 * The collection a write's object belongs to, when the path says so: a POST to a collection, or a
 * PUT/PATCH/DELETE of `<collection>/<id>`. Commands (`cmd/devmgr`) and bulk paths (`ordering`) have
 * no object to read back.
 */
export function readBackTarget(api: string, method: WriteMethod, path: string): ReadBackTarget | undefined {
  const segments = path.split('/').filter((s) => s !== '');
  if (api === 'classic' && segments[0] !== 'rest') return undefined;
  if (method === 'POST') {
    const last = segments.at(-1);
    if (last === undefined || ID.test(last) || (api === 'classic' && segments.length !== 2)) return undefined;
    return { collection: segments.join('/') };
  }
  const id = segments.at(-1);
  if (id === undefined || !ID.test(id) || segments.length < 2) return undefined;
  return { collection: segments.slice(0, -1).join('/'), id };
}

/** Whether a failed write is one whose outcome a read can settle: 'answered' (5xx) or 'unanswered'. */
export function openOutcome(error: unknown): 'answered' | 'unanswered' | undefined {
  if (error instanceof WriteOutcomeUnknownError) return 'unanswered';
  const status =
    error instanceof GatewayUnavailableError || error instanceof GatewayRejectedError
      ? error.status
      : undefined;
  // 503 is the UniFi OS proxy saying the Network application is not taking requests: not made.
  if (status !== undefined && status >= 500 && status !== 503) return 'answered';
  return undefined;
}

/** What the read afterwards showed. */
export type ReadBack =
  | { kind: 'absent' }
  | { kind: 'present'; record: Record<string, unknown> }
  | { kind: 'unreadable'; reason: string };

/** The verdict: provably not made (the original failure stands, with the evidence), or maybe made. */
export interface Verdict {
  /** `likely`: the read shows the change; `maybe`: it shows nothing either way (or no answer came). */
  made: 'no' | 'maybe' | 'likely';
  /** What the read showed, as a clause: "a read afterwards finds no object named Lab". */
  evidence: string;
}

const SECRET_NAME = /key|secret|pass|psk|private|token|^x_/i;

/** One value as a message may show it: secrets never, long values cut. */
function shown(field: string, value: unknown): string {
  if (SECRET_NAME.test(field)) return '(hidden)';
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value ?? null);
  return scrubSecrets(text.length > 60 ? `${text.slice(0, 57)}...` : text);
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function labelOf(record: Record<string, unknown>, id: string | undefined): string {
  const name = typeof record.name === 'string' ? `"${record.name.slice(0, 64)}"` : undefined;
  const recordId =
    typeof record._id === 'string' ? record._id : typeof record.id === 'string' ? record.id : id;
  return (
    [name, recordId === undefined ? undefined : `id ${recordId}`].filter(Boolean).join(', ') || 'the object'
  );
}

/** The sent fields whose value the read shows otherwise: `vlan_id 802 (999 was sent)`. */
function differences(sent: Record<string, unknown>, record: Record<string, unknown>): string[] {
  return Object.entries(sent)
    .filter(([field]) => field !== '_id' && field !== 'id' && field !== 'site_id')
    .filter(([field, value]) => !same(record[field], value))
    .map(([field, value]) => `${field} ${shown(field, record[field])} (${shown(field, value)} was sent)`);
}

/**
 * What a read of the collection after a failed write proves. `before` is the object as the bot last
 * read it before the write (from its cache), when it had one: an update whose every sent field still
 * reads as before is provably not made. `answered` false (no answer came back) never proves "not made":
 * the controller may still be working on the write.
 */
export function judgeReadBack(input: {
  method: WriteMethod;
  target: ReadBackTarget;
  body: unknown;
  readBack: ReadBack;
  before?: Record<string, unknown>;
  answered: boolean;
}): Verdict {
  const { method, target, readBack, before, answered } = input;
  const sent =
    typeof input.body === 'object' && input.body !== null ? (input.body as Record<string, unknown>) : {};
  const provably = (evidence: string): Verdict => ({ made: answered ? 'no' : 'maybe', evidence });
  if (readBack.kind === 'unreadable') {
    return { made: 'maybe', evidence: `a read afterwards to check failed too (${readBack.reason})` };
  }
  if (method === 'POST') {
    const name = typeof sent.name === 'string' ? sent.name : undefined;
    if (name === undefined)
      return { made: 'maybe', evidence: 'the bot cannot tell the new object apart by a read' };
    if (readBack.kind === 'absent')
      return provably(`a read afterwards finds no object named "${name.slice(0, 64)}"`);
    return { made: 'likely', evidence: `a read afterwards finds ${labelOf(readBack.record, undefined)}` };
  }
  if (method === 'DELETE') {
    if (readBack.kind === 'present') {
      return provably(`a read afterwards still finds ${labelOf(readBack.record, target.id)}`);
    }
    return { made: 'likely', evidence: `a read afterwards no longer finds id ${target.id ?? '?'}` };
  }
  // PUT or PATCH.
  if (readBack.kind === 'absent')
    return provably(`a read afterwards finds no object with id ${target.id ?? '?'}`);
  const label = labelOf(readBack.record, target.id);
  const differ = differences(sent, readBack.record);
  if (differ.length === 0)
    return { made: 'likely', evidence: `a read afterwards shows ${label} with every value sent` };
  const unchanged =
    before !== undefined &&
    Object.keys(sent).every((field) => same(readBack.record[field], before[field])) &&
    differences(sent, before).length > 0;
  if (unchanged) return provably(`a read afterwards shows ${label} unchanged: ${differ.join(', ')}`);
  return { made: 'maybe', evidence: `a read afterwards shows ${label} with ${differ.join(', ')}` };
}

/**
 * The error to report: the original failure with the evidence when the change provably was not
 * made, else WriteOutcomeUnknownError ("may have been made") with what the read showed.
 */
export function reportAfterReadBack(
  error: GatewayUnavailableError | GatewayRejectedError,
  verdict: Verdict,
  what: { method: WriteMethod; path: string },
): Error {
  if (verdict.made === 'no') {
    const message = `${error.message}; ${verdict.evidence}, so the change was not made`;
    return error instanceof GatewayRejectedError
      ? new GatewayRejectedError(error.controllerCode, message, error.status)
      : new GatewayUnavailableError(message, error.status);
  }
  // The unanswered case already says "after the … was sent: … may or may not have been made".
  const failure =
    error instanceof WriteOutcomeUnknownError
      ? error.message.replace(
          /: the change may or may not have been made; check the controller before trying again$/,
          '',
        )
      : `${error.message} after the ${what.method} to ${what.path} was sent`;
  const may = verdict.made === 'likely' ? 'may have been made' : 'may or may not have been made';
  return new WriteOutcomeUnknownError(
    `${failure}, and ${verdict.evidence}: the change ${may}; check the controller before trying again`,
  );
}
