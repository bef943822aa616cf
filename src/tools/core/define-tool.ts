import type { z } from 'zod';
import type { ApiGroup } from '../../gateway/capabilities.js';
import type { ChangeSpec } from './change-spec.js';
import type { ToolAccess, ToolContext } from './context.js';
import type { FirewallGeneration } from './firewall-generation.js';
import type { ImpactGatherer } from './guardrails.js';

/** One tool of the spec: a name, a zod schema for its arguments, and what it does. */
export interface ToolDefinition<A extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  access: ToolAccess;
  args: A;
  /**
   * The arguments of one call that works on the simulator's demo site (`name=Lab vlan_id=40 …`,
   * empty for a tool without any), shown by per-tool help; a test runs every one.
   */
  example?: string;
  /**
   * The one firewall generation the tool works on (unset: both). Help says so, and the example
   * runs on that generation's demo site (the default demo is zone-based; `legacy` needs
   * SIMULATOR_FIREWALL=legacy).
   */
  firewall?: FirewallGeneration;
  /**
   * What `run` returns (for a write: once confirmed), declared for MCP's output schema. An array
   * result is described as MCP carries it, under `result`; a write's dry run and a change request
   * are described by the MCP front end itself.
   */
  output?: z.ZodType;
  /**
   * Result columns (or `key: value` keys) that hold something a reader copies although neither
   * their key nor their values say so, such as `applies_to: network IoT (VLAN 20)`. Tables never
   * cut them: ids, names, MACs and addresses are recognised by key and shape already.
   */
  identifierColumns?: readonly string[];
  /**
   * A write tool's change: the object it touches, how to read it before and after, what the
   * after-image must hold, and the write that undoes it. Unset: changes/ offers no Revert.
   */
  change?: ChangeSpec;
  /**
   * A write tool's blast radius, read fresh before approval (clients, devices, references,
   * self-lockout). Unset: the target is named from the arguments and nothing is counted.
   */
  impact?: ImpactGatherer;
  // Method syntax keeps tools with different argument types assignable to one array.
  run(args: z.output<A>, context: ToolContext): Promise<unknown>;
}

/** Builds a tool; the identity function that gives `run` its argument types. */
export function defineTool<A extends z.ZodObject>(definition: ToolDefinition<A>): ToolDefinition<A> {
  return definition;
}

/** A named set of tools: one file per group, and the help and docs/tools.md tables follow the groups. */
export interface ToolGroup {
  title: string;
  /** The group's row in the gateway's capability table: help says which endpoints it uses. */
  api?: ApiGroup;
  tools: readonly ToolDefinition[];
}

/** The controller's status as the faces show it (App Home): they reach the gateway only through tools/. */
export type { ControllerStatus } from '../../gateway/types.js';
export type { ToolAccess, ToolContext } from './context.js';
