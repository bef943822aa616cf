import { readFile, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { assessmentLines, deadlineLine, verdictLine } from '../approvals/guardrail-view.js';
import { HISTORY_HELP, isHistoryCommand } from '../approvals/history.js';
import type { Actor, ChangeRequest, ErrorSummary } from '../approvals/types.js';
import { type SetProposal, stepLines } from '../changes/change-set.js';
import { timingText, verificationText } from '../changes/describe.js';
import { splitMetaArgs } from '../changes/meta-args.js';
import {
  aliasHelpText,
  helpTopicTool,
  isPictureAlias,
  type ResolvedCommand,
  resolveCommand,
  resolveCommandOnSite,
} from '../commands/aliases.js';
import { type ParsedCommand, parseCommand, parseCommandLine } from '../commands/parse-command-line.js';
import { parsePlan, planOptions } from '../commands/plan.js';
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
import { isNoOpPreview, render } from '../format/plain-text.js';
import type { Logger } from '../log.js';
import type { GateVerdict } from '../policy/gate.js';
import type { ChangeAssessmentRecord, Verification } from '../store/records.js';
import type { ChangeReader } from '../store/types.js';
import { riskLines } from '../tools/bot/policy-tools.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import { isTopology } from '../topology/queries.js';
import { pngDimensions, renderTopologyPng } from '../topology/render-png.js';
import { consoleErrorJson, consoleErrorText } from './error-text.js';
import { historyAnswer } from './history.js';

/** What the console needs: the shared registry, a tool context, and its three streams. */
export interface ConsoleDeps {
  registry: ToolRegistry;
  context: ToolContext;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  errorOutput: NodeJS.WritableStream;
  logger: Logger;
  banner?: string;
  /** Table width from the shell's COLUMNS; without it the TTY's width, and unbounded when piped. */
  columns?: number;
  /** The change requests, read-only, for `changes` and `change <id>`. */
  changes?: ChangeReader;
  /**
   * Where Ctrl-C arrives when stdin is not a terminal (the process: SIGINT). At `approve? [y/N]`
   * it answers "not run" and the console goes on; at the prompt it leaves the console.
   */
  signals?: NodeJS.EventEmitter;
  /** Ctrl-C while a command runs (no prompt is shown): the caller stops the program. */
  abort?: () => void;
  /**
   * Where an approved console write runs, so it is recorded like a Slack one (Approvals.runNow:
   * created, approved, executing, succeeded | failed in the journal). Without it the write runs
   * straight through the registry and is not recorded (tests of the grammar alone).
   */
  recorder?: ChangeRecorder;
  /** Who is at the console: requester and approver of its writes (`console:<OS user>`). */
  operator?: Actor;
  /** `--ids`: tables show their id columns even when the width is short. */
  showIds?: boolean;
}

type RunOutcome =
  | { kind: 'succeeded'; request: ChangeRequest; result: unknown }
  | { kind: 'failed'; request: ChangeRequest; error: ErrorSummary }
  | { kind: 'already'; request: ChangeRequest };

/** What the gate says of a change confirmed here, beside its preview (Approvals' previews). */
interface Judged {
  preview: unknown;
  previewHash: string;
  assessment: ChangeAssessmentRecord;
  verdict: GateVerdict;
  timing?: { first?: { seconds: number; kind: string; source: string } };
}

/**
 * What recording a console write needs: Approvals' previews (with the gate's verdict on the
 * operator's own confirmation) and the runs that record each write as a change.
 */
export interface ChangeRecorder {
  runNow(input: {
    tool: string;
    args: Record<string, unknown>;
    requester: Actor;
    shownHash?: string;
  }): Promise<RunOutcome>;
  previewChange?(input: {
    tool: string;
    args: Record<string, unknown>;
    requester: Actor;
  }): Promise<Judged & { tool: string }>;
  previewRevert?(changeId: string, requester: Actor): Promise<Judged & { tool: string }>;
  runRevertNow?(input: { changeId: string; requester: Actor; shownHash?: string }): Promise<RunOutcome>;
  /** A change set's preview, and the set run once approved at the prompt. */
  previewSet?(input: SetProposal & { requester: Actor }): Promise<Judged>;
  runSetNow?(input: SetProposal & { requester: Actor; shownHash?: string }): Promise<RunOutcome>;
}

/** The lines under a preview: risk, who must approve, the deadline, and what the console's y does. */
function judgedLines(judged: Judged): string[] {
  const deadline = deadlineLine(judged.timing?.first);
  return [
    ...assessmentLines(judged.assessment),
    ...(deadline ? [deadline] : []),
    verdictLine('console', judged.verdict),
  ];
}

/** One-shot exit codes. */
export const EXIT = { ok: 0, failed: 1, usage: 2, notRun: 3 } as const;

const CONTROL_ARGS = ['confirm', 'dry_run'];

const VALUE_HELP = [
  'Values: bare words, "quoted strings", a,b,c for lists, true/false, numbers; site= picks a site.',
  'Writes show a dry-run preview first and run only when approved.',
  'Tables fit the terminal: ids and MACs are left out first when it is narrow; --ids shows them, --json shows everything.',
  'help <tool> (or <tool> --help) explains one tool: arguments, types, defaults, bounds, an example.',
  'topology [file=<path>] writes the picture as a PNG (default topology-<site>.png).',
  'Every write run here is recorded as a change (changes, change <id>); revert <id> and keep <id> act on one.',
  'plan [file] [on_failure=stop] [title="…"]: several writes as one change set (one per line, from the file or typed until an empty line), previewed together, run in order, undone together if one fails.',
].join('\n');

const NOTHING_TO_CHANGE = 'nothing to change: the values given are the current ones; nothing was sent.';

const ONE_SHOT_USAGE = 'usage: npm start -- <tool|shortcut> [key=value …] [--json] [--yes] [--ids] [--help]';

function writeLine(stream: NodeJS.WritableStream, text: string): void {
  stream.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** COLUMNS when the shell exports it, else the terminal's width; undefined (unbounded) when piped. */
function outputWidth(deps: ConsoleDeps): number | undefined {
  if (deps.columns !== undefined) return deps.columns;
  const { columns, isTTY } = deps.output as { columns?: unknown; isTTY?: unknown };
  return isTTY === true && typeof columns === 'number' && columns > 0 ? columns : undefined;
}

/** Result text: `--json` prints JSON (a string result as is), otherwise the terminal rendering. */
function formatResult(result: unknown, json: boolean, deps: ConsoleDeps, tool?: string): string {
  if (typeof result === 'string') return result;
  if (json) return JSON.stringify(result ?? null, null, 2);
  const width = outputWidth(deps);
  const identifiers = (tool === undefined ? undefined : deps.registry.get(tool)?.identifierColumns) ?? [];
  return render(result, {
    identifiers,
    ...(width === undefined ? {} : { width }),
    ...(deps.showIds ? { ids: true } : {}),
  });
}

/** Whether the words ask for `--json`, read before parsing so a parse error is JSON too. */
function wantsJson(words: readonly string[]): boolean {
  return words.some((word) => word.toLowerCase() === '--json');
}

/** Reports a failed command: `--json` as `{"error": …}` on stdout (what a script reads), else text on stderr. */
function reportError(deps: ConsoleDeps, error: unknown, json: boolean): void {
  if (error instanceof RecordedFailure) {
    if (json) {
      const body = JSON.parse(consoleErrorJson(error.error, deps.logger)) as Record<string, unknown>;
      writeLine(deps.output, JSON.stringify({ ...body, change_id: error.changeId }, null, 2));
    } else {
      writeLine(
        deps.errorOutput,
        `${consoleErrorText(error.error, deps.logger)}\nrecorded as change ${error.changeId}`,
      );
    }
    return;
  }
  if (json) writeLine(deps.output, consoleErrorJson(error, deps.logger));
  else writeLine(deps.errorOutput, consoleErrorText(error, deps.logger));
}

function helpText(registry: ToolRegistry, extra: string): string {
  return [registry.helpText(), aliasHelpText(registry), HISTORY_HELP, VALUE_HELP, extra]
    .filter((p) => p !== '')
    .join('\n\n');
}

/** `help`, `help <tool>` and `<tool> --help`: the tool list, or one tool's generated help. */
function helpFor(registry: ToolRegistry, parsed: ParsedCommand, extra: string): string {
  const topic = parsed.command === 'help' ? parsed.positionals[0] : parsed.command;
  if (topic === undefined || topic === '') return helpText(registry, extra);
  return registry.toolHelp(helpTopicTool(topic, registry));
}

/**
 * Pulls `--flag` words out of a parsed command. The grammar sees them as ordinary words, and a
 * flag typed first would otherwise be taken for the command.
 */
function takeFlags(
  parsed: ParsedCommand,
  allowed: readonly string[],
): { parsed: ParsedCommand; flags: Set<string> } {
  const words = [parsed.command, ...parsed.positionals].filter((w) => w !== '');
  const flags = new Set<string>();
  const rest: string[] = [];
  for (const word of words) {
    if (!word.startsWith('--')) {
      rest.push(word);
      continue;
    }
    const flag = word.toLowerCase();
    if (!allowed.includes(flag)) {
      throw new ValidationError([
        { field: 'option', rule: `unknown option ${word} (known: ${allowed.join(', ')})` },
      ]);
    }
    flags.add(flag);
  }
  const [command = '', ...positionals] = rest;
  return { parsed: { command: command.toLowerCase(), positionals, args: parsed.args }, flags };
}

/** The console as one command asked for it: `--ids` shows id columns the width would leave out. */
function withFlags(deps: ConsoleDeps, flags: ReadonlySet<string>): ConsoleDeps {
  return flags.has('--ids') ? { ...deps, showIds: true } : deps;
}

function withoutControlArgs(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([key]) => !CONTROL_ARGS.includes(key)));
}

/** True when the user typed `dry_run=true` (in any spelling the registry accepts). */
function askedForDryRun(registry: ToolRegistry, tool: string, args: Record<string, unknown>): boolean {
  if (args.dry_run === undefined) return false;
  return registry.validate(tool, args).dry_run === true;
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

/** A write as the console shows it before `approve? [y/N]`: its preview and the lines under it. */
interface WritePlan {
  preview: unknown;
  lines: string[];
  /** Set when the console's y cannot run it: the refusal, already among the lines. */
  refused?: string;
  /** The preview the operator saw: a different one by the time they answer is not run. */
  previewHash?: string;
}

/**
 * The preview, the risk and who must approve, computed by the change recorder as every face's
 * preview is (the gate's verdict on the operator's own confirmation included); without a
 * recorder (tests of the grammar alone) the tool's own dry run and the risk lines.
 */
async function planWrite(deps: ConsoleDeps, command: ResolvedCommand): Promise<WritePlan> {
  const recorder = deps.recorder;
  if (recorder?.previewChange) {
    const judged = await recorder.previewChange({
      tool: command.tool,
      args: withoutControlArgs(command.args),
      requester: deps.operator ?? { userId: 'console:unknown' },
    });
    return {
      preview: judged.preview,
      lines: judgedLines(judged),
      previewHash: judged.previewHash,
      ...(judged.verdict.verdict === 'refuse' ? { refused: verdictLine('console', judged.verdict) } : {}),
    };
  }
  const preview = await previewOf(deps, command);
  return { preview, lines: await riskText(deps, command) };
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

/** The write's plan; `nothing` when its preview changes nothing (no one is asked to approve it). */
async function planOrNothing(
  deps: ConsoleDeps,
  command: ResolvedCommand,
): Promise<WritePlan & { nothing?: true }> {
  try {
    const plan = await planWrite(deps, command);
    return isNoOpPreview(plan.preview) ? { ...plan, nothing: true } : plan;
  } catch (error) {
    // The recorder refuses a preview that changes nothing, as every face does: show that preview.
    if (isBotError(error) && error.code === 'conflict' && /^nothing to change/.test(error.message))
      return { preview: await previewOf(deps, command), lines: [], nothing: true };
    throw error;
  }
}

/** A write that ran: its result, and the change that records it (when the console records writes). */
interface Executed {
  result: unknown;
  changeId?: string;
  /** When it reverts itself, if it does. */
  deadline?: string;
  /** What reading the object back after the write found. */
  verification?: Verification;
  /** The change ran but something it needs did not happen (its automatic revert is not scheduled). */
  warning?: string;
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

/** A recorded write that failed: the controller's error, and the change that records it. */
class RecordedFailure extends Error {
  constructor(
    readonly error: BotError,
    readonly changeId: string,
  ) {
    super(error.message);
  }
}

async function execute(deps: ConsoleDeps, command: ResolvedCommand, shownHash?: string): Promise<Executed> {
  const args = withoutControlArgs(command.args);
  if (!deps.recorder) {
    return { result: await deps.registry.run(command.tool, { ...args, confirm: true }, deps.context) };
  }
  const requester = deps.operator ?? { userId: 'console:unknown' };
  return executedOf(
    await deps.recorder.runNow({
      tool: command.tool,
      args,
      requester,
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

/** The answer to a write that ran: `--json` carries `change_id`; text says where it is recorded. */
function executedText(executed: Executed, json: boolean, deps: ConsoleDeps, tool: string): string {
  const { result, changeId, deadline, warning, verification } = executed;
  if (changeId === undefined) return formatResult(result, json, deps, tool);
  const verified = verificationText(verification);
  if (json) {
    const extra = {
      change_id: changeId,
      ...(verification ? { verification: verificationJson(verification) } : {}),
      ...(deadline ? { deadline } : {}),
      ...(warning ? { warning } : {}),
    };
    const body =
      result !== null && typeof result === 'object' && !Array.isArray(result)
        ? { ...result, ...extra }
        : { result: result ?? null, ...extra };
    return JSON.stringify(body, null, 2);
  }
  return [
    formatResult(result, json, deps, tool),
    ...(verified ? [`verification: ${verified}`] : []),
    ...(deadline ? [`deadline: ${deadline}`] : []),
    `recorded as change ${changeId} (change ${changeId} shows it)`,
    ...(warning ? [`WARNING: ${warning}`] : []),
  ].join('\n');
}

/** The verification as data: its status, the sentence every face shows, each field sent and held. */
function verificationJson(verification: Verification): Record<string, unknown> {
  return {
    status: verification.status,
    summary: verificationText(verification),
    ...(verification.mismatches
      ? {
          mismatches: verification.mismatches.map((m) => ({
            ...(m.object ? { object: m.object } : {}),
            field: m.field,
            sent: m.sent,
            held: m.holds,
          })),
        }
      : {}),
    ...(verification.reason ? { reason: verification.reason } : {}),
  };
}

/**
 * `topology [file=…] [site=…]`: the topology drawn as a PNG and written to a file (the console's
 * counterpart of the picture Slack uploads). Returns the line to print.
 */
async function writeTopologyPicture(
  deps: ConsoleDeps,
  parsed: ParsedCommand,
  json: boolean,
): Promise<string> {
  const { file, ...args } = parsed.args;
  const command = resolveCommand({ ...parsed, args }, deps.registry);
  const topology = await deps.registry.run(command.tool, command.args, deps.context);
  if (!isTopology(topology)) throw new Error(`${command.tool} did not return a topology`);
  const png = await renderTopologyPng(topology);
  const given = Array.isArray(file) ? file.join(',') : file;
  const path = given !== undefined && given !== '' ? given : `topology-${topology.site_id}.png`;
  try {
    await writeFile(path, png);
  } catch (error) {
    // A bad path is the user's to fix, not an internal error.
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ValidationError([{ field: 'file', rule: `cannot write ${path} (${reason})` }]);
  }
  const size = pngDimensions(png);
  if (json) return JSON.stringify({ file: path, bytes: png.length, ...size }, null, 2);
  const pixels = size ? `, ${size.width}×${size.height} px` : '';
  return `wrote ${path} (${Math.ceil(png.length / 1024)} KB${pixels})`;
}

/** `changes …` and `change <id>` over the store, read-only. */
function history(deps: ConsoleDeps, parsed: ParsedCommand, json: boolean): Promise<string> {
  const width = outputWidth(deps);
  return historyAnswer(parsed, json, {
    tools: deps.registry.list().map((tool) => tool.name),
    ...(deps.changes ? { changes: deps.changes } : {}),
    ...(width === undefined ? {} : { width }),
    ...(deps.showIds ? { showIds: true } : {}),
  });
}

/** `revert <id>` and `keep <id>`: the change tools on one recorded change. */
const CHANGE_COMMANDS: Readonly<Record<string, string>> = { revert: 'revert_change', keep: 'keep_change' };

/** `revert <id>` (or `revert_change change_id=<id>`): the change id it names, or undefined for another command. */
function revertTarget(parsed: ParsedCommand): string | undefined {
  if (parsed.command !== 'revert' && parsed.command !== 'revert_change') return undefined;
  const id = parsed.positionals[0] ?? parsed.args.change_id;
  if (typeof id !== 'string' || id === '') {
    throw new ValidationError([
      { field: 'change_id', rule: `is required: ${parsed.command} <change id>`, missing: true },
    ]);
  }
  return id;
}

/**
 * A revert proposes the change that undoes a recorded one (approvals computes it from the
 * before-image), shown like any write's preview; run once approved, recorded as its own change.
 */
interface RevertPlan {
  tool: string;
  preview: unknown;
  lines: string[];
  refused?: string;
  run(): Promise<Executed>;
}

async function revertPlan(deps: ConsoleDeps, changeId: string): Promise<RevertPlan> {
  const recorder = deps.recorder;
  if (!recorder?.previewRevert || !recorder.runRevertNow) {
    throw new NotSupportedError('revert needs the change store, which this console run did not open');
  }
  const runRevertNow = recorder.runRevertNow.bind(recorder);
  const requester = deps.operator ?? { userId: 'console:unknown' };
  const judged = await recorder.previewRevert(changeId, requester);
  return {
    tool: judged.tool,
    preview: judged.preview,
    lines: judgedLines(judged),
    ...(judged.verdict.verdict === 'refuse' ? { refused: verdictLine('console', judged.verdict) } : {}),
    // What runs must be the revert that was shown: another preview by then is refused, not run.
    run: async () => executedOf(await runRevertNow({ changeId, requester, shownHash: judged.previewHash })),
  };
}

/**
 * `revert <id>` / `keep <id>` as the tool call they stand for (`revert_change change_id=<id>`), so
 * they are previewed, approved at the prompt (or --yes) and recorded like any write.
 */
function changeCommand(parsed: ParsedCommand, registry: ToolRegistry): ParsedCommand {
  const tool = CHANGE_COMMANDS[parsed.command];
  if (tool === undefined) return parsed;
  const id = parsed.positionals[0] ?? parsed.args.change_id;
  if (id === undefined || id === '') {
    throw new ValidationError([
      { field: 'change_id', rule: `is required: ${parsed.command} <change id>`, missing: true },
    ]);
  }
  if (!registry.get(tool)) {
    throw new NotSupportedError(`${parsed.command} needs the ${tool} tool, which this build does not have`);
  }
  return { command: tool, positionals: [], args: { ...parsed.args, change_id: id } };
}

/**
 * `plan`: a change set from a file (`plan changes.txt`) or from the lines typed after it
 * (until an empty line). Previewed whole on the planned state, then run once approved.
 */
interface SetPlan {
  preview: unknown;
  lines: string[];
  refused?: string;
  run(): Promise<Executed & { steps: string[] }>;
}

async function setPlan(deps: ConsoleDeps, parsed: ParsedCommand, text: string): Promise<SetPlan> {
  const recorder = deps.recorder;
  if (!recorder?.previewSet || !recorder.runSetNow) {
    throw new NotSupportedError('plan needs the change store, which this console run did not open');
  }
  const runSetNow = recorder.runSetNow.bind(recorder);
  const requester = deps.operator ?? { userId: 'console:unknown' };
  const proposal: SetProposal = { steps: parsePlan(text, deps.registry), ...planOptions(parsed.args) };
  const judged = await recorder.previewSet({ ...proposal, requester });
  const { preview, previewHash } = judged;
  return {
    preview,
    lines: judgedLines(judged),
    ...(judged.verdict.verdict === 'refuse' ? { refused: verdictLine('console', judged.verdict) } : {}),
    run: async () => {
      const outcome = await runSetNow({ ...proposal, requester, shownHash: previewHash });
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

/** The plan's file, read; a path that cannot be read is the user's to fix. */
async function planFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ValidationError([{ field: 'file', rule: `cannot read ${path} (${reason})` }]);
  }
}

/** What a set that ran prints: its steps, each with what became of it. */
function setResultText(executed: Executed & { steps: string[] }, json: boolean, preview?: unknown): string {
  if (json)
    return JSON.stringify(
      {
        change_id: executed.changeId,
        steps: executed.steps,
        ...(preview !== undefined ? { preview } : {}),
      },
      null,
      2,
    );
  return [
    `change set ${executed.changeId ?? ''} done:`,
    ...executed.steps,
    `recorded as change ${executed.changeId ?? ''} (change ${executed.changeId ?? ''} shows it)`,
  ].join('\n');
}

type LineOutcome = 'continue' | 'quit';

/** The answer to a prompt interrupted by Ctrl-C. */
const INTERRUPTED = Symbol('interrupted');

type Ask = (prompt: string) => Promise<string | undefined | typeof INTERRUPTED>;

async function handleLine(line: string, base: ConsoleDeps, ask: Ask): Promise<LineOutcome> {
  if (line.trim() === '') return 'continue';
  const { parsed, flags } = takeFlags(parseCommandLine(line), ['--json', '--help', '--ids']);
  const deps = withFlags(base, flags);
  const { registry, context, output } = deps;
  const json = flags.has('--json');
  if (parsed.command === 'quit' || parsed.command === 'exit') return 'quit';
  if (parsed.command === 'clear' || parsed.command === 'cls') {
    // A terminal's own clear: the screen and the scrollback's view, nothing when output is piped.
    if ((output as { isTTY?: unknown }).isTTY === true) output.write('\x1b[2J\x1b[H');
    return 'continue';
  }
  if (parsed.command === '' || parsed.command === 'help' || flags.has('--help')) {
    writeLine(output, helpFor(registry, parsed, 'clear clears the screen. Type quit (or Ctrl-D) to leave.'));
    return 'continue';
  }
  if (isPictureAlias(parsed.command)) {
    writeLine(output, await writeTopologyPicture(deps, parsed, json));
    return 'continue';
  }
  if (isHistoryCommand(parsed.command)) {
    writeLine(output, await history(deps, parsed, json));
    return 'continue';
  }
  if (parsed.command === 'plan') {
    let text: string;
    const [file] = parsed.positionals;
    if (file !== undefined) text = await planFile(file);
    else {
      const lines: string[] = [];
      for (;;) {
        const next = await ask('plan> ');
        if (next === undefined || next === INTERRUPTED || next.trim() === '') break;
        lines.push(next);
      }
      text = lines.join('\n');
    }
    const plan = await setPlan(deps, parsed, text);
    writeLine(output, formatResult(plan.preview, json, deps));
    if (!json) writeLine(output, plan.lines.join('\n'));
    if (plan.refused) {
      if (json) writeLine(output, plan.refused);
      return 'continue';
    }
    const answer = await ask('approve? [y/N] ');
    if (answer !== undefined && answer !== INTERRUPTED && /^(y|yes)$/i.test(answer.trim())) {
      writeLine(output, setResultText(await plan.run(), json));
      return 'continue';
    }
    writeLine(output, answer === INTERRUPTED ? '\nnot run.' : 'not run.');
    return answer === undefined ? 'quit' : 'continue';
  }
  const revertOf = revertTarget(parsed);
  if (revertOf !== undefined) {
    const plan = await revertPlan(deps, revertOf);
    writeLine(output, formatResult(plan.preview, json, deps, plan.tool));
    if (!json) writeLine(output, plan.lines.join('\n'));
    if (plan.refused) {
      if (json) writeLine(output, plan.refused);
      return 'continue';
    }
    const answer = await ask('approve? [y/N] ');
    if (answer === INTERRUPTED) {
      writeLine(output, '\nnot run.');
      return 'continue';
    }
    if (answer !== undefined && /^(y|yes)$/i.test(answer.trim())) {
      writeLine(output, executedText(await plan.run(), json, deps, plan.tool));
      return 'continue';
    }
    writeLine(output, 'not run.');
    return answer === undefined ? 'quit' : 'continue';
  }
  const command = await resolveCommandOnSite(changeCommand(parsed, registry), registry, context.gateway);
  const tool = registry.require(command.tool);
  if (tool.access === 'read' || askedForDryRun(registry, command.tool, command.args)) {
    const result = await registry.run(command.tool, command.args, context);
    writeLine(output, formatResult(result, json, deps, command.tool));
    return 'continue';
  }
  const plan = await planOrNothing(deps, command);
  writeLine(output, formatResult(plan.preview, json, deps, command.tool));
  if (plan.nothing) {
    if (!json) writeLine(output, NOTHING_TO_CHANGE);
    return 'continue';
  }
  if (!json) writeLine(output, plan.lines.join('\n'));
  if (plan.refused) {
    if (json) writeLine(output, plan.refused);
    return 'continue';
  }
  const answer = await ask('approve? [y/N] ');
  if (answer === INTERRUPTED) {
    writeLine(output, '\nnot run.');
    return 'continue';
  }
  if (answer !== undefined && /^(y|yes)$/i.test(answer.trim())) {
    writeLine(output, executedText(await execute(deps, command, plan.previewHash), json, deps, command.tool));
    return 'continue';
  }
  writeLine(output, 'not run.');
  return answer === undefined ? 'quit' : 'continue';
}

/**
 * The interactive console: `net> ` lines with or without `/net`, help, reads rendered as text,
 * writes previewed and run only after `approve? [y/N]` is answered yes. Bad input never ends it.
 */
export async function runInteractiveConsole(deps: ConsoleDeps): Promise<void> {
  const { input, output } = deps;
  const rl = createInterface({ input, output, terminal: (output as { isTTY?: unknown }).isTTY === true });
  // One iterator for every read, so the approval answer is the next line even when input is piped in.
  const lines = rl[Symbol.asyncIterator]();
  // A line read that Ctrl-C interrupted stays pending: the next prompt takes that line.
  let pending: Promise<IteratorResult<string>> | undefined;
  let interrupt: (() => void) | undefined;
  let atPrompt = false;
  const onInterrupt = () => {
    if (interrupt) interrupt();
    else if (atPrompt || !deps.abort) rl.close();
    else deps.abort();
  };
  rl.on('SIGINT', onInterrupt);
  deps.signals?.on('SIGINT', onInterrupt);
  const ask: Ask = async (prompt) => {
    rl.setPrompt(prompt);
    rl.prompt();
    pending ??= lines.next();
    const interrupted = new Promise<typeof INTERRUPTED>((resolve) => {
      // Only an approval can be interrupted; Ctrl-C at `net> ` leaves the console.
      if (prompt !== 'net> ') interrupt = () => resolve(INTERRUPTED);
    });
    atPrompt = true;
    try {
      const next = await Promise.race([pending, interrupted]);
      if (next === INTERRUPTED) return INTERRUPTED;
      pending = undefined;
      return next.done === true ? undefined : next.value;
    } finally {
      interrupt = undefined;
      atPrompt = false;
    }
  };
  if (deps.banner !== undefined) writeLine(output, deps.banner);
  writeLine(output, 'Type help for commands, quit to leave.');
  try {
    for (;;) {
      const line = await ask('net> ');
      if (line === undefined || line === INTERRUPTED) break;
      try {
        if ((await handleLine(line, deps, ask)) === 'quit') break;
      } catch (error) {
        reportError(deps, error, wantsJson(line.split(/\s+/)));
      }
    }
  } finally {
    deps.signals?.off('SIGINT', onInterrupt);
    rl.close();
  }
}

/** Exit code for a failed one-shot command: bad input is usage (2), an unrun write 3, the rest 1. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof RecordedFailure) return exitCodeFor(error.error);
  if (!isBotError(error)) return EXIT.failed;
  if (error.code === 'validation_failed') return EXIT.usage;
  if (error.code === 'confirmation_required') return EXIT.notRun;
  return EXIT.failed;
}

/**
 * Runs one command from the words after `npm start --` and returns the exit code: 0 ok, 1 a
 * tool or controller error, 2 bad usage or validation, 3 a write shown as a preview but not run
 * (it needs --yes). The shell has already split and unquoted the words, so they are not tokenized again.
 */
export async function runOneShot(argv: string[], base: ConsoleDeps): Promise<number> {
  const { registry, context, output, errorOutput } = base;
  const json = wantsJson(argv);
  let deps = base;
  try {
    const { parsed, flags } = takeFlags(parseCommand([...argv]), ['--json', '--yes', '--help', '--ids']);
    deps = withFlags(base, flags);
    if (flags.has('--help') || parsed.command === 'help') {
      writeLine(output, helpFor(registry, parsed, ONE_SHOT_USAGE));
      return EXIT.ok;
    }
    if (parsed.command === '') {
      if (json) throw new ValidationError([{ field: 'command', rule: `is required (${ONE_SHOT_USAGE})` }]);
      writeLine(errorOutput, ONE_SHOT_USAGE);
      return EXIT.usage;
    }
    if (isPictureAlias(parsed.command)) {
      writeLine(output, await writeTopologyPicture(deps, parsed, json));
      return EXIT.ok;
    }
    if (isHistoryCommand(parsed.command)) {
      writeLine(output, await history(deps, parsed, json));
      return EXIT.ok;
    }
    if (parsed.command === 'plan') {
      const [file] = parsed.positionals;
      if (file === undefined) {
        throw new ValidationError([
          {
            field: 'file',
            rule: 'is required in a one-shot plan: plan <file> (--yes runs it)',
            missing: true,
          },
        ]);
      }
      const plan = await setPlan(deps, parsed, await planFile(file));
      if (flags.has('--yes') && plan.refused) throw new NotAuthorizedError(plan.refused);
      // One JSON document: the result carries the preview it ran.
      if (json && flags.has('--yes')) {
        writeLine(output, setResultText(await plan.run(), json, plan.preview));
        return EXIT.ok;
      }
      writeLine(output, formatResult(plan.preview, json, deps));
      if (!json && !flags.has('--yes')) writeLine(output, plan.lines.join('\n'));
      if (plan.refused) {
        writeLine(errorOutput, json ? `not run: ${plan.refused}` : 'not run.');
        return EXIT.notRun;
      }
      if (flags.has('--yes')) {
        writeLine(output, setResultText(await plan.run(), json));
        return EXIT.ok;
      }
      writeLine(errorOutput, 'not run: the plan changes the network; add --yes to run it');
      return EXIT.notRun;
    }
    const revertOf = revertTarget(parsed);
    if (revertOf !== undefined) {
      const plan = await revertPlan(deps, revertOf);
      if (flags.has('--yes') && !plan.refused) {
        writeLine(output, executedText(await plan.run(), json, deps, plan.tool));
        return EXIT.ok;
      }
      writeLine(output, formatResult(plan.preview, json, deps, plan.tool));
      if (!json) writeLine(output, plan.lines.join('\n'));
      if (plan.refused) {
        writeLine(errorOutput, json ? `not run: ${plan.refused}` : 'not run.');
        return EXIT.notRun;
      }
      writeLine(
        errorOutput,
        `not run: ${plan.tool} (the revert of ${revertOf}) changes the network; add --yes to run it`,
      );
      return EXIT.notRun;
    }
    const command = await resolveCommandOnSite(changeCommand(parsed, registry), registry, context.gateway);
    const tool = registry.require(command.tool);
    if (tool.access === 'read' || askedForDryRun(registry, command.tool, command.args)) {
      writeLine(
        output,
        formatResult(await registry.run(command.tool, command.args, context), json, deps, command.tool),
      );
      return EXIT.ok;
    }
    if (flags.has('--yes')) {
      writeLine(output, executedText(await execute(deps, command), json, deps, command.tool));
      return EXIT.ok;
    }
    const plan = await planOrNothing(deps, command);
    writeLine(output, formatResult(plan.preview, json, deps, command.tool));
    if (plan.nothing) {
      writeLine(errorOutput, NOTHING_TO_CHANGE);
      return EXIT.ok;
    }
    if (!json) writeLine(output, plan.lines.join('\n'));
    if (plan.refused) {
      writeLine(errorOutput, json ? `not run: ${plan.refused}` : 'not run.');
      return EXIT.notRun;
    }
    writeLine(errorOutput, `not run: ${command.tool} changes the network; add --yes to run it`);
    return EXIT.notRun;
  } catch (error) {
    reportError(deps, error, json);
    return exitCodeFor(error);
  }
}
