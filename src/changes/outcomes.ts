import { GatewayRejectedError, isBotError } from '../errors.js';
import { scrubSecrets } from '../log.js';
import type { ChangeRequest, ErrorSummary } from '../model/change-request.js';

/**
 * What a click on Approve led to; every kind is something the UI must say, none is silent. The
 * runner returns the kinds a run ends in; approvals/ adds those of the decision before it.
 */
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
  /** One approval of several recorded; the request stays pending for the others. */
  | { kind: 'endorsed'; request: ChangeRequest; needed: number }
  /** The last approval came outside the change's window: it runs at the next opening. */
  | { kind: 'scheduled'; request: ChangeRequest }
  /** The policy asks step-up sign-in: nothing is recorded until the approver follows `url` and signs in. */
  | { kind: 'sign_in'; request: ChangeRequest; url: string; expiresAt: number; why: string };

/** An error as kept on the request: its stable code and its sentence, secrets scrubbed, never a stack. */
export function summarize(error: unknown): ErrorSummary {
  const message = scrubSecrets(error instanceof Error ? error.message : String(error));
  const summary: ErrorSummary = { code: isBotError(error) ? error.code : 'internal_error', message };
  if (error instanceof GatewayRejectedError) summary.controllerCode = error.controllerCode;
  return summary;
}
