import { z } from 'zod';
import { NotSupportedError } from '../../errors.js';
// The policy's modules, not its index: the index also holds the CEL compiler and the YAML parser,
// which only a POLICY_FILE needs (not loaded at start).
import { formatDuration } from '../../policy/duration.js';
import type { PolicyDecision } from '../../policy/evaluate.js';
import { evaluateChange } from '../../policy/evaluate.js';
import { Gate, refusalText } from '../../policy/gate.js';
import { DEFAULT_POLICY, type Policy, type PolicyRule } from '../../policy/policy.js';
import type { AffectedSet, BlastRadius, ChangeRequest as PolicyChange } from '../../policy/types.js';
import { activeFreezes, isOpen, nextOpening } from '../../policy/windows.js';
import { nonEmpty, siteId } from '../core/arg-types.js';
import { assessChange } from '../core/assess.js';
import { defineTool, type ToolContext } from '../core/define-tool.js';

/*
 * Explaining the policy: `/net policy` shows the rules in effect; `/net policy check <command>` shows,
 * without proposing or sending anything, which rules match a would-be change, its risk and its
 * blast radius, and what it would need (approvals, approvers, a window) or why it is refused.
 */

function policyOf(context: ToolContext): Policy {
  return context.guardrails?.policy ?? DEFAULT_POLICY;
}

function nowOf(context: ToolContext): number {
  return context.guardrails?.now() ?? Date.now();
}

function effectsOf(rule: PolicyRule): string {
  const parts: string[] = [];
  if (rule.deny !== undefined) parts.push(`deny: ${rule.deny}`);
  if (rule.approvals !== undefined) parts.push(`approvals: ${rule.approvals}`);
  if (rule.approvers) parts.push(`approvers: ${rule.approvers.join(', ')}`);
  if (rule.window !== undefined) parts.push(`window: ${rule.window}`);
  if (rule.revertAfterSeconds !== undefined)
    parts.push(`revert_after: ${formatDuration(rule.revertAfterSeconds)}`);
  return parts.join('; ');
}

function approvalsText(policy: Policy): string {
  const { approvals, highRiskApprovals } = policy.defaults;
  const one = (n: number) => `${n} approval${n === 1 ? '' : 's'}`;
  return highRiskApprovals > approvals
    ? `${one(approvals)}, ${highRiskApprovals} for high risk`
    : one(approvals);
}

// Deliberately alike: the tools below are defineTool declarations, whose shape the framework fixes; each differs in args and run.
const showPolicy = defineTool({
  name: 'show_policy',
  description: 'The guardrail policy in effect: default approvals, rules, change windows and freezes',
  access: 'read',
  example: '',
  args: z.object({ site_id: siteId }),
  identifierColumns: ['when'],
  async run(_args, context) {
    const policy = policyOf(context);
    const now = nowOf(context);
    const frozen = new Set(activeFreezes(policy.freezes, now).map((f) => f.name));
    return {
      source: policy.file ?? 'built-in default (POLICY_FILE is not set)',
      every_write_needs: approvalsText(policy),
      self_confirm:
        policy.defaults.selfConfirm.length === 0
          ? 'nowhere: every change needs someone else’s approval in Slack'
          : `${policy.defaults.selfConfirm.join(', ')}: the requester’s own confirmation there (the console’s y, MCP confirm) counts as one approval`,
      rules: policy.rules.map((r) => ({ name: r.name, line: r.line, when: r.when, effects: effectsOf(r) })),
      windows: [...policy.windows.values()].map((w) => {
        const next = nextOpening(w, now);
        return {
          name: w.name,
          schedule: w.description,
          lasts: formatDuration(w.durationSeconds),
          open_now: isOpen(w, now),
          next_opening: next === undefined ? null : new Date(next).toISOString(),
        };
      }),
      freezes: policy.freezes.map((f) => ({
        name: f.name,
        from: new Date(f.from).toISOString(),
        to: new Date(f.to).toISOString(),
        reason: f.reason,
        in_force: frozen.has(f.name),
        approvers: f.approvers ?? null,
      })),
    };
  },
});

function setText(set: AffectedSet): string {
  if (set.count === 0) return 'none';
  const more = set.count > set.names.length ? `, +${set.count - set.names.length} more` : '';
  return `${set.count}${set.names.length > 0 ? ` (${set.names.join(', ')}${more})` : ''}`;
}

function verdict(decision: PolicyDecision): string {
  if (decision.deny) return `refused by ${decision.deny.rule}: ${decision.deny.reason}`;
  const parts = [`needs ${decision.approvals} approval${decision.approvals === 1 ? '' : 's'}`];
  if (decision.approvers) parts.push(`from ${decision.approvers.join(', ')}`);
  if (decision.window) {
    parts.push(
      decision.window.open
        ? `window ${decision.window.name} is open now`
        : `runs at the next opening of ${decision.window.name} (${decision.window.nextOpening})`,
    );
  }
  if (decision.revertAfterSeconds !== undefined) {
    parts.push(`reverted after ${formatDuration(decision.revertAfterSeconds)} unless kept`);
  }
  return parts.join('; ');
}

const checkPolicy = defineTool({
  name: 'check_policy',
  description:
    'What the policy says of a would-be change, without proposing it: matching rules, risk, blast radius, approvals',
  access: 'read',
  example: 'command="delete_network network_id=IoT"',
  args: z.object({
    site_id: siteId,
    command: nonEmpty('must be a /net command line, e.g. "delete_network network_id=IoT"')
      .max(2000, { error: 'must be at most 2,000 characters' })
      .describe('The write to check, as typed after /net (e.g. delete_network network_id=IoT)'),
    requester: z
      .string()
      .trim()
      .max(64)
      .default('')
      .describe('Who would ask (a Slack user id), for rules on requester; empty by default'),
    channel: z.string().trim().max(64).default('').describe('Where it would be asked, for rules on channel'),
    face: z
      .enum(['slack', 'console', 'mcp'], { error: 'must be slack, console or mcp' })
      .default('slack')
      .describe('Through which face it would be asked, for rules on face'),
  }),
  identifierColumns: ['matched_rules', 'references'],
  async run({ site_id, command, requester, channel, face }, context) {
    const guardrails = context.guardrails;
    if (!guardrails)
      throw new NotSupportedError('check_policy needs the bot’s guardrails (not wired in this process)');
    const resolved = guardrails.resolve(command);
    if (resolved.access !== 'write') {
      return {
        tool: resolved.tool,
        verdict: `${resolved.tool} only reads: it needs no approval, and no rule applies`,
      };
    }
    const { dry_run: _dry, confirm: _confirm, ...args } = resolved.args;
    // The command's own site= wins; otherwise the site this check was asked on.
    if (!/(^|\s)site(_id)?=/i.test(command)) args.site_id = site_id;
    const { facts, radius, decision } = await assessChange(
      context,
      { tool: resolved.tool, args, requester, channel, face },
      policyOf(context),
      guardrails.now(),
    );
    return {
      tool: resolved.tool,
      target: facts.target ?? null,
      risk: radius.risk,
      ...(radius.selfLockoutWarning ? { self_lockout: radius.selfLockoutWarning } : {}),
      reasons: decision.reasons,
      clients: setText(radius.clients),
      devices: setText(radius.devices),
      references: radius.references.map((r) => `${r.kind} "${r.name}"`),
      matched_rules: decision.matched,
      verdict: verdict(decision),
      approvals: decision.approvals,
      approvers: decision.approvers ?? null,
      window: decision.window ?? null,
      revert_after:
        decision.revertAfterSeconds === undefined ? null : formatDuration(decision.revertAfterSeconds),
      denied: decision.deny ?? null,
      ...(await atEachFace(
        policyOf(context),
        { tool: resolved.tool, args, requester, channel },
        radius,
        facts.targetRecord ?? {},
        guardrails.now(),
        command,
      )),
    };
  },
});

/**
 * What the same change meets at each face, from the gate: in Slack the approvals it needs; at the
 * console and over MCP (confirm mode) whether the requester's own confirmation runs it, or why not
 * and how to get it. Every face's exemption is shown here, none is silent.
 */
async function atEachFace(
  policy: Policy,
  change: Omit<PolicyChange, 'face'>,
  radius: BlastRadius,
  target: Record<string, unknown>,
  now: number,
  command: string,
): Promise<Record<string, string>> {
  const slack = evaluateChange(policy, { ...change, face: 'slack' }, radius, target, now);
  const answers: Record<string, string> = {
    at_slack: slack.deny
      ? `refused: ${slack.deny.reason}`
      : `needs ${slack.approvals} approval${slack.approvals === 1 ? '' : 's'} from people other than the requester${slack.approvers ? ` (only ${slack.approvers.join(', ')})` : ''}`,
  };
  for (const face of ['console', 'mcp'] as const) {
    const decision = evaluateChange(policy, { ...change, face }, radius, target, now);
    const verdict = await CONFIRM_GATE.decide({
      action: 'confirm',
      face,
      actor: { userId: `${face}:requester` },
      change: { requester: { userId: `${face}:requester` } },
      decision,
      command,
    });
    const deadline =
      decision.revertAfterSeconds === undefined
        ? ''
        : `; its deadline (revert_after ${formatDuration(decision.revertAfterSeconds)}) needs a running bot on the same store`;
    answers[face === 'console' ? 'at_console' : 'over_mcp_confirm'] =
      verdict.verdict === 'refuse'
        ? `cannot run: ${refusalText(verdict)}`
        : `the requester's own confirmation is the approval it needs (${decision.selfConfirm.by})${deadline}`;
  }
  return answers;
}

/**
 * The gate for the console's and MCP's own confirmation, which asks nothing of Slack's user lists
 * (those are for people approving in Slack, and check_policy names them above).
 */
const CONFIRM_GATE = new Gate({
  allowSelfApproval: false,
  canRequest: async () => ({ ok: true }),
  approverStanding: async () => ({ ok: true }),
  canApproveAs: async () => ({ ok: false, reason: 'not a Slack user' }),
  isRequester: () => true,
});

/**
 * The risk lines a console preview ends with (every preview says how risky the change is): the risk
 * with its reasons, and the self-lockout warning. Empty where no guardrails are wired.
 */
export async function riskLines(
  context: ToolContext,
  tool: string,
  args: Record<string, unknown>,
): Promise<string[]> {
  const guardrails = context.guardrails;
  if (!guardrails) return [];
  const { dry_run: _dry, confirm: _confirm, ...rest } = args;
  const { radius } = await assessChange(
    context,
    { tool, args: rest, requester: '', channel: '', face: 'console' },
    policyOf(context),
    guardrails.now(),
  );
  // The blast radius's reasons only: approvals and windows are Slack's (the console's own y/N is
  // the approval here).
  const lines = [`risk: ${radius.risk} (${radius.reasons.join('; ')})`];
  if (radius.selfLockoutWarning) lines.push(`SELF-LOCKOUT: ${radius.selfLockoutWarning}`);
  return lines;
}

/** The guardrail policy, explained. */
export const policyTools = [showPolicy, checkPolicy];
