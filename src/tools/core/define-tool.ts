import type { z } from 'zod';
import type { ApiGroup } from '../../gateway/capabilities.js';
import type { Gateway } from '../../gateway/types.js';
import type { KeyValueStore } from '../../lib/json-file-store.js';
import type { Logger } from '../../log.js';
import type { TelemetryReader } from '../../telemetry/index.js';
import type { FirewallGeneration } from './firewall-generation.js';
import type { Guardrails } from './impact.js';

/** Reads change nothing; writes need confirm (or dry_run) and go through approvals in Slack. */
export type ToolAccess = 'read' | 'write';

/** What a tool gets besides its arguments. */
export interface ToolContext {
  gateway: Gateway;
  logger: Logger;
  /** Durable bot-kept data (files or PostgreSQL) the controller has no field for, e.g. zone descriptions. */
  store: KeyValueStore;
  /** Sampled live counters; absent in a process that samples nothing. */
  telemetry?: TelemetryReader;
  /** The policy in effect and what blast radius and self-lockout are measured against. */
  guardrails?: Guardrails;
  /**
   * Who approved the write this run carries out (set by the change runner): a tool that acts on
   * another change (keep_change) is decided for this person, never for the bot.
   */
  actor?: { userId: string; name?: string };
}

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
