/**
 * Durable timers (DESIGN §8 "deadlines"): rows with a due time, kept in the store so they survive
 * restarts, and fired exactly once by whichever process claims them. A deadline passed while the
 * bot was down is simply due at its next look, so it fires at start.
 */

import { randomBytes } from 'node:crypto';

/** A fresh deadline id: 'dl_' + 20 hex digits. */
export function newDeadlineId(): string {
  return `dl_${randomBytes(10).toString('hex')}`;
}

/** What a deadline is for: the automatic revert of a kept-or-reverted or temporary change; later windows and the digest. */
export const DEADLINE_KINDS = ['keep_or_revert', 'temporary', 'window', 'digest'] as const;
export type DeadlineKind = (typeof DEADLINE_KINDS)[number];

/**
 * `scheduled` until due; `claimed` by the one process that fires it; then `fired` or `failed`
 * (reported, never retried). `cancelled`: kept (Keep) or replaced before it was due.
 */
export const DEADLINE_STATES = ['scheduled', 'claimed', 'fired', 'failed', 'cancelled'] as const;
export type DeadlineState = (typeof DEADLINE_STATES)[number];

export interface Deadline {
  /** 'dl_' + random characters. */
  id: string;
  kind: DeadlineKind;
  /** The change request it belongs to. */
  changeId: string;
  /** When it fires (ISO 8601). */
  dueAt: string;
  createdAt: string;
  state: DeadlineState;
  /** The replica (process) that claimed it, and when. */
  claimedBy?: string;
  claimedAt?: string;
  /** When it was fired, failed or cancelled, by whom (a user id, or the replica), and a note (why it failed). */
  finishedAt?: string;
  finishedBy?: string;
  note?: string;
}

/** Which deadlines to list; none given = all, soonest due first. */
export interface DeadlineFilter {
  state?: DeadlineState | readonly DeadlineState[];
  kind?: DeadlineKind;
  changeId?: string;
}

/** What `schedule` is given: the change, the kind, when it falls due, and (when journaled first) its id. */
export interface ScheduleInput {
  kind: DeadlineKind;
  changeId: string;
  dueAt: number;
  at: number;
  id?: string;
}

export interface DeadlineStore {
  /**
   * Stores a scheduled deadline for a change. One per change and kind: scheduling the same again
   * returns the one already there, so a repeated notice schedules nothing twice. `id`: the id the
   * journal recorded for it (a revert deadline is journaled before it is stored).
   */
  schedule(input: ScheduleInput): Promise<Deadline>;
  get(id: string): Promise<Deadline | undefined>;
  list(filter?: DeadlineFilter): Promise<Deadline[]>;
  /**
   * Claims every scheduled deadline due at `at` for `by` (this replica): each is returned to exactly
   * one caller among all processes and replicas, however many ask at once.
   */
  claimDue(at: number, by: string): Promise<Deadline[]>;
  /**
   * Claims one scheduled deadline now, due or not (Revert now); undefined when it is no longer
   * scheduled (fired, claimed or kept meanwhile).
   */
  claim(id: string, at: number, by: string): Promise<Deadline | undefined>;
  /**
   * Cancels a scheduled deadline before it is due (Keep): undefined when it is due already at `at`,
   * or no longer scheduled. `by` is who kept it.
   */
  cancel(id: string, at: number, by: string): Promise<Deadline | undefined>;
  /** Records what firing a claimed deadline did: `fired`, or `failed` with why; only from `claimed`. */
  finish(id: string, outcome: 'fired' | 'failed', at: number, note?: string): Promise<Deadline | undefined>;
}

/** Whether a deadline matches the filter. */
export function matchesDeadline(deadline: Deadline, filter: DeadlineFilter): boolean {
  if (filter.state !== undefined) {
    const states: readonly string[] = typeof filter.state === 'string' ? [filter.state] : filter.state;
    if (!states.includes(deadline.state)) return false;
  }
  if (filter.kind !== undefined && deadline.kind !== filter.kind) return false;
  if (filter.changeId !== undefined && deadline.changeId !== filter.changeId) return false;
  return true;
}

/** Soonest due first, then by id. */
export function soonestFirst(a: Deadline, b: Deadline): number {
  const byTime = Date.parse(a.dueAt) - Date.parse(b.dueAt);
  if (byTime !== 0) return byTime;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
