import type { Gateway } from '../../gateway/types.js';
import type { KeyValueStore } from '../../lib/json-file-store.js';
import type { Logger } from '../../log.js';
import type { Policy } from '../../policy/policy.js';
import type { TelemetryReader } from '../../telemetry/index.js';

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

/** The guardrails of this process: the policy in effect and what self-lockout is measured against. */
export interface Guardrails {
  policy: Policy;
  /** The controller's URL (GATEWAY_URL, or the built-in simulator's); unset in cloud mode. */
  controllerUrl?: string;
  /** BOT_SOURCE_ADDRESS: the bot's own address as the network sees it, instead of asking the socket. */
  sourceAddress?: string;
  /** Resolves a `/net` command line to a registered tool and its validated arguments (app.ts wires the registry). */
  resolve(line: string): { tool: string; access: ToolAccess; args: Record<string, unknown> };
  /** Clock (ms since the epoch); tests fix it. */
  now(): number;
}
