import type { Logger } from '../log.js';
import {
  type Actor,
  CHANGE_STATES,
  type ChangeRequest,
  type JournaledDeadline,
  type JournaledDeadlineState,
  SYSTEM_ACTOR,
} from '../model/change-request.js';
import type { Deadline, DeadlineKind, DeadlineStore } from '../store/deadlines.js';
import type { ChangeStore, TimerKeepers } from '../store/types.js';

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
export type TimedChange = ChangeRequest & { revertAfterSeconds?: number; forSeconds?: number };

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
   * A cheap read of `site` on the console the change was made on (`console`, unset for the one
   * GATEWAY_* console; true: it answered). Keep-or-revert changes are
   * probed once `probeAfterMs` after the write and again `probeBeforeMs` before the deadline; a
   * controller the bot cannot read after the change is reverted at once (reason `unreachable`).
   */
  probe?: (site: string, console?: string) => Promise<boolean>;
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
export const ADOPT_TOLERANCE_MS = 10 * 60 * 1000;

/**
 * A change that succeeded this long ago with no deadline anywhere is left alone: the deadline
 * file drops a kept deadline 24 h after the keep, so an older one may have been kept.
 */
export const UNRECORDED_HORIZON_MS = 24 * 60 * 60 * 1000;

export const iso = (ms: number) => new Date(ms).toISOString();

export const REASON_TEXT: Record<RevertReason, string> = {
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

export const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

export const kindReason = (kind: DeadlineKind): RevertReason =>
  kind === 'temporary' ? 'temporary' : 'keep_timeout';

/** A scheduled revert of one change, as the Keep tool and App Home show it. */
export interface PendingRevert {
  deadline: Deadline;
  change?: ChangeRequest;
  msLeft: number;
}

/**
 * What every part of the change timers works from: the options, the journal steps and refusals,
 * and the reports. The parts above it keep or revert (keep-or-revert.ts), open windows
 * (window-openings.ts) and tick (timers.ts).
 */
export class TimerCore {
  protected readonly now: () => number;
  protected timer: NodeJS.Timeout | undefined;
  // Set while the ticker runs: this process fires deadlines and says so in the store.
  protected firing = false;
  protected unsubscribe: (() => void) | undefined;
  protected ticking: Promise<void> | undefined;
  // Probes done by this process, per deadline: 'after' the write, 'before' the deadline.
  protected readonly probed = new Map<string, Set<'after' | 'before'>>();
  protected readonly scheduling = new Set<Promise<unknown>>();
  protected readonly noticing = new Map<string, Promise<Deadline | undefined>>();
  // Revert deadlines whose `scheduled` this process reported (a change is noticed several times).
  protected readonly announced = new Set<string>();
  // Timed changes too old to get a deadline, logged once per process.
  protected readonly leftAlone = new Set<string>();
  protected lastRebuild: number | undefined;

  constructor(protected readonly options: ChangeTimersOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Why a stored revert deadline is not what the change's journal records, or undefined if it is. */
  protected mismatch(
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
  protected async journalStep(
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
  protected async refuse(
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
  protected async announce(change: ChangeRequest): Promise<Deadline | undefined> {
    const journaled = change.deadlines?.find((d) => d.state === 'scheduled');
    if (!journaled) return undefined;
    const stored = await this.options.deadlines.get(journaled.id);
    if (stored?.state !== 'scheduled' || this.mismatch(stored, change, ['scheduled'])) return undefined;
    if (this.announced.has(stored.id)) return stored;
    this.announced.add(stored.id);
    await this.report({ kind: 'scheduled', deadline: stored, change });
    return stored;
  }

  protected async withChange(deadline: Deadline): Promise<PendingRevert> {
    const change = await this.options.getChange(deadline.changeId).catch(() => undefined);
    return { deadline, ...(change ? { change } : {}), msLeft: Date.parse(deadline.dueAt) - this.now() };
  }

  protected async report(event: Omit<TimerEvent, 'text'>): Promise<TimerEvent> {
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
