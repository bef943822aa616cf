import type { BudgetBackend } from '../fleet/rate-budget.js';
import type { KeyValueStore } from '../lib/json-file-store.js';
import type { Actor, ChangeRequest, ChangeState, JournaledDeadlineState } from '../model/change-request.js';
import type { DeadlineStore } from './deadlines.js';
import type { JournalEvent, TransitionEntry, VerifyResult } from './journal-format.js';
import type { SampleStore } from './samples.js';

export type { KeyValueStore } from '../lib/json-file-store.js';
export type { Deadline, DeadlineFilter, DeadlineKind, DeadlineState, DeadlineStore } from './deadlines.js';
export type { SamplePrune, SampleStore, StoredSample } from './samples.js';

/** Which change requests to list; every field narrows, none given = all. */
export interface ChangeFilter {
  state?: ChangeState | readonly ChangeState[];
  /** The requester's user id. */
  requester?: string;
  tool?: string;
  /** The controller site the request writes to. */
  site?: string;
  /** Created at or after this time (ISO 8601). */
  since?: string;
  /** Leaves out the requests that ran a change set's steps (shown through their set). */
  withoutSetSteps?: boolean;
  /** At most this many, newest first; unset = all. */
  limit?: number;
  offset?: number;
}

/**
 * Pending requests in expiry order, a page at a time (App Home's "Waiting for you",
 * reminder sweeps), so a view costs a page, not every pending request.
 */
export interface PendingFilter {
  /** Only requests still live at this time (ms since the epoch): their expiry is after it. */
  liveAt: number;
  /** Leaves out requests whose requester has one of these user ids (a viewer's own requests). */
  notRequestedBy?: readonly string[];
  /** At most this many, soonest expiry first (then by id); unset = all. */
  limit?: number;
  offset?: number;
}

/**
 * When a transition may happen. All conditions are checked in one atomic step with the change
 * itself (one conditional UPDATE in PostgreSQL, one synchronous check-and-append in the file
 * store), so of any number of concurrent callers at most one gets past them.
 */
export interface TransitionGuard {
  /** The states the request must be in now. */
  from: readonly ChangeState[];
  /** The time of the event (ms since the epoch): stamped on it, and the reference for `live`/`overdue`. */
  at: number;
  /** Only while the request has not reached its expiry at `at`. */
  live?: boolean;
  /** Only once the request has reached its expiry at `at`. */
  overdue?: boolean;
  /** Only if this replica claimed it: the steps of a run belong to the replica that runs it. */
  ownedBySelf?: boolean;
  /** Only while no message is recorded for it: of several processes posting it, one records theirs. */
  unannounced?: boolean;
  /** Only if no reminder was recorded for it yet: the `reminded` entry is a one-time claim. */
  notReminded?: boolean;
  /** Only if this user has not approved it yet (`approvedBy`). */
  notApprovedBy?: string;
  /** Only while fewer than this many approvals are recorded (`approvedBy`). */
  approvalsBelow?: number;
  /** Only once at least this many approvals are recorded (`approvedBy`). */
  approvalsAtLeast?: number;
  /** Only while the request journals no revert deadline: of several processes, one schedules it. */
  noDeadline?: boolean;
  /** Only while its journaled revert deadline `id` is in one of `states` (a claim, a keep). */
  deadline?: { id: string; states: readonly JournaledDeadlineState[] };
}

/** One request with every journal event that names it, in chain order. */
export interface RequestHistory {
  request: ChangeRequest;
  events: JournalEvent[];
}

/** Where the chain ends: how many events it has and the hash of the last (an anchor can publish these). */
export interface JournalHead {
  count: number;
  head: string;
}

/** A request whose run was cut off (its replica died): now `unknown`, and the state it was caught in. */
export interface InterruptedRequest {
  request: ChangeRequest;
  previous: 'approved' | 'executing';
}

/** Change requests, their transitions, the claim, and the hash-chained journal that records them. */
export interface ChangeStore {
  /** This process among the replicas sharing the store; it owns the runs it claims. */
  readonly replicaId: string;
  /** Stores a new pending request and journals `created`, in one step. */
  create(request: ChangeRequest, actor: Actor, at: number): Promise<ChangeRequest>;
  /**
   * Journals one transition and applies it, if the guard holds; returns the request after it,
   * or undefined when the guard did not hold (someone else got there first) and nothing changed.
   * An `approved` entry is the claim: it makes this replica the request's owner.
   */
  transition(id: string, entry: TransitionEntry, guard: TransitionGuard): Promise<ChangeRequest | undefined>;
  /** Expires every pending request past its time at `at`; each is returned to exactly one caller. */
  expireDue(at: number): Promise<ChangeRequest[]>;
  /**
   * Marks `unknown` every request caught in approved/executing whose owner is gone (another
   * process before a restart; with PostgreSQL, a replica whose lease lapsed). Each is returned to
   * exactly one caller, never re-run. Runs of live replicas, this one included, are left alone.
   */
  recoverInterrupted(at: number): Promise<InterruptedRequest[]>;
  get(id: string): Promise<ChangeRequest | undefined>;
  /** Requests newest first (by creation time). */
  list(filter?: ChangeFilter): Promise<ChangeRequest[]>;
  count(filter?: Omit<ChangeFilter, 'limit' | 'offset'>): Promise<number>;
  /** Pending requests live at `filter.liveAt`, soonest expiry first (then id), paged. */
  pendingByExpiry(filter: PendingFilter): Promise<ChangeRequest[]>;
  /** How many requests `pendingByExpiry` would list without paging. */
  countPending(filter: Omit<PendingFilter, 'limit' | 'offset'>): Promise<number>;
  /** One request with all its journal events; undefined for an unknown id. */
  history(id: string): Promise<RequestHistory | undefined>;
  journalHead(): Promise<JournalHead>;
  /** Verifies the whole chain and reports the first broken link. */
  verifyJournal(): Promise<VerifyResult>;
}

/**
 * The read side of the change store, for history commands: never appends, so a console reading the
 * bot's journal cannot fork its chain.
 */
export type ChangeReader = Pick<ChangeStore, 'get' | 'list' | 'count' | 'history'>;

/** Whether the store can be used right now; /healthz reports it. */
export interface StoreHealth {
  kind: 'file' | 'postgres';
  ok: boolean;
  /**
   * With `ok: false`: what is kept can be read but nothing can be recorded (the file journal
   * cannot be written). Lookups work and changes are refused, so /healthz says "degraded" (200)
   * rather than not ready: there is no other replica to send the clicks to.
   */
  readOnly?: boolean;
  /** Why not, in a sentence without secrets. */
  error?: string;
}

/**
 * Named leases (one watcher among the replicas). `acquire` takes the lease, or renews it
 * for its holder, for `ttlMs`; true for exactly one holder at a time. A holder that stops renewing
 * loses it when the time runs out.
 */
export interface LeaseStore {
  acquire(name: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up at once (a clean stop), if `holder` has it. */
  release(name: string, holder: string): Promise<void>;
}

/** Who watches a console now, and until when (ms since the epoch) unless renewed. */
export interface ConsoleLease {
  console: string;
  holder: string;
  until: number;
}

/**
 * One watch lease per console (PostgreSQL): `acquire(console, …)` takes or renews it, true for
 * exactly one replica at a time; a replica that stops renewing loses its consoles when the time
 * runs out. `list` names the live leases.
 */
export interface ConsoleLeaseStore extends LeaseStore {
  list(): Promise<ConsoleLease[]>;
}

/**
 * The running bots that fire this store's deadlines (the long-running bot announces itself while
 * its timers run): a change confirmed at the console or over MCP with a deadline needs one.
 */
export interface TimerKeepers {
  /** This process fires deadlines: said again before `ttlMs` runs out. */
  announce(holder: string, ttlMs: number): Promise<void>;
  /** A clean stop. */
  withdraw(holder: string): Promise<void>;
  /** One keeper that is running now, by name. */
  find(): Promise<string | undefined>;
}

/** One journal event as it was written: its place in the chain and its exact text. */
export interface JournalLine {
  seq: number;
  line: string;
}

/**
 * The journal read in chain order from a position, for what copies it elsewhere (the audit
 * export): the exact lines, so the copy carries the same hash links the journal has.
 */
export interface JournalFeed {
  /** Up to `limit` events after `afterSeq`, in order; fewer (or none) at the end of the chain. */
  read(afterSeq: number, limit: number): Promise<JournalLine[]>;
}

/** Everything the bot keeps, behind one interface: files under DATA_DIR, or PostgreSQL. */
export interface Store {
  readonly kind: 'file' | 'postgres';
  /** Bot-kept data (zone descriptions and the like). */
  readonly data: KeyValueStore;
  /**
   * The change requests and the journal, opened on first use: only the long-running bot asks
   * for them, so a console run beside it never opens (or appends to) its file journal.
   */
  changes(): ChangeStore;
  /**
   * The change requests read-only, for any process: the opened change store when this process
   * owns it, else (file store) a view that re-reads the journal file without opening it for append.
   */
  changeHistory(): ChangeReader;
  /** The journal's lines in order, for any process and without opening it for append. */
  journalFeed(): JournalFeed;
  /** Telemetry samples: files under DATA_DIR/telemetry, or a table shared by the replicas. */
  samples(): SampleStore;
  /** Durable timers: DATA_DIR/deadlines.json, or a table every replica claims from. */
  deadlines(): DeadlineStore;
  /** Who fires the deadlines (see TimerKeepers). */
  timerKeepers(): TimerKeepers;
  /** Leases shared by the replicas (PostgreSQL); absent in the file store, which has one process. */
  leases?(): LeaseStore;
  /** The consoles' watch leases (PostgreSQL); absent in the file store, where one process watches all. */
  consoleLeases?(): ConsoleLeaseStore;
  /**
   * The cloud's rate budget shared by the replicas (PostgreSQL); absent in the file store, whose one
   * process keeps its own buckets.
   */
  rateBudget?(): BudgetBackend;
  health(): Promise<StoreHealth>;
  close(): Promise<void>;
}
