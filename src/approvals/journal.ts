import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { sha256Hex } from './canonical.js';
import { CHANGE_STATES, type ChangeRequest } from './types.js';

/** The journal's file name inside DATA_DIR. */
export const JOURNAL_FILE = 'approvals.jsonl';

/** `prev` of the first line. */
const GENESIS_HASH = '0'.repeat(64);

const actorSchema = z.object({ userId: z.string().min(1), name: z.string().optional() });
const messageSchema = z.object({ channel: z.string(), ts: z.string() });
const errorSchema = z.object({ code: z.string(), message: z.string() });
const stateSchema = z.enum(CHANGE_STATES);

const requestSchema: z.ZodType<ChangeRequest> = z.object({
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
});

const base = { id: z.string().min(1), actor: actorSchema };

/** What one event records besides its place in the chain; the union is exhaustive. */
const entrySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('created'), ...base, request: requestSchema }),
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
]);

const chainSchema = z.object({
  seq: z.number().int().positive(),
  at: z.iso.datetime(),
  prev: z.string().regex(/^[0-9a-f]{64}$/, { error: 'must be 64 hex digits' }),
});

/** One event to append: its type, the request id, the actor, and what the type needs. */
export type JournalEntry = z.infer<typeof entrySchema>;

/** An event as written: the entry plus its sequence number, time, and the hash of the line before. */
export type JournalEvent = JournalEntry & z.infer<typeof chainSchema>;

/** Answer of verifyJournal: the event count and the hash of the last line, or the first bad line. */
export type VerifyResult =
  | { ok: true; events: number; head: string }
  | { ok: false; line: number; reason: string };

/** The journal does not verify; the bot refuses to run on it rather than guess. */
export class JournalIntegrityError extends Error {
  constructor(
    readonly path: string,
    readonly line: number,
    readonly reason: string,
  ) {
    super(
      `approvals journal ${path} fails verification at line ${line}: ${reason}. ` +
        'Refusing to open it: keep the file as evidence, move it aside, and restart to begin a new journal.',
    );
    this.name = 'JournalIntegrityError';
  }
}

type Checked =
  | { ok: true; events: JournalEvent[]; head: string }
  | { ok: false; line: number; reason: string };

function prevOf(line: string | undefined): unknown {
  if (line === undefined) return undefined;
  try {
    return (JSON.parse(line) as { prev?: unknown }).prev;
  } catch {
    return undefined;
  }
}

/** Parses and verifies a journal's text: JSON per line, schema, seq 1…n, and the hash chain. */
function check(text: string): Checked {
  if (text === '') return { ok: true, events: [], head: GENESIS_HASH };
  const lines = text.split('\n');
  const last = lines.pop();
  if (last !== '') {
    return {
      ok: false,
      line: lines.length + 1,
      reason: 'the line is incomplete (no line end): a write was cut short',
    };
  }
  const events: JournalEvent[] = [];
  let prev = GENESIS_HASH;
  for (const [index, line] of lines.entries()) {
    const number = index + 1;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      return { ok: false, line: number, reason: 'not valid JSON' };
    }
    const chain = chainSchema.safeParse(raw);
    const entry = entrySchema.safeParse(raw);
    if (!chain.success || !entry.success) {
      const issue = (chain.error ?? entry.error)?.issues[0];
      const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
      return {
        ok: false,
        line: number,
        reason: `not a journal event (${where}${issue?.message ?? 'invalid'})`,
      };
    }
    if (chain.data.seq !== number) {
      return {
        ok: false,
        line: number,
        reason: `seq is ${chain.data.seq} where ${number} was expected: a line was removed or inserted before it`,
      };
    }
    if (chain.data.prev !== prev) {
      // If this line is intact (the next line's prev is its hash), the line before it was edited.
      const next = lines[index + 1];
      if (number > 1 && next !== undefined && prevOf(next) === sha256Hex(line)) {
        return {
          ok: false,
          line: number - 1,
          reason: `its SHA-256 no longer matches the prev recorded on line ${number}: the line was changed`,
        };
      }
      if (number === 1) return { ok: false, line: 1, reason: 'prev is not the genesis value (64 zeros)' };
      return {
        ok: false,
        line: number,
        reason: `prev is not the SHA-256 of line ${number - 1}: line ${number - 1} or this line was changed`,
      };
    }
    events.push({ ...entry.data, ...chain.data });
    prev = sha256Hex(line);
  }
  return { ok: true, events, head: prev };
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

/** Verifies a journal file without opening it for writing; a missing file is a valid empty journal. */
export function verifyJournal(path: string): VerifyResult {
  const checked = check(readText(path));
  return checked.ok ? { ok: true, events: checked.events.length, head: checked.head } : checked;
}

/** The audit:verify answer for DATA_DIR: one line to print and the exit code (0 verified, 1 not). */
export function journalReport(dataDir: string): { exitCode: 0 | 1; line: string } {
  const path = join(dataDir, JOURNAL_FILE);
  if (!existsSync(path)) return { exitCode: 0, line: `journal OK: 0 events (no journal at ${path} yet)` };
  const result = verifyJournal(path);
  if (result.ok) {
    return {
      exitCode: 0,
      line: `journal OK: ${result.events} events, chain verified (${path}, head ${result.head.slice(0, 12)})`,
    };
  }
  return { exitCode: 1, line: `journal TAMPERED at line ${result.line}: ${result.reason} (${path})` };
}

// One writer per file: two appenders in one process would fork the chain.
const openPaths = new Set<string>();

/** The append-only, hash-chained event log of change requests. */
export class Journal {
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly fd: number,
    private head: string,
    private seq: number,
    private readonly now: () => number,
  ) {}

  /** Verifies the file (throwing JournalIntegrityError naming the line) and opens it for appending. */
  static open(
    path: string,
    options: { now?: () => number } = {},
  ): { journal: Journal; events: JournalEvent[] } {
    const full = resolve(path);
    if (openPaths.has(full)) throw new Error(`approvals journal ${full} is already open in this process`);
    const checked = check(readText(full));
    if (!checked.ok) throw new JournalIntegrityError(full, checked.line, checked.reason);
    mkdirSync(dirname(full), { recursive: true });
    const fd = openSync(full, 'a');
    if (checked.events.length === 0) syncDirectory(dirname(full));
    openPaths.add(full);
    const journal = new Journal(full, fd, checked.head, checked.events.length, options.now ?? Date.now);
    return { journal, events: checked.events };
  }

  /** Appends one event and flushes it to disk before returning; callers change state only after this. */
  append(entry: JournalEntry): JournalEvent {
    if (this.closed) throw new Error(`approvals journal ${this.path} is closed`);
    const event = {
      seq: this.seq + 1,
      at: new Date(this.now()).toISOString(),
      prev: this.head,
      ...entry,
    } as JournalEvent;
    const line = JSON.stringify(event);
    const bytes = Buffer.from(`${line}\n`, 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written);
    fsyncSync(this.fd);
    this.seq = event.seq;
    this.head = sha256Hex(line);
    return event;
  }

  /** Releases the file; appends after this throw. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    openPaths.delete(this.path);
    closeSync(this.fd);
  }
}

/** Makes a newly created file's directory entry durable; not every platform allows it. */
function syncDirectory(path: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    fsyncSync(fd);
  } catch {
    // Best effort: the data itself is fsynced with each append.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
