import { NotSupportedError } from '../../errors.js';
import type { ToolDefinition, ToolGroup } from './define-tool.js';

/*
 * The tool groups as tools/index.ts lists them, for code inside tools/ that needs another tool's
 * definition by name (check_policy and the console's risk lines assess a change of any tool).
 * Importing the index from there would close an import cycle through every group, so the index
 * hands its list over here once, when it loads.
 */

let groups: readonly ToolGroup[] | undefined;

/** Called by tools/index.ts with its groups. */
export function useToolGroups(list: readonly ToolGroup[]): void {
  groups = list;
}

/** The definition of a tool by name; undefined for a name no group has. */
export function toolDefinition(name: string): ToolDefinition | undefined {
  // A process that never loaded tools/index.ts would silently lose every blast radius.
  if (!groups) throw new NotSupportedError('the tool groups are not loaded in this process (tools/index.ts)');
  for (const group of groups) {
    const found = group.tools.find((tool) => tool.name === name);
    if (found) return found;
  }
  return undefined;
}
