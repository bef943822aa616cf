import { ConflictError, NotAuthorizedError, ResourceNotFoundError } from '../errors.js';
import type { Actor, ChangeRequest, JournaledDeadline } from '../model/change-request.js';
import { isJournaledKind } from '../store/deadline-audit.js';
import { type Deadline, type DeadlineKind, newDeadlineId } from '../store/deadlines.js';
import { timedRevert } from './revert-deadline.js';
import {
  ADOPT_TOLERANCE_MS,
  errorText,
  iso,
  kindReason,
  type PendingRevert,
  type RevertOutcome,
  type RevertReason,
  type TimedChange,
  TimerCore,
  type TimerEvent,
  UNRECORDED_HORIZON_MS,
} from './timer-core.js';

/** Keep-or-revert and temporary changes: their deadlines scheduled, kept, fired, and rebuilt from the journal. */
export class KeepOrRevertTimers extends TimerCore {
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

  protected async scheduleFor(request: ChangeRequest): Promise<Deadline | undefined> {
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

  /** The scheduled revert of a change, if any. */
  async pendingRevert(changeId: string): Promise<PendingRevert | undefined> {
    const [deadline] = (await this.options.deadlines.list({ changeId, state: 'scheduled' })).filter(
      (d) => d.kind !== 'window',
    );
    if (!deadline) return undefined;
    return this.withChange(deadline);
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
  protected async fire(deadline: Deadline, reason: RevertReason, actor?: Actor): Promise<TimerEvent> {
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
  protected async claimInJournal(
    deadline: Deadline,
  ): Promise<{ journaled: JournaledDeadline } | { refused: TimerEvent }> {
    const refused = async (change: ChangeRequest | undefined, reason: string) => ({
      refused: await this.refuse(deadline, change, reason),
    });
    let change: ChangeRequest | undefined;
    try {
      change = await this.options.ledger?.get(deadline.changeId);
    } catch (error) {
      return refused(undefined, `the journal could not be read (${errorText(error)})`);
    }
    const problem = this.mismatch(deadline, change, ['scheduled']);
    const journaled = change?.deadlines?.find((d) => d.id === deadline.id);
    if (problem || !change || !journaled) return refused(change, problem ?? 'no journal record');
    let claimed: ChangeRequest | undefined;
    try {
      claimed = await this.journalStep(change.id, journaled, 'claimed', ['scheduled']);
    } catch (error) {
      return refused(change, `its claim could not be journaled (${errorText(error)})`);
    }
    if (!claimed) {
      const now = await this.options.ledger?.get(change.id).catch(() => undefined);
      return refused(now ?? change, 'the journal recorded another step of it meanwhile');
    }
    return { journaled };
  }

  /**
   * Keep: the deadline must match the change's journal, then it is cancelled in the store (which
   * refuses once it is due) and the keep is journaled. Undefined when it was too late.
   */
  protected async cancelDeadline(deadline: Deadline, actor: Actor): Promise<Deadline | undefined> {
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

  protected async rebuildIfDue(): Promise<void> {
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
  protected async settleJournaled(
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

  protected claimInFlight(stored: Deadline): boolean {
    if (stored.claimedAt === undefined) return false;
    return this.now() - Date.parse(stored.claimedAt) < (this.options.staleClaimMs ?? 60_000);
  }

  /** A journaled deadline the store lost (a crash after the journal, or a line removed) is stored again. */
  protected async restore(change: ChangeRequest, journaled: JournaledDeadline): Promise<void> {
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
  protected async scheduleMissing(
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
  protected async unsettled(change: ChangeRequest): Promise<void> {
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
  protected async probeDue(): Promise<void> {
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
      const console = typeof change?.args.console === 'string' ? change.args.console : undefined;
      const reachable = await probe(change?.site ?? '', console).catch(() => false);
      if (reachable) continue;
      const claimed = await this.options.deadlines.claim(deadline.id, this.now(), this.options.replicaId);
      if (claimed) await this.fire(claimed, 'unreachable');
    }
  }
}
