import type { CelFacts } from './cel.js';
import type { BreakGlassTerms, Policy, PolicyRule } from './policy.js';
import type { BlastRadius, ChangeRequest, Risk } from './types.js';
import { activeFreezes, type ChangeWindow, firstCommonOpening } from './windows.js';

/** When a change may run, by the windows its matching rules require. */
export interface WindowRequirement {
  /** The windows required (all must be open at once), joined with " + " for display. */
  name: string;
  names: string[];
  /** Every required window is open at `now`. */
  open: boolean;
  /** When not open: the first moment they all are (ms since the epoch, and ISO text). */
  nextOpeningMs?: number;
  nextOpening?: string;
}

const MISSING_DATA = /field not found|no such key|key not found/i;

/** What the policy requires of one change: the single answer approvals/ acts on. */
export interface PolicyDecision {
  /** Set: the change may not be made; `rule` is the rule's name (or `freeze: <name>`). */
  deny?: { rule: string; reason: string };
  /** Distinct approvers needed, never the requester (at least 1). */
  approvals: number;
  /** Set: only these Slack user or user-group ids may approve (every matching rule's list allows them). */
  approvers?: string[];
  /** Set: the change runs only while these windows are open (scheduled for the next opening otherwise). */
  window?: WindowRequirement;
  /** Set: the change is reverted after this long unless someone keeps it. */
  revertAfterSeconds?: number;
  /** The rule whose `revert_after` that is (the first in file order of those with the shortest). */
  revertAfterRule?: string;
  /**
   * Whether the requester's own confirmation at this face (the console's y, MCP's confirm) counts
   * as one approval, and which setting said so: `defaults.self_confirm` or a rule's `self_confirm`.
   */
  selfConfirm: { counts: boolean; by: string };
  /** Freezes in force now that let named approvers through: only they may approve, nothing runs by itself. */
  freezes?: { name: string; until: string; reason: string }[];
  risk: Risk;
  /** Why the risk is what it is, and which rules and freezes applied. */
  reasons: string[];
  /** Names of the rules whose condition matched (or could not be evaluated), in file order. */
  matched: string[];
  /** Rules whose condition failed on this change: they are applied as if they matched. */
  errors: { rule: string; message: string }[];
  /** The policy's break-glass terms (`breakglass:`), when it has them. */
  breakGlass?: BreakGlassTerms;
  /**
   * Set: an approval counts only once the approver signed in at the identity provider; says why
   * (`rule "…"`, or `high risk` by default when an identity provider is configured).
   */
  stepUp?: string;
  /**
   * An identity provider is configured (OIDC_ISSUER): a break-glass change run on its requester's
   * word runs only once they signed in there, since nobody else vouches for it.
   */
  identityProvider?: true;
}

/** Step-up sign-in: a matching rule's `step_up: true`, else high risk with an identity provider, unless waived. */
function stepUpOf(policy: Policy, risk: Risk, matched: readonly PolicyRule[]): string | undefined {
  const yes = matched.find((r) => r.stepUp === true);
  if (yes) return `rule "${yes.name}"`;
  if (risk !== 'high' || !policy.identityProvider) return undefined;
  return matched.some((r) => r.stepUp === false) ? undefined : 'high risk';
}

/** The CEL facts of a change (what the `when` conditions see). */
export function celFacts(
  change: ChangeRequest,
  impact: BlastRadius,
  target: Record<string, unknown>,
  now: number,
): CelFacts {
  return {
    tool: change.tool,
    args: change.args,
    target,
    blast_radius: {
      clients: impact.clients,
      devices: impact.devices,
      references: impact.references,
      self_lockout: impact.selfLockout,
      unchecked: impact.unchecked,
      reasons: impact.reasons,
    },
    risk: impact.risk,
    requester: change.requester,
    channel: change.channel,
    face: change.face,
    time: now,
    ...(change.rollout ? { rollout: change.rollout } : {}),
  };
}

/**
 * Whether the requester's own confirmation at `face` counts as an approval: a matching rule's
 * `self_confirm: false` wins, then a matching rule's `true`, then `defaults.self_confirm`.
 */
function selfConfirmOf(
  policy: Policy,
  face: string,
  matched: readonly PolicyRule[],
): PolicyDecision['selfConfirm'] {
  const no = matched.find((r) => r.selfConfirm === false);
  if (no) return { counts: false, by: `rule "${no.name}"` };
  const yes = matched.find((r) => r.selfConfirm === true);
  if (yes) return { counts: true, by: `rule "${yes.name}"` };
  const listed = (policy.defaults.selfConfirm as readonly string[]).includes(face);
  return { counts: listed, by: 'defaults.self_confirm' };
}

/**
 * Evaluates the policy for one change. Strictest wins, effect by effect:
 * - deny: any matching rule with `deny`, or a freeze in force without approvers, refuses the change
 *   (the first in file order is reported); nothing else matters then;
 * - approvals: the largest of the default (`defaults.approvals`, or `high_risk_approvals` when the
 *   risk is high) and every matching rule's `approvals`;
 * - approvers: an approver must be on every list that applies (matching rules' and freezes'), so the
 *   lists are intersected; lists with nobody in common refuse the change;
 * - window: every window named by a matching rule must be open at once; windows that never overlap
 *   refuse the change;
 * - revert_after: the shortest.
 * A condition that reads a key the change does not have (`args.vlan_id` of a restart) does not
 * match. A condition that fails otherwise on this change (a value of an unexpected type, a division
 * by zero) counts as matching: fail closed, with the error in `errors` and `reasons`.
 */
export function evaluateChange(
  policy: Policy,
  change: ChangeRequest,
  impact: BlastRadius,
  target: Record<string, unknown>,
  now: number,
): PolicyDecision {
  const decision = evaluateRules(policy, change, impact, target, now);
  const stepUp = stepUpOf(
    policy,
    decision.risk,
    policy.rules.filter((r) => decision.matched.includes(r.name)),
  );
  if (stepUp) {
    decision.stepUp = stepUp;
    decision.reasons.push(`step-up sign-in required (${stepUp})`);
  }
  return decision;
}

function evaluateRules(
  ...[policy, change, impact, target, now]: Parameters<typeof evaluateChange>
): PolicyDecision {
  const facts = celFacts(change, impact, target, now);
  const matched: PolicyRule[] = [];
  const errors: { rule: string; message: string }[] = [];
  for (const rule of policy.rules) {
    const result = rule.condition.evaluate(facts);
    if ('error' in result) {
      // A key this change does not have (args.vlan_id on a restart): the rule is not about it.
      if (MISSING_DATA.test(result.error)) continue;
      errors.push({ rule: rule.name, message: result.error });
      matched.push(rule);
    } else if (result.value) {
      matched.push(rule);
    }
  }
  const reasons = [...impact.reasons];
  for (const e of errors)
    reasons.push(`rule "${e.rule}" could not be evaluated (${e.message}), so it applies`);
  const base =
    impact.risk === 'high'
      ? { approvals: policy.defaults.highRiskApprovals, why: 'high risk' }
      : { approvals: policy.defaults.approvals, why: 'default' };
  const decision: PolicyDecision = {
    approvals: base.approvals,
    selfConfirm: selfConfirmOf(policy, change.face, matched),
    risk: impact.risk,
    reasons,
    matched: matched.map((r) => r.name),
    errors,
    ...(policy.breakGlass ? { breakGlass: policy.breakGlass } : {}),
    ...(policy.identityProvider ? { identityProvider: true as const } : {}),
  };
  if (impact.risk === 'high' && base.approvals > policy.defaults.approvals) {
    reasons.push(`high risk: ${base.approvals} approvals`);
  }

  const denyRule = matched.find((r) => r.deny !== undefined);
  if (denyRule?.deny !== undefined) {
    decision.deny = { rule: denyRule.name, reason: denyRule.deny };
    return decision;
  }
  const freezes = activeFreezes(policy.freezes, now);
  const hardFreeze = freezes.find((f) => !f.approvers);
  if (hardFreeze) {
    decision.deny = {
      rule: `freeze: ${hardFreeze.name}`,
      reason: `${hardFreeze.reason} (frozen until ${new Date(hardFreeze.to).toISOString()})`,
    };
    return decision;
  }

  for (const rule of matched) {
    if (rule.approvals !== undefined && rule.approvals > decision.approvals)
      decision.approvals = rule.approvals;
  }

  const lists: { source: string; ids: string[] }[] = [
    ...matched
      .filter((r) => r.approvers)
      .map((r) => ({ source: `rule "${r.name}"`, ids: r.approvers ?? [] })),
    ...freezes.map((f) => ({ source: `freeze "${f.name}"`, ids: f.approvers ?? [] })),
  ];
  for (const f of freezes)
    reasons.push(`freeze "${f.name}" in force: ${f.reason}; only its approvers may approve`);
  if (freezes.length > 0)
    decision.freezes = freezes.map((f) => ({
      name: f.name,
      until: new Date(f.to).toISOString(),
      reason: f.reason,
    }));
  if (lists.length > 0) {
    const [first, ...rest] = lists;
    const common = (first?.ids ?? []).filter((id) => rest.every((l) => l.ids.includes(id)));
    if (common.length === 0) {
      decision.deny = {
        rule: lists.map((l) => l.source).join(' and '),
        reason: `${lists.map((l) => l.source).join(' and ')} name no approver in common, so nobody may approve this change`,
      };
      return decision;
    }
    decision.approvers = common;
  }

  const windows = [...new Set(matched.map((r) => r.window).filter((w): w is string => w !== undefined))]
    .map((name) => policy.windows.get(name))
    .filter((w): w is ChangeWindow => w !== undefined);
  if (windows.length > 0) {
    const opening = firstCommonOpening(windows, now);
    const name = windows.map((w) => w.name).join(' + ');
    if (opening === undefined) {
      decision.deny = {
        rule: matched
          .filter((r) => r.window)
          .map((r) => r.name)
          .join(', '),
        reason: `windows ${name} are never open at the same time, so this change can never run`,
      };
      return decision;
    }
    decision.window = {
      name,
      names: windows.map((w) => w.name),
      open: opening === now,
      ...(opening === now ? {} : { nextOpeningMs: opening, nextOpening: new Date(opening).toISOString() }),
    };
  }

  const reverts = matched.map((r) => r.revertAfterSeconds).filter((s): s is number => s !== undefined);
  if (reverts.length > 0) {
    decision.revertAfterSeconds = Math.min(...reverts);
    const rule = matched.find((r) => r.revertAfterSeconds === decision.revertAfterSeconds);
    if (rule) decision.revertAfterRule = rule.name;
  }
  return decision;
}
