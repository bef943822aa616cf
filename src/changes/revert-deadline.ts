import type { ChangeRequest, JournaledDeadlineKind } from '../store/records.js';

/**
 * The automatic revert a change asks for: `for=` (temporary) or `revert_after=` (keep or revert),
 * in seconds; undefined for a change without one (or a change set, whose steps carry no timing).
 */
export function timedRevert(
  request: Pick<ChangeRequest, 'forSeconds' | 'revertAfterSeconds' | 'set'>,
): { kind: JournaledDeadlineKind; seconds: number } | undefined {
  if (request.set) return undefined;
  const seconds = request.forSeconds ?? request.revertAfterSeconds;
  if (seconds === undefined || !(seconds > 0)) return undefined;
  return { kind: request.forSeconds !== undefined ? 'temporary' : 'keep_or_revert', seconds };
}
