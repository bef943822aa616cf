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
  /**
   * Every console this bot serves (one, `default`, without CONSOLES_FILE); the registry picks the
   * gateway of a call's `console=` from it. Fleet-wide tools (list_consoles) read them all.
   */
  consoles?: ConsolePort;
  /** The console this call runs against, when the registry picked one by name. */
  console?: string;
}

/** One console as tools see it: its name, labels and how it is reached (no secret). */
export interface ConsoleSummary {
  name: string;
  labels: Readonly<Record<string, string>>;
  /** `local`: its own address; `connector`: through the cloud; `single`: the GATEWAY_* console. */
  via: 'local' | 'connector' | 'single';
  /** Classic site names it serves; undefined: every site. */
  sites: readonly string[] | undefined;
}

/** The consoles of this process (src/consoles/ builds it); each gateway is built on first use. */
export interface ConsolePort {
  /** More than one console: a call must name its console (`console=`). */
  readonly fleet: boolean;
  list(): readonly ConsoleSummary[];
  /** The gateway of the console named `name`; ValidationError on a name not served. */
  gateway(name: string): Gateway;
  /** How long one read may wait in all (GATEWAY_READ_BUDGET_MS): a fan-out stops waiting after it. */
  readonly readBudgetMs: number;
  /** The consoles (and site) a Slack channel is bound to; undefined for a channel not bound. */
  channel(channelId: string): ChannelScope | undefined;
  /** The Slack channels the consoles file binds, in its order (each gets the daily digest of its scope). */
  boundChannels?(): readonly string[];
}

/** What a Slack channel is bound to, as a command in it sees it. */
export interface ChannelScope {
  /** The consoles the channel reaches (one for a console binding, every labelled one for a label binding). */
  consoles: readonly string[];
  /** The one site, when the binding names it. */
  site: string | undefined;
  /** The labels of a label binding (the digest's header names them). */
  labels?: Readonly<Record<string, string>>;
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
