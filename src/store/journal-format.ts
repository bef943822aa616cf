import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import {
  CHANGE_STATES,
  type ChangeRequest,
  JOURNALED_DEADLINE_KINDS,
  JOURNALED_DEADLINE_STATES,
} from '../model/change-request.js';

/** `prev` of the first event of a chain: 64 zeros. */
export const GENESIS_HASH = '0'.repeat(64);

/** SHA-256 of a text, hex: the link between one journal event and the next. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

// `identity`: the step-up sign-in that backs an approval, recorded beside the Slack user it maps to.
const identitySchema = z.object({ issuer: z.string(), subject: z.string(), email: z.string().optional() });
const actorSchema = z.object({
  userId: z.string().min(1),
  name: z.string().optional(),
  identity: identitySchema.optional(),
});
const messageSchema = z.object({ channel: z.string(), ts: z.string() });
const errorSchema = z.object({
  code: z.string(),
  message: z.string(),
  controllerCode: z.string().optional(),
});
const stateSchema = z.enum(CHANGE_STATES);
const assessmentSchema = z.object({
  risk: z.enum(['low', 'medium', 'high']),
  reasons: z.array(z.string()),
  selfLockout: z.string().optional(),
  target: z.string().optional(),
  approvals: z.number().int().min(1),
  approvers: z.array(z.string()).optional(),
  rules: z.array(z.string()),
  window: z.object({ name: z.string(), open: z.boolean(), nextOpening: z.string().optional() }).optional(),
});
const imageSchema = z.object({
  at: z.string(),
  objects: z.record(z.string(), z.record(z.string(), z.unknown()).nullable()).optional(),
  error: z.string().optional(),
});
const verificationSchema = z.object({
  status: z.enum(['verified', 'not_as_sent', 'unverified']),
  mismatches: z
    .array(z.object({ object: z.string(), field: z.string(), sent: z.unknown(), holds: z.unknown() }))
    .optional(),
  reason: z.string().optional(),
});

const setStepStatusSchema = z.enum(['running', 'done', 'reverted', 'failed', 'not_run', 'unknown']);
const setSchema = z.object({
  title: z.string().optional(),
  onFailure: z.enum(['rollback', 'stop']),
  steps: z.array(
    z.object({
      tool: z.string().min(1),
      args: z.record(z.string(), z.unknown()),
      status: setStepStatusSchema.optional(),
      changeId: z.string().optional(),
      revertId: z.string().optional(),
      revertOf: z.string().optional(),
      error: errorSchema.optional(),
    }),
  ),
  rollout: z
    .object({
      target: z.string(),
      waveSpec: z.string(),
      sites: z.array(z.object({ console: z.string(), site: z.string() })),
      waves: z.array(z.number().int().positive()),
      soakSeconds: z.number().int().nonnegative(),
      stepsPerSite: z.number().int().positive(),
      skipped: z.array(z.object({ console: z.string(), site: z.string(), reason: z.string() })).optional(),
      stoppedBy: actorSchema.optional(),
    })
    .optional(),
});

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
  // Deliberately alike: the journal's zod schema lists ChangeRequest's optional fields one by one.
  state: stateSchema,
  message: messageSchema.optional(),
  approver: actorSchema.optional(),
  cancelledBy: actorSchema.optional(),
  decidedAt: z.string().optional(),
  result: z.unknown().optional(),
  error: errorSchema.optional(),
  notRun: z.boolean().optional(),
  supersededBy: z.string().optional(),
  replaces: z.string().optional(),
  remindedAt: z.string().optional(),
  revertAfterSeconds: z.number().optional(),
  revertAfterRule: z.string().optional(),
  forSeconds: z.number().optional(),
  before: imageSchema.optional(),
  after: imageSchema.optional(),
  verification: verificationSchema.optional(),
  revertOf: z.string().optional(),
  revertedBy: z.string().optional(),
  approvalNote: z.string().optional(),
  assessment: assessmentSchema.optional(),
  approvedBy: z.array(actorSchema).optional(),
  scheduledFor: z.string().optional(),
  set: setSchema.optional(),
  setOf: z.string().optional(),
  setStep: z.number().int().positive().optional(),
  breakGlass: z
    .object({
      reason: z.string(),
      approvals: z.number().int().min(0),
      reviewers: z.array(z.string()),
      reviewDueAt: z.iso.datetime(),
      reviewedBy: actorSchema.optional(),
      reviewedAt: z.string().optional(),
    })
    .optional(),
});

const base = { id: z.string().min(1), actor: actorSchema };

/** A revert deadline as an event names it: its id in the deadline store, its kind and due time. */
const deadlineSchema = z.object({
  id: z.string().min(1),
  kind: z.enum(JOURNALED_DEADLINE_KINDS),
  dueAt: z.iso.datetime(),
});

/** What one event records besides its place in the chain; the union is exhaustive. */
const entrySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('created'), ...base, request: changeRequestSchema }),
  z.object({ type: z.literal('message'), ...base, message: messageSchema }),
  z.object({
    type: z.literal('approved'),
    ...base,
    previewHash: z.string(),
    // Why the system approved (an automatic revert: the original approval covered it).
    note: z.string().optional(),
  }),
  // `before`: the target read fresh right before the write.
  z.object({ type: z.literal('executing'), ...base, before: imageSchema.optional() }),
  // `deadline`: a timed change's automatic revert, scheduled in the same step as its success.
  z.object({
    type: z.literal('succeeded'),
    ...base,
    result: z.unknown(),
    deadline: deadlineSchema.optional(),
  }),
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
  // The after-image of a change that ran, and how it compares with what was sent.
  z.object({
    type: z.literal('verified'),
    ...base,
    after: imageSchema,
    verification: verificationSchema,
  }),
  // A later change (revertedBy) undid this one.
  z.object({ type: z.literal('reverted'), ...base, revertedBy: z.string() }),
  // A reviewer acknowledged a break-glass change (its review is done).
  z.object({ type: z.literal('reviewed'), ...base }),
  // One approval of several required; the request stays pending until the last one.
  z.object({ type: z.literal('endorsed'), ...base, previewHash: z.string() }),
  // Fully approved outside its window; it runs at `runAt` (the window's next opening).
  z.object({ type: z.literal('scheduled'), ...base, previewHash: z.string(), runAt: z.iso.datetime() }),
  // One step of a change set moved on; recorded before its write is sent and after it answered.
  z.object({
    type: z.literal('set_step'),
    ...base,
    step: z.number().int().positive(),
    status: setStepStatusSchema,
    changeId: z.string().optional(),
    revertId: z.string().optional(),
    error: errorSchema.optional(),
    // A rollout's step names the console and site it writes to.
    console: z.string().optional(),
    site: z.string().optional(),
  }),
  // A rollout moved on: a wave soaked (`wave`), or after a halt someone stopped it.
  z.object({
    type: z.literal('rollout'),
    ...base,
    event: z.enum(['soaked', 'stopped']),
    wave: z.number().int().positive().optional(),
    note: z.string().optional(),
  }),
  // A step of a timed change's automatic revert: scheduled, kept (cancelled), claimed, fired,
  // failed (or refused), or unsettled (outcome unknown, so none scheduled). `by`: the replica.
  z.object({
    type: z.literal('deadline'),
    ...base,
    deadline: deadlineSchema,
    state: z.enum(JOURNALED_DEADLINE_STATES),
    by: z.string().optional(),
    note: z.string().optional(),
  }),
]);

const chainSchema = z.object({
  seq: z.number().int().positive(),
  at: z.iso.datetime(),
  prev: z.string().regex(/^[0-9a-f]{64}$/, { error: 'must be 64 hex digits' }),
  // HMAC-SHA256 of the event's text without it, under JOURNAL_KEY (see signLine); always last.
  mac: z
    .string()
    .regex(/^[0-9a-f]{64}$/, { error: 'must be 64 hex digits' })
    .optional(),
});

/** One event to append: its type, the request id, the actor, and what the type needs. */
export type JournalEntry = z.infer<typeof entrySchema>;

/** Every entry but `created`: a transition of an existing request. */
export type TransitionEntry = Exclude<JournalEntry, { type: 'created' }>;

/** An event as written: the entry plus its sequence number, time, and the hash of the event before. */
export type JournalEvent = JournalEntry & z.infer<typeof chainSchema>;

/**
 * Answer of a chain check: the event count and the hash of the last event, or the first bad one.
 * `signed` counts events carrying a MAC (checked when a key was given); `anchors` counts the
 * anchors that matched; both are present only when there is something to say.
 */
export type VerifyResult =
  | { ok: true; events: number; head: string; signed?: number; anchors?: number }
  | { ok: false; line: number; reason: string };

/** A published position of the chain: after `count` events its head was `head` (JOURNAL anchors). */
export interface Anchor {
  count: number;
  head: string;
}

/** `<count>:<64 hex>`, as anchors are posted and as `audit:verify --anchor` takes them. */
export const ANCHOR_PATTERN = /\b(\d{1,15}):([0-9a-f]{64})\b/;

/** An anchor as text: `57:3fa2…` (the whole head, so it can be pasted into audit:verify). */
export function anchorText(anchor: Anchor): string {
  return `${anchor.count}:${anchor.head}`;
}

/** Parses `<count>:<head>`; undefined when the text is not exactly one anchor. */
export function parseAnchor(text: string): Anchor | undefined {
  const found = new RegExp(`^${ANCHOR_PATTERN.source}$`).exec(text.trim().toLowerCase());
  if (!found) return undefined;
  return { count: Number(found[1]), head: found[2] as string };
}

const MAC_SUFFIX = /,"mac":"([0-9a-f]{64})"\}$/;

function hmacHex(key: string, text: string): string {
  return createHmac('sha256', key).update(text, 'utf8').digest('hex');
}

/**
 * Signs an event's text: the MAC covers the whole event (entry, seq, time and `prev`, so the
 * chain too) and goes last, so the signed text is recovered by cutting the suffix, never by
 * serialising again.
 */
export function signLine(unsigned: string, key: string): string {
  return `${unsigned.slice(0, -1)},"mac":"${hmacHex(key, unsigned)}"}`;
}

/** The MAC of a line and the text it covers, or undefined for an unsigned line. */
function signatureOf(line: string): { mac: string; signed: string } | undefined {
  const found = MAC_SUFFIX.exec(line);
  if (!found) return undefined;
  return { mac: found[1] as string, signed: `${line.slice(0, found.index)}}` };
}

/** Whether an event's text carries a MAC (it was written with JOURNAL_KEY set). */
export function isSigned(line: string): boolean {
  return MAC_SUFFIX.test(line);
}

/** Whether a signed line's MAC is the key's MAC of the text it covers. */
export function macMatches(line: string, key: string): boolean {
  const signature = signatureOf(line);
  if (!signature) return false;
  const expected = Buffer.from(hmacHex(key, signature.signed), 'hex');
  return timingSafeEqual(expected, Buffer.from(signature.mac, 'hex'));
}

/**
 * The next event of a chain and its text exactly as hashed: one line of approvals.jsonl, one
 * PostgreSQL row. With a key (JOURNAL_KEY) the text ends with the event's MAC.
 */
export function chainEvent(
  entry: JournalEntry,
  place: { seq: number; at: string; prev: string },
  key?: string,
): { event: JournalEvent; line: string; hash: string } {
  const event = { seq: place.seq, at: place.at, prev: place.prev, ...entry } as JournalEvent;
  const unsigned = JSON.stringify(event);
  if (key === undefined) return { event, line: unsigned, hash: sha256Hex(unsigned) };
  const line = signLine(unsigned, key);
  return { event: { ...event, mac: signatureOf(line)?.mac }, line, hash: sha256Hex(line) };
}

/** How a chain is checked. */
export interface ChainCheckOptions {
  /** Names a position in messages ("line 3", "entry 3"). */
  unit?: 'line' | 'entry';
  /** Keep the parsed events (replay, import). */
  keep?: boolean;
  /**
   * JOURNAL_KEY: every MAC must match. With or without it, a journal with one signed event must
   * have a MAC on every event: an unsigned one before or after it is tampering (MACs
   * stripped, the chain rebuilt, and the bot's next signed event made the forgery look old).
   */
  key?: string;
  /**
   * With `key`: a journal with events of which none is signed fails (the MACs may have been
   * stripped). audit:verify and the bot's open with a key both set it: a key applies from a
   * journal's first event.
   */
  requireSigned?: boolean;
  /** Published positions the chain must pass through: rewriting or cutting before one is found. */
  anchors?: readonly Anchor[];
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
  private signed = 0;
  private firstSigned: number | undefined;
  private failure: { ok: false; line: number; reason: string } | undefined;
  private readonly unit: 'line' | 'entry';
  private readonly keep: boolean;

  constructor(private readonly options: ChainCheckOptions = {}) {
    this.unit = options.unit ?? 'line';
    this.keep = options.keep ?? false;
  }

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
    if (this.failure) return this.failure;
    const { key, requireSigned, anchors } = this.options;
    const cut = (anchors ?? []).find((anchor) => anchor.count > this.count);
    if (cut) {
      return {
        ok: false,
        line: this.count,
        reason:
          `the anchor ${shortAnchor(cut)} records ${cut.count} events but the journal has ${this.count}: ` +
          `${this.unit === 'entry' ? 'entries' : 'lines'} were cut from the end (or the journal was replaced)`,
      };
    }
    if (key !== undefined && requireSigned && this.count > 0 && this.signed === 0) {
      return {
        ok: false,
        line: 1,
        reason:
          'JOURNAL_KEY is set but no event carries a MAC: the MACs were removed and the chain rewritten, or the ' +
          'journal was started without the key (a key applies from the first event: keep this journal as an ' +
          'archive, check it with audit:verify without the key, and start a new one)',
      };
    }
    return {
      ok: true,
      events: this.count,
      head: this.head,
      ...(this.signed > 0 ? { signed: this.signed } : {}),
      ...(anchors && anchors.length > 0 ? { anchors: anchors.length } : {}),
    };
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
    if (verdict.event.mac !== undefined) {
      this.signed += 1;
      this.firstSigned ??= this.count;
    }
    const anchor = this.options.anchors?.find((a) => a.count === this.count && a.head !== this.head);
    if (anchor) {
      this.failure = {
        ok: false,
        line: this.count,
        reason:
          `it is not the ${this.unit} anchored as ${shortAnchor(anchor)}: the journal was rewritten ` +
          `at or before this ${this.unit}`,
      };
    }
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
    const key = this.options.key;
    if (key !== undefined) {
      if (chain.data.mac !== undefined && !(isSigned(text) && macMatches(text, key))) {
        return {
          line: number,
          reason: `its MAC does not match: the ${unit} was forged or changed, or JOURNAL_KEY is not the key it was written with`,
        };
      }
    } else if (chain.data.mac !== undefined && !isSigned(text)) {
      return { line: number, reason: 'its mac is not at the end of the event, where the bot writes it' };
    }
    // A signed journal is signed from its first event to its last, checked with the key or without.
    if (chain.data.mac === undefined && this.firstSigned !== undefined) {
      return {
        line: number,
        reason: `it has no MAC although ${unit} ${this.firstSigned} before it has one: it was written without JOURNAL_KEY, or forged`,
      };
    }
    if (chain.data.mac !== undefined && this.firstSigned === undefined && number > 1) {
      return {
        line: 1,
        reason:
          `it has no MAC although ${unit} ${number} after it has one: every event of a signed journal carries a MAC, ` +
          'so the MACs were stripped and the chain rebuilt (a key applies from the first event, it is never added later)',
      };
    }
    return { event: { ...entry.data, ...chain.data } };
  }
}

function shortAnchor(anchor: Anchor): string {
  return `${anchor.count}:${anchor.head.slice(0, 12)}…`;
}

/** What a verified journal looks like in one line (audit:verify): events, MACs, anchors. */
export function verifiedSummary(
  result: Extract<VerifyResult, { ok: true }>,
  options: { key?: string },
): string {
  const events = (n: number) => (n === 1 ? '1 event' : `${n} events`);
  const parts = [`${events(result.events)}, chain verified`];
  const signed = result.signed ?? 0;
  // The checker lets through only journals signed throughout or not at all.
  if (options.key !== undefined) {
    if (signed > 0) parts.push(`every event's MAC verified (JOURNAL_KEY)`);
  } else if (signed > 0) {
    parts.push(`MACs on ${events(signed)} not checked (JOURNAL_KEY unset)`);
  }
  if (result.anchors)
    parts.push(`${result.anchors === 1 ? 'the anchor' : `${result.anchors} anchors`} matched`);
  return parts.join('; ');
}

/** Parses one stored event text that already verified (a PostgreSQL row, a replayed line). */
export function parseEvent(text: string): JournalEvent {
  const raw: unknown = JSON.parse(text);
  return { ...entrySchema.parse(raw), ...chainSchema.parse(raw) };
}
