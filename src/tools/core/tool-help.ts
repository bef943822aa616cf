import type { ToolDefinition } from './define-tool.js';
import { generationNote } from './firewall-generation.js';
import { type ArgumentInfo, argumentsOf } from './schema-introspection.js';

// confirm is supplied by an approval (the Approve button, the console prompt, --yes), never typed.
const NOT_SHOWN = new Set(['confirm']);
// Every tool has these; they go last so the tool's own arguments come first.
const GENERIC = ['site_id', 'dry_run'];

function range(min: number | undefined, max: number | undefined, unit = ''): string | undefined {
  if (min !== undefined && max !== undefined) return `${min}–${max}${unit}`;
  if (min !== undefined) return `at least ${min}${unit}`;
  if (max !== undefined) return `at most ${max}${unit}`;
  return undefined;
}

/** An argument's type in words with its allowed values or bounds: "whole number 1–4094". */
export function typeText(arg: ArgumentInfo): string {
  switch (arg.kind) {
    case 'number': {
      const bounds = range(arg.min, arg.max);
      return `${arg.integer ? 'whole number' : 'number'}${bounds ? ` ${bounds}` : ''}`;
    }
    case 'string': {
      const min = arg.min !== undefined && arg.min > 1 ? arg.min : undefined;
      const bounds = range(min, arg.max, ' characters');
      return bounds ? `text, ${bounds}` : 'text';
    }
    case 'boolean':
      return 'true or false';
    case 'enum': {
      // A value the spec names but the tool refuses is listed with why, beside the value.
      const values = (arg.options ?? []).map((v) => (arg.refused?.[v] ? `${v} (${arg.refused[v]})` : v));
      return `one of ${values.join(', ')}`;
    }
    case 'array': {
      const bounds = range(arg.min, arg.max, ' items');
      return `list a,b,c${bounds ? `, ${bounds}` : ''}`;
    }
    default:
      return 'value';
  }
}

/** The default as help shows it; site_id's comes from the configuration, not the schema. */
function defaultOf(arg: ArgumentInfo, site: string): string | undefined {
  if (arg.name === 'site_id') return site;
  if (arg.defaultValue === undefined) return undefined;
  return typeof arg.defaultValue === 'string' ? arg.defaultValue : JSON.stringify(arg.defaultValue);
}

/** Whether a person must give it: site_id has a default even though the schema requires it. */
function isRequired(arg: ArgumentInfo): boolean {
  return arg.required && arg.name !== 'site_id';
}

/**
 * A form input's hint: what the label cannot say (bounds, a default, the description). Enum
 * choices are the select's options, so only a default is added for them.
 */
export function argumentHint(arg: ArgumentInfo, site: string): string | undefined {
  const parts: string[] = [];
  if (arg.description) parts.push(arg.description);
  if (arg.kind === 'number' || arg.kind === 'string' || arg.kind === 'array') {
    const type = typeText(arg);
    if (type !== 'text') parts.push(type.charAt(0).toUpperCase() + type.slice(1));
  }
  const fallback = defaultOf(arg, site);
  if (fallback !== undefined) parts.push(`Default: ${fallback}`);
  return parts.length > 0 ? parts.join(' · ') : undefined;
}

/** The arguments help lists, in the order it lists them. */
export function helpArguments(tool: ToolDefinition): ArgumentInfo[] {
  const all = argumentsOf(tool.args).filter((a) => !NOT_SHOWN.has(a.name));
  const own = all.filter((a) => !GENERIC.includes(a.name));
  return [...own, ...GENERIC.flatMap((name) => all.filter((a) => a.name === name))];
}

/** The full call of a tool's example, or undefined when it has none. */
export function exampleLine(tool: ToolDefinition): string | undefined {
  if (tool.example === undefined) return undefined;
  return [tool.name, tool.example].filter((p) => p !== '').join(' ');
}

/**
 * Help for one tool, generated from its definition so every front end shows the same: each
 * argument with its type, whether it is required, its default, allowed values and bounds; whether
 * the tool writes; and an example that works on the demo site.
 */
export function toolHelpText(tool: ToolDefinition, site: string): string {
  const args = helpArguments(tool);
  const width = Math.max(0, ...args.map((a) => a.name.length));
  const lines = args.map((arg) => {
    const fallback = defaultOf(arg, site);
    const facts = `${typeText(arg)}${fallback !== undefined ? ` (default: ${fallback})` : ''}`;
    const about = arg.description ? ` — ${arg.description}` : '';
    return `  ${arg.name.padEnd(width)}  ${isRequired(arg) ? 'required' : 'optional'}  ${facts}${about}`;
  });
  const access =
    tool.access === 'write'
      ? 'Access: write. It changes the network: a preview is shown first, and it runs only once approved.'
      : 'Access: read. It changes nothing.';
  const example = exampleLine(tool);
  // The demo site is zone-based unless the simulator is started with the legacy firewall.
  const exampleLabel =
    tool.firewall === 'legacy' ? 'Example (legacy demo: SIMULATOR_FIREWALL=legacy)' : 'Example';
  return [
    `${tool.name}: ${tool.description}`,
    access,
    ...(tool.firewall !== undefined ? [generationNote(tool.firewall)] : []),
    '',
    args.length > 0 ? 'Arguments:' : 'Arguments: none',
    ...lines,
    ...(example !== undefined ? ['', `${exampleLabel}: ${example}`] : []),
  ].join('\n');
}
