import { isBotError } from '../../errors.js';
// The policy's modules, not its index (which holds the CEL compiler and the YAML parser).
import { evaluateChange, type PolicyDecision } from '../../policy/evaluate.js';
import type { Policy } from '../../policy/policy.js';
import { assessImpact } from '../../policy/risk.js';
import type { BlastRadius, ChangeRequest, ImpactFacts } from '../../policy/types.js';
import { toolDefinition } from './catalog.js';
import type { ToolContext } from './define-tool.js';
import { namedTarget, networkPosition } from './guardrails.js';

/*
 * The facts policy/ needs about a would-be write, gathered by the write tool's own `impact`
 * (its definition), and the assessment approvals/ makes of them. policy/ turns them into a risk
 * and a decision; nothing here decides.
 */

/**
 * The facts of a would-be write, read fresh. A read that fails on the controller's side is listed
 * under `unchecked` (and raises the risk), never taken for "nothing affected"; a target that does
 * not exist is refused as the tool itself would refuse it.
 */
export async function gatherImpact(
  context: ToolContext,
  tool: string,
  args: Record<string, unknown>,
): Promise<ImpactFacts> {
  const site = typeof args.site_id === 'string' ? args.site_id : 'default';
  const position = await networkPosition(context.guardrails);
  const impact = toolDefinition(tool)?.impact;
  try {
    if (impact) return await impact({ context, site, tool, args, position });
  } catch (error) {
    if (!isBotError(error) || !error.code.startsWith('gateway_')) throw error;
    return {
      ...(namedTarget(tool, args) ? { target: namedTarget(tool, args) } : {}),
      unchecked: [`the blast radius could not be read: ${error.message}`],
    };
  }
  const target = namedTarget(tool, args);
  return { ...(target ? { target } : {}), removes: tool.startsWith('delete_') };
}

/** The blast radius of a change and what the policy requires of it: the one call approvals/ makes. */
export interface ChangeAssessment {
  facts: ImpactFacts;
  radius: BlastRadius;
  decision: PolicyDecision;
}

/**
 * Gathers the facts of a change, assesses its risk and evaluates the policy in effect (the
 * context's guardrails, or the default policy) at `now`. Call it at preview, at approval and
 * right before the change runs: every call reads the controller afresh.
 */
export async function assessChange(
  context: ToolContext,
  change: ChangeRequest,
  policy: Policy,
  now: number,
): Promise<ChangeAssessment> {
  const facts = await gatherImpact(context, change.tool, change.args);
  const radius = assessImpact(facts);
  const decision = evaluateChange(policy, change, radius, facts.targetRecord ?? {}, now);
  return { facts, radius, decision };
}
