import { createHash } from 'node:crypto';
import { z } from 'zod';
import { CHANGE_STATES, type ChangeRequest } from './records.js';

/** `prev` of the first event of a chain: 64 zeros. */
export const GENESIS_HASH = '0'.repeat(64);

/** SHA-256 of a text, hex: the link between one journal event and the next. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

const actorSchema = z.object({ userId: z.string().min(1), name: z.string().optional() });
const messageSchema = z.object({ channel: z.string(), ts: z.string() });
const errorSchema = z.object({ code: z.string(), message: z.string() });
const stateSchema = z.enum(CHANGE_STATES);

/** A change request as the `created` event carries it. */
export const changeRequestSchema: z.ZodType<ChangeRequest> = z.object({
  id: z.string().min(1),
  tool: z.string().min(1),
  site: z.string(),
  args: z.record(z.string(), z.unknown()),
  requester: actorSchema,
  channel: z.string().optional(),
  preview: z.unknown(),
  previewHash: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  state: stateSchema,
  message: messageSchema.optional(),
  approver: actorSchema.optional(),
  cancelledBy: actorSchema.optional(),
  decidedAt: z.string().optional(),
  result: z.unknown().optional(),
  error: errorSchema.optional(),
  supersededBy: z.string().optional(),
  replaces: z.string().optional(),
  remindedAt: z.string().optional(),
});

const base = { id: z.string().min(1), actor: actorSchema };

/** What one event records besides its place in the chain; the union is exhaustive. */
const entrySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('created'), ...base, request: changeRequestSchema }),
  z.object({ type: z.literal('message'), ...base, message: messageSchema }),
  z.object({ type: z.literal('approved'), ...base, previewHash: z.string() }),
  z.object({ type: z.literal('executing'), ...base }),
  z.object({ type: z.literal('succeeded'), ...base, result: z.unknown() }),
  z.object({
    type: z.literal('failed'),
    ...base,
    error: errorSchema,
    // 'recheck': the approval-time dry run failed, so the write never ran.
    stage: z.enum(['recheck', 'execute']),
  }),
  z.object({ type: z.literal('cancelled'), ...base }),
  z.object({ type: z.literal('expired'), ...base }),
  z.object({
    type: z.literal('superseded'),
    ...base,
    supersededBy: z.string(),
    differences: z.array(z.string()),
  }),
  z.object({ type: z.literal('outcome_unknown'), ...base, previous: z.enum(['approved', 'executing']) }),
  // The one reminder of a request still pending; recorded before it is posted, so it is posted once.
  z.object({ type: z.literal('reminded'), ...base }),
]);

const chainSchema = z.object({
  seq: z.number().int().positive(),
  at: z.iso.datetime(),
  prev: z.string().regex(/^[0-9a-f]{64}$/, { error: 'must be 64 hex digits' }),
  // Reserved for a keyed signature of the event (JOURNAL_KEY); accepted and not yet checked.
  mac: z.string().optional(),
});

/** One event to append: its type, the request id, the actor, and what the type needs. */
export type JournalEntry = z.infer<typeof entrySchema>;

/** Every entry but `created`: a transition of an existing request. */
export type TransitionEntry = Exclude<JournalEntry, { type: 'created' }>;

/** An event as written: the entry plus its sequence number, time, and the hash of the event before. */
export type JournalEvent = JournalEntry & z.infer<typeof chainSchema>;

/** Answer of a chain check: the event count and the hash of the last event, or the first bad one. */
export type VerifyResult =
  | { ok: true; events: number; head: string }
  | { ok: false; line: number; reason: string };

/** The next event of a chain and its text exactly as hashed: one line of approvals.jsonl, one PostgreSQL row. */
export function chainEvent(
  entry: JournalEntry,
  place: { seq: number; at: string; prev: string },
): { event: JournalEvent; line: string; hash: string } {
  const event = { seq: place.seq, at: place.at, prev: place.prev, ...entry } as JournalEvent;
  const line = JSON.stringify(event);
  return { event, line, hash: sha256Hex(line) };
}

function prevOf(line: string | undefined): unknown {
  if (line === undefined) return undefined;
  try {
    return (JSON.parse(line) as { prev?: unknown }).prev;
  } catch {
    return undefined;
  }
}

/**
 * Verifies a journal one event text at a time, in order: JSON, schema, seq 1…n, and the hash
 * chain. It looks one event ahead so it can tell "this one was edited" from "the one before
 * was", which is why a verdict on event n arrives with event n+1 (or at `end`).
 */
export class ChainChecker {
  private readonly events: JournalEvent[] = [];
  private pending: string | undefined;
  private count = 0;
  private head = GENESIS_HASH;
  private failure: { ok: false; line: number; reason: string } | undefined;

  /** `unit` names a position in messages ("line 3", "entry 3"); `keep` keeps the parsed events. */
  constructor(
    private readonly unit: 'line' | 'entry' = 'line',
    private readonly keep = false,
  ) {}

  /** Feeds the next event's text; returns the first failure once one is known. */
  push(text: string): VerifyResult | undefined {
    if (this.failure) return this.failure;
    if (this.pending !== undefined) this.checkOne(this.pending, text);
    this.pending = text;
    return this.failure;
  }

  /** The verdict over everything pushed. */
  end(): VerifyResult {
    if (!this.failure && this.pending !== undefined) this.checkOne(this.pending, undefined);
    this.pending = undefined;
    return this.failure ?? { ok: true, events: this.count, head: this.head };
  }

  /** The parsed events (with `keep`), in order. */
  parsed(): JournalEvent[] {
    return this.events;
  }

  private checkOne(text: string, next: string | undefined): void {
    const verdict = this.judge(text, next);
    if ('reason' in verdict) {
      this.failure = { ok: false, ...verdict };
      return;
    }
    if (this.keep) this.events.push(verdict.event);
    this.count += 1;
    this.head = sha256Hex(text);
  }

  /** The event at the next position, or what is wrong with it (and where). */
  private judge(
    text: string,
    next: string | undefined,
  ): { event: JournalEvent } | { line: number; reason: string } {
    const number = this.count + 1;
    const unit = this.unit;
    const aUnit = unit === 'entry' ? 'an entry' : 'a line';
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return { line: number, reason: 'not valid JSON' };
    }
    const chain = chainSchema.safeParse(raw);
    const entry = entrySchema.safeParse(raw);
    if (!chain.success || !entry.success) {
      const issue = (chain.error ?? entry.error)?.issues[0];
      const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
      return { line: number, reason: `not a journal event (${where}${issue?.message ?? 'invalid'})` };
    }
    if (chain.data.seq !== number) {
      return {
        line: number,
        reason: `seq is ${chain.data.seq} where ${number} was expected: ${aUnit} was removed or inserted before it`,
      };
    }
    if (chain.data.prev !== this.head) {
      // If this event is intact (the next one's prev is its hash), the one before it was edited.
      if (number > 1 && next !== undefined && prevOf(next) === sha256Hex(text)) {
        return {
          line: number - 1,
          reason: `its SHA-256 no longer matches the prev recorded on ${unit} ${number}: the ${unit} was changed`,
        };
      }
      if (number === 1) return { line: 1, reason: 'prev is not the genesis value (64 zeros)' };
      return {
        line: number,
        reason: `prev is not the SHA-256 of ${unit} ${number - 1}: ${unit} ${number - 1} or this ${unit} was changed`,
      };
    }
    return { event: { ...entry.data, ...chain.data } };
  }
}

/** Parses one stored event text that already verified (a PostgreSQL row, a replayed line). */
export function parseEvent(text: string): JournalEvent {
  const raw: unknown = JSON.parse(text);
  return { ...entrySchema.parse(raw), ...chainSchema.parse(raw) };
}
