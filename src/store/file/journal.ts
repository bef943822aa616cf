import * as nodeFs from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { BotError, StoreUnavailableError } from '../../errors.js';
import { deadlineDiscrepancies, discrepancyText, journaledDeadlines } from '../deadline-audit.js';
import {
  type Anchor,
  ChainChecker,
  chainEvent,
  isSigned,
  type JournalEntry,
  type JournalEvent,
  macMatches,
  parseEvent,
  sha256Hex,
  type VerifyResult,
  verifiedSummary,
} from '../journal-format.js';
import { DEADLINES_FILE, readDeadlineFile } from './deadline-file.js';
import { type FileLockOptions, withFileLock } from './file-lock.js';
import {
  describeCode,
  type JournalWriteFailure,
  mkdirFor,
  moveAside,
  openForAppend,
  syncDirectory,
} from './journal-file-ops.js';

export type { JournalEntry, JournalEvent, VerifyResult } from '../journal-format.js';

/** The journal's file name inside DATA_DIR. */
export const JOURNAL_FILE = 'approvals.jsonl';

/** The lock file every process takes before it appends to (or opens) the journal at `path`. */
export function journalLockPath(path: string): string {
  return `${resolve(path)}.lock`;
}

/** The journal does not verify; the bot refuses to run on it rather than guess. */
export class JournalIntegrityError extends BotError {
  readonly code = 'journal_invalid';
  constructor(
    readonly path: string,
    readonly line: number,
    readonly reason: string,
  ) {
    super(
      `approvals journal ${path} fails verification at line ${line}: ${reason}. ` +
        'Refusing to open it: keep the file as evidence, move it aside, and restart to begin a new journal.',
    );
  }
}

/** The journal is signed (JOURNAL_KEY was set when it was written) and no key is set now. */
export class JournalKeyError extends BotError {
  readonly code = 'config_invalid';
  constructor(readonly path: string) {
    super(
      `approvals journal ${path} is signed (its events carry MACs) but JOURNAL_KEY is not set: ` +
        'set JOURNAL_KEY to the key it was written with, so new events are signed and old ones checked',
    );
  }
}

/**
 * The file operations an append uses. Tests pass their own to simulate a full disk (ENOSPC), a
 * short write or a failing fsync without filling a real disk.
 */
export interface JournalFs {
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number): number;
  fsyncSync(fd: number): void;
  ftruncateSync(fd: number, length: number): void;
}

const realFs: JournalFs = {
  writeSync: (fd, buffer, offset, length) => nodeFs.writeSync(fd, buffer, offset, length),
  fsyncSync: (fd) => nodeFs.fsyncSync(fd),
  ftruncateSync: (fd, length) => nodeFs.ftruncateSync(fd, length),
};

/** A last line a crash or a failed write left incomplete, moved aside at open. */
export interface TornTail {
  /** Its 1-based line number in the journal. */
  line: number;
  bytes: number;
  reason: string;
  /** Where it was moved (`approvals.jsonl.torn-<time>`); unset when only reported (audit:verify). */
  movedTo?: string;
}

/** How a journal is read and checked. */
export interface JournalCheckOptions {
  /** JOURNAL_KEY: MACs are checked, and new events signed. */
  key?: string;
  /** Published positions (audit:verify --anchor). */
  anchors?: readonly Anchor[];
  /** Fail when a key is given and no event is signed (audit:verify; the bot's open does not). */
  requireSigned?: boolean;
}

type Checked =
  | {
      ok: true;
      events: JournalEvent[];
      result: Extract<VerifyResult, { ok: true }>;
      good: number;
      torn?: TornTail;
    }
  | { ok: false; line: number; reason: string };

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Splits a journal's text into whole lines and a torn tail: text after the last line end (a write
 * cut short), or a last line that is not JSON (a crash can leave garbage where a line was going).
 * Only the last line can be torn; anything wrong before it is damage.
 */
function splitTail(text: string): { lines: string[]; good: number; torn?: TornTail & { text: string } } {
  if (text === '') return { lines: [], good: 0 };
  const lines = text.split('\n');
  const tail = lines.pop() ?? '';
  if (tail !== '') {
    const good = Buffer.byteLength(text) - Buffer.byteLength(tail);
    return {
      lines,
      good,
      torn: {
        line: lines.length + 1,
        bytes: Buffer.byteLength(tail),
        reason: 'the line is incomplete (no line end): a write was cut short',
        text: tail,
      },
    };
  }
  const last = lines.at(-1);
  if (last !== undefined && !isJson(last)) {
    lines.pop();
    const bytes = Buffer.byteLength(last) + 1;
    return {
      lines,
      good: Buffer.byteLength(text) - bytes,
      torn: { line: lines.length + 1, bytes, reason: 'the last line is not valid JSON', text: `${last}\n` },
    };
  }
  return { lines, good: Buffer.byteLength(text) };
}

/** Parses and verifies a journal's text: whole lines, then the chain (see ChainChecker). */
function check(text: string, keep: boolean, options: JournalCheckOptions): Checked & { tornText?: string } {
  const { lines, good, torn } = splitTail(text);
  const checker = new ChainChecker({
    unit: 'line',
    keep,
    ...(options.key !== undefined ? { key: options.key } : {}),
    ...(options.anchors ? { anchors: options.anchors } : {}),
    ...(options.requireSigned ? { requireSigned: true } : {}),
  });
  for (const line of lines) if (checker.push(line)) break;
  const result = checker.end();
  if (!result.ok) return result;
  if (!torn) return { ok: true, events: checker.parsed(), result, good };
  const { text: tornText, ...tail } = torn;
  return { ok: true, events: checker.parsed(), result, good, torn: tail, tornText };
}

function readText(path: string): string {
  try {
    return nodeFs.readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

/**
 * Verifies a journal file without opening it for writing; a missing file is a valid empty journal.
 * A torn last line is reported beside the verdict (the bot moves it aside at its next start).
 */
export function verifyJournal(
  path: string,
  options: JournalCheckOptions = {},
): VerifyResult & { torn?: TornTail } {
  const checked = check(readText(path), false, options);
  if (!checked.ok) return checked;
  return { ...checked.result, ...(checked.torn ? { torn: checked.torn } : {}) };
}

/** Reads and verifies a journal file, returning its events (for store:import); throws on a bad chain or a torn line. */
export function readJournal(
  path: string,
  options: JournalCheckOptions = {},
): { events: JournalEvent[]; lines: string[]; head: string } {
  const full = resolve(path);
  const text = readText(full);
  const checked = check(text, true, options);
  if (!checked.ok) throw new JournalIntegrityError(full, checked.line, checked.reason);
  if (checked.torn) {
    throw new JournalIntegrityError(
      full,
      checked.torn.line,
      `${checked.torn.reason}; start the bot once on this DATA_DIR (it moves the torn line aside) before importing`,
    );
  }
  return {
    events: checked.events,
    lines: text === '' ? [] : text.slice(0, -1).split('\n'),
    head: checked.result.head,
  };
}

/**
 * The events of a journal another process may be appending to, without opening it for writing:
 * a last line still being written (no line end yet) is left for the next read, not called broken.
 */
export function readCommittedEvents(path: string): JournalEvent[] {
  const full = resolve(path);
  const text = readText(full);
  const checked = check(text.slice(0, text.lastIndexOf('\n') + 1), true, {});
  if (!checked.ok) throw new JournalIntegrityError(full, checked.line, checked.reason);
  return checked.events;
}

/**
 * The audit:verify answer for DATA_DIR: one line to print and the exit code (0 verified, 1 not,
 * 2 not checked: DATA_DIR missing or not a directory, so a mistyped path never passes as empty).
 */
export function journalReport(
  dataDir: string,
  options: JournalCheckOptions = {},
): { exitCode: 0 | 1 | 2; line: string } {
  const path = join(dataDir, JOURNAL_FILE);
  const dir = nodeFs.statSync(dataDir, { throwIfNoEntry: false });
  if (!dir?.isDirectory()) {
    return {
      exitCode: 2,
      line: `journal not checked: DATA_DIR ${dataDir} ${dir ? 'is not a directory' : 'does not exist'}`,
    };
  }
  const anchored = (options.anchors ?? []).length > 0;
  if (!nodeFs.existsSync(path) && !anchored) {
    const deadlines = deadlineReport(dataDir, []);
    if (deadlines) return deadlines;
    return { exitCode: 0, line: `journal OK: 0 events (no journal at ${path} yet)` };
  }
  const checked = check(readText(path), true, { ...options, requireSigned: true });
  if (checked.ok) {
    const deadlines = deadlineReport(dataDir, checked.events);
    if (deadlines) return deadlines;
    const torn = checked.torn
      ? `; line ${checked.torn.line} is torn (${checked.torn.reason}), and the bot moves it aside at its next start`
      : '';
    return {
      exitCode: 0,
      line: `journal OK: ${verifiedSummary(checked.result, options)}${torn} (${path}, anchor ${checked.result.events}:${checked.result.head})`,
    };
  }
  return { exitCode: 1, line: `journal TAMPERED at line ${checked.line}: ${checked.reason} (${path})` };
}

/**
 * DATA_DIR/deadlines.json against the verified journal: a revert deadline is part of its change's
 * signed record, so one added, removed or edited outside the bot is tampering; undefined when they agree.
 */
function deadlineReport(
  dataDir: string,
  events: readonly JournalEvent[],
): { exitCode: 1; line: string } | undefined {
  const path = join(dataDir, DEADLINES_FILE);
  let stored: ReturnType<typeof readDeadlineFile>;
  try {
    stored = readDeadlineFile(path);
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { exitCode: 1, line: `deadlines TAMPERED: ${path} is not a deadline file the bot wrote (${why})` };
  }
  const found = deadlineDiscrepancies(journaledDeadlines(events), stored);
  if (found.length === 0) return undefined;
  return { exitCode: 1, line: `deadlines TAMPERED: ${discrepancyText(found)} (${path})` };
}

// One writer per file: two appenders in one process would fork the chain.
const openPaths = new Set<string>();

/** What Journal.open needs besides the path. */
export interface JournalOpenOptions {
  now?: () => number;
  /** JOURNAL_KEY: every new event is signed, and the MACs already there are checked at open. */
  key?: string;
  /** The append's file operations (tests simulate a full disk). */
  fs?: JournalFs;
  /** The cross-process lock's waits (tests shorten them). */
  lock?: FileLockOptions;
}

/**
 * The append-only, hash-chained event log of change requests, one JSON line per event. Each append
 * is one write of the whole line followed by fsync; a failed or short write is cut back to the
 * last whole line before anything else is appended, so a full disk never leaves a torn line behind.
 */
export class Journal {
  private closed = false;
  private failure: JournalWriteFailure | undefined;
  // Opened read-only: whether a probe may open it for appending once the disk takes writes.
  private reopenable = false;
  // Set when a failed append could not be cut back: the next append cuts first, or refuses.
  private mustTruncate = false;

  private constructor(
    readonly path: string,
    // Undefined while the file could not be opened for appending (a read-only DATA_DIR).
    private fd: number | undefined,
    private head: string,
    private seq: number,
    // Bytes of whole, verified lines: where a failed append is cut back to.
    private size: number,
    readonly now: () => number,
    private readonly key: string | undefined,
    private readonly fs: JournalFs,
    private readonly lockOptions: FileLockOptions,
  ) {}

  /**
   * Runs `fn` holding the journal's cross-process lock, after reading what other processes
   * appended since this one last looked (`fresh`, verified as a continuation of the chain): the
   * caller applies those, checks its guard against the state they give, and appends, and no other
   * process can append in between. Events an unlocked `append` caught up on come first.
   */
  exclusive<T>(fn: (fresh: JournalEvent[]) => T): T {
    return withFileLock(
      journalLockPath(this.path),
      () => fn([...this.takeUnseen(), ...this.catchUp(true)]),
      this.lockOptions,
    );
  }

  /**
   * What other processes appended since this one last looked, without the lock (for lookups): a
   * line still being written is left for the next look.
   */
  refresh(): JournalEvent[] {
    return [...this.takeUnseen(), ...this.catchUp(false)];
  }

  private unseen: JournalEvent[] = [];

  private takeUnseen(): JournalEvent[] {
    const taken = this.unseen;
    this.unseen = [];
    return taken;
  }

  /**
   * Reads whole lines past the bytes this process knows and checks each continues the chain.
   * Under the lock (`locked`), text after the last line end is a line a dead process left torn:
   * it is moved aside as at open, so the next append starts on a line of its own.
   */
  private catchUp(locked: boolean): JournalEvent[] {
    // Bytes past `size` left by this process's own failed append are not another process's events.
    if (locked && this.mustTruncate && this.fd !== undefined) this.cutBack(this.fd);
    if (this.mustTruncate) return [];
    const stat = nodeFs.statSync(this.path, { throwIfNoEntry: false });
    const size = stat?.size ?? 0;
    if (size === this.size) return [];
    if (size < this.size) {
      throw new JournalIntegrityError(
        this.path,
        this.seq,
        `the file is ${size} bytes, shorter than the ${this.size} bytes already verified: it was cut or replaced by another program`,
      );
    }
    const buffer = Buffer.alloc(size - this.size);
    const fd = nodeFs.openSync(this.path, 'r');
    try {
      nodeFs.readSync(fd, buffer, 0, buffer.length, this.size);
    } finally {
      nodeFs.closeSync(fd);
    }
    const text = buffer.toString('utf8');
    const end = text.lastIndexOf('\n') + 1;
    const whole = text.slice(0, end);
    const events: JournalEvent[] = [];
    for (const line of whole === '' ? [] : whole.slice(0, -1).split('\n')) {
      events.push(this.continueWith(line));
      this.size += Buffer.byteLength(line) + 1;
    }
    if (locked && end < text.length && this.fd !== undefined) {
      moveAside(this.path, this.fd, text.slice(end), this.size);
    }
    return events;
  }

  /** One line appended by another process: it must be the next event of this chain. */
  private continueWith(line: string): JournalEvent {
    const number = this.seq + 1;
    let event: JournalEvent;
    try {
      event = parseEvent(line);
    } catch {
      throw new JournalIntegrityError(this.path, number, 'not a journal event (appended by another process)');
    }
    if (event.seq !== number || event.prev !== this.head) {
      throw new JournalIntegrityError(
        this.path,
        number,
        'it does not continue the chain this process verified (seq or prev differ)',
      );
    }
    if (this.key !== undefined && !(isSigned(line) && macMatches(line, this.key))) {
      throw new JournalIntegrityError(this.path, number, 'its MAC does not match JOURNAL_KEY');
    }
    this.seq = number;
    this.head = sha256Hex(line);
    return event;
  }

  /**
   * Verifies the file (throwing JournalIntegrityError naming the line) and opens it for appending.
   * A torn last line is moved to `approvals.jsonl.torn-<time>` first and reported in `torn`.
   */
  static open(
    path: string,
    options: JournalOpenOptions = {},
  ): { journal: Journal; events: JournalEvent[]; torn?: TornTail; readOnly?: JournalWriteFailure } {
    const full = resolve(path);
    if (openPaths.has(full)) throw new Error(`approvals journal ${full} is already open in this process`);
    // Under the lock: a line another process is writing right now is never taken for a torn one.
    mkdirFor(full);
    return withFileLock(journalLockPath(full), () => Journal.openLocked(full, options), options.lock);
  }

  private static openLocked(
    full: string,
    options: JournalOpenOptions,
  ): { journal: Journal; events: JournalEvent[]; torn?: TornTail; readOnly?: JournalWriteFailure } {
    const text = readText(full);
    // With a key, the same verdict as audit:verify: an unsigned journal is refused, not adopted,
    // since stripped MACs look exactly like a key set late.
    const checked = check(
      text,
      true,
      options.key !== undefined ? { key: options.key, requireSigned: true } : {},
    );
    if (!checked.ok) throw new JournalIntegrityError(full, checked.line, checked.reason);
    if (options.key === undefined && checked.events.at(-1)?.mac !== undefined)
      throw new JournalKeyError(full);
    const journalOn = (fd: number | undefined) =>
      new Journal(
        full,
        fd,
        checked.result.head,
        checked.events.length,
        checked.good,
        options.now ?? Date.now,
        options.key,
        options.fs ?? realFs,
        options.lock ?? {},
      );
    const opened = openForAppend(full);
    if ('failure' in opened) {
      // A read-only DATA_DIR: the journal is replayed and served for lookups, and every
      // append is refused with the reason, as after a failed append, instead of a crash loop.
      openPaths.add(full);
      const journal = journalOn(undefined);
      journal.failure = { ...opened.failure, at: new Date(journal.now()).toISOString() };
      // A torn tail cannot be moved aside now: appends stay refused until a restart does it.
      journal.reopenable = !checked.torn;
      return { journal, events: checked.events, readOnly: journal.failure };
    }
    const fd = opened.fd;
    let torn: TornTail | undefined;
    try {
      if (checked.torn && checked.tornText !== undefined) {
        torn = { ...checked.torn, movedTo: moveAside(full, fd, checked.tornText, checked.good) };
      }
    } catch (error) {
      nodeFs.closeSync(fd);
      throw error;
    }
    if (checked.events.length === 0 || torn) syncDirectory(dirname(full));
    openPaths.add(full);
    const journal = journalOn(fd);
    return { journal, events: checked.events, ...(torn ? { torn } : {}) };
  }

  /** The number of events and the hash of the last one. */
  get position(): { count: number; head: string } {
    return { count: this.seq, head: this.head };
  }

  /** Why the last append failed, until an append succeeds again; undefined while appends work. */
  get writeFailure(): JournalWriteFailure | undefined {
    return this.failure;
  }

  /**
   * Appends one event and flushes it to disk before returning; callers change state only after
   * this. On any failure the file is left as it was before the call and StoreUnavailableError is
   * thrown: the event did not happen.
   */
  append(entry: JournalEntry, at = this.now()): JournalEvent {
    if (this.closed) throw new Error(`approvals journal ${this.path} is closed`);
    // Re-entrant: inside exclusive() nothing new is found; called alone, what another process
    // appended is kept for the caller's next exclusive() or refresh().
    return withFileLock(
      journalLockPath(this.path),
      () => {
        this.unseen.push(...this.catchUp(true));
        return this.appendLocked(entry, at);
      },
      this.lockOptions,
    );
  }

  private appendLocked(entry: JournalEntry, at: number): JournalEvent {
    const fd = this.fd;
    if (fd === undefined) {
      throw new StoreUnavailableError(
        `the approvals journal cannot be written (${describeCode(this.failure?.code ?? 'EROFS')}), so nothing was recorded`,
      );
    }
    if (this.mustTruncate) this.cutBack(fd);
    const { event, line, hash } = chainEvent(
      entry,
      { seq: this.seq + 1, at: new Date(at).toISOString(), prev: this.head },
      this.key,
    );
    const bytes = Buffer.from(`${line}\n`, 'utf8');
    try {
      // One write of the whole line: a partial one is a failure, never continued by another write.
      const written = this.fs.writeSync(fd, bytes, 0, bytes.length);
      if (written !== bytes.length) {
        throw Object.assign(new Error(`short write: ${written} of ${bytes.length} bytes`), {
          code: 'short_write',
        });
      }
      this.fs.fsyncSync(fd);
    } catch (error) {
      this.failed(error, fd);
    }
    this.size += bytes.length;
    this.seq = event.seq;
    this.head = hash;
    this.failure = undefined;
    return event;
  }

  /**
   * Checks that the disk takes writes again after a failed append (a small probe file beside the
   * journal, written and fsynced the way an append is); clears the failure if so.
   */
  probe(): JournalWriteFailure | undefined {
    if (!this.failure || this.closed) return this.failure;
    if (this.fd === undefined) return this.reopen();
    const probePath = join(dirname(this.path), `.${basename(this.path)}.probe`);
    let fd: number | undefined;
    try {
      fd = nodeFs.openSync(probePath, 'w');
      const bytes = Buffer.alloc(4096, 0x20);
      if (this.fs.writeSync(fd, bytes, 0, bytes.length) !== bytes.length) return this.failure;
      this.fs.fsyncSync(fd);
      if (this.mustTruncate) this.cutBack(this.fd);
      this.failure = undefined;
    } catch {
      // Still failing: the failure recorded by the append stands.
    } finally {
      if (fd !== undefined) nodeFs.closeSync(fd);
      nodeFs.rmSync(probePath, { force: true });
    }
    return this.failure;
  }

  /** Releases the file; appends after this throw. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    openPaths.delete(this.path);
    if (this.fd !== undefined) nodeFs.closeSync(this.fd);
  }

  /** A journal opened read-only: opened for appending once the file system takes writes again. */
  private reopen(): JournalWriteFailure | undefined {
    if (!this.reopenable) return this.failure;
    const opened = openForAppend(this.path);
    if ('failure' in opened) return this.failure;
    this.fd = opened.fd;
    this.failure = undefined;
    return undefined;
  }

  /** Cuts a failed append back to the last whole line, records why, and throws. */
  private failed(error: unknown, fd: number): never {
    const code = String((error as NodeJS.ErrnoException).code ?? 'EIO');
    const message = error instanceof Error ? error.message : String(error);
    this.failure = { at: new Date(this.now()).toISOString(), code, message };
    try {
      this.cutBack(fd);
    } catch {
      // The cut is retried before the next append, which refuses until it succeeds.
    }
    throw new StoreUnavailableError(
      `the approvals journal cannot be written (${describeCode(code)}), so nothing was recorded`,
    );
  }

  private cutBack(fd: number): void {
    this.mustTruncate = true;
    try {
      this.fs.ftruncateSync(fd, this.size);
      this.fs.fsyncSync(fd);
    } catch (error) {
      const code = String((error as NodeJS.ErrnoException).code ?? 'EIO');
      throw new StoreUnavailableError(
        `the approvals journal cannot be written (${describeCode(code)}), so nothing was recorded`,
      );
    }
    this.mustTruncate = false;
  }
}
