import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  ChainChecker,
  chainEvent,
  GENESIS_HASH,
  type JournalEntry,
  type JournalEvent,
  type VerifyResult,
} from '../journal-format.js';

export type { JournalEntry, JournalEvent, VerifyResult } from '../journal-format.js';

/** The journal's file name inside DATA_DIR. */
export const JOURNAL_FILE = 'approvals.jsonl';

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
  | { ok: true; events: JournalEvent[]; count: number; head: string }
  | { ok: false; line: number; reason: string };

/** Parses and verifies a journal's text: whole lines, then the chain (see ChainChecker). */
function check(text: string, keep: boolean): Checked {
  if (text === '') return { ok: true, events: [], count: 0, head: GENESIS_HASH };
  const lines = text.split('\n');
  const last = lines.pop();
  const checker = new ChainChecker('line', keep);
  for (const line of lines) if (checker.push(line)) break;
  const result = checker.end();
  if (!result.ok) return result;
  if (last !== '') {
    return {
      ok: false,
      line: lines.length + 1,
      reason: 'the line is incomplete (no line end): a write was cut short',
    };
  }
  return { ok: true, events: checker.parsed(), count: result.events, head: result.head };
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
  const checked = check(readText(path), false);
  return checked.ok ? { ok: true, events: checked.count, head: checked.head } : checked;
}

/** Reads and verifies a journal file, returning its events (for store:import); throws on a bad chain. */
export function readJournal(path: string): { events: JournalEvent[]; lines: string[]; head: string } {
  const full = resolve(path);
  const text = readText(full);
  const checked = check(text, true);
  if (!checked.ok) throw new JournalIntegrityError(full, checked.line, checked.reason);
  return {
    events: checked.events,
    lines: text === '' ? [] : text.slice(0, -1).split('\n'),
    head: checked.head,
  };
}

/**
 * The events of a journal another process may be appending to, without opening it for writing:
 * a last line still being written (no line end yet) is left for the next read, not called broken.
 */
export function readCommittedEvents(path: string): JournalEvent[] {
  const full = resolve(path);
  const text = readText(full);
  const checked = check(text.slice(0, text.lastIndexOf('\n') + 1), true);
  if (!checked.ok) throw new JournalIntegrityError(full, checked.line, checked.reason);
  return checked.events;
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

/** The append-only, hash-chained event log of change requests, one JSON line per event. */
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
    const checked = check(readText(full), true);
    if (!checked.ok) throw new JournalIntegrityError(full, checked.line, checked.reason);
    mkdirSync(dirname(full), { recursive: true });
    const fd = openSync(full, 'a');
    if (checked.events.length === 0) syncDirectory(dirname(full));
    openPaths.add(full);
    const journal = new Journal(full, fd, checked.head, checked.events.length, options.now ?? Date.now);
    return { journal, events: checked.events };
  }

  /** The number of events and the hash of the last one. */
  get position(): { count: number; head: string } {
    return { count: this.seq, head: this.head };
  }

  /** Appends one event and flushes it to disk before returning; callers change state only after this. */
  append(entry: JournalEntry, at = this.now()): JournalEvent {
    if (this.closed) throw new Error(`approvals journal ${this.path} is closed`);
    const { event, line, hash } = chainEvent(entry, {
      seq: this.seq + 1,
      at: new Date(at).toISOString(),
      prev: this.head,
    });
    const bytes = Buffer.from(`${line}\n`, 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written);
    fsyncSync(this.fd);
    this.seq = event.seq;
    this.head = hash;
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
