import { hostname } from 'node:os';
import { ConflictError, NotAuthorizedError, ResourceNotFoundError } from '../errors.js';
import type { Logger } from '../log.js';
import {
  type Actor,
  CHANGE_STATES,
  type ChangeRequest,
  type JournaledDeadline,
  type JournaledDeadlineState,
  SYSTEM_ACTOR,
} from '../model/change-request.js';
import { isJournaledKind } from '../store/deadline-audit.js';
import { type Deadline, type DeadlineKind, type DeadlineStore, newDeadlineId } from '../store/deadlines.js';
import type { ChangeStore, TimerKeepers } from '../store/types.js';
import { timedRevert } from './revert-deadline.js';

/** Why the bot reverts a change by itself. */
export type RevertReason = 'keep_timeout' | 'temporary' | 'unreachable';

/**
 * What undoing a change needs from approvals (the lead wires `Approvals.revertAutomatically`):
 * a new change request that undoes `changeId`, run at once under the original approval.
 */
export interface RevertPort {
  revertAutomatically(input: {
    changeId: string;
    reason: RevertReason;
    actor?: Actor;
  }): Promise<RevertOutcome>;
}

/** What an automatic revert led to (the `kind` of Approvals' ApproveOutcome, and its request). */
export interface RevertOutcome {
  kind: string;
  request?: ChangeRequest;
  error?: { code: string; message: string };
  /** Why the gate refused it (kind `refused`): nothing was sent. */
  reason?: string;
}

/** A change as the timers read it: the write meta-arguments `revert_after=` / `for=` in seconds. */
type TimedChange = ChangeRequest & { revertAfterSeconds?: number; forSeconds?: number };

/** Something the timers did that people must hear about: in the change's thread and in AUDIT_CHANNEL. */
export interface TimerEvent {
  /**
   * `revert_stopped`: the gate refused the revert (a freeze or a deny now applies), nothing sent;
   * `refused`: the deadline store's record does not match the change's journal, so nothing was
   * reverted; `unsettled`: a timed change's outcome is unknown after a crash, so no revert is scheduled.
   */
  kind: 'scheduled' | 'kept' | 'reverted' | 'revert_failed' | 'revert_stopped' | 'refused' | 'unsettled';
  deadline: Deadline;
  /** The change the deadline belongs to (undefined if the store no longer has it). */
  change?: ChangeRequest;
  reason?: RevertReason;
  /** Who kept it (kept). */
  actor?: Actor;
  /** The revert's own change request (reverted / revert_failed, when one was made). */
  revert?: ChangeRequest;
  /** One line for people, the same in the thread and in the audit channel. */
  text: string;
}

/** Where timer events are shown; the lead wires the Slack presenter (thread + AUDIT_CHANNEL). */
export interface TimerNotifier {
  report(event: TimerEvent): Promise<void>;
}

/**
 * Who may keep a change or revert it now: the gate (Approvals asks it with the policy evaluated
 * now, from the face the actor acts through).
 */
export interface KeepGate {
  mayKeep(change: ChangeRequest, actor: Actor): Promise<{ ok: true } | { ok: false; reason: string }>;
  mayRevertNow(change: ChangeRequest, actor: Actor): Promise<{ ok: true } | { ok: false; reason: string }>;
}

export interface ChangeTimersOptions {
  deadlines: DeadlineStore;
  revert: RevertPort;
  /** Reads a change request (approvals.get). */
  getChange(id: string): Promise<ChangeRequest | undefined>;
  /** This process among the replicas: claims are recorded under it. */
  replicaId: string;
  logger: Logger;
  /** approvals.onChange: the timers schedule a deadline when a timed change succeeds. */
  onChange?: (listener: (request: ChangeRequest) => void) => () => void;
  /** Where the process that fires deadlines says so (a console asks before a timed change). */
  keepers?: TimerKeepers;
  /** Decides Keep and Revert now; without it nobody may do either. */
  gate?: KeepGate;
  notifier?: TimerNotifier;
  /**
   * A cheap read of the controller of `site` (true: it answered). Keep-or-revert changes are
   * probed once `probeAfterMs` after the write and again `probeBeforeMs` before the deadline; a
   * controller the bot cannot read after the change is reverted at once (reason `unreachable`).
   */
  probe?: (site: string) => Promise<boolean>;
  now?: () => number;
  /** How often due deadlines are claimed [5 s]. */
  tickMs?: number;
  probeAfterMs?: number;
  probeBeforeMs?: number;
  /**
   * Runs the change of a due `window` deadline (a change approved
   * outside its policy window). Without it, window deadlines are left alone.
   */
  runScheduled?: (changeId: string) => Promise<RevertOutcome>;
  /**
   * The change store, whose journal holds every revert deadline (scheduled with the change's
   * success, then kept, claimed, fired or failed). With it the deadline store is only an index:
   * a deadline the journal does not back exactly is never acted on (marked failed and reported),
   * each step is journaled, and deadlines are rebuilt from the journal at start and then every
   * `rebuildEveryMs`. Without it (tests of the timers alone) the deadline store is trusted.
   */
  ledger?: Pick<ChangeStore, 'get' | 'list' | 'transition' | 'history'>;
  /** How often the deadline store is checked against the journal and rebuilt from it [60 s]. */
  rebuildEveryMs?: number;
  /**
   * How long a deadline may stay claimed in the store without its claim in the journal: the two
   * are written one after the other, so longer means the process stopped in between [60 s].
   */
  staleClaimMs?: number;
}

/** How far a deadline stored before deadlines were journaled may be from what its change says. */
const ADOPT_TOLERANCE_MS = 10 * 60 * 1000;

/**
 * A change that succeeded this long ago with no deadline anywhere is left alone: the deadline
 * file drops a kept deadline 24 h after the keep, so an older one may have been kept.
 */
const UNRECORDED_HORIZON_MS = 24 * 60 * 60 * 1000;

const iso = (ms: number) => new Date(ms).toISOString();

const REASON_TEXT: Record<RevertReason, string> = {
  keep_timeout: 'nobody kept it before its deadline',
  temporary: 'it was a temporary change and its time is up',
  unreachable: 'the bot could not read the controller after the change',
};

/** "4m 10s", "1h 5m", "20s": time left, for the Keep prompt and App Home. */
export function timeLeftText(ms: number): string {
  if (ms <= 0) return 'due now';
  const s = Math.ceil(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  if (h > 0) return m > 0 ? `${h}h ${m}m` : `${h}h`;
  if (m > 0) return rest > 0 ? `${m}m ${rest}s` : `${m}m`;
  return `${rest}s`;
}

const who = (actor: Actor | undefined) => actor?.name ?? actor?.userId ?? 'someone';

/** The one line people read about a timer event (thread and AUDIT_CHANNEL alike). */
export function timerEventText(event: Omit<TimerEvent, 'text'>): string {
  const { deadline, change } = event;
  const what = change ? `${change.tool} (${change.id})` : `change ${deadline.changeId}`;
  switch (event.kind) {
    case 'scheduled':
      return deadline.kind === 'keep_or_revert'
        ? `${what} reverts itself at ${deadline.dueAt} unless someone with approval rights keeps it.`
        : `${what} is temporary: it reverts itself at ${deadline.dueAt}.`;
    case 'kept':
      return `${what} kept by ${who(event.actor)}: it will not be reverted.`;
    case 'reverted':
      return `${what} reverted automatically: ${REASON_TEXT[event.reason ?? 'keep_timeout']}${event.revert ? ` (revert ${event.revert.id})` : ''}.`;
    case 'revert_stopped':
      return `${what} was NOT reverted automatically (${REASON_TEXT[event.reason ?? 'keep_timeout']}): ${event.deadline.note ?? 'the policy stops it now'}. Nothing was sent; keep it, or revert it by hand once the policy allows.`;
    case 'revert_failed': {
      const why = event.revert?.error?.message ?? deadline.note ?? 'unknown error';
      return `${what} could NOT be reverted automatically (${REASON_TEXT[event.reason ?? 'keep_timeout']}): ${why}. The change is left as it is and the revert is not retried; check the controller and revert by hand if needed.`;
    }
    case 'refused':
      return `${what}: the bot refused to act on its automatic revert ${deadline.id} (due ${deadline.dueAt}): ${deadline.note ?? 'the deadline does not match the journal'}. The deadline store does not match the change's signed record, so nothing was reverted; run audit:verify, check the change, and revert by hand if needed.`;
    case 'unsettled':
      return `${what} was meant to revert itself (${deadline.kind === 'temporary' ? 'temporary' : 'keep or revert'}), but the bot stopped while it ran, so its outcome is unknown and no automatic revert is scheduled: check the controller and revert by hand if needed.`;
  }
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

const kindReason = (kind: DeadlineKind): RevertReason =>
  kind === 'temporary' ? 'temporary' : 'keep_timeout';

/** A scheduled revert of one change, as the Keep tool and App Home show it. */
export interface PendingRevert {
  deadline: Deadline;
  change?: ChangeRequest;
  msLeft: number;
}

/**
 * Keep-or-revert and temporary changes: a timed change that succeeded gets
 * a deadline in the store; one ticker per process claims due deadlines (each fires on one replica,
 * once, also after a restart) and has the change reverted; Keep cancels the deadline before it is
 * due. An automatic revert that fails is reported and never retried.
 */
export class ChangeTimers {
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  // Set while the ticker runs: this process fires deadlines and says so in the store.
  private firing = false;
  private unsubscribe: (() => void) | undefined;
  private ticking: Promise<void> | undefined;
  // Probes done by this process, per deadline: 'after' the write, 'before' the deadline.
  private readonly probed = new Map<string, Set<'after' | 'before'>>();
  private readonly scheduling = new Set<Promise<unknown>>();
  private readonly noticing = new Map<string, Promise<Deadline | undefined>>();
  // Revert deadlines whose `scheduled` this process reported (a change is noticed several times).
  private readonly announced = new Set<string>();
  // Timed changes too old to get a deadline, logged once per process.
  private readonly leftAlone = new Set<string>();
  private lastRebuild: number | undefined;

  constructor(private readonly options: ChangeTimersOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Subscribes to changes, and claims what fell due while nothing ran at once, then every tick. */
  start(): void {
    if (this.timer) return;
    this.follow();
    this.firing = true;
    this.timer = setInterval(() => void this.tick(), this.options.tickMs ?? 5_000);
    this.timer.unref();
    void this.tick();
  }

  /** Tells the store this process fires its deadlines, for a while longer than the next tick. */
  private async announceKeeper(): Promise<void> {
    const keepers = this.options.keepers;
    if (!keepers || !this.firing) return;
    const ttl = Math.max(30_000, 3 * (this.options.tickMs ?? 5_000));
    await keepers.announce(this.keeperName(), ttl).catch((error: unknown) => {
      this.options.logger.warn({ err: error }, 'could not tell the store that this bot fires its deadlines');
    });
  }

  private keeperName(): string {
    return `${hostname()} pid ${process.pid} (replica ${this.options.replicaId})`;
  }

  /**
   * Only schedules the deadlines of this process's own timed changes (a console run, an MCP stdio
   * server): the long-running bot sharing the store fires them. `stop()` waits for the scheduling.
   */
  follow(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.options.onChange?.((request) => {
      const work = this.noticeChange(request).catch((error: unknown) => {
        this.options.logger.error(
          { err: error, id: request.id },
          'could not schedule the revert of a timed change',
        );
      });
      this.scheduling.add(work);
      void work.finally(() => this.scheduling.delete(work));
    });
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.firing) {
      this.firing = false;
      await this.options.keepers?.withdraw(this.keeperName()).catch(() => undefined);
    }
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await Promise.allSettled([...this.scheduling]);
    await this.ticking;
  }

  /** A change that just succeeded with `revert_after=` or `for=` gets its deadline (once). */
  async noticeChange(request: ChangeRequest): Promise<Deadline | undefined> {
    if (request.state !== 'succeeded') return undefined;
    // The outcome and its verification each announce the change as succeeded: one look at a time
    // per change, so the second sees the deadline the first made.
    const earlier = this.noticing.get(request.id);
    const work = (earlier ?? Promise.resolve(undefined)).then(
      () => this.scheduleFor(request),
      () => this.scheduleFor(request),
    );
    this.noticing.set(request.id, work);
    try {
      return await work;
    } finally {
      if (this.noticing.get(request.id) === work) this.noticing.delete(request.id);
    }
  }

  private async scheduleFor(request: ChangeRequest): Promise<Deadline | undefined> {
    // With the journal, the runner schedules the revert in the change's own record; here it is
    // only announced, once the deadline store holds it as the journal says.
    if (this.options.ledger) return this.announce(request);
    const timed = request as TimedChange;
    const seconds = timed.forSeconds ?? timed.revertAfterSeconds;
    if (seconds === undefined || !(seconds > 0)) return undefined;
    // Undone already: nothing is left to revert, whatever the deadline file still holds.
    if (request.revertedBy) return undefined;
    const kind: DeadlineKind = timed.forSeconds !== undefined ? 'temporary' : 'keep_or_revert';
    const at = this.now();
    const existing = await this.options.deadlines.list({ changeId: request.id, kind });
    if (existing.length > 0) return existing[0];
    const deadline = await this.options.deadlines.schedule({
      kind,
      changeId: request.id,
      dueAt: at + seconds * 1000,
      at,
    });
    await this.report({ kind: 'scheduled', deadline, change: request });
    return deadline;
  }

  /** One look: probes of keep-or-revert changes that are due, then every due deadline, claimed and fired. */
  async tick(): Promise<void> {
    if (this.ticking) return this.ticking;
    this.ticking = (async () => {
      try {
        await this.announceKeeper();
        await this.probeDue();
        await this.rebuildIfDue();
        const due = await this.options.deadlines.claimDue(this.now(), this.options.replicaId);
        for (const deadline of due) {
          if (deadline.kind === 'window') await this.runWindow(deadline);
          else await this.fire(deadline, kindReason(deadline.kind));
        }
      } catch (error) {
        this.options.logger.error(
          { err: error },
          'the deadline ticker failed; trying again at the next tick',
        );
      } finally {
        this.ticking = undefined;
      }
    })();
    return this.ticking;
  }

  /** The scheduled revert of a change, if any. */
  async pendingRevert(changeId: string): Promise<PendingRevert | undefined> {
    const [deadline] = (await this.options.deadlines.list({ changeId, state: 'scheduled' })).filter(
      (d) => d.kind !== 'window',
    );
    if (!deadline) return undefined;
    return this.withChange(deadline);
  }

  /** A due `window` deadline runs its scheduled change once; the outcome is recorded on the deadline. */
  private async runWindow(deadline: Deadline): Promise<void> {
    let outcome: RevertOutcome;
    try {
      outcome = this.options.runScheduled
        ? await this.options.runScheduled(deadline.changeId)
        : {
            kind: 'failed',
            error: { code: 'not_supported', message: 'nothing runs scheduled changes here' },
          };
    } catch (error) {
      outcome = {
        kind: 'failed',
        error: { code: 'internal_error', message: error instanceof Error ? error.message : String(error) },
      };
    }
    const ok = outcome.kind === 'succeeded';
    const note = ok ? undefined : (outcome.error?.message ?? outcome.request?.error?.message ?? outcome.kind);
    await this.options.deadlines
      .finish(deadline.id, ok ? 'fired' : 'failed', this.now(), note)
      .catch((error: unknown) => {
        this.options.logger.error({ err: error, id: deadline.id }, 'could not record what a deadline did');
      });
  }

  /** Every scheduled revert, soonest first (App Home's "Temporary and pending-revert changes"). */
  async pending(): Promise<PendingRevert[]> {
    const scheduled = (await this.options.deadlines.list({ state: 'scheduled' })).filter(
      (d) => d.kind !== 'window',
    );
    return Promise.all(scheduled.map((d) => this.withChange(d)));
  }

  /**
   * Keep: cancels the scheduled revert of a change before its deadline, when the gate lets the
   * actor (someone the policy lets approve the change, from the face they act through).
   */
  async keep(changeId: string, actor: Actor): Promise<Deadline> {
    const pending = await this.pendingRevert(changeId);
    if (!pending) {
      throw new ConflictError(
        `change ${changeId} has no automatic revert pending (kept, reverted, or never timed)`,
      );
    }
    if (!pending.change) throw new ResourceNotFoundError('change request', changeId);
    const decision = (await this.options.gate?.mayKeep(pending.change, actor)) ?? {
      ok: false as const,
      reason: 'nothing in this process decides who may keep a change',
    };
    if (!decision.ok) throw new NotAuthorizedError(decision.reason);
    const kept = await this.cancelDeadline(pending.deadline, actor);
    if (!kept) {
      throw new ConflictError(
        `too late to keep change ${changeId}: its deadline has passed and the revert has started`,
      );
    }
    await this.report({
      kind: 'kept',
      deadline: kept,
      ...(pending.change ? { change: pending.change } : {}),
      actor,
    });
    return kept;
  }

  /** Revert now (a thread or App Home): the gate decides, then the deadline is claimed early and fired. */
  async revertNow(changeId: string, actor: Actor): Promise<TimerEvent> {
    const pending = await this.pendingRevert(changeId);
    if (!pending?.change) throw new ConflictError(`change ${changeId} has no automatic revert pending`);
    const decision = (await this.options.gate?.mayRevertNow(pending.change, actor)) ?? {
      ok: false as const,
      reason: 'nothing in this process decides who may revert a change',
    };
    if (!decision.ok) throw new NotAuthorizedError(decision.reason);
    const claimed = await this.options.deadlines.claim(
      pending.deadline.id,
      this.now(),
      this.options.replicaId,
    );
    if (!claimed) throw new ConflictError(`change ${changeId} is being reverted or was kept meanwhile`);
    return this.fire(claimed, kindReason(claimed.kind), actor);
  }

  /** Reverts the change of a claimed deadline, once: the outcome is recorded and reported, never retried. */
  private async fire(deadline: Deadline, reason: RevertReason, actor?: Actor): Promise<TimerEvent> {
    const change = await this.options.getChange(deadline.changeId).catch(() => undefined);
    let journaled: JournaledDeadline | undefined;
    if (this.options.ledger && isJournaledKind(deadline.kind)) {
      const checked = await this.claimInJournal(deadline);
      if ('refused' in checked) return checked.refused;
      journaled = checked.journaled;
    }
    let outcome: RevertOutcome;
    try {
      outcome = await this.options.revert.revertAutomatically({
        changeId: deadline.changeId,
        reason,
        ...(actor ? { actor } : {}),
      });
    } catch (error) {
      outcome = {
        kind: 'failed',
        error: { code: 'internal_error', message: error instanceof Error ? error.message : String(error) },
      };
    }
    const ok = outcome.kind === 'succeeded';
    const note = ok
      ? undefined
      : (outcome.reason ??
        outcome.error?.message ??
        outcome.request?.error?.message ??
        `the revert ended as ${outcome.kind}`);
    if (journaled) {
      // The journal first: what the signed record says is what the store is rebuilt to.
      await this.journalStep(deadline.changeId, journaled, ok ? 'fired' : 'failed', ['claimed'], {
        ...(note ? { note } : {}),
      }).catch((error: unknown) => {
        this.options.logger.error(
          { err: error, id: deadline.id },
          'could not journal what an automatic revert did',
        );
      });
    }
    const finished = (await this.options.deadlines
      .finish(deadline.id, ok ? 'fired' : 'failed', this.now(), note)
      .catch((error: unknown) => {
        this.options.logger.error({ err: error, id: deadline.id }, 'could not record what a deadline did');
        return undefined;
      })) ?? { ...deadline, state: ok ? ('fired' as const) : ('failed' as const), ...(note ? { note } : {}) };
    if (!ok)
      this.options.logger.warn(
        { id: deadline.id, change: deadline.changeId, note },
        'automatic revert failed; not retried',
      );
    return this.report({
      // Refused by the gate: nothing was sent, which the thread must say apart from a failed write.
      kind: ok ? 'reverted' : outcome.kind === 'refused' ? 'revert_stopped' : 'revert_failed',
      deadline: finished,
      reason,
      ...(change ? { change } : {}),
      ...(outcome.request ? { revert: outcome.request } : {}),
    });
  }

  /**
   * Before a claimed revert deadline fires: it must be exactly what the change's journal
   * schedules, and its claim is journaled; otherwise it is refused (marked failed, reported).
   */
  private async claimInJournal(
    deadline: Deadline,
  ): Promise<{ journaled: JournaledDeadline } | { refused: TimerEvent }> {
    let change: ChangeRequest | undefined;
    try {
      change = await this.options.ledger?.get(deadline.changeId);
    } catch (error) {
      return {
        refused: await this.refuse(
          deadline,
          undefined,
          `the journal could not be read (${errorText(error)})`,
        ),
      };
    }
    const problem = this.mismatch(deadline, change, ['scheduled']);
    const journaled = change?.deadlines?.find((d) => d.id === deadline.id);
    if (problem || !change || !journaled) {
      return { refused: await this.refuse(deadline, change, problem ?? 'no journal record') };
    }
    let claimed: ChangeRequest | undefined;
    try {
      claimed = await this.journalStep(change.id, journaled, 'claimed', ['scheduled']);
    } catch (error) {
      return {
        refused: await this.refuse(
          deadline,
          change,
          `its claim could not be journaled (${errorText(error)})`,
        ),
      };
    }
    if (!claimed) {
      const now = await this.options.ledger?.get(change.id).catch(() => undefined);
      return {
        refused: await this.refuse(
          deadline,
          now ?? change,
          'the journal recorded another step of it meanwhile',
        ),
      };
    }
    return { journaled };
  }

  /**
   * Keep: the deadline must match the change's journal, then it is cancelled in the store (which
   * refuses once it is due) and the keep is journaled. Undefined when it was too late.
   */
  private async cancelDeadline(deadline: Deadline, actor: Actor): Promise<Deadline | undefined> {
    const ledger = this.options.ledger;
    if (!ledger || !isJournaledKind(deadline.kind))
      return this.options.deadlines.cancel(deadline.id, this.now(), actor.userId);
    const change = await ledger.get(deadline.changeId);
    const problem = this.mismatch(deadline, change, ['scheduled']);
    const journaled = change?.deadlines?.find((d) => d.id === deadline.id);
    if (problem || !change || !journaled) {
      const why = problem ?? 'no journal record';
      await this.refuse(deadline, change, why);
      throw new ConflictError(
        `change ${deadline.changeId} cannot be kept: its deadline does not match the journal (${why}); it was marked failed and reported, and no automatic revert runs`,
      );
    }
    const kept = await this.options.deadlines.cancel(deadline.id, this.now(), actor.userId);
    if (!kept) return undefined;
    try {
      const recorded = await this.journalStep(change.id, journaled, 'cancelled', ['scheduled'], { actor });
      if (!recorded) throw new Error('the journal recorded another step of it meanwhile');
    } catch (error) {
      // The store says kept, so nothing reverts it; the next rebuild reports the difference.
      this.options.logger.error({ err: error, id: deadline.id }, 'could not journal that a change was kept');
    }
    return kept;
  }

  /** Why a stored revert deadline is not what the change's journal records, or undefined if it is. */
  private mismatch(
    stored: Deadline,
    change: ChangeRequest | undefined,
    states: readonly JournaledDeadlineState[],
  ): string | undefined {
    if (!change) return `its change ${stored.changeId} is not in the journal`;
    const journaled = change.deadlines?.find((d) => d.id === stored.id);
    if (!journaled) {
      return `the journal of change ${change.id} has no record of deadline ${stored.id}: it was put in the deadline store outside the bot`;
    }
    if (journaled.kind !== stored.kind || Date.parse(journaled.dueAt) !== Date.parse(stored.dueAt)) {
      return `the deadline store says ${stored.kind} due ${stored.dueAt}, the journal ${journaled.kind} due ${journaled.dueAt}: it was edited outside the bot`;
    }
    if (!states.includes(journaled.state)) {
      return `the journal records it ${journaled.state}${journaled.note ? ` (${journaled.note})` : ''}`;
    }
    return undefined;
  }

  /** Journals one step of a change's revert deadline, if the journal still has it in `from`. */
  private async journalStep(
    changeId: string,
    deadline: Pick<JournaledDeadline, 'id' | 'kind' | 'dueAt'>,
    state: JournaledDeadlineState,
    from: readonly JournaledDeadlineState[],
    extra: { actor?: Actor; note?: string; noDeadline?: boolean } = {},
  ): Promise<ChangeRequest | undefined> {
    const ledger = this.options.ledger;
    if (!ledger) return undefined;
    return ledger.transition(
      changeId,
      {
        type: 'deadline',
        id: changeId,
        actor: extra.actor ?? SYSTEM_ACTOR,
        deadline: { id: deadline.id, kind: deadline.kind, dueAt: deadline.dueAt },
        state,
        by: this.options.replicaId,
        ...(extra.note !== undefined ? { note: extra.note } : {}),
      },
      {
        from: CHANGE_STATES,
        at: this.now(),
        ...(extra.noDeadline ? { noDeadline: true } : { deadline: { id: deadline.id, states: from } }),
      },
    );
  }

  /**
   * Refuses a stored deadline that does not match the journal: the journal's own record of it (if
   * still live) is marked failed with why, the stored one too, and people are told. Nothing reverts.
   */
  private async refuse(
    stored: Deadline,
    change: ChangeRequest | undefined,
    problem: string,
  ): Promise<TimerEvent> {
    const note = `not reverted: ${problem}`;
    const journaled = change?.deadlines?.find((d) => d.id === stored.id);
    if (change && journaled && (journaled.state === 'scheduled' || journaled.state === 'claimed')) {
      await this.journalStep(change.id, journaled, 'failed', ['scheduled', 'claimed'], { note }).catch(
        (error: unknown) => {
          this.options.logger.error({ err: error, id: stored.id }, 'could not journal a refused deadline');
        },
      );
    }
    let current = stored;
    try {
      if (current.state === 'scheduled')
        current =
          (await this.options.deadlines.claim(stored.id, this.now(), this.options.replicaId)) ?? current;
      if (current.state === 'claimed')
        current = (await this.options.deadlines.finish(stored.id, 'failed', this.now(), note)) ?? current;
    } catch (error) {
      this.options.logger.error({ err: error, id: stored.id }, 'could not mark a refused deadline failed');
    }
    this.options.logger.error(
      { id: stored.id, change: stored.changeId, problem },
      'refused a revert deadline',
    );
    return this.report({
      kind: 'refused',
      deadline: { ...current, note },
      ...(change ? { change } : {}),
      reason: kindReason(stored.kind),
    });
  }

  /** The `scheduled` report of a change's journaled revert, once the store holds it as journaled. */
  private async announce(change: ChangeRequest): Promise<Deadline | undefined> {
    const journaled = change.deadlines?.find((d) => d.state === 'scheduled');
    if (!journaled) return undefined;
    const stored = await this.options.deadlines.get(journaled.id);
    if (stored?.state !== 'scheduled' || this.mismatch(stored, change, ['scheduled'])) return undefined;
    if (this.announced.has(stored.id)) return stored;
    this.announced.add(stored.id);
    await this.report({ kind: 'scheduled', deadline: stored, change });
    return stored;
  }

  private async rebuildIfDue(): Promise<void> {
    if (!this.options.ledger) return;
    const now = this.now();
    if (this.lastRebuild !== undefined && now - this.lastRebuild < (this.options.rebuildEveryMs ?? 60_000))
      return;
    this.lastRebuild = now;
    try {
      await this.rebuild();
    } catch (error) {
      this.options.logger.error({ err: error }, 'could not check the deadlines against the journal');
    }
  }

  /**
   * Rebuilds the revert deadlines from the journal (at start, then now and then): a journaled
   * deadline missing from the store is stored again; a timed change that succeeded with no deadline
   * anywhere gets one, due when its success plus its seconds says; a stored deadline that does not
   * match the journal is refused; a timed change left `unknown` by a crash is reported, once.
   */
  async rebuild(): Promise<void> {
    const ledger = this.options.ledger;
    if (!ledger) return;
    // The store before the journal: the runner journals a deadline before it stores it, so every
    // stored one read here is already in the journal read next.
    const stored = (await this.options.deadlines.list()).filter((d) => isJournaledKind(d.kind));
    const byId = new Map(stored.map((d) => [d.id, d]));
    const succeeded = await ledger.list({ state: 'succeeded' });
    const adopted = new Set<string>();
    for (const change of succeeded) {
      const journaled = change.deadlines ?? [];
      if (journaled.length === 0) {
        const found = await this.scheduleMissing(change, stored);
        if (found) adopted.add(found);
        continue;
      }
      for (const deadline of journaled) await this.settleJournaled(change, deadline, byId.get(deadline.id));
    }
    const changes = new Map(succeeded.map((c) => [c.id, c]));
    for (const deadline of stored) {
      if (deadline.state !== 'scheduled' || adopted.has(deadline.id)) continue;
      const change = changes.get(deadline.changeId) ?? (await ledger.get(deadline.changeId));
      if (change?.deadlines?.some((d) => d.id === deadline.id)) continue;
      await this.refuse(
        deadline,
        change,
        this.mismatch(deadline, change, ['scheduled']) ?? 'no journal record',
      );
    }
    for (const change of await ledger.list({ state: 'unknown' })) await this.unsettled(change);
  }

  /** One journaled revert deadline against the store's copy (undefined: the store lacks it). */
  private async settleJournaled(
    change: ChangeRequest,
    journaled: JournaledDeadline,
    stored: Deadline | undefined,
  ): Promise<void> {
    if (journaled.state === 'scheduled') {
      if (!stored) {
        await this.restore(change, journaled);
        return;
      }
      const problem =
        this.mismatch(stored, change, ['scheduled']) ??
        (stored.state === 'scheduled'
          ? undefined
          : `the deadline store says ${stored.state}, the journal scheduled`);
      if (!problem) return;
      // A claim is stored, then journaled: a fresh one is a revert starting, not a difference.
      if (stored.state === 'claimed' && this.claimInFlight(stored)) return;
      await this.refuse(stored, change, problem);
      return;
    }
    if (journaled.state === 'claimed') {
      // Claimed in both: its revert ran or runs, and that revert's own request says how it went.
      if (stored?.state === 'scheduled')
        await this.refuse(stored, change, 'the journal records it claimed, the deadline store scheduled');
      return;
    }
    if ((journaled.state === 'fired' || journaled.state === 'failed') && stored?.state === 'claimed') {
      // The process stopped between journaling the outcome and storing it.
      await this.options.deadlines.finish(stored.id, journaled.state, this.now(), journaled.note);
    }
  }

  private claimInFlight(stored: Deadline): boolean {
    if (stored.claimedAt === undefined) return false;
    return this.now() - Date.parse(stored.claimedAt) < (this.options.staleClaimMs ?? 60_000);
  }

  /** A journaled deadline the store lost (a crash after the journal, or a line removed) is stored again. */
  private async restore(change: ChangeRequest, journaled: JournaledDeadline): Promise<void> {
    const restored = await this.options.deadlines.schedule({
      id: journaled.id,
      kind: journaled.kind,
      changeId: change.id,
      dueAt: Date.parse(journaled.dueAt),
      at: this.now(),
    });
    if (restored.id !== journaled.id) {
      // Another deadline holds its place (one per change and kind): neither is acted on.
      await this.journalStep(change.id, journaled, 'failed', ['scheduled'], {
        note: `not reverted: the deadline store holds another deadline (${restored.id}) in its place`,
      });
      if (restored.state === 'scheduled')
        await this.refuse(
          restored,
          change,
          this.mismatch(restored, change, ['scheduled']) ?? 'no journal record',
        );
      return;
    }
    this.options.logger.warn(
      { id: journaled.id, change: change.id, due: journaled.dueAt },
      'restored a revert deadline the deadline store had lost, from the journal',
    );
    await this.announce(change);
  }

  /**
   * A timed change that succeeded with no revert deadline in the journal (it ran before deadlines
   * were journaled): one stored then is adopted if it is what the change asked for; with none, one
   * is scheduled, due at its success plus its seconds. Answers the id of an adopted deadline.
   */
  private async scheduleMissing(
    change: ChangeRequest,
    stored: readonly Deadline[],
  ): Promise<string | undefined> {
    const timed = timedRevert(change);
    if (!timed || change.revertedBy) return undefined;
    const existing = stored.find((d) => d.changeId === change.id && d.kind === timed.kind);
    if (existing && existing.state !== 'scheduled') return undefined;
    const history = await this.options.ledger?.history(change.id);
    const success = history?.events.findLast((e) => e.type === 'succeeded');
    if (!success) return undefined;
    const dueAt = Date.parse(success.at) + timed.seconds * 1000;
    if (existing) {
      if (Math.abs(Date.parse(existing.dueAt) - dueAt) > ADOPT_TOLERANCE_MS) return undefined;
      const adopted = await this.journalStep(change.id, { ...existing, kind: timed.kind }, 'scheduled', [], {
        noDeadline: true,
      });
      return adopted ? existing.id : undefined;
    }
    if (this.now() - Date.parse(success.at) > UNRECORDED_HORIZON_MS) {
      if (!this.leftAlone.has(change.id)) {
        this.leftAlone.add(change.id);
        this.options.logger.warn(
          { change: change.id },
          'a timed change from before revert deadlines were journaled has no deadline; it may have been kept, so it is left alone',
        );
      }
      return undefined;
    }
    const deadline = { id: newDeadlineId(), kind: timed.kind, dueAt: iso(dueAt) };
    const recorded = await this.journalStep(change.id, deadline, 'scheduled', [], { noDeadline: true });
    if (!recorded) return undefined;
    await this.restore(recorded, { ...deadline, state: 'scheduled', at: iso(this.now()) });
    return undefined;
  }

  /** A timed change whose outcome is unknown after a crash: no revert is scheduled, and people hear it once. */
  private async unsettled(change: ChangeRequest): Promise<void> {
    const timed = timedRevert(change);
    if (!timed || (change.deadlines ?? []).length > 0) return;
    const now = this.now();
    const deadline = { id: newDeadlineId(), kind: timed.kind, dueAt: iso(now + timed.seconds * 1000) };
    const note = 'outcome unknown after the bot stopped: no automatic revert scheduled';
    const recorded = await this.journalStep(change.id, deadline, 'unsettled', [], { noDeadline: true, note });
    if (!recorded) return;
    await this.report({
      kind: 'unsettled',
      deadline: { ...deadline, changeId: change.id, createdAt: iso(now), state: 'failed', note },
      change: recorded,
    });
  }

  /** Probes keep-or-revert changes a few seconds after the write and again shortly before the deadline. */
  private async probeDue(): Promise<void> {
    const probe = this.options.probe;
    if (!probe) return;
    const now = this.now();
    const after = this.options.probeAfterMs ?? 5_000;
    const before = this.options.probeBeforeMs ?? 15_000;
    const scheduled = await this.options.deadlines.list({ state: 'scheduled', kind: 'keep_or_revert' });
    for (const deadline of scheduled) {
      const done = this.probed.get(deadline.id) ?? new Set();
      const due: ('after' | 'before')[] = [];
      if (!done.has('after') && now >= Date.parse(deadline.createdAt) + after) due.push('after');
      if (!done.has('before') && now >= Date.parse(deadline.dueAt) - before) due.push('before');
      if (due.length === 0) continue;
      for (const step of due) done.add(step);
      this.probed.set(deadline.id, done);
      const change = await this.options.getChange(deadline.changeId).catch(() => undefined);
      const reachable = await probe(change?.site ?? '').catch(() => false);
      if (reachable) continue;
      const claimed = await this.options.deadlines.claim(deadline.id, this.now(), this.options.replicaId);
      if (claimed) await this.fire(claimed, 'unreachable');
    }
  }

  private async withChange(deadline: Deadline): Promise<PendingRevert> {
    const change = await this.options.getChange(deadline.changeId).catch(() => undefined);
    return { deadline, ...(change ? { change } : {}), msLeft: Date.parse(deadline.dueAt) - this.now() };
  }

  private async report(event: Omit<TimerEvent, 'text'>): Promise<TimerEvent> {
    const full: TimerEvent = { ...event, text: timerEventText(event) };
    if (event.kind === 'revert_failed')
      this.options.logger.error({ change: event.deadline.changeId }, full.text);
    else this.options.logger.info({ change: event.deadline.changeId }, full.text);
    try {
      await this.options.notifier?.report(full);
    } catch (error) {
      this.options.logger.warn(
        { err: error, change: event.deadline.changeId },
        'could not report a timer event',
      );
    }
    return full;
  }
}
