import type { ChangeAssessmentRecord } from '../model/change-request.js';
import { formatDuration } from '../policy/duration.js';
import { type GateFace, type GateVerdict, refusalText } from '../policy/gate.js';
import type { ChangeRequest } from './types.js';

/*
 * The guardrails of a change request as data and as text, for the faces that are not
 * Slack (MCP answers, the console): risk with its reasons, the self-lockout warning, and how many
 * approvals it needs and has.
 */

/** The request's risk, reasons, self-lockout warning and approval progress, as answer fields. */
export function guardrailFields(request: ChangeRequest): Record<string, unknown> {
  const assessment = request.assessment;
  if (!assessment) return {};
  const approved = (request.approvedBy ?? []).map((a) => a.name ?? a.userId);
  return {
    risk: assessment.risk,
    risk_reasons: assessment.reasons,
    ...(assessment.selfLockout ? { self_lockout: assessment.selfLockout } : {}),
    approvals_needed: assessment.approvals,
    approvals_given: approved.length + (request.approver && request.state !== 'pending' ? 1 : 0),
    ...(approved.length > 0 ? { approved_so_far_by: approved } : {}),
    ...(assessment.approvers ? { approvers: assessment.approvers } : {}),
    ...(assessment.rules.length > 0 ? { policy_rules: assessment.rules } : {}),
    ...(assessment.window ? { window: assessment.window } : {}),
    ...(request.scheduledFor ? { scheduled_for: request.scheduledFor } : {}),
    ...(request.breakGlass
      ? {
          break_glass: {
            reason: request.breakGlass.reason,
            approvals: request.breakGlass.approvals,
            reviewers: request.breakGlass.reviewers,
            review_due_at: request.breakGlass.reviewDueAt,
            ...(request.breakGlass.reviewedBy
              ? { reviewed_by: request.breakGlass.reviewedBy.name ?? request.breakGlass.reviewedBy.userId }
              : {}),
          },
        }
      : {}),
  };
}

/** "break-glass: why; review by …": the mark a break-glass change carries on every face. */
export function breakGlassLine(request: ChangeRequest): string | undefined {
  const glass = request.breakGlass;
  if (!glass) return undefined;
  const review = glass.reviewedBy
    ? `reviewed by ${glass.reviewedBy.name ?? glass.reviewedBy.userId} at ${glass.reviewedAt ?? '?'}`
    : `review by ${glass.reviewers.join(', ')} due ${glass.reviewDueAt}`;
  const count =
    glass.approvals === 0
      ? "runs on the requester's word"
      : `${glass.approvals} approval${glass.approvals === 1 ? '' : 's'} instead of the policy's`;
  return `BREAK-GLASS: ${glass.reason} (${count}; ${review})`;
}

/** The same as lines of plain text (empty when the request was never assessed). */
export function guardrailLines(request: ChangeRequest): string[] {
  const glass = breakGlassLine(request);
  return [...(glass ? [glass] : []), ...(request.assessment ? assessmentLines(request.assessment) : [])];
}

/** Risk, self-lockout, who must approve and the window, as every text face shows them. */
export function assessmentLines(assessment: ChangeAssessmentRecord): string[] {
  const lines = [`risk: ${assessment.risk} (${assessment.reasons.join('; ') || 'nothing affected'})`];
  if (assessment.selfLockout) lines.push(`SELF-LOCKOUT: ${assessment.selfLockout}`);
  const n = assessment.approvals;
  lines.push(
    `needs ${n} approval${n === 1 ? '' : 's'} from people other than the requester${assessment.approvers ? ` (only ${assessment.approvers.join(', ')})` : ''}`,
  );
  if (assessment.window && !assessment.window.open)
    lines.push(
      `runs only in window ${assessment.window.name}; approved outside it, it is scheduled for ${assessment.window.nextOpening ?? 'its next opening'}`,
    );
  return lines;
}

/** The change's first deadline in words, when it has one. */
export function deadlineLine(
  first: { seconds: number; kind: string; source: string } | undefined,
): string | undefined {
  if (!first) return undefined;
  return first.kind === 'temporary'
    ? `deadline: temporary, reverts by itself ${formatDuration(first.seconds)} after it runs (${first.source})`
    : `deadline: reverts by itself ${formatDuration(first.seconds)} after it runs unless someone with approval rights keeps it (${first.source})`;
}

/** What the requester's own confirmation at this face does: runs it, or why not and how to get it. */
export function verdictLine(face: GateFace, verdict: GateVerdict): string {
  const where = face === 'mcp' ? 'over MCP (confirm: true)' : `at the ${face}`;
  if (verdict.verdict === 'refuse') return `cannot run ${where}: ${refusalText(verdict)}`;
  const notes =
    verdict.verdict === 'allow' && verdict.notes.length > 0 ? `; ${verdict.notes.join('; ')}` : '';
  return `${where}: your own confirmation is the approval this change needs${notes}`;
}
