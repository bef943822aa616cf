import type { ChangeRequest, ChangeState, JournaledDeadline } from '../model/change-request.js';
import type { JournalEvent, TransitionEntry } from './journal-format.js';

/** The request's deadlines with `deadline` put in place of the one with its id. */
function withDeadline(request: ChangeRequest, deadline: JournaledDeadline): JournaledDeadline[] {
  const others = (request.deadlines ?? []).filter((d) => d.id !== deadline.id);
  return [...others, deadline];
}

/** What a request shows once a crash left its outcome unknown. */
export const OUTCOME_UNKNOWN = {
  code: 'outcome_unknown',
  message: 'outcome unknown: the bot stopped while this change was running; verify on the controller',
} as const;

/**
 * What a request shows when its process stopped after the approval and before `executing` was
 * recorded: the write is sent only after that record, so it provably never reached the controller.
 */
export const STOPPED_BEFORE_RUN = {
  code: 'interrupted',
  message:
    'not run: the bot stopped after the approval and before the change was started, so nothing was sent to the controller; request it again',
} as const;

/** The state an event moves a request to; undefined for events that change no state (`message`). */
export function stateAfter(type: TransitionEntry['type']): ChangeState | undefined {
  switch (type) {
    case 'message':
    case 'reminded':
    case 'verified':
    case 'reverted':
    case 'endorsed':
    case 'set_step':
    case 'rollout':
    case 'deadline':
    case 'reviewed':
      return undefined;
    case 'outcome_unknown':
      return 'unknown';
    default:
      return type;
  }
}

/**
 * A request after one event: the one reducer both stores use, for replaying a journal and for
 * live transitions alike, so what is stored and what the chain says cannot disagree.
 */
export function applyEvent(request: ChangeRequest | undefined, event: JournalEvent): ChangeRequest {
  if (event.type === 'created') return structuredClone(event.request);
  if (!request) {
    throw new Error(`approvals journal event ${event.seq} (${event.type}) names unknown request ${event.id}`);
  }
  const next = structuredClone(request);
  switch (event.type) {
    case 'message':
      next.message = event.message;
      break;
    case 'approved':
      next.state = 'approved';
      next.approver = event.actor;
      next.decidedAt = event.at;
      if (event.note !== undefined) next.approvalNote = event.note;
      break;
    case 'executing':
      next.state = 'executing';
      if (event.before !== undefined) next.before = event.before;
      break;
    case 'succeeded':
      next.state = 'succeeded';
      next.result = event.result;
      // A late outcome after a recovery replaces the "unknown" note with the truth.
      delete next.error;
      delete next.notRun;
      if (event.deadline !== undefined)
        next.deadlines = withDeadline(next, { ...event.deadline, state: 'scheduled', at: event.at });
      break;
    case 'failed':
      next.state = 'failed';
      next.error = event.error;
      if (event.stage === 'recheck') next.notRun = true;
      else delete next.notRun;
      break;
    case 'cancelled':
      next.state = 'cancelled';
      next.cancelledBy = event.actor;
      next.decidedAt = event.at;
      break;
    case 'expired':
      next.state = 'expired';
      break;
    case 'superseded':
      next.state = 'superseded';
      next.supersededBy = event.supersededBy;
      break;
    case 'outcome_unknown':
      next.state = 'unknown';
      next.error = { ...OUTCOME_UNKNOWN };
      break;
    case 'reminded':
      next.remindedAt = event.at;
      break;
    case 'verified':
      next.after = event.after;
      next.verification = event.verification;
      break;
    case 'reverted':
      next.revertedBy = event.revertedBy;
      break;
    case 'endorsed':
      next.approvedBy = [...(next.approvedBy ?? []), event.actor];
      break;
    case 'reviewed':
      if (next.breakGlass)
        next.breakGlass = { ...next.breakGlass, reviewedBy: event.actor, reviewedAt: event.at };
      break;
    case 'scheduled':
      // The last approval: who gave it is the approver, as when a change runs at once.
      next.state = 'scheduled';
      next.approver = event.actor;
      next.decidedAt = event.at;
      next.scheduledFor = event.runAt;
      break;
    case 'deadline':
      next.deadlines = withDeadline(next, {
        ...event.deadline,
        state: event.state,
        at: event.at,
        ...(event.note !== undefined ? { note: event.note } : {}),
      });
      break;
    case 'rollout':
      if (event.event === 'stopped' && next.set?.rollout) next.set.rollout.stoppedBy = event.actor;
      break;
    case 'set_step': {
      const step = next.set?.steps[event.step - 1];
      if (!step) break;
      step.status = event.status;
      if (event.changeId !== undefined) step.changeId = event.changeId;
      if (event.revertId !== undefined) step.revertId = event.revertId;
      if (event.error !== undefined) step.error = event.error;
      else if (event.status === 'done' || event.status === 'running') delete step.error;
      break;
    }
  }
  return next;
}
