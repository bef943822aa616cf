/**
 * A change made on one console of a fleet is read back, verified and undone on that console: the
 * reads and the inverse a write tool's change spec builds from its arguments carry the write's
 * `console=` along (the specs themselves know nothing of consoles).
 */
import type { ChangeSpec, ImageRead, InversePlan, Json } from './change-spec.js';
import type { ToolDefinition } from './define-tool.js';

function consoleOf(args: Json): string | undefined {
  return typeof args.console === 'string' && args.console !== '' ? args.console : undefined;
}

function onConsole(console: string | undefined, read: ImageRead | undefined): ImageRead | undefined {
  if (console === undefined || read === undefined) return read;
  const { direct } = read;
  return {
    ...read,
    args: { console, ...read.args },
    // A direct read is handed a context: its gateway must be the console's, not the default one.
    ...(direct
      ? {
          direct: (context) =>
            direct({ ...context, gateway: context.consoles?.gateway(console) ?? context.gateway, console }),
        }
      : {}),
  };
}

/** The spec, with every read and the inverse it builds kept on the write's console. */
export function onSameConsole(spec: ChangeSpec): ChangeSpec {
  const { beforeRead, afterRead, createdByName } = spec;
  return {
    ...spec,
    ...(beforeRead
      ? { beforeRead: (args: Json) => onConsole(consoleOf(args), beforeRead(args)) as ImageRead }
      : {}),
    ...(afterRead
      ? {
          afterRead: (args: Json, result, before) =>
            onConsole(consoleOf(args), afterRead(args, result, before)),
        }
      : {}),
    inverse(input) {
      const plan = spec.inverse(input);
      const console = consoleOf(input.args);
      if (console === undefined || !('tool' in plan)) return plan;
      return { ...plan, args: { console, ...plan.args } } satisfies InversePlan;
    },
    ...(createdByName
      ? {
          createdByName: {
            read: (args: Json) => onConsole(consoleOf(args), createdByName.read(args)),
            result: createdByName.result,
          },
        }
      : {}),
  };
}

/** The tool, its change spec (if any) kept on the write's console. */
export function withConsoleSpec<T extends ToolDefinition>(tool: T): T {
  return tool.change === undefined ? tool : { ...tool, change: onSameConsole(tool.change) };
}
