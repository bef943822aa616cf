import { ValidationError } from '../errors.js';
import type { Gateway } from '../gateway/types.js';
import type { ToolAccess } from '../tools/core/define-tool.js';
import { firewallGeneration } from '../tools/core/firewall-generation.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import { type ParsedCommand, parseCommandLine } from './parse-command-line.js';

/** One friendly alias: the words that call it, the tool it runs, and the argument its bare word fills. */
interface AliasSpec {
  names: readonly string[];
  tool: string;
  positional?: { arg: string; placeholder: string };
  /** Front ends draw the tool's result as a PNG picture instead of printing it. */
  picture?: true;
  /** Arguments the alias always passes (`offline` is list_devices state=offline). */
  fixed?: Readonly<Record<string, string>>;
  /**
   * A first word that switches to another tool (`who on IoT` is list_clients network_id=IoT);
   * a leading `is` is skipped either way, so `who is 10.40.0.23` reads as asked.
   */
  on?: {
    word: string;
    tool: string;
    arg: string;
    placeholder: string;
    /** The rest of the line, `key=value` words included, is the argument (a command line of its own). */
    rest?: true;
  };

  /** The tool it runs instead on a site with the zone-based firewall, where `tool` is refused. */
  onZoneBased?: string;
  /** The tool it runs instead when the bot serves several consoles and the line names none. */
  inFleet?: string;
}

/**
 * The alias table, shared by Slack and the console. Tools are named as strings and looked up in
 * the registry at call time: tool groups are added independently, and an alias whose tool is
 * absent must simply not be offered.
 */
const ALIASES: readonly AliasSpec[] = [
  { names: ['vlans', 'networks'], tool: 'list_vlans' },
  {
    names: ['network'],
    tool: 'get_network_details',
    positional: { arg: 'network_id', placeholder: '<name-or-id>' },
  },
  {
    names: ['subnet'],
    tool: 'get_subnet_info',
    positional: { arg: 'network_id', placeholder: '<name-or-id>' },
  },
  { names: ['stats', 'usage'], tool: 'get_network_statistics' },
  { names: ['zones'], tool: 'list_firewall_zones' },
  { names: ['zone'], tool: 'get_zone_networks', positional: { arg: 'zone_id', placeholder: '<id-or-name>' } },
  { names: ['rules', 'firewall'], tool: 'list_firewall_rules', onZoneBased: 'list_firewall_policies' },
  { names: ['acl'], tool: 'list_acl_rules' },
  { names: ['lists'], tool: 'list_traffic_matching_lists' },
  { names: ['routes'], tool: 'list_traffic_routes' },
  { names: ['apps'], tool: 'list_top_applications' },
  // `top` is who eats the bandwidth now (window=now is top_clients' default).
  { names: ['top'], tool: 'top_clients' },
  { names: ['dpi'], tool: 'get_dpi_statistics' },
  { names: ['client'], tool: 'get_client_dpi', positional: { arg: 'client', placeholder: '<client>' } },
  { names: ['topology'], tool: 'get_network_topology', picture: true },
  // On-call reads.
  {
    names: ['who'],
    tool: 'get_client',
    positional: { arg: 'client', placeholder: '<client>' },
    on: { word: 'on', tool: 'list_clients', arg: 'network_id', placeholder: '<network>' },
  },
  // In a fleet, `where` asks every console (find_client) unless console= names one.
  {
    names: ['where'],
    tool: 'get_client',
    positional: { arg: 'client', placeholder: '<client>' },
    inFleet: 'find_client',
  },
  { names: ['clients'], tool: 'list_clients' },
  { names: ['devices'], tool: 'list_devices' },
  { names: ['offline'], tool: 'list_devices', fixed: { state: 'offline' } },
  // What is down: every console and site at once (one console's sites without a fleet).
  { names: ['down'], tool: 'get_fleet_status' },
  { names: ['ports'], tool: 'get_port_mappings', positional: { arg: 'device_id', placeholder: '<device>' } },
  // `policy` shows the rules; `policy check <command>` explains a would-be change.
  {
    names: ['policy'],
    tool: 'show_policy',
    on: { word: 'check', tool: 'check_policy', arg: 'command', placeholder: '<command>', rest: true },
  },
  // The digest now (Slack's `/net digest` posts it in the channel instead).
  { names: ['digest'], tool: 'get_digest' },
  {
    names: ['export'],
    tool: 'export_topology',
    positional: { arg: 'format', placeholder: '<json|graphml|dot>' },
  },
];

const BY_NAME = new Map<string, AliasSpec>(ALIASES.flatMap((spec) => spec.names.map((name) => [name, spec])));

/** A command resolved to a registered tool and its (still textual) arguments. */
export interface ResolvedCommand {
  tool: string;
  args: Record<string, unknown>;
}

/** One alias as help shows it. */
export interface AliasInfo {
  alias: string;
  tool: string;
  usage: string;
}

function usageOf(name: string, spec: AliasSpec): string {
  const fixed = Object.entries(spec.fixed ?? {})
    .map(([k, v]) => ` (${k}=${v})`)
    .join('');
  return spec.positional ? `${name} ${spec.positional.placeholder}` : `${name}${fixed}`;
}

function refusePositionals(parsed: ParsedCommand, what: string, hint: string): void {
  if (parsed.positionals.length === 0) return;
  const words = parsed.positionals.map((p) => `"${p}"`).join(', ');
  throw new ValidationError([{ field: 'arguments', rule: `unexpected ${words}: ${what} takes ${hint}` }]);
}

/** A hint naming the tool's first required argument, so the refusal shows the right form. */
function keyValueHint(registry: ToolRegistry, tool: string): string {
  const first = registry
    .argumentsOf(tool)
    .find((a) => a.required && !['site_id', 'confirm', 'dry_run'].includes(a.name));
  return first ? `key=value arguments, e.g. ${first.name}=…` : 'key=value arguments only';
}

/**
 * Maps a parsed `/net` command to a registered tool: a tool name maps to itself, an alias to its
 * tool with the bare word(s) as its argument. Several bare words are joined with spaces so a
 * network name with a space needs no quotes. Unknown commands get the registry's suggestions.
 */
export function resolveCommand(command0: ParsedCommand, registry: ToolRegistry): ResolvedCommand {
  let parsed = command0;
  const { command } = parsed;
  if (registry.get(command)) {
    refusePositionals(parsed, command, keyValueHint(registry, command));
    return { tool: command, args: { ...parsed.args } };
  }
  const named = BY_NAME.get(command);
  const spec =
    named?.inFleet !== undefined && registry.servesFleet() && parsed.args.console === undefined
      ? { ...named, tool: named.inFleet }
      : named;
  if (!spec) {
    registry.require(command);
    // require() throws for an unknown name; reaching here would mean the registry changed meanwhile.
    throw new ValidationError([{ field: 'tool', rule: `unknown command "${command}"` }]);
  }
  if (!registry.get(spec.tool)) {
    throw new ValidationError([
      { field: 'command', rule: `"${command}" runs ${spec.tool}, which is not available in this build` },
    ]);
  }
  const args: Record<string, unknown> = { ...spec.fixed, ...parsed.args };
  let words = parsed.positionals;
  if (
    (spec.tool === 'get_client' || spec.tool === 'find_client') &&
    words.length > 1 &&
    words[0]?.toLowerCase() === 'is'
  )
    words = words.slice(1);
  if (spec.on?.rest && words[0]?.toLowerCase() === spec.on.word) {
    const { tool, arg } = spec.on;
    const pairs = Object.entries(parsed.args).map(
      ([k, v]) => `${k}=${quoteWord(Array.isArray(v) ? v.join(',') : v)}`,
    );
    const line = [...words.slice(1).map(quoteWord), ...pairs].join(' ');
    if (line === '') {
      throw new ValidationError([
        { field: arg, rule: `is required (usage: ${command} ${spec.on.word} ${spec.on.placeholder})` },
      ]);
    }
    return { tool, args: { [arg]: line } };
  }
  if (spec.on && words.length > 1 && words[0]?.toLowerCase() === spec.on.word) {
    const { tool, arg } = spec.on;
    if (Object.hasOwn(args, arg)) {
      throw new ValidationError([{ field: arg, rule: `is given twice (as a word and as ${arg}=)` }]);
    }
    return { tool, args: { ...args, [arg]: words.slice(1).join(' ') } };
  }
  if (words !== parsed.positionals) parsed = { ...parsed, positionals: words };
  const { positional } = spec;
  if (!positional) {
    refusePositionals(parsed, command, keyValueHint(registry, spec.tool));
    return { tool: spec.tool, args };
  }
  if (parsed.positionals.length > 0) {
    if (Object.hasOwn(args, positional.arg)) {
      throw new ValidationError([
        { field: positional.arg, rule: `is given twice (as a word and as ${positional.arg}=)` },
      ]);
    }
    args[positional.arg] = parsed.positionals.join(' ');
  } else if (!Object.hasOwn(args, positional.arg)) {
    throw new ValidationError([
      { field: positional.arg, rule: `is required (usage: ${usageOf(command, spec)})` },
    ]);
  }
  return { tool: spec.tool, args };
}

/** A word as a command line needs it again: quoted when it holds a space or a quote. */
function quoteWord(word: string): string {
  return /[\s"'\\]/.test(word) || word === '' ? `"${word.replace(/["\\]/g, (c) => `\\${c}`)}"` : word;
}

/**
 * A whole `/net` command line as a registered tool, its access and its validated arguments (the
 * site filled in): what check_policy explains. Refusals are the ones the command itself would get.
 */
export function resolveToolCall(
  line: string,
  registry: ToolRegistry,
): { tool: string; access: ToolAccess; args: Record<string, unknown> } {
  const resolved = resolveCommand(parseCommandLine(line), registry);
  const tool = registry.require(resolved.tool);
  return { tool: tool.name, access: tool.access, args: registry.validate(tool.name, resolved.args) };
}

/** A face's defaults for a call (a Slack channel's binding, the console's `use`): the arguments filled in. */
export type ScopeArgs = (tool: string, args: Record<string, unknown>) => Record<string, unknown>;

/**
 * `resolveCommand` with the face's defaults applied (`scope`), then, for a shortcut that means
 * another tool on a zone-based site (`firewall`, `rules`), the tool for the firewall of the site
 * the call goes to: on the console it names (or its channel or `use` names), not the default one,
 * since a fleet mixes generations. Its policies there, its rules on a traditional site. A site
 * whose generation cannot be told, or a fleet call naming no console, keeps the shortcut's tool.
 */
export async function resolveCommandOnSite(
  parsed: ParsedCommand,
  registry: ToolRegistry,
  gateway: Gateway,
  scope?: ScopeArgs,
): Promise<ResolvedCommand> {
  const plain = resolveCommand(parsed, registry);
  const resolved = scope === undefined ? plain : { tool: plain.tool, args: scope(plain.tool, plain.args) };
  const spec = BY_NAME.get(parsed.command);
  if (!spec?.onZoneBased || registry.get(parsed.command) || !registry.get(spec.onZoneBased)) return resolved;
  const site = registry.coerce(resolved.tool, resolved.args).site_id;
  if (typeof site !== 'string') return resolved;
  const console = resolved.args.console;
  const named = typeof console === 'string' && console !== '';
  // A fleet call without a console is refused by the registry; no console is asked on its behalf.
  if (!named && registry.servesFleet()) return resolved;
  const target = (named ? registry.consoleGateway(console) : undefined) ?? gateway;
  const generation = await firewallGeneration(target, site).catch(() => undefined);
  return generation === 'zone-based' ? { tool: spec.onZoneBased, args: resolved.args } : resolved;
}

/**
 * The tool a help topic names: `help create_network`, or a shortcut (`help vlans` is list_vlans).
 * An unknown word gets the registry's "did you mean".
 */
export function helpTopicTool(topic: string, registry: ToolRegistry): string {
  const word = topic.toLowerCase();
  const spec = BY_NAME.get(word);
  if (!registry.get(word) && spec && registry.get(spec.tool)) return spec.tool;
  return registry.require(word).name;
}

/** True for a shortcut's word (`vlans`, `who`), whether or not its tool is in this build. */
export function isAlias(command: string): boolean {
  return BY_NAME.has(command);
}

/** True for an alias whose result front ends render as a PNG picture (`topology`). */
export function isPictureAlias(command: string): boolean {
  return BY_NAME.get(command)?.picture === true;
}

/** The aliases whose tool is registered, in table order, for help text. */
export function listAliases(registry: ToolRegistry): AliasInfo[] {
  return ALIASES.filter((spec) => registry.get(spec.tool) !== undefined).flatMap((spec) =>
    spec.names.flatMap((name) => {
      const own = { alias: name, tool: spec.tool, usage: usageOf(name, spec) };
      const { on } = spec;
      if (!on || registry.get(on.tool) === undefined) return [own];
      return [own, { alias: name, tool: on.tool, usage: `${name} ${on.word} ${on.placeholder}` }];
    }),
  );
}

function zoneBasedNote(alias: string, registry: ToolRegistry): string {
  const other = BY_NAME.get(alias)?.onZoneBased;
  return other && registry.get(other) ? ` (${other} on a zone-based console)` : '';
}

/** The alias list as aligned help lines (`  vlans  → list_vlans`); empty when none is available. */
export function aliasHelpText(registry: ToolRegistry): string {
  const aliases = listAliases(registry);
  if (aliases.length === 0) return '';
  const width = Math.max(...aliases.map((a) => a.usage.length));
  const lines = aliases.map(
    (a) =>
      `  ${a.usage.padEnd(width)}  → ${a.tool}${isPictureAlias(a.alias) ? ', drawn as a PNG picture' : ''}${zoneBasedNote(a.alias, registry)}`,
  );
  return ['Shortcuts:', ...lines].join('\n');
}
