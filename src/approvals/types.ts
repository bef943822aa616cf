import type { ChangeRequest } from '../model/change-request.js';

// What a run ended in is the runner's answer too: changes/outcomes.ts.
export type { ApproveOutcome } from '../changes/outcomes.js';
// The persisted shapes live with the store; approvals and the front ends keep importing them from here.
export {
  type Actor,
  CHANGE_STATES,
  type ChangeRequest,
  type ChangeState,
  type ErrorSummary,
  type MessageRef,
} from '../model/change-request.js';

/** What a click on Cancel led to. */
export type CancelOutcome =
  | { kind: 'cancelled'; request: ChangeRequest }
  | { kind: 'refused'; request: ChangeRequest; reason: string }
  | { kind: 'already'; request: ChangeRequest }
  | { kind: 'not_found'; id: string };
