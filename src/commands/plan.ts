import { ValidationError } from '../errors.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import { resolveCommand } from './aliases.js';
import { parseCommandLine } from './parse-command-line.js';

/** One step of a plan as typed: the tool and its arguments, and the line it came from. */
export interface PlanStep {
  tool: string;
  args: Record<string, unknown>;
  line: number;
}

/**
 * A plan's text (`/net plan` and its following lines, a console plan file) as the steps of
 * a change set: one command per line, in the `/net` grammar (with or without `/net`), blank lines
 * and `#` comments skipped. A read, or a line that is no command, is refused naming its line; the
 * steps' own arguments are checked later, with the whole set, on the planned state.
 */
export function parsePlan(text: string, registry: ToolRegistry): PlanStep[] {
  const steps: PlanStep[] = [];
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim().replace(/^\/net\s+/, '');
    if (line === '' || line.startsWith('#')) continue;
    const where = `line ${index + 1}`;
    let tool: string;
    let args: Record<string, unknown>;
    try {
      ({ tool, args } = resolveCommand(parseCommandLine(line), registry));
    } catch (error) {
      if (error instanceof ValidationError) {
        throw new ValidationError(
          error.issues.map((issue) => ({ ...issue, field: `${where} ${issue.field}` })),
        );
      }
      if (error instanceof Error) error.message = `${where}: ${error.message}`;
      throw error;
    }
    if (registry.require(tool).access !== 'write') {
      throw new ValidationError([
        { field: `${where} (${tool})`, rule: 'only reads; a plan holds writes only (one write per line)' },
      ]);
    }
    steps.push({ tool, args, line: index + 1 });
  }
  if (steps.length === 0) {
    throw new ValidationError([
      {
        field: 'plan',
        rule: 'has no commands: give one write per line after plan (e.g. create_network name=Lab vlan_id=40)',
      },
    ]);
  }
  return steps;
}

/** `on_failure=stop` and `title="…"` given on the plan line itself. */
export function planOptions(args: Record<string, unknown>): {
  title?: string;
  onFailure?: 'rollback' | 'stop';
} {
  const unknown = Object.keys(args).filter((key) => key !== 'title' && key !== 'on_failure');
  if (unknown.length > 0) {
    throw new ValidationError([
      { field: unknown[0] as string, rule: 'is not an option of plan (it takes title and on_failure)' },
    ]);
  }
  const onFailure = args.on_failure;
  if (onFailure !== undefined && onFailure !== 'rollback' && onFailure !== 'stop') {
    throw new ValidationError([{ field: 'on_failure', rule: 'must be rollback or stop' }]);
  }
  const title = args.title;
  return {
    ...(title !== undefined ? { title: Array.isArray(title) ? title.join(',') : String(title) } : {}),
    ...(onFailure !== undefined ? { onFailure } : {}),
  };
}
