export { CEL_VARIABLES, type CelFacts, compileCondition, toCel } from './cel.js';
export { DURATION_RULE, formatDuration, parseDuration } from './duration.js';
export { celFacts, evaluateChange, type PolicyDecision, type WindowRequirement } from './evaluate.js';
export { parsePolicy } from './parse.js';
export { DEFAULT_POLICY, type Policy, type PolicyRule } from './policy.js';
export { PolicyFileError, type PolicyProblem } from './policy-error.js';
export { assessImpact, HIGH_RISK_CLIENTS, HIGH_RISK_DEVICES, MAX_NAMES, maxRisk } from './risk.js';
export type { AffectedSet, BlastRadius, ChangeRequest, ImpactFacts, ImpactReference, Risk } from './types.js';
export {
  activeFreezes,
  type ChangeWindow,
  type Freeze,
  firstCommonOpening,
  isOpen,
  nextOpening,
} from './windows.js';
