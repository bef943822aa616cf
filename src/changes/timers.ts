import { ConflictError, NotAuthorizedError, ResourceNotFoundError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Deadline, DeadlineKind, DeadlineStore } from '../store/deadlines.js';
import type { Actor, ChangeRequest } from '../store/records.js';

/** Why the bot reverts a change by itself (issue 21, items 5 and 6). */
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
  kind: 'scheduled' | 'kept' | 'reverted' | 'revert_failed' | 'revert_stopped';
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
   * Issue 22 (additive hook): runs the change of a due `window` deadline (a change approved
   * outside its policy window). Without it, window deadlines are left alone.
   */
  runScheduled?: (changeId: string) => Promise<RevertOutcome>;
}

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
  }
}

const kindReason = (kind: DeadlineKind): RevertReason =>
  kind === 'temporary' ? 'temporary' : 'keep_timeout';

/** A scheduled revert of one change, as the Keep tool and App Home show it. */
export interface PendingRevert {
  deadline: Deadline;
  change?: ChangeRequest;
  msLeft: number;
}

/**
 * Keep-or-revert and temporary changes (issue 21, items 5–7): a timed change that succeeded gets
 * a deadline in the store; one ticker per process claims due deadlines (each fires on one replica,
 * once, also after a restart) and has the change reverted; Keep cancels the deadline before it is
 * due. An automatic revert that fails is reported and never retried.
 */
export class ChangeTimers {
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private ticking: Promise<void> | undefined;
  // Probes done by this process, per deadline: 'after' the write, 'before' the deadline.
  private readonly probed = new Map<string, Set<'after' | 'before'>>();
  private readonly scheduling = new Set<Promise<unknown>>();
  private readonly noticing = new Map<string, Promise<Deadline | undefined>>();

  constructor(private readonly options: ChangeTimersOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Subscribes to changes, and claims what fell due while nothing ran at once, then every tick. */
  start(): void {
    if (this.timer) return;
    this.follow();
    this.timer = setInterval(() => void this.tick(), this.options.tickMs ?? 5_000);
    this.timer.unref();
    void this.tick();
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
        await this.probeDue();
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

  /** Issue 22: a due `window` deadline runs its scheduled change once; the outcome is recorded on the deadline. */
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
    const kept = await this.options.deadlines.cancel(pending.deadline.id, this.now(), actor.userId);
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
