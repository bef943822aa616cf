import type { z } from 'zod';
import { ConfirmationRequiredError, type FieldIssue, ValidationError } from '../../errors.js';
import { describeGroupApis } from '../../gateway/capabilities.js';
import type { ConsoleInfo } from '../../gateway/console-info.js';
import type { Gateway } from '../../gateway/types.js';
import { redactSecrets } from '../../lib/redact.js';
import { suggestNames } from '../../lib/suggest.js';
import { attachUnreadable, withUnreadableTally } from '../../lib/unreadable-records.js';
import type { ConsolePort } from './context.js';
import type { ToolContext, ToolDefinition, ToolGroup } from './define-tool.js';
import { missingValue } from './missing-values.js';
import { type ArgumentInfo, argumentsOf } from './schema-introspection.js';
import { toolHelpText } from './tool-help.js';

/**
 * Where an "unknown tool" answer sends the reader, in Slack's words; the console and MCP put their
 * own help in its place (`help`, the client's tool list).
 */
export const TOOL_LIST_HINT = '/net help lists them';

/** What a front end hands the registry: values typed already (JSON, forms) or as text (the /net grammar). */
export type RawArguments = Record<string, unknown>;

const TRUE_WORDS = new Set(['true', 'yes', 'on', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'off', '0']);

/** Converts text from a command line into the type the argument declares; anything unclear is left for zod. */
function coerce(value: unknown, info: ArgumentInfo): unknown {
  if (info.kind === 'array') {
    if (Array.isArray(value)) return value;
    if (typeof value === 'string') return value === '' ? [] : [value];
    return value;
  }
  const scalar = Array.isArray(value) && value.length > 0 ? value.join(',') : value;
  if (typeof scalar !== 'string') {
    return info.kind === 'string' && typeof scalar === 'number' ? String(scalar) : scalar;
  }
  if (info.kind === 'number') {
    return /^-?\d+(\.\d+)?$/.test(scalar.trim()) ? Number(scalar) : scalar;
  }
  if (info.kind === 'boolean') {
    const word = scalar.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
  }
  return scalar;
}

/** The value at an issue's path in what the caller sent (zod 4 does not report it by default). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function toFieldIssues(error: z.ZodError, input: unknown): FieldIssue[] {
  return error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.map(String).join('.') : 'arguments';
    // Absent, a value fails its type or enum check first (invalid_type, invalid_value, a union's).
    if (issue.code !== 'custom' && issue.path.length > 0 && valueAt(input, issue.path) === undefined) {
      return missingValue(field);
    }
    // A refinement marks a conditional requirement ("is required when …") with MISSING_PARAMS.
    if (issue.code === 'custom' && issue.params?.missing === true) return missingValue(field, issue.message);
    return { field, rule: issue.message };
  });
}

/** Help's first line once the console's version is known: the version and the generations in brackets. */
function consoleLine(info: ConsoleInfo): string {
  const version = info.version === undefined ? 'version not known' : `UniFi Network ${info.version}`;
  const official = info.official ? 'official API available' : 'no official API (classic and v2 only)';
  return `Controller: ${version}, ${official}; each group says which endpoints it uses here [official, classic, v2].`;
}

/**
 * A fleet's answer names its console: an object answer (a record, a preview, a write's outcome)
 * gets a `console` field first; a list is left as it is, its command named the console.
 */
function namedFor(console: string | undefined, value: unknown): unknown {
  if (console === undefined || value === null || typeof value !== 'object' || Array.isArray(value))
    return value;
  return { console, ...(value as Record<string, unknown>) };
}

/** All tools by name: validates arguments with each tool's schema and runs it. */
export class ToolRegistry {
  private readonly byName = new Map<string, ToolDefinition>();
  #consoles: ConsolePort | undefined;

  constructor(
    readonly groups: readonly ToolGroup[],
    private readonly defaults: { site: string },
    private readonly consoleInfo?: () => ConsoleInfo | undefined,
  ) {
    for (const group of groups) {
      for (const tool of group.tools) {
        if (this.byName.has(tool.name)) throw new Error(`duplicate tool name: ${tool.name}`);
        this.byName.set(tool.name, tool);
      }
    }
  }

  /** The consoles a call's `console=` names (app.ts wires them); unset: `console=` is refused. */
  useConsoles(consoles: ConsolePort): void {
    this.#consoles = consoles;
  }

  /**
   * The console a call runs against, taken out of its arguments: the one named, or none where a
   * single console is served. A fleet asks for it (a missing value, so forms prompt for it).
   * Tools that declare `console` themselves (fleet-wide reads) get it as an argument instead.
   */
  #takeConsole(tool: ToolDefinition, input: RawArguments): string | undefined {
    if (argumentsOf(tool.args).some((info) => info.name === 'console')) return undefined;
    const given = input.console;
    delete input.console;
    const consoles = this.#consoles;
    const names = consoles?.list().map((each) => each.name) ?? [];
    if (given === undefined || given === '') {
      if (consoles?.fleet !== true) return undefined;
      throw new ValidationError([
        missingValue(
          'console',
          `is required: this bot serves ${names.length} consoles (${names.join(', ')})`,
        ),
      ]);
    }
    if (typeof given !== 'string' || consoles === undefined)
      throw new ValidationError([{ field: 'console', rule: 'must name a console' }]);
    // A name not served is refused by the port, naming those that are; a served one is not built yet.
    if (!names.includes(given)) consoles.gateway(given);
    return consoles.fleet ? given : undefined;
  }

  /**
   * The gateway of the console named `name`, for routing that must look at the console a call
   * goes to (the firewall shortcut); undefined when no consoles are wired (a test's registry).
   * A name not served is refused as the call itself would be.
   */
  consoleGateway(name: string): Gateway | undefined {
    return this.#consoles?.gateway(name);
  }

  /** DEFAULT_SITE: the site of a call that names none. */
  defaultSite(): string {
    return this.defaults.site;
  }

  /** Whether the bot serves several consoles (a call must name one; `where` asks them all). */
  servesFleet(): boolean {
    return this.#consoles?.fleet === true;
  }

  /** Every tool, in group order. */
  list(): ToolDefinition[] {
    return [...this.byName.values()];
  }

  get(name: string): ToolDefinition | undefined {
    return this.byName.get(name);
  }

  /** The tool, or a ValidationError that suggests the nearest names. */
  require(name: string): ToolDefinition {
    const tool = this.byName.get(name);
    if (tool) return tool;
    const close = suggestNames(
      name,
      this.list().map((t) => t.name),
      5,
    );
    const hint = close.length > 0 ? `; did you mean ${close.join(', ')}?` : `; ${TOOL_LIST_HINT}`;
    throw new ValidationError([{ field: 'tool', rule: `unknown tool "${name}"${hint}` }]);
  }

  /** The tool's arguments, for help, forms and coercion. */
  argumentsOf(name: string): ArgumentInfo[] {
    return argumentsOf(this.require(name).args);
  }

  /**
   * Raw arguments as typed values: `site=` is an alias of `site_id`, which defaults to the
   * configured site, and text is coerced to each argument's declared type (what a JSON client
   * sends as is). Unknown names are kept for `validate` to refuse.
   */
  coerce(name: string, raw: RawArguments): RawArguments {
    const known = new Map(argumentsOf(this.require(name).args).map((i) => [i.name, i]));
    const input: RawArguments = { ...raw };
    if ('site' in input && known.has('site_id')) {
      if (input.site_id === undefined) input.site_id = input.site;
      delete input.site;
    }
    if (known.has('site_id') && (input.site_id === undefined || input.site_id === '')) {
      input.site_id = this.defaults.site;
    }
    for (const [key, value] of Object.entries(input)) {
      const info = known.get(key);
      if (info) input[key] = coerce(value, info);
    }
    return input;
  }

  /**
   * Validates raw arguments (coerced first, see `coerce`); unknown names are refused rather than
   * ignored, because a typo such as `vlan=40` silently dropped would change the meaning of a write.
   */
  validate(name: string, raw: RawArguments): Record<string, unknown> {
    const tool = this.require(name);
    const known = argumentsOf(tool.args).map((i) => i.name);
    const input = this.coerce(name, raw);
    const console = this.#takeConsole(tool, input);
    const issues: FieldIssue[] = [];
    for (const key of Object.keys(input)) {
      if (known.includes(key)) continue;
      const close = suggestNames(key, known);
      const hint =
        close.length > 0 ? `; did you mean ${close.join(', ')}?` : ` (it takes ${known.join(', ')})`;
      issues.push({ field: key, rule: `is not an argument of ${name}${hint}` });
    }
    if (issues.length > 0) throw new ValidationError(issues);
    const parsed = tool.args.safeParse(input);
    if (!parsed.success) throw new ValidationError(toFieldIssues(parsed.error, input));
    // The console stays in the validated arguments: a change request keeps it, and runs there.
    return console === undefined ? parsed.data : { console, ...parsed.data };
  }

  /** Validates, enforces the write guard, and runs. A write needs confirm=true unless it is a dry run. */
  async run(name: string, raw: RawArguments, context: ToolContext): Promise<unknown> {
    const tool = this.require(name);
    // A tool called from within a console's call (a read before a write) runs on that console.
    const inherited =
      context.console !== undefined && raw.console === undefined ? { ...raw, console: context.console } : raw;
    const validated = this.validate(name, inherited);
    if (tool.access === 'write' && validated.dry_run !== true && validated.confirm !== true) {
      throw new ConfirmationRequiredError(name);
    }
    const { args, context: scoped, console } = this.#onConsole(tool, validated, context);
    // The one redaction of tool output (lib/redact.ts): every face shows, and the journal keeps,
    // the same masked values; the controller still receives what the tool sends.
    if (tool.access !== 'read') return namedFor(console, redactSecrets(await tool.run(args, scoped)));
    // A read says how many controller records it left out as unreadable (lib/unreadable-records.ts);
    // previews and write outcomes stay as they are, so a preview's hash never depends on it.
    const { value, unreadable } = await withUnreadableTally(() => tool.run(args, scoped));
    return namedFor(console, redactSecrets(attachUnreadable(value, unreadable)));
  }

  /** The arguments without `console`, and a context whose gateway is that console's. */
  #onConsole(
    tool: ToolDefinition,
    validated: Record<string, unknown>,
    context: ToolContext,
  ): { args: Record<string, unknown>; context: ToolContext; console: string | undefined } {
    const declares = argumentsOf(tool.args).some((info) => info.name === 'console');
    const console = validated.console;
    if (declares || typeof console !== 'string') return { args: validated, context, console: undefined };
    const { console: _console, ...args } = validated;
    const consoles = context.consoles ?? this.#consoles;
    if (consoles === undefined)
      throw new ValidationError([{ field: 'console', rule: 'must name a console' }]);
    // Its telemetry too: a fleet samples each console apart.
    const telemetry = context.telemetry?.forConsole?.(console) ?? context.telemetry;
    return {
      args,
      context: {
        ...context,
        gateway: consoles.gateway(console),
        console,
        ...(telemetry ? { telemetry } : {}),
      },
      console,
    };
  }

  /** Help for one tool: every argument with its type, bounds, default and allowed values, and an example. */
  toolHelp(name: string): string {
    return toolHelpText(this.require(name), this.defaults.site);
  }

  /** Terse help: one line per tool, grouped, generated from the definitions. */
  helpText(): string {
    const lines: string[] = [];
    const info = this.consoleInfo?.();
    if (info !== undefined) lines.push(consoleLine(info));
    if (this.#consoles?.fleet === true) {
      const names = this.#consoles.list().map((each) => each.name);
      lines.push(
        `Consoles: ${names.join(', ')}. Every tool takes console=<name>; list_consoles and find_client ask them all.`,
      );
    }
    for (const group of this.groups) {
      const apis = info?.apis.find((a) => a.group === group.api);
      lines.push(apis === undefined ? `${group.title}:` : `${group.title}: [${describeGroupApis(apis)}]`);
      for (const tool of group.tools) {
        const args = argumentsOf(tool.args)
          .filter((a) => !['site_id', 'confirm', 'dry_run'].includes(a.name))
          .map((a) => (a.required ? a.name : `[${a.name}]`));
        const mark = tool.access === 'write' ? ' (write)' : '';
        const usage = [tool.name, ...args].join(' ');
        lines.push(`  ${usage}  — ${tool.description}${mark}`);
      }
    }
    return lines.join('\n');
  }

  /** The tool table of docs/tools.md (Markdown), generated so it cannot drift from the code. */
  toolTableMarkdown(): string {
    const rows = ['| Tool | Access | Arguments (required in bold) | What it does |', '|---|---|---|---|'];
    for (const group of this.groups) {
      rows.push(`| **${group.title}** | | | |`);
      for (const tool of group.tools) {
        const args = argumentsOf(tool.args)
          .filter((a) => !['site_id', 'confirm', 'dry_run'].includes(a.name))
          .map((a) => {
            const shown =
              a.defaultValue !== undefined ? `${a.name}=${JSON.stringify(a.defaultValue)}` : a.name;
            return a.required ? `**${shown}**` : shown;
          });
        rows.push(`| \`${tool.name}\` | ${tool.access} | ${args.join(', ') || '—'} | ${tool.description} |`);
      }
    }
    return rows.join('\n');
  }
}
