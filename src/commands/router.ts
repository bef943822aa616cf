import { z } from 'zod';
import { NotSupportedError, ValidationError } from '../errors.js';
import type { Gateway } from '../gateway/types.js';
import { suggestNames } from '../lib/suggest.js';
import { TOOL_LIST_HINT, type ToolRegistry } from '../tools/core/registry.js';
import {
  helpTopicTool,
  isAlias,
  isPictureAlias,
  listAliases,
  resolveCommandOnSite,
  type ScopeArgs,
} from './aliases.js';
import {
  consoleKeepId,
  consoleRevertId,
  isHistoryCommand,
  isRevertCommand,
  revertChangeId,
} from './history.js';
import { type ParsedCommand, parseCommand, parseCommandLine } from './parse-command-line.js';
import { parseRollout, type RolloutOptions, type RolloutWhat } from './rollout.js';

/**
 * Where a line was typed. `console` is the interactive loop, `one-shot` the words after
 * `npm start --`; they differ only in the loop's own words and in what an empty command means.
 */
export type Face = 'slack' | 'console' | 'one-shot';

type Args = Record<string, unknown>;

/** What a command line asks for, once its grammar is read; each face renders every kind. */
export type Intent =
  /** Help: the tool list, or one tool's help (`help vlans`, console `vlans --help`). */
  | { kind: 'help'; tool?: string }
  /** One-shot with no command: the usage line. */
  | { kind: 'usage' }
  /** Slack `form <tool>`: the write tool's form. */
  | { kind: 'form'; tool: string; args: Args }
  /** `topology`: the result drawn as a PNG. */
  | { kind: 'picture'; command: ParsedCommand }
  /** Slack `digest` with the watch running: the digest posted in the channel now. */
  | { kind: 'digest' }
  /** `changes …` and `change <id>`: the history, read from the store. */
  | { kind: 'history'; command: ParsedCommand }
  /** `revert <id>`: the change that undoes a recorded one. */
  | { kind: 'revert'; changeId: string }
  /** `plan`: a change set, from the lines after it (Slack), a file or typed lines (console). */
  | { kind: 'plan'; options: Record<string, string | string[]>; file?: string; lines: string[] }
  /** `rollout <write or plan> sites=… waves=… soak=…`: one change across many sites, in waves. */
  | { kind: 'rollout'; what: RolloutWhat; options: RolloutOptions }
  /** A read: run now. `ids` (Slack) asks for the id columns a narrow table leaves out. */
  | { kind: 'read'; tool: string; args: Args; ids: boolean }
  /** A write asked with dry_run=true: its preview, nothing sent. */
  | { kind: 'dry_run'; tool: string; args: Args }
  /** A write: previewed, then approved before it runs. */
  | { kind: 'write'; tool: string; args: Args }
  /** `breakglass <write> reason="…"`: the write under the policy's break-glass terms. */
  | { kind: 'breakglass'; tool: string; args: Args; reason: string }
  /** Console `keep <id>`: keep_change, a write like any other. */
  | { kind: 'keep'; tool: string; args: Args }
  /** The interactive console's own words. */
  | { kind: 'quit' }
  | { kind: 'clear' };

export type IntentKind = Intent['kind'];

/** What routing needs: the face, the tools, and the gateway that tells a site's firewall. */
export interface RouteContext {
  face: Face;
  registry: ToolRegistry;
  gateway: Gateway;
  /** Slack: the watch runs, so `digest` posts the digest instead of answering it. */
  digest?: boolean;
  /** The face's defaults (a channel's console and site, the console's `use`), applied before routing. */
  scope?: ScopeArgs;
}

/** A routed line: its intent, and the console's `--flags` taken off it. */
export interface Routed {
  intent: Intent;
  flags: ReadonlySet<string>;
}

/** The flags each console face takes; Slack takes none (a `--word` is an ordinary word there). */
const FLAGS: Record<Face, readonly string[]> = {
  slack: [],
  console: ['--json', '--help', '--ids'],
  'one-shot': ['--json', '--yes', '--help', '--ids'],
};

/** The console's keep: `keep <id>` is keep_change change_id=<id>. */
const KEEP_TOOL = 'keep_change';

const formTool = z.string().min(1);

/**
 * A line typed in Slack (`/net …`, newlines kept) or at the console's prompt, as its intent.
 * A `plan` or `rollout` line takes the lines after it (a plan's writes); otherwise newlines are spaces.
 */
export async function routeLine(line: string, context: RouteContext): Promise<Routed> {
  if (context.face === 'slack') {
    const [head = '', ...lines] = line.split(/\r?\n/);
    const first = parseCommandLine(head);
    if (first.command === 'plan') return { intent: planIntent(first, lines), flags: new Set() };
    if (first.command === 'rollout')
      return {
        intent: { kind: 'rollout', ...parseRollout(first, lines, context.registry) },
        flags: new Set(),
      };
  }
  return routeParsed(parseCommandLine(line), context);
}

/** The words after `npm start --`: the shell has split and unquoted them already. */
export function routeWords(words: readonly string[], context: RouteContext): Promise<Routed> {
  return routeParsed(parseCommand([...words]), context);
}

async function routeParsed(parsed0: ParsedCommand, context: RouteContext): Promise<Routed> {
  const { parsed, flags } = takeFlags(parsed0, FLAGS[context.face]);
  return { intent: await intentOf(parsed, flags.has('--help'), context), flags };
}

/** The intent of one parsed command; `help` is the console's `--help` flag. */
export async function intentOf(parsed: ParsedCommand, help: boolean, context: RouteContext): Promise<Intent> {
  const { face, registry } = context;
  const { command } = parsed;
  if (face === 'console' && (command === 'quit' || command === 'exit')) return { kind: 'quit' };
  if (face === 'console' && (command === 'clear' || command === 'cls')) return { kind: 'clear' };
  if (face === 'one-shot' && command === '' && !help) return { kind: 'usage' };
  if (command === '' || command === 'help' || help) {
    // Slack reads the word after `help`; the console also `<tool> --help`.
    const topic = face === 'slack' || command === 'help' ? parsed.positionals[0] : command;
    if (topic === undefined || (topic === '' && face !== 'slack')) return { kind: 'help' };
    return { kind: 'help', tool: helpTopicTool(topic, registry) };
  }
  if (face === 'slack' && command === 'form') return formIntent(parsed, registry);
  if (face !== 'slack' && command === 'plan') return planIntent(parsed, []);
  if (command === 'rollout') return { kind: 'rollout', ...parseRollout(parsed, [], registry) };
  if (isPictureAlias(command)) return { kind: 'picture', command: parsed };
  // `console=` asks for one console's site digest: the read, answered to the caller, as before a fleet.
  if (
    face === 'slack' &&
    command === 'digest' &&
    context.digest &&
    parsed.positionals.length === 0 &&
    parsed.args.console === undefined
  ) {
    return { kind: 'digest' };
  }
  if (isHistoryCommand(command)) return { kind: 'history', command: parsed };
  if (isRevertCommand(command)) {
    const changeId = face === 'slack' ? revertChangeId(parsed) : consoleRevertId(parsed);
    return { kind: 'revert', changeId };
  }
  if (command === 'breakglass') return breakGlassIntent(parsed, context);
  refuseUnknown(command, context);
  return face === 'slack' ? slackCall(parsed, context) : consoleCall(parsed, context);
}

const breakGlassReason = z
  .string({ error: 'is required: reason="why this cannot wait for the usual approvals"' })
  .trim()
  .min(3, { error: 'must say why, in at least 3 characters' })
  .max(500, { error: 'must be at most 500 characters' });

/** `breakglass <write> reason="…"`: the write as any face reads it, and why it cannot wait. */
async function breakGlassIntent(parsed: ParsedCommand, context: RouteContext): Promise<Intent> {
  const { reason, ...args } = parsed.args;
  const why = breakGlassReason.safeParse(typeof reason === 'string' ? reason : undefined);
  if (!why.success)
    throw new ValidationError([{ field: 'reason', rule: why.error.issues[0]?.message ?? 'is required' }]);
  const [command = '', ...positionals] = parsed.positionals;
  const inner = { command: command.toLowerCase(), positionals, args };
  refuseUnknown(inner.command, context);
  const intent =
    context.face === 'slack' ? await slackCall(inner, context) : await consoleCall(inner, context);
  if (intent.kind !== 'write') {
    throw new ValidationError([
      {
        field: 'command',
        rule: 'breakglass takes a write, e.g. breakglass restart_device device_id="Core Switch" reason="…"',
      },
    ]);
  }
  return { kind: 'breakglass', tool: intent.tool, args: intent.args, reason: why.data };
}

/** The words each face answers besides tools and shortcuts, offered when a verb is mistyped. */
const VERBS: Record<Face, readonly string[]> = {
  slack: ['help', 'form', 'plan', 'rollout', 'changes', 'change', 'revert', 'breakglass'],
  console: [
    'help',
    'plan',
    'rollout',
    'changes',
    'change',
    'revert',
    'keep',
    'use',
    'breakglass',
    'quit',
    'exit',
    'clear',
  ],
  'one-shot': ['help', 'plan', 'rollout', 'changes', 'change', 'revert', 'keep', 'breakglass'],
};

/**
 * The one refusal of a word that is no command, at every face: the nearest tools, shortcuts and
 * the face's own words, in the registry's wording. Reached after every face's own words were tried.
 */
function refuseUnknown(command: string, { face, registry }: RouteContext): void {
  if (registry.get(command) || isAlias(command)) return;
  if (face !== 'slack' && command === 'keep') return;
  const known = new Set([
    ...registry.list().map((tool) => tool.name),
    ...listAliases(registry).map((alias) => alias.alias),
    ...VERBS[face],
  ]);
  const near = suggestNames(command, [...known], 5);
  const hint = near.length > 0 ? `did you mean ${near.join(', ')}?` : TOOL_LIST_HINT;
  throw new ValidationError([{ field: 'tool', rule: `unknown tool "${command}"; ${hint}` }]);
}

function planIntent(parsed: ParsedCommand, lines: string[]): Intent {
  const [file] = parsed.positionals;
  return { kind: 'plan', options: parsed.args, ...(file !== undefined ? { file } : {}), lines };
}

function formIntent(parsed: ParsedCommand, registry: ToolRegistry): Intent {
  const tool = formTool.safeParse(parsed.positionals[0]);
  if (!tool.success || registry.require(tool.data).access !== 'write') {
    throw new ValidationError([{ field: 'tool', rule: '"/net form <tool>" opens a form for a write tool' }]);
  }
  return { kind: 'form', tool: tool.data, args: parsed.args };
}

/**
 * `ids` (or `--ids`) as the last word of a read: show the id columns a short width leaves out.
 * Taken off before the words are read as arguments, so `/net who on IoT ids` asks about IoT.
 */
function idsAsked(parsed: ParsedCommand): { parsed: ParsedCommand; ids: boolean } {
  const last = parsed.positionals.at(-1)?.toLowerCase();
  if (last !== 'ids' && last !== '--ids') return { parsed, ids: false };
  return { parsed: { ...parsed, positionals: parsed.positionals.slice(0, -1) }, ids: true };
}

/** A tool or shortcut typed in Slack: a read, or a write whose typed `confirm` is dropped. */
async function slackCall(parsed: ParsedCommand, { registry, gateway, scope }: RouteContext): Promise<Intent> {
  const asked = idsAsked(parsed);
  const resolved = await resolveCommandOnSite(asked.parsed, registry, gateway, scope);
  // `ids` is a word of reads only: a write keeps its words as typed (and refuses a stray one).
  const { tool, args } =
    registry.require(resolved.tool).access === 'read' || !asked.ids
      ? resolved
      : await resolveCommandOnSite(parsed, registry, gateway, scope);
  if (registry.require(tool).access === 'read') return { kind: 'read', tool, args, ids: asked.ids };
  // The Approve button is what supplies confirm; a typed one is ignored rather than trusted.
  const { confirm: _ignored, ...request } = args;
  const dryRun = request.dry_run === true || request.dry_run === 'true';
  return { kind: dryRun ? 'dry_run' : 'write', tool, args: request };
}

/** A tool, shortcut or `keep <id>` typed at the console: a read, a dry run, or a write. */
async function consoleCall(
  parsed: ParsedCommand,
  { registry, gateway, scope }: RouteContext,
): Promise<Intent> {
  const keep = parsed.command === 'keep';
  const command = keep ? keepCommand(parsed, registry) : parsed;
  const { tool, args } = await resolveCommandOnSite(command, registry, gateway, scope);
  if (registry.require(tool).access === 'read') return { kind: 'read', tool, args, ids: false };
  if (args.dry_run !== undefined && registry.validate(tool, args).dry_run === true) {
    return { kind: 'dry_run', tool, args };
  }
  return { kind: keep ? 'keep' : 'write', tool, args };
}

/** `keep <id>` as the tool call it stands for, so it is previewed, approved and recorded like any write. */
function keepCommand(parsed: ParsedCommand, registry: ToolRegistry): ParsedCommand {
  const id = consoleKeepId(parsed);
  if (!registry.get(KEEP_TOOL)) {
    throw new NotSupportedError(`keep needs the ${KEEP_TOOL} tool, which this build does not have`);
  }
  return { command: KEEP_TOOL, positionals: [], args: { ...parsed.args, change_id: id } };
}

/**
 * Pulls `--flag` words out of a parsed command. The grammar sees them as ordinary words, and a
 * flag typed first would otherwise be taken for the command.
 */
function takeFlags(
  parsed: ParsedCommand,
  allowed: readonly string[],
): { parsed: ParsedCommand; flags: Set<string> } {
  const flags = new Set<string>();
  if (allowed.length === 0) return { parsed, flags };
  const words = [parsed.command, ...parsed.positionals].filter((w) => w !== '');
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
