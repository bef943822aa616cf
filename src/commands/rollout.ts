import { ValidationError } from '../errors.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import { resolveCommand } from './aliases.js';
import type { ParsedCommand } from './parse-command-line.js';

/** The words a rollout takes for itself; every other `key=value` belongs to the write. */
export const ROLLOUT_OPTIONS = ['sites', 'waves', 'soak', 'title'] as const;

/** `sites=`, `waves=`, `soak=` and `title=` as typed (checked when the rollout is proposed). */
export interface RolloutOptions {
  sites: string | string[];
  waves?: string | string[];
  soak?: string;
  title?: string;
}

/** What `rollout …` asks: one write, or a plan (its lines, or at the console a file). */
export type RolloutWhat =
  | { kind: 'write'; tool: string; args: Record<string, unknown> }
  | { kind: 'plan'; file?: string; lines: string[] };

/**
 * `rollout <write> sites=… waves=… soak=…` or `rollout plan sites=… …` (the plan's lines after
 * it in Slack, or a file named at the console): the write or plan, and the rollout's own options.
 * `sites=` is required; a read, or no write at all, is refused naming the field.
 */
export function parseRollout(
  parsed: ParsedCommand,
  lines: readonly string[],
  registry: ToolRegistry,
): { what: RolloutWhat; options: RolloutOptions } {
  const own: Record<string, string | string[]> = {};
  const rest: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(parsed.args)) {
    if ((ROLLOUT_OPTIONS as readonly string[]).includes(key)) own[key] = value;
    else rest[key] = value;
  }
  const sites = own.sites;
  if (sites === undefined || (typeof sites === 'string' && sites.trim() === '')) {
    throw new ValidationError([
      { field: 'sites', rule: 'is required: a console label (customer=acme), console/site pairs, or *' },
    ]);
  }
  const text = (value: string | string[] | undefined) =>
    value === undefined ? undefined : Array.isArray(value) ? value.join(',') : value;
  const options: RolloutOptions = {
    sites,
    ...(own.waves !== undefined ? { waves: own.waves } : {}),
    ...(own.soak !== undefined ? { soak: text(own.soak) as string } : {}),
    ...(own.title !== undefined ? { title: text(own.title) as string } : {}),
  };
  const [word, ...positionals] = parsed.positionals;
  if (word === undefined) {
    throw new ValidationError([
      { field: 'write', rule: 'rollout needs a write (rollout update_network …) or plan, then sites=' },
    ]);
  }
  if (word.toLowerCase() === 'plan') {
    if (Object.keys(rest).length > 0) {
      throw new ValidationError([
        {
          field: Object.keys(rest)[0] as string,
          rule: 'is not an option of rollout plan (it takes sites, waves, soak, title)',
        },
      ]);
    }
    const [file] = positionals;
    return { what: { kind: 'plan', ...(file !== undefined ? { file } : {}), lines: [...lines] }, options };
  }
  if (lines.some((line) => line.trim() !== '')) {
    throw new ValidationError([
      { field: 'write', rule: 'lines after a rollout are a plan: start it with rollout plan sites=…' },
    ]);
  }
  const { tool, args } = resolveCommand({ command: word.toLowerCase(), positionals, args: rest }, registry);
  if (registry.require(tool).access !== 'write') {
    throw new ValidationError([{ field: 'write', rule: `${tool} only reads; a rollout writes` }]);
  }
  return { what: { kind: 'write', tool, args }, options };
}
