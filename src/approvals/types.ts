import type { ChangeRequest, ErrorSummary } from '../store/records.js';

// The persisted shapes live with the store; approvals and the front ends keep importing them from here.
export {
  type Actor,
  CHANGE_STATES,
  type ChangeRequest,
  type ChangeState,
  type ErrorSummary,
  type MessageRef,
} from '../store/records.js';

/** What a click on Approve led to; every kind is something the UI must say, none is silent. */
export type ApproveOutcome =
  | { kind: 'succeeded'; request: ChangeRequest; result: unknown }
  | { kind: 'failed'; request: ChangeRequest; error: ErrorSummary }
  | { kind: 'refused'; request: ChangeRequest; reason: string }
  | { kind: 'already'; request: ChangeRequest }
  | { kind: 'expired'; request: ChangeRequest }
  | { kind: 'drift'; request: ChangeRequest; replacement: ChangeRequest; differences: string[] }
  /** The clicked message showed a preview whose hash is not the stored request's: nothing ran. */
  | { kind: 'mismatch'; request: ChangeRequest; shownHash: string }
  | { kind: 'not_found'; id: string }
  /** Issue 22: one approval of several recorded; the request stays pending for the others. */
  | { kind: 'endorsed'; request: ChangeRequest; needed: number }
  /** Issue 22: the last approval came outside the change's window: it runs at the next opening. */
  | { kind: 'scheduled'; request: ChangeRequest };

/** What a click on Cancel led to. */
export type CancelOutcome =
  | { kind: 'cancelled'; request: ChangeRequest }
  | { kind: 'refused'; request: ChangeRequest; reason: string }
  | { kind: 'already'; request: ChangeRequest }
  | { kind: 'not_found'; id: string };
