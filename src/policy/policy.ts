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
}

/** The policy in effect: the file's rules, windows and freezes, or the default one. */
export interface Policy {
  /** The file it came from, or undefined for the default policy (no POLICY_FILE). */
  file?: string;
  /** Approvals every write needs, and what a high-risk write needs (both at least 1). */
  defaults: { approvals: number; highRiskApprovals: number };
  rules: PolicyRule[];
  windows: ReadonlyMap<string, ChangeWindow>;
  freezes: Freeze[];
}

/** No POLICY_FILE: one approval, two for a high-risk change; no rules, windows or freezes. */
export const DEFAULT_POLICY: Policy = {
  defaults: { approvals: 1, highRiskApprovals: 2 },
  rules: [],
  windows: new Map(),
  freezes: [],
};
