import type { ChangeRequest } from './types.js';

/*
 * Issue 22: the guardrails of a change request as data and as text, for the faces that are not
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
  };
}

/** The same as lines of plain text (empty when the request was never assessed). */
export function guardrailLines(request: ChangeRequest): string[] {
  const assessment = request.assessment;
  if (!assessment) return [];
  const lines = [`risk: ${assessment.risk} (${assessment.reasons.join('; ')})`];
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
