import type { CompiledCondition } from './cel.js';
import type { ChangeWindow, Freeze } from './windows.js';

/** One rule of the policy file, compiled. */
export interface PolicyRule {
  name: string;
  /** 1-based line of the rule in its file (0 for built-in rules). */
  line: number;
  /** The CEL text, as written. */
  when: string;
  condition: CompiledCondition;
  deny?: string;
  approvals?: number;
  approvers?: string[];
  window?: string;
  revertAfterSeconds?: number;
  /**
   * Whether the requester's own confirmation (the console's y or --yes, MCP's `confirm: true`)
   * counts as one approval of a matching change; false in any matching rule wins.
   */
  selfConfirm?: boolean;
  /**
   * Whether an approval of a matching change counts only after the approver signs in at the
   * identity provider; true in any matching rule wins, false waives the high-risk default.
   */
  stepUp?: boolean;
}

/**
 * Who may break glass and what it allows (`breakglass:`): a change asked under these terms needs
 * `approvals` approvals instead of what the policy asks (never more), runs outside change windows,
 * and is still refused by a `deny`; each one is posted to the audit channel at once and owes a
 * review by one of `reviewers` within `reviewWithinSeconds`.
 */
export interface BreakGlassTerms {
  allowed: string[];
  approvals: number;
  reviewers: string[];
  reviewWithinSeconds: number;
}

/** The faces where a requester confirms their own change instead of asking someone in Slack. */
export const CONFIRM_FACES = ['console', 'mcp'] as const;
export type ConfirmFace = (typeof CONFIRM_FACES)[number];

/** The policy in effect: the file's rules, windows and freezes, or the default one. */
export interface Policy {
  /** The file it came from, or undefined for the default policy (no POLICY_FILE). */
  file?: string;
  /** Approvals every write needs, and what a high-risk write needs (both at least 1). */
  defaults: {
    approvals: number;
    highRiskApprovals: number;
    /**
     * Faces where the requester's own confirmation counts as one approval (`self_confirm`), so a
     * change needing one approval runs there; one needing more, or named approvers, never does.
     */
    selfConfirm: readonly ConfirmFace[];
  };
  rules: PolicyRule[];
  windows: ReadonlyMap<string, ChangeWindow>;
  freezes: Freeze[];
  /** Unset: nobody may break glass. */
  breakGlass?: BreakGlassTerms;
  /**
   * An identity provider is configured (OIDC_ISSUER): high-risk approvals then need step-up
   * sign-in unless a matching rule says `step_up: false`. Set at start, never by the file.
   */
  identityProvider?: boolean;
}

/**
 * No POLICY_FILE: one approval, two for a high-risk change; the console's and MCP's own
 * confirmation counts as one (so a high-risk change runs only once someone else approves it in
 * Slack); no rules, windows or freezes.
 */
export const DEFAULT_POLICY: Policy = {
  defaults: { approvals: 1, highRiskApprovals: 2, selfConfirm: CONFIRM_FACES },
  rules: [],
  windows: new Map(),
  freezes: [],
};
