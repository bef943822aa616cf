import { readFile } from 'node:fs/promises';
import { assessmentLines, deadlineLine, verdictLine } from '../approvals/guardrail-view.js';
import type { ErrorSummary } from '../approvals/types.js';
import { type SetProposal, stepLines } from '../changes/change-set.js';
import { timingText } from '../changes/describe.js';
import { splitMetaArgs } from '../changes/meta-args.js';
import type { ResolvedCommand } from '../commands/aliases.js';
import { parsePlan, planOptions } from '../commands/plan.js';
import type { Intent } from '../commands/router.js';
import {
  type BotError,
  ConflictError,
  GatewayAuthError,
  GatewayRejectedError,
  GatewayUnavailableError,
  isBotError,
  NotAuthorizedError,
  NotSupportedError,
  StoreUnavailableError,
  ValidationError,
} from '../errors.js';
import { isNoOpPreview } from '../format/plain-text.js';
import type { Verification } from '../model/change-request.js';
import { riskLines } from '../tools/bot/policy-tools.js';
import type { ConsoleDeps, Judged, RunOutcome } from './deps.js';
import { consoleErrorText } from './error-text.js';
import { RecordedFailure } from './recorded-failure.js';

/** A change that ran: its result, and the change that records it (when the console records writes). */
export interface Executed {
  result: unknown;
  changeId?: string;
  /** When it reverts itself, if it does. */
  deadline?: string;
  /** What reading the object back after the write found. */
  verification?: Verification;
  /** The change ran but something it needs did not happen (its automatic revert is not scheduled). */
  warning?: string;
  /** A change set's steps, each with what became of it. */
  steps?: string[];
}

/**
 * A change as the console shows it before `approve? [y/N]` (or --yes): a write, a revert or a
 * change set, its preview and the lines under it, and the run once approved.
 */
export interface Approvable {
  /** The tool whose result the preview is (its id columns); none for a change set. */
  tool?: string;
  preview: unknown;
  lines: string[];
  /** Set when the console's y cannot run it: the refusal, already among the lines. */
  refused?: string;
  /** The preview changes nothing: no one is asked to approve it. */
  nothing?: true;
  run(): Promise<Executed>;
}

const CONTROL_ARGS = ['confirm', 'dry_run'];

const requesterOf = (deps: ConsoleDeps) => deps.operator ?? { userId: 'console:unknown' };

/** The lines under a preview: risk, who must approve, the deadline, and what the console's y does. */
function judgedLines(judged: Judged): string[] {
  const deadline = deadlineLine(judged.timing?.first);
  return [
    ...assessmentLines(judged.assessment),
    ...(deadline ? [deadline] : []),
    verdictLine('console', judged.verdict),
  ];
}

/** What every judged preview shows: the preview, its lines, and the gate's refusal if it refuses. */
function judgedView(judged: Judged): Pick<Approvable, 'preview' | 'lines' | 'refused'> {
  return {
    preview: judged.preview,
    lines: judgedLines(judged),
    ...(judged.verdict.verdict === 'refuse' ? { refused: verdictLine('console', judged.verdict) } : {}),
  };
}

function withoutControlArgs(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([key]) => !CONTROL_ARGS.includes(key)));
}

/**
 * The preview of a write. A tool without `dry_run` (the spec gives update/delete_traffic_route
 * none) cannot preview itself, so the preview is its validated arguments: nothing is sent.
 */
async function previewOf(deps: ConsoleDeps, command: ResolvedCommand): Promise<unknown> {
  const { registry, context } = deps;
  const base = splitMetaArgs(withoutControlArgs(command.args)).args;
  if (registry.argumentsOf(command.tool).some((a) => a.name === 'dry_run')) {
    return registry.run(command.tool, { ...base, dry_run: true }, context);
  }
  return { dry_run: true, tool: command.tool, would_run: registry.validate(command.tool, base) };
}

/**
 * The preview, the risk and who must approve, computed by the change recorder as every face's
 * preview is (the gate's verdict on the operator's own confirmation included); without a
 * recorder (tests of the grammar alone) the tool's own dry run and the risk lines.
 */
async function planWrite(deps: ConsoleDeps, command: ResolvedCommand): Promise<Approvable> {
  const recorder = deps.recorder;
  if (recorder?.previewChange) {
    const judged = await recorder.previewChange({
      tool: command.tool,
      args: withoutControlArgs(command.args),
      requester: requesterOf(deps),
    });
    // The preview the operator saw: a different one by the time they answer is not run.
    return {
      tool: command.tool,
      ...judgedView(judged),
      run: () => execute(deps, command, judged.previewHash),
    };
  }
  const preview = await previewOf(deps, command);
  return {
    tool: command.tool,
    preview,
    lines: await riskText(deps, command),
    run: () => execute(deps, command),
  };
}

/**
 * The preview's risk and self-lockout lines. A risk that could not be assessed says so with the
 * reason instead of hiding the preview.
 */
async function riskText(deps: ConsoleDeps, command: ResolvedCommand): Promise<string[]> {
  try {
    return await riskLines(deps.context, command.tool, withoutControlArgs(command.args));
  } catch (error) {
    return [`risk: not assessed: ${consoleErrorText(error, deps.logger)}`];
  }
}

/** A write as previewed; `nothing` when its preview changes nothing (no one is asked to approve it). */
export async function writePlan(deps: ConsoleDeps, command: ResolvedCommand): Promise<Approvable> {
  try {
    const plan = await planWrite(deps, command);
    return isNoOpPreview(plan.preview) ? { ...plan, nothing: true } : plan;
  } catch (error) {
    // The recorder refuses a preview that changes nothing, as every face does: show that preview.
    if (isBotError(error) && error.code === 'conflict' && /^nothing to change/.test(error.message)) {
      const preview = await previewOf(deps, command);
      return { tool: command.tool, preview, lines: [], nothing: true, run: () => execute(deps, command) };
    }
    throw error;
  }
}

/** A failed recorded write's error, as the error class its code names, so it is worded as before. */
function errorOf(summary: ErrorSummary): BotError {
  switch (summary.code) {
    case 'gateway_rejected':
      return new GatewayRejectedError(summary.controllerCode ?? 'unknown', summary.message);
    case 'gateway_unavailable':
      return new GatewayUnavailableError(summary.message);
    case 'gateway_auth':
      return new GatewayAuthError(summary.message);
    case 'not_authorized':
      return new NotAuthorizedError(summary.message);
    case 'not_supported':
      return new NotSupportedError(summary.message);
    case 'store_unavailable':
      return new StoreUnavailableError(summary.message);
    default:
      return new ConflictError(summary.message);
  }
}

/**
 * Runs a write: through the recorder when there is one (recorded as a change, refused if its
 * preview is no longer `shownHash`), else straight through the registry.
 */
export async function execute(
  deps: ConsoleDeps,
  command: ResolvedCommand,
  shownHash?: string,
): Promise<Executed> {
  const args = withoutControlArgs(command.args);
  if (!deps.recorder) {
    return { result: await deps.registry.run(command.tool, { ...args, confirm: true }, deps.context) };
  }
  return executedOf(
    await deps.recorder.runNow({
      tool: command.tool,
      args,
      requester: requesterOf(deps),
      ...(shownHash !== undefined ? { shownHash } : {}),
    }),
  );
}

function executedOf(outcome: RunOutcome): Executed {
  if (outcome.kind === 'succeeded') {
    const deadline = timingText(outcome.request);
    const { verification } = outcome.request;
    return {
      result: outcome.result,
      changeId: outcome.request.id,
      ...(deadline ? { deadline } : {}),
      ...(verification ? { verification } : {}),
      ...(outcome.request.error ? { warning: outcome.request.error.message } : {}),
    };
  }
  if (outcome.kind === 'failed') throw new RecordedFailure(errorOf(outcome.error), outcome.request.id);
  throw new RecordedFailure(
    new ConflictError(`not run: the change request is ${outcome.request.state}`),
    outcome.request.id,
  );
}

/**
 * A revert proposes the change that undoes a recorded one (approvals computes it from the
 * before-image), shown like any write's preview; run once approved, recorded as its own change.
 */
export async function revertPlan(
  deps: ConsoleDeps,
  changeId: string,
): Promise<Approvable & { tool: string }> {
  const recorder = deps.recorder;
  if (!recorder?.previewRevert || !recorder.runRevertNow) {
    throw new NotSupportedError('revert needs the change store, which this console run did not open');
  }
  const runRevertNow = recorder.runRevertNow.bind(recorder);
  const requester = requesterOf(deps);
  const judged = await recorder.previewRevert(changeId, requester);
  return {
    tool: judged.tool,
    ...judgedView(judged),
    // What runs must be the revert that was shown: another preview by then is refused, not run.
    run: async () => executedOf(await runRevertNow({ changeId, requester, shownHash: judged.previewHash })),
  };
}

/**
 * `plan`: a change set from a file (`plan changes.txt`) or from the lines typed after it
 * (until an empty line). Previewed whole on the planned state, then run once approved.
 */
export async function setPlan(
  deps: ConsoleDeps,
  options: Record<string, unknown>,
  text: string,
): Promise<Approvable> {
  const recorder = deps.recorder;
  if (!recorder?.previewSet || !recorder.runSetNow) {
    throw new NotSupportedError('plan needs the change store, which this console run did not open');
  }
  const runSetNow = recorder.runSetNow.bind(recorder);
  const requester = requesterOf(deps);
  const steps = parsePlan(text, deps.registry);
  const { scope } = deps;
  const scoped = scope ? steps.map((step) => ({ ...step, args: scope(step.tool, step.args) })) : steps;
  const proposal: SetProposal = { steps: scoped, ...planOptions(options) };
  const judged = await recorder.previewSet({ ...proposal, requester });
  return {
    ...judgedView(judged),
    run: async () => {
      const outcome = await runSetNow({ ...proposal, requester, shownHash: judged.previewHash });
      const steps = outcome.request.set ? stepLines(outcome.request.set) : [];
      if (outcome.kind === 'succeeded')
        return { result: { change_set: outcome.request.id, steps }, changeId: outcome.request.id, steps };
      // Failed: the error, then each step with what became of it (done, reverted, failed, not run).
      const error =
        outcome.kind === 'failed'
          ? outcome.error
          : { code: 'conflict', message: `not run: the change set is ${outcome.request.state}` };
      throw new RecordedFailure(
        errorOf({ ...error, message: [error.message, ...steps].join('\n') }),
        outcome.request.id,
      );
    },
  };
}

/**
 * `rollout …` at the console: every site's dry run and the combined risk, then (once approved at
 * the prompt) the rollout run at once, wave by wave. A halt ends the run; the thread's Continue
 * and Stop are Slack's, and `revert <id>` undoes the done sites here too.
 */
export async function rolloutPlan(
  deps: ConsoleDeps,
  intent: Extract<Intent, { kind: 'rollout' }>,
  planText: (file: string | undefined) => Promise<string>,
): Promise<Approvable> {
  const recorder = deps.recorder;
  if (!recorder?.previewRollout || !recorder.runRolloutNow) {
    throw new NotSupportedError('rollout needs the change store, which this console run did not open');
  }
  const runRolloutNow = recorder.runRolloutNow.bind(recorder);
  const { what, options } = intent;
  const steps =
    what.kind === 'write'
      ? [{ tool: what.tool, args: what.args }]
      : parsePlan(await planText(what.file), deps.registry).map(({ tool, args }) => ({ tool, args }));
  const proposal = { steps, ...options, requester: requesterOf(deps) };
  const judged = await recorder.previewRollout(proposal);
  return {
    ...judgedView(judged),
    run: async () => {
      const outcome = await runRolloutNow({ ...proposal, shownHash: judged.previewHash });
      const lines = outcome.request.set ? stepLines(outcome.request.set) : [];
      if (outcome.kind === 'succeeded')
        return {
          result: { rollout: outcome.request.id, steps: lines },
          changeId: outcome.request.id,
          steps: lines,
        };
      const error =
        outcome.kind === 'failed'
          ? outcome.error
          : { code: 'conflict', message: `not run: the rollout is ${outcome.request.state}` };
      throw new RecordedFailure(
        errorOf({ ...error, message: [error.message, ...lines].join('\n') }),
        outcome.request.id,
      );
    },
  };
}

/** The plan's file, read; a path that cannot be read is the user's to fix. */
export async function planFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ValidationError([{ field: 'file', rule: `cannot read ${path} (${reason})` }]);
  }
}
