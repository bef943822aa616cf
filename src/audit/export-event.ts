import { redactSecrets } from '../lib/redact.js';
import { parseEvent, sha256Hex } from '../store/journal-format.js';
import type { JournalLine } from '../store/types.js';

/**
 * One journal event as it leaves the bot: its place in the chain (`seq`, `prev`, and `hash`, the
 * SHA-256 of its journal line), so a receiver can check that each event links to the one before
 * and nothing is missing, and the event itself with secrets masked.
 */
export interface ExportEvent {
  seq: number;
  at: string;
  type: string;
  /** The change request the event belongs to. */
  change: string;
  actor: { userId: string; name?: string };
  prev: string;
  hash: string;
  /** Everything else the event records (the request, the approval, the error…), redacted. */
  event: Record<string, unknown>;
}

const CHAIN_FIELDS = new Set(['seq', 'at', 'prev', 'mac', 'type', 'id', 'actor']);

export function exportEventOf(line: JournalLine): ExportEvent {
  const hash = sha256Hex(line.line);
  let parsed: ReturnType<typeof parseEvent>;
  try {
    parsed = parseEvent(line.line);
  } catch {
    // The chain was verified when the store opened; a line it cannot read now still keeps its place.
    const prev = /"prev":"([0-9a-f]{64})"/.exec(line.line)?.[1] ?? '';
    return {
      seq: line.seq,
      at: '',
      type: 'unreadable',
      change: '',
      actor: { userId: '' },
      prev,
      hash,
      event: {},
    };
  }
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) if (!CHAIN_FIELDS.has(key)) rest[key] = value;
  return {
    seq: parsed.seq,
    at: parsed.at,
    type: parsed.type,
    change: parsed.id,
    actor: redactSecrets(parsed.actor) as ExportEvent['actor'],
    prev: parsed.prev,
    hash,
    event: redactSecrets(rest) as Record<string, unknown>,
  };
}

/** How loud an event is: a failure or an unknown outcome is a warning, the rest informational. */
export function eventSeverity(event: ExportEvent): 'warning' | 'notice' | 'info' {
  if (event.type === 'failed' || event.type === 'outcome_unknown' || event.type === 'unreadable')
    return 'warning';
  if (event.type === 'approved' || event.type === 'succeeded' || event.type === 'reverted') return 'notice';
  return 'info';
}

/** The tool an event's change runs, where the event says it (its `created` request). */
export function toolOf(event: ExportEvent): string | undefined {
  const request = event.event.request;
  if (request && typeof request === 'object' && 'tool' in request && typeof request.tool === 'string') {
    return request.tool;
  }
  return undefined;
}
