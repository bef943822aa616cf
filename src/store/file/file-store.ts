import { randomBytes } from 'node:crypto';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { JsonFileStore, type KeyValueStore } from '../../lib/json-file-store.js';
import type { Logger } from '../../log.js';
import { type Actor, type ChangeRequest, SYSTEM_ACTOR } from '../../model/change-request.js';
import { applyEvent, STOPPED_BEFORE_RUN } from '../apply-event.js';
import type { JournalEvent, TransitionEntry, VerifyResult } from '../journal-format.js';
// Deliberately alike: the file and PostgreSQL stores implement the same store interfaces from ../types.js.
import type {
  ChangeFilter,
  ChangeReader,
  ChangeStore,
  InterruptedRequest,
  JournalFeed,
  JournalHead,
  PendingFilter,
  RequestHistory,
  Store,
  StoreHealth,
  TransitionGuard,
} from '../types.js';
import { FileDeadlineStore } from './deadline-file.js';
import { processAlive } from './file-lock.js';
import { JOURNAL_FILE, Journal, type JournalFs, verifyJournal } from './journal.js';
import { FileJournalFeed } from './journal-feed.js';
import { JournalView } from './journal-view.js';
import { PendingByExpiry, RequestIndex } from './request-index.js';
import { FileSampleStore } from './sample-files.js';
import { FileTimerKeepers } from './timer-keeper-file.js';

/** bot-data.json: bot-kept data inside DATA_DIR. */
export const BOT_DATA_FILE = 'bot-data.json';

/**
 * How a run cut off by a dead process is recorded: caught before `executing`, the write was never
 * sent (it is sent only after that record), so it failed without running; caught while executing,
 * its outcome is unknown.
 */
export function interruptedEntry(id: string, previous: 'approved' | 'executing'): TransitionEntry {
  if (previous === 'approved') {
    return { type: 'failed', id, actor: SYSTEM_ACTOR, error: { ...STOPPED_BEFORE_RUN }, stage: 'recheck' };
  }
  return { type: 'outcome_unknown', id, actor: SYSTEM_ACTOR, previous };
}

/** A fresh id for this process among replicas: host-independent, unguessable enough to never collide. */
export function newReplicaId(): string {
  return `replica_${randomBytes(8).toString('hex')}`;
}

/** Does the request match the filter (everything but paging)? */
export function matchesFilter(request: ChangeRequest, filter: ChangeFilter): boolean {
  if (filter.state !== undefined) {
    const states: readonly string[] = typeof filter.state === 'string' ? [filter.state] : filter.state;
    if (!states.includes(request.state)) return false;
  }
  if (filter.requester !== undefined && request.requester.userId !== filter.requester) return false;
  if (filter.tool !== undefined && request.tool !== filter.tool) return false;
  if (filter.site !== undefined && request.site !== filter.site) return false;
  if (filter.since !== undefined && Date.parse(request.createdAt) < Date.parse(filter.since)) return false;
  if (filter.withoutSetSteps === true && request.setOf !== undefined) return false;
  return true;
}

/** Newest first by creation time, then by id so equal times keep one order. */
export function newestFirst(a: ChangeRequest, b: ChangeRequest): number {
  const byTime = Date.parse(b.createdAt) - Date.parse(a.createdAt);
  if (byTime !== 0) return byTime;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

const isPastExpiry = (request: ChangeRequest, at: number) => at >= Date.parse(request.expiresAt);

/**
 * DATA_DIR/approvals-runs/<request id>: which process runs a claimed change (`<pid> <replica>`),
 * from the claim to its outcome. Several processes append to one journal (the bot, a console run
 * beside it), so "not claimed by me" no longer means "claimed by a process now gone": the bot's
 * sweep leaves a run alone while the process named here lives.
 */
export const RUNS_DIR = 'approvals-runs';

// Change stores open in this process: a run file naming this pid is live only if its replica is one.
const openReplicas = new Set<string>();

const FINISHING = new Set(['succeeded', 'failed', 'outcome_unknown', 'superseded', 'cancelled', 'expired']);

/**
 * Change requests in one process, with DATA_DIR/approvals.jsonl as the durable record: the
 * journal is replayed into memory at open, and every transition is checked, journaled (written
 * and fsynced) and applied in one synchronous step, so no other caller can interleave.
 */
export class FileChangeStore implements ChangeStore {
  readonly replicaId = newReplicaId();
  private readonly requests = new Map<string, ChangeRequest>();
  private readonly index = new RequestIndex();
  private readonly pending = new PendingByExpiry();
  private readonly events = new Map<string, JournalEvent[]>();
  // Claims made by this process; every run found in-flight at open belonged to a process now gone.
  private readonly owned = new Set<string>();

  private constructor(
    private readonly journal: Journal,
    private readonly key: string | undefined,
    private readonly runsDir: string,
  ) {
    openReplicas.add(this.replicaId);
  }

  /**
   * Opens DATA_DIR/approvals.jsonl: verifies (JournalIntegrityError naming the line) and replays
   * it. A torn last line (a crash or a full disk cut its write short) is moved aside with a warning.
   */
  static open(dataDir: string, options: FileStoreOptions = {}): FileChangeStore {
    const { journal, events, torn, readOnly } = Journal.open(join(dataDir, JOURNAL_FILE), {
      ...(options.key !== undefined ? { key: options.key } : {}),
      ...(options.fs ? { fs: options.fs } : {}),
    });
    if (torn) {
      options.logger?.warn(
        { line: torn.line, bytes: torn.bytes, moved_to: torn.movedTo },
        `approvals journal: line ${torn.line} was torn (${torn.reason}); moved it aside and kept the ${events.length} events before it`,
      );
    }
    if (readOnly) {
      options.logger?.warn(
        { code: readOnly.code, path: journal.path },
        `approvals journal: cannot be opened for writing (${readOnly.code}); serving lookups and the ${events.length} recorded events, refusing changes until DATA_DIR takes writes`,
      );
    }
    const store = new FileChangeStore(journal, options.key, join(dataDir, RUNS_DIR));
    try {
      for (const event of events) store.apply(event);
    } catch (error) {
      journal.close();
      throw error;
    }
    return store;
  }

  async create(request: ChangeRequest, actor: Actor, at: number): Promise<ChangeRequest> {
    return this.locked(() => {
      if (this.requests.has(request.id)) throw new Error(`change request ${request.id} exists already`);
      this.record({ type: 'created', id: request.id, actor, request }, at);
      return this.snapshot(request.id);
    });
  }

  async transition(
    id: string,
    entry: TransitionEntry,
    guard: TransitionGuard,
  ): Promise<ChangeRequest | undefined> {
    return this.locked(() => {
      const request = this.requests.get(id);
      if (!request || !this.allows(request, guard)) return undefined;
      // The run file first: a sweep in another process that sees the claim also sees its owner.
      if (entry.type === 'approved') this.markRun(id);
      try {
        this.record(entry, guard.at);
      } catch (error) {
        if (entry.type === 'approved') this.unmarkRun(id);
        throw error;
      }
      if (entry.type === 'approved') this.owned.add(id);
      if (FINISHING.has(entry.type) && this.owned.delete(id)) this.unmarkRun(id);
      return this.snapshot(id);
    });
  }

  async expireDue(at: number): Promise<ChangeRequest[]> {
    return this.locked(() => {
      const expired: ChangeRequest[] = [];
      // The overdue ones from the expiry index, not a walk over every request; oldest first.
      const overdue = this.pending
        .overdue(at)
        .flatMap((id) => this.requests.get(id) ?? [])
        .sort((a, b) => newestFirst(b, a));
      for (const request of overdue) {
        if (request.state === 'pending' && isPastExpiry(request, at)) {
          this.record({ type: 'expired', id: request.id, actor: SYSTEM_ACTOR }, at);
          expired.push(this.snapshot(request.id));
        }
      }
      return expired;
    });
  }

  async recoverInterrupted(at: number): Promise<InterruptedRequest[]> {
    return this.locked(() => {
      const recovered: InterruptedRequest[] = [];
      for (const request of this.byCreation()) {
        const previous = request.state;
        if (previous !== 'approved' && previous !== 'executing') continue;
        if (this.owned.has(request.id) || this.runsElsewhere(request.id)) continue;
        this.record(interruptedEntry(request.id, previous), at);
        this.unmarkRun(request.id);
        recovered.push({ request: this.snapshot(request.id), previous });
      }
      return recovered;
    });
  }

  async get(id: string): Promise<ChangeRequest | undefined> {
    this.refresh();
    return this.requests.has(id) ? this.snapshot(id) : undefined;
  }

  async list(filter: ChangeFilter = {}): Promise<ChangeRequest[]> {
    this.refresh();
    return this.index.list(this.requests, filter, matchesFilter).map((r) => structuredClone(r));
  }

  async count(filter: Omit<ChangeFilter, 'limit' | 'offset'> = {}): Promise<number> {
    this.refresh();
    return this.index.count(this.requests, filter, matchesFilter);
  }

  async pendingByExpiry(filter: PendingFilter): Promise<ChangeRequest[]> {
    this.refresh();
    return this.pending.list(this.requests, filter).map((r) => structuredClone(r));
  }

  async countPending(filter: Omit<PendingFilter, 'limit' | 'offset'>): Promise<number> {
    this.refresh();
    return this.pending.count(filter);
  }

  async history(id: string): Promise<RequestHistory | undefined> {
    this.refresh();
    const request = this.requests.get(id);
    if (!request) return undefined;
    return { request: structuredClone(request), events: structuredClone(this.events.get(id) ?? []) };
  }

  async journalHead(): Promise<JournalHead> {
    this.refresh();
    return this.journal.position;
  }

  async verifyJournal(): Promise<VerifyResult> {
    return verifyJournal(
      this.journal.path,
      this.key !== undefined ? { key: this.key, requireSigned: true } : {},
    );
  }

  /** Why the journal cannot be written, after a failed append (checked again with a probe); undefined while it can. */
  writeFailure(): { code: string; message: string; at: string } | undefined {
    return this.journal.probe();
  }

  /** Releases the journal; later transitions throw. */
  close(): void {
    openReplicas.delete(this.replicaId);
    this.journal.close();
  }

  /**
   * One step under the journal's cross-process lock: first what other processes appended since
   * (the bot and a console on one DATA_DIR), then the caller's check and append.
   */
  private locked<T>(step: () => T): T {
    return this.journal.exclusive((fresh) => {
      for (const event of fresh) this.apply(event);
      return step();
    });
  }

  /** Lookups see what other processes appended (a tail that does not continue the chain throws). */
  private refresh(): void {
    for (const event of this.journal.refresh()) this.apply(event);
  }

  private runFile(id: string): string {
    return join(this.runsDir, id);
  }

  private markRun(id: string): void {
    try {
      nodeFs.mkdirSync(this.runsDir, { recursive: true });
      nodeFs.writeFileSync(this.runFile(id), `${process.pid} ${this.replicaId}\n`);
    } catch {
      // A DATA_DIR that takes no writes: the append right after says so (StoreUnavailableError).
    }
  }

  private unmarkRun(id: string): void {
    nodeFs.rmSync(this.runFile(id), { force: true });
  }

  /** Whether a live process other than this store claimed the run (its run file names it). */
  private runsElsewhere(id: string): boolean {
    let text: string;
    try {
      text = nodeFs.readFileSync(this.runFile(id), 'utf8');
    } catch {
      return false;
    }
    const [pid = '', replica = ''] = text.trim().split(' ');
    if (Number(pid) === process.pid) return openReplicas.has(replica);
    return processAlive(Number(pid));
  }

  private allows(request: ChangeRequest, guard: TransitionGuard): boolean {
    if (!guard.from.includes(request.state)) return false;
    if (guard.live && isPastExpiry(request, guard.at)) return false;
    if (guard.overdue && !isPastExpiry(request, guard.at)) return false;
    if (guard.ownedBySelf && !this.owned.has(request.id)) return false;
    if (guard.unannounced && request.message !== undefined) return false;
    if (guard.notReminded && request.remindedAt !== undefined) return false;
    const approvedBy = request.approvedBy ?? [];
    if (guard.notApprovedBy !== undefined && approvedBy.some((a) => a.userId === guard.notApprovedBy))
      return false;
    if (guard.approvalsBelow !== undefined && approvedBy.length >= guard.approvalsBelow) return false;
    if (guard.approvalsAtLeast !== undefined && approvedBy.length < guard.approvalsAtLeast) return false;
    if (guard.noDeadline && (request.deadlines ?? []).length > 0) return false;
    const wanted = guard.deadline;
    if (wanted && !request.deadlines?.some((d) => d.id === wanted.id && wanted.states.includes(d.state)))
      return false;
    return true;
  }

  private byCreation(): ChangeRequest[] {
    return this.index.oldestFirst(this.requests);
  }

  /** Journal first, then memory: a transition that is not on disk has not happened. */
  private record(entry: TransitionEntry | Parameters<Journal['append']>[0], at: number): void {
    this.apply(this.journal.append(entry, at));
  }

  private apply(event: JournalEvent): void {
    const before = this.requests.get(event.id);
    const next = applyEvent(before, event);
    this.requests.set(event.id, next);
    this.index.put(before, next);
    this.pending.put(before, next);
    const list = this.events.get(event.id);
    if (list) list.push(event);
    else this.events.set(event.id, [event]);
  }

  private snapshot(id: string): ChangeRequest {
    const request = this.requests.get(id);
    if (!request) throw new Error(`change request ${id} vanished`);
    return structuredClone(request);
  }
}

/** What a file store is opened with besides DATA_DIR. */
export interface FileStoreOptions {
  /** Replaces DATA_DIR/bot-data.json (tests keep bot data in memory). */
  data?: KeyValueStore;
  /** JOURNAL_KEY: new events are signed, and existing MACs checked at open. */
  key?: string;
  /** Warnings at open (a torn last line moved aside). */
  logger?: Logger;
  /** The journal's append operations (tests simulate a full disk). */
  fs?: JournalFs;
}

/** The embedded store: files under DATA_DIR, for one process, with nothing to install. */
export class FileStore implements Store {
  readonly kind = 'file';
  readonly data: KeyValueStore;
  private changeStore: FileChangeStore | undefined;
  private sampleStore: FileSampleStore | undefined;
  private feed: FileJournalFeed | undefined;
  private deadlineStore: FileDeadlineStore | undefined;

  constructor(
    readonly dataDir: string,
    private readonly options: FileStoreOptions = {},
  ) {
    this.data = options.data ?? new JsonFileStore(join(dataDir, BOT_DATA_FILE));
  }

  changes(): FileChangeStore {
    this.changeStore ??= FileChangeStore.open(this.dataDir, this.options);
    return this.changeStore;
  }

  samples(): FileSampleStore {
    this.sampleStore ??= new FileSampleStore(this.dataDir);
    return this.sampleStore;
  }

  deadlines(): FileDeadlineStore {
    this.deadlineStore ??= new FileDeadlineStore(this.dataDir);
    return this.deadlineStore;
  }

  timerKeepers(): FileTimerKeepers {
    return new FileTimerKeepers(this.dataDir);
  }

  changeHistory(): ChangeReader {
    // Only the process that owns the journal opens it for append; any other only reads the file.
    return this.changeStore ?? new JournalView(join(this.dataDir, JOURNAL_FILE));
  }

  journalFeed(): JournalFeed {
    this.feed ??= new FileJournalFeed(join(this.dataDir, JOURNAL_FILE));
    return this.feed;
  }

  /**
   * Not ok while the journal cannot be written (a failed append, until a probe write succeeds):
   * lookups still work but nothing can be recorded, so the store is read-only (`/healthz` degraded).
   */
  async health(): Promise<StoreHealth> {
    const failure = this.changeStore?.writeFailure();
    if (!failure) return { kind: 'file', ok: true };
    return {
      kind: 'file',
      ok: false,
      readOnly: true,
      error: `the approvals journal cannot be written since ${failure.at} (${failure.code}): changes are refused, lookups work`,
    };
  }

  async close(): Promise<void> {
    this.changeStore?.close();
  }
}
