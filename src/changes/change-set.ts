/**
 * Change sets. What a set is made of, how its steps are checked and previewed against the
 * planned state (the controller now plus the earlier steps), and how the assessments of its steps
 * combine into the one the approvers see. Running a set is in set-runner.ts, which runs each
 * step as a change request of its own with the single-change machinery (runner.ts).
 */
import { isBotError, ValidationError } from '../errors.js';
import { isRecord } from '../lib/is-record.js';
import type { ChangeSetRecord, SetStep } from '../model/change-request.js';
import type { ChangeAssessment } from '../tools/core/assess.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import { META_ARGS } from './meta-args.js';
import { PlannedState } from './planned-state.js';

/** The tool name a change set's request carries (no registry tool has it). */
export const CHANGE_SET_TOOL = 'change_set';
/** The most steps a set may hold. */
export const MAX_SET_STEPS = 50;
/** Writes that act on the bot's own records rather than the controller: never a step of a set. */
const NOT_IN_SETS = new Set(['keep_change', 'revert_change']);

/** A set as a face proposes it: the steps in order, an optional title, what a failure does. */
export interface SetProposal {
  steps: { tool: string; args: Record<string, unknown> }[];
  title?: string;
  onFailure?: 'rollback' | 'stop';
}

/** Whether a request is a change set. */
export function isChangeSet(request: { set?: ChangeSetRecord }): request is { set: ChangeSetRecord } {
  return request.set !== undefined;
}

/** An error of one step, worded with the step's number and tool on every face (fields too). */
export function inStep(error: unknown, step: number, tool: string): unknown {
  const where = `step ${step} (${tool})`;
  if (error instanceof ValidationError) {
    return new ValidationError(error.issues.map((issue) => ({ ...issue, field: `${where} ${issue.field}` })));
  }
  if (isBotError(error) && !error.message.startsWith('step ')) error.message = `${where}: ${error.message}`;
  return error;
}

/**
 * The steps validated, each with its tool's own schema (site_id defaults like any command):
 * reads, unknown tools, the bot's own change tools and timing meta-arguments are refused, naming
 * the step. Returns the set as a request keeps it.
 */
export function validateSet(registry: ToolRegistry, proposal: SetProposal): ChangeSetRecord {
  const { steps } = proposal;
  if (steps.length === 0) {
    throw new ValidationError([{ field: 'steps', rule: 'a change set needs at least one step' }]);
  }
  if (steps.length > MAX_SET_STEPS) {
    throw new ValidationError([
      {
        field: 'steps',
        rule: `a change set holds at most ${MAX_SET_STEPS} steps (this one has ${steps.length})`,
      },
    ]);
  }
  const validated: SetStep[] = steps.map(({ tool, args }, index) => {
    const n = index + 1;
    let access: string;
    try {
      access = registry.require(tool).access;
    } catch (error) {
      throw inStep(error, n, tool);
    }
    if (access !== 'write') {
      throw new ValidationError([
        { field: `step ${n} (${tool})`, rule: 'only reads; a change set holds writes only' },
      ]);
    }
    if (NOT_IN_SETS.has(tool)) {
      throw new ValidationError([
        { field: `step ${n} (${tool})`, rule: 'changes the bot’s own records; it cannot be a step of a set' },
      ]);
    }
    const meta = Object.keys(args).find((key) => (META_ARGS as readonly string[]).includes(key));
    if (meta) {
      throw new ValidationError([
        { field: `step ${n} (${tool}) ${meta}`, rule: 'is not taken by a step of a change set' },
      ]);
    }
    try {
      const { confirm: _c, dry_run: _d, ...valid } = registry.validate(tool, args);
      return { tool, args: valid };
    } catch (error) {
      throw inStep(error, n, tool);
    }
  });
  return {
    ...(proposal.title ? { title: proposal.title } : {}),
    onFailure: proposal.onFailure ?? 'rollback',
    steps: validated,
  };
}

/** One step's preview in a set's preview. */
export interface PlannedStep {
  step: number;
  tool: string;
  args: Record<string, unknown>;
  preview: unknown;
}

/**
 * Each step's ordinary dry run against the planned state, in order: step n sees what steps 1…n-1
 * would do. `each` is called for every step with the context of the planned state before it (the
 * blast radius is measured there). A step that fails throws, naming the step; nothing is sent.
 */
export async function planSet(
  registry: ToolRegistry,
  base: ToolContext,
  set: ChangeSetRecord,
  each?: (step: SetStep, n: number, context: ToolContext) => Promise<void>,
  dryRun: (step: SetStep, context: ToolContext) => Promise<unknown> = (step, context) =>
    registry.run(step.tool, { ...step.args, dry_run: true }, context),
): Promise<PlannedStep[]> {
  const planned = new PlannedState();
  const context = planned.context(base);
  const out: PlannedStep[] = [];
  for (const [index, step] of set.steps.entries()) {
    const n = index + 1;
    try {
      const preview = await dryRun(step, context);
      await each?.(step, n, context);
      // The step's effect on the planned state: its write, recorded and never sent.
      await registry.run(step.tool, { ...step.args, confirm: true }, context);
      out.push({ step: n, tool: step.tool, args: step.args, preview });
    } catch (error) {
      throw inStep(error, n, step.tool);
    }
  }
  return out;
}

/**
 * A set's preview: every step with every value it sends, in order, and the steps' warnings at the
 * top (prefixed with their step), so the hash (which leaves out warnings) covers every step's values.
 */
export function setPreview(set: ChangeSetRecord, steps: readonly PlannedStep[]): Record<string, unknown> {
  const warnings: string[] = [];
  const shown = steps.map(({ step, tool, args, preview }) => {
    let body = preview;
    if (isRecord(preview) && Array.isArray(preview.warnings)) {
      const { warnings: stepWarnings, ...rest } = preview;
      for (const warning of stepWarnings as unknown[]) warnings.push(`step ${step}: ${String(warning)}`);
      body = rest;
    }
    const { site_id: site, ...rest } = args;
    return { step, tool, ...(typeof site === 'string' ? { site_id: site } : {}), args: rest, preview: body };
  });
  const placeholders = JSON.stringify(shown).includes('ffffffff');
  return {
    dry_run: true,
    change_set: set.title ?? `${set.steps.length} steps`,
    on_failure:
      set.onFailure === 'stop'
        ? 'stop: steps done before a failed step stay'
        : 'rollback: if a step fails, the steps done before it are reverted in reverse order',
    steps: shown,
    ...(placeholders
      ? {
          placeholder_ids:
            'ids beginning with ffffffff stand for objects earlier steps create; each step names them again when it runs',
        }
      : {}),
    warnings,
  };
}

const RISKS = ['low', 'medium', 'high'] as const;

/**
 * The assessment of a whole set from its steps': the highest risk, every reason (with its step),
 * the most approvals any step needs, only approvers every step's rules allow, the first window any
 * step must run in (a closed one first), and the first denial.
 */
export function combineAssessments(assessed: readonly ChangeAssessment[]): ChangeAssessment {
  const [first] = assessed;
  if (!first) throw new Error('a change set has at least one step');
  const tagged = (n: number, text: string) => `step ${n}: ${text}`;
  const risk = RISKS[Math.max(...assessed.map((a) => RISKS.indexOf(a.radius.risk)))] ?? 'low';
  const reasons = assessed.flatMap((a, i) => a.radius.reasons.map((r) => tagged(i + 1, r)));
  const decisionReasons = assessed.flatMap((a, i) => a.decision.reasons.map((r) => tagged(i + 1, r)));
  const lists = assessed.map((a) => a.decision.approvers).filter((l): l is string[] => l !== undefined);
  const approvers = lists.length === 0 ? undefined : lists.reduce((a, b) => a.filter((id) => b.includes(id)));
  const windows = assessed.map((a) => a.decision.window).filter((w) => w !== undefined);
  const window = windows.find((w) => !w.open) ?? windows[0];
  const denied = assessed.findIndex((a) => a.decision.deny !== undefined);
  const deny = denied >= 0 ? assessed[denied]?.decision.deny : undefined;
  const lockout = assessed.find((a) => a.radius.selfLockoutWarning);
  const notSelf = assessed.find((a) => !a.decision.selfConfirm.counts);
  const reverts = assessed
    .map((a) => a.decision.revertAfterSeconds)
    .filter((s): s is number => s !== undefined);
  const revertRule = assessed.find(
    (a) => reverts.length > 0 && a.decision.revertAfterSeconds === Math.min(...reverts),
  )?.decision.revertAfterRule;
  const freezes = assessed.find((a) => a.decision.freezes)?.decision.freezes;
  const targets = assessed.map((a) => a.facts.target).filter((t): t is string => t !== undefined);
  return {
    facts: { ...first.facts, ...(targets.length > 0 ? { target: targets.join('; ') } : {}) },
    radius: {
      ...first.radius,
      risk,
      reasons,
      selfLockout: lockout !== undefined,
      ...(lockout?.radius.selfLockoutWarning
        ? { selfLockoutWarning: lockout.radius.selfLockoutWarning }
        : {}),
    },
    decision: {
      risk,
      reasons: decisionReasons,
      approvals: Math.max(...assessed.map((a) => a.decision.approvals)),
      ...(approvers ? { approvers } : {}),
      ...(window ? { window } : {}),
      ...(deny ? { deny: { rule: deny.rule, reason: tagged(denied + 1, deny.reason) } } : {}),
      // The set counts a requester's own confirmation only where every step's does.
      selfConfirm: (notSelf ?? first).decision.selfConfirm,
      ...(reverts.length > 0 ? { revertAfterSeconds: Math.min(...reverts) } : {}),
      ...(revertRule ? { revertAfterRule: revertRule } : {}),
      ...(freezes ? { freezes } : {}),
      matched: [...new Set(assessed.flatMap((a) => a.decision.matched))],
      errors: assessed.flatMap((a) => a.decision.errors),
    },
  };
}

/** One line per step of a set that ran: what became of it (every face words a result with it). */
export function stepLines(set: ChangeSetRecord): string[] {
  return set.steps.map((step, index) => {
    const status = (step.status ?? 'not_run').replace('_', ' ');
    // A step on a fleet's console names where it writes first, as `console/site:`.
    const where =
      typeof step.args.console === 'string'
        ? `${step.args.console}/${String(step.args.site_id ?? 'default')}: `
        : '';
    const args = Object.entries(step.args)
      .filter(([key]) => key !== 'site_id' && (where === '' || key !== 'console'))
      .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
      .join(' ');
    const ids = [step.changeId, step.revertId ? `undone by ${step.revertId}` : undefined]
      .filter((x) => x !== undefined)
      .join(', ');
    return `${index + 1}. ${status}: ${where}${step.tool} ${args}${ids ? ` (${ids})` : ''}${step.error ? ` — ${step.error.message}` : ''}`;
  });
}
