import { writeFile } from 'node:fs/promises';
import { commandLine, gateRefusal } from '../approvals/terms.js';
import { verificationText } from '../changes/describe.js';
import { aliasHelpText, resolveCommand } from '../commands/aliases.js';
import { HISTORY_HELP } from '../commands/history.js';
import type { ParsedCommand } from '../commands/parse-command-line.js';
import type { Intent } from '../commands/router.js';
import { ValidationError } from '../errors.js';
import { render } from '../format/plain-text.js';
import type { Verification } from '../model/change-request.js';
import { breakGlassElsewhere } from '../policy/gate.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import { isTopology } from '../topology/queries.js';
import { pngDimensions, renderTopologyPng } from '../topology/render-png.js';
import type { ConsoleDeps } from './deps.js';
import { consoleErrorJson, consoleErrorText } from './error-text.js';
import type { Executed } from './execution.js';
import { historyAnswer } from './history.js';
import { RecordedFailure } from './recorded-failure.js';

const VALUE_HELP = [
  'Values: bare words, "quoted strings", a,b,c for lists, true/false, numbers; site= picks a site.',
  'Writes show a dry-run preview first and run only when approved.',
  'Tables fit the terminal: ids and MACs are left out first when it is narrow; --ids shows them, --json shows everything.',
  'help <tool> (or <tool> --help) explains one tool: arguments, types, defaults, bounds, an example.',
  'topology [file=<path>] writes the picture as a PNG (default topology-<site>.png).',
  'Every write run here is recorded as a change (changes, change <id>); revert <id> and keep <id> act on one.',
  'plan [file] [on_failure=stop] [title="…"]: several writes as one change set (one per line, from the file or typed until an empty line), previewed together, run in order, undone together if one fails.',
  'rollout <write> sites=… [waves=1,25%,rest] [soak=10m]: one change across sites in waves (rollout plan <file> sites=… for a change set).',
  'breakglass <write> reason="…" is asked in Slack: the policy\'s break-glass terms name Slack people.',
].join('\n');

export const NOTHING_TO_CHANGE =
  'nothing to change: the values given are the current ones; nothing was sent.';

export function writeLine(stream: NodeJS.WritableStream, text: string): void {
  stream.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** COLUMNS when the shell exports it, else the terminal's width; undefined (unbounded) when piped. */
export function outputWidth(deps: ConsoleDeps): number | undefined {
  if (deps.columns !== undefined) return deps.columns;
  const { columns, isTTY } = deps.output as { columns?: unknown; isTTY?: unknown };
  return isTTY === true && typeof columns === 'number' && columns > 0 ? columns : undefined;
}

/** Result text: `--json` prints JSON (a string result as is), otherwise the terminal rendering. */
export function formatResult(result: unknown, json: boolean, deps: ConsoleDeps, tool?: string): string {
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
export function wantsJson(words: readonly string[]): boolean {
  return words.some((word) => word.toLowerCase() === '--json');
}

/** Reports a failed command: `--json` as `{"error": …}` on stdout (what a script reads), else text on stderr. */
export function reportError(deps: ConsoleDeps, error: unknown, json: boolean): void {
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

/** `help`, or one tool's generated help. */
function helpFor(registry: ToolRegistry, tool: string | undefined, extra: string): string {
  return tool === undefined ? helpText(registry, extra) : registry.toolHelp(tool);
}

/** What a change that ran prints: a set's steps, or a write's result and where it is recorded. */
export function resultText(
  executed: Executed,
  json: boolean,
  deps: ConsoleDeps,
  tool: string | undefined,
  preview?: unknown,
): string {
  if (executed.steps !== undefined)
    return setResultText({ ...executed, steps: executed.steps }, json, preview);
  return executedText(executed, json, deps, tool);
}

/** The answer to a write that ran: `--json` carries `change_id`; text says where it is recorded. */
function executedText(
  executed: Executed,
  json: boolean,
  deps: ConsoleDeps,
  tool: string | undefined,
): string {
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

/**
 * The text of what both console modes answer alike: help (with the mode's own last paragraph),
 * the topology picture, the history, a read or a dry run. Undefined for a change to approve.
 */
export async function plainAnswer(
  intent: Intent,
  deps: ConsoleDeps,
  json: boolean,
  helpExtra: string,
): Promise<string | undefined> {
  switch (intent.kind) {
    case 'help':
      return helpFor(deps.registry, intent.tool, helpExtra);
    case 'picture':
      return writeTopologyPicture(deps, intent.command, json);
    case 'history':
      return history(deps, intent.command, json);
    case 'breakglass':
      // The console is no Slack person: the gate's answer says where to ask instead.
      throw gateRefusal(breakGlassElsewhere('console', commandLine(intent.tool, intent.args)));
    case 'read':
    case 'dry_run':
      return formatResult(
        await deps.registry.run(intent.tool, intent.args, deps.context),
        json,
        deps,
        intent.tool,
      );
    default:
      return undefined;
  }
}
