/**
 * The change spec of a write tool, as its own definition carries it: what changes/ reads before
 * and after the write, verifies, and offers as the Revert.
 */

import type { ChangeSpec } from '../tools/core/change-spec.js';
import { toolGroups } from '../tools/index.js';

export type {
  ChangeSpec,
  Expected,
  ImageRead,
  InverseInput,
  InversePlan,
} from '../tools/core/change-spec.js';

const SPECS = new Map<string, ChangeSpec>(
  toolGroups.flatMap((group) =>
    group.tools.flatMap((tool) => (tool.change ? [[tool.name, tool.change]] : [])),
  ),
);

/** The spec of a write tool; undefined for a tool whose object the bot does not read back yet. */
export function changeSpec(tool: string): ChangeSpec | undefined {
  return SPECS.get(tool);
}

/** Write tools with a spec, for tests and docs. */
export function specifiedTools(): string[] {
  return [...SPECS.keys()];
}

/** Why a change of a tool without a spec offers no Revert. */
export function noSpecReason(tool: string): string {
  return `the bot does not yet read back or undo ${tool} changes; undo it with the matching tool by hand`;
}
