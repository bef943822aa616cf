import { JOURNALED_DEADLINE_KINDS, type JournaledDeadline } from '../model/change-request.js';
import type { Deadline } from './deadlines.js';
import type { JournalEvent } from './journal-format.js';

/** A revert deadline as the journal last left it, with the change it belongs to. */
export type LedgerDeadline = JournaledDeadline & { changeId: string };

const journaledKinds: ReadonlySet<string> = new Set(JOURNALED_DEADLINE_KINDS);

/** Whether the journal records deadlines of this kind (the automatic reverts of timed changes). */
export function isJournaledKind(kind: string): boolean {
  return journaledKinds.has(kind);
}

/**
 * Folds journal events, in chain order, into the last journaled state of every revert deadline:
 * a `succeeded` event that schedules one, then the `deadline` events that move it on.
 */
export class DeadlineLedgerReader {
  readonly deadlines = new Map<string, LedgerDeadline>();

  add(event: JournalEvent): void {
    if (event.type === 'succeeded' && event.deadline) {
      this.deadlines.set(event.deadline.id, {
        ...event.deadline,
        state: 'scheduled',
        at: event.at,
        changeId: event.id,
      });
    } else if (event.type === 'deadline') {
      this.deadlines.set(event.deadline.id, {
        ...event.deadline,
        state: event.state,
        at: event.at,
        changeId: event.id,
        ...(event.note !== undefined ? { note: event.note } : {}),
      });
    }
  }
}

/** The journal's revert deadlines by id. */
export function journaledDeadlines(events: Iterable<JournalEvent>): Map<string, LedgerDeadline> {
  const reader = new DeadlineLedgerReader();
  for (const event of events) reader.add(event);
  return reader.deadlines;
}

// States in which a deadline may still act: the store must hold what the journal says of them.
const LIVE: ReadonlySet<string> = new Set(['scheduled', 'claimed']);

const describe = (d: { id: string; changeId: string; kind: string; dueAt: string; state: string }) =>
  `deadline ${d.id} (change ${d.changeId}, ${d.kind}, due ${d.dueAt}, ${d.state})`;

/**
 * Where the deadline store and the journal disagree, one sentence each naming the deadline: a live
 * deadline in the store the journal does not record (added outside the bot), a live journaled one
 * missing from the store (removed), or one whose change, kind, due time or state differ (edited).
 * Finished deadlines the store no longer holds are fine (it drops them after a while), and so are
 * finished ones it holds that the journal never recorded (kept from before deadlines were
 * journaled): neither can make the bot act.
 */
export function deadlineDiscrepancies(
  journaled: ReadonlyMap<string, LedgerDeadline>,
  stored: readonly Deadline[],
): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  for (const deadline of stored) {
    if (!isJournaledKind(deadline.kind)) continue;
    seen.add(deadline.id);
    const record = journaled.get(deadline.id);
    if (!record) {
      if (LIVE.has(deadline.state))
        found.push(`${describe(deadline)} is in the deadline store but the journal has no record of it`);
      continue;
    }
    const differences: string[] = [];
    if (record.changeId !== deadline.changeId)
      differences.push(`change ${deadline.changeId} where the journal says ${record.changeId}`);
    if (record.kind !== deadline.kind)
      differences.push(`kind ${deadline.kind} where the journal says ${record.kind}`);
    if (Date.parse(record.dueAt) !== Date.parse(deadline.dueAt))
      differences.push(`due ${deadline.dueAt} where the journal says ${record.dueAt}`);
    if (record.state !== deadline.state)
      differences.push(`state ${deadline.state} where the journal says ${record.state}`);
    if (differences.length > 0)
      found.push(`deadline ${deadline.id} differs from the journal: the store has ${differences.join(', ')}`);
  }
  for (const record of journaled.values()) {
    if (!seen.has(record.id) && LIVE.has(record.state))
      found.push(`${describe(record)} is in the journal but missing from the deadline store`);
  }
  return found;
}

/** One line for audit:verify: the first discrepancies, and how many there are. */
export function discrepancyText(found: readonly string[]): string {
  const shown = found.slice(0, 3).join('; ');
  return found.length > 3 ? `${shown}; and ${found.length - 3} more` : shown;
}
