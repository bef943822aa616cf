import type { ChangeRequest, JournaledDeadlineKind } from '../model/change-request.js';

/**
 * The automatic revert a change asks for: `for=` (temporary) or `revert_after=` (keep or revert),
 * the earlier when it has both, in seconds; undefined for a change without one (or a change set,
 * whose steps carry no timing).
 */
export function timedRevert(
  request: Pick<ChangeRequest, 'forSeconds' | 'revertAfterSeconds' | 'set'>,
): { kind: JournaledDeadlineKind; seconds: number } | undefined {
  if (request.set) return undefined;
  const { forSeconds, revertAfterSeconds } = request;
  // A temporary change under a shorter keep-or-revert rule: the earlier deadline is the one.
  if (revertAfterSeconds !== undefined && (forSeconds === undefined || revertAfterSeconds < forSeconds))
    return revertAfterSeconds > 0 ? { kind: 'keep_or_revert', seconds: revertAfterSeconds } : undefined;
  if (forSeconds === undefined || !(forSeconds > 0)) return undefined;
  return { kind: 'temporary', seconds: forSeconds };
}
