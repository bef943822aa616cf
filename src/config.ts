import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { auditConfig, auditRules, auditShape } from './config/audit.js';
import {
  blankToUndefined,
  booleanFlag,
  channelId,
  httpUrl,
  idList,
  integer,
  isCronPattern,
  type McpToken,
  mcpTokens,
  optionalString,
  readableFile,
} from './config/fields.js';
import { identityConfig, identityRules, identityShape } from './config/identity.js';
import { onCallConfig, onCallRules, onCallShape } from './config/oncall.js';
import { type StoreConfig, storeConfig, storeEnvSchema, storeRules, storeShape } from './config/store.js';
import { ConfigError, type FieldIssue } from './errors.js';
import { isTimeZone } from './lib/time-zone.js';

export type { McpToken } from './config/fields.js';
export type { DatabaseConfig, DatabaseSsl, StoreConfig } from './config/store.js';

/** Firewall generations the built-in simulator's demo site can run (SIMULATOR_FIREWALL). */
export const SIMULATOR_FIREWALLS = ['zone-based', 'legacy'] as const;

/** How writes through MCP are handled (MCP_WRITES). */
export const MCP_WRITE_MODES = ['approval', 'confirm', 'off'] as const;
export type McpWriteMode = (typeof MCP_WRITE_MODES)[number];

/** pino levels accepted by LOG_LEVEL. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The shortest SLACK_SIGNING_SECRET accepted in HTTP mode (Slack's own are 32 hex characters). */
export const MIN_SIGNING_SECRET_LENGTH = 16;

const envSchema = z
  .object({
    SLACK_BOT_TOKEN: z.preprocess(
      blankToUndefined,
      z
        .string()
        .trim()
        .regex(/^xoxb-/, { message: 'must be a bot token starting with xoxb-' })
        .optional(),
    ),
    SLACK_SIGNING_SECRET: optionalString,
    SLACK_APP_TOKEN: z.preprocess(
      blankToUndefined,
      z
        .string()
        .trim()
        .regex(/^xapp-/, { message: 'must be an app-level token starting with xapp-' })
        .optional(),
    ),
    SLACK_API_URL: httpUrl,
    PORT: integer(0, 65535, 3000),
    GATEWAY_API_TYPE: z.preprocess(
      (v) => (typeof v === 'string' ? blankToUndefined(v.trim().toLowerCase()) : v),
      z.enum(['local', 'cloud'], { message: 'must be local or cloud' }).default('local'),
    ),
    GATEWAY_URL: httpUrl,
    GATEWAY_API_KEY: optionalString,
    GATEWAY_USERNAME: optionalString,
    GATEWAY_PASSWORD: z.preprocess(blankToUndefined, z.string().optional()),
    GATEWAY_VERIFY_TLS: booleanFlag(true),
    GATEWAY_CA_FILE: readableFile,
    GATEWAY_CONSOLE_ID: optionalString,
    GATEWAY_TIMEOUT_MS: integer(100, 120_000, 10_000),
    GATEWAY_READ_BUDGET_MS: integer(100, 120_000, 8_000),
    GATEWAY_MAX_RESPONSE_BYTES: integer(65_536, 1_073_741_824, 33_554_432),
    // Several consoles (src/fleet/consoles-file.ts); read and checked at start by src/consoles/.
    CONSOLES_FILE: readableFile,
    DEFAULT_SITE: z.preprocess(
      blankToUndefined,
      z
        .string()
        .trim()
        .regex(/^[A-Za-z0-9_-]{1,64}$/, { message: 'must be a site name such as default' })
        .default('default'),
    ),
    APPROVERS: idList(/^[UWS][A-Z0-9]{2,}$/, 'Slack user ids (U…) and user-group ids (S…)'),
    ALLOW_SELF_APPROVAL: booleanFlag(false),
    REQUESTERS: idList(/^[UWS][A-Z0-9]{2,}$/, 'Slack user ids (U…) and user-group ids (S…)'),
    WRITE_CHANNELS: idList(/^[CGD][A-Z0-9]{2,}$/, 'Slack channel ids (C…, G…)'),
    APPROVAL_TTL_SECONDS: integer(30, 604_800, 900),
    APPROVAL_REMIND_SECONDS: integer(0, 604_800, 300),
    ...storeShape,
    ...auditShape,
    ...onCallShape,
    ...identityShape,
    AUDIT_CHANNEL: z.preprocess(
      blankToUndefined,
      z
        .string()
        .trim()
        .regex(/^[CG][A-Z0-9]{2,}$/, { message: 'must be a Slack channel id (C…)' })
        .optional(),
    ),
    JOURNAL_ANCHOR_MINUTES: integer(0, 1440, 15),
    SHUTDOWN_GRACE_SECONDS: integer(0, 600, 20),
    TELEMETRY_INTERVAL_SECONDS: integer(0, 3600, 60),
    // How often due change timers (Keep-or-revert deadlines, change windows) are checked.
    CHANGE_TIMER_TICK_SECONDS: integer(1, 60, 5),
    // Watch the network (alerts, drift, digest, Alarm Manager webhooks).
    ALERT_CHANNEL: channelId,
    ALERT_MENTION: z.preprocess(
      blankToUndefined,
      z
        .string()
        .trim()
        .regex(/^S[A-Z0-9]{2,}$/, { message: 'must be a Slack user-group id (S…)' })
        .optional(),
    ),
    ALERT_FLAP_SECONDS: integer(0, 86_400, 120),
    ALERT_ALARMS_PER_MINUTE: integer(1, 1000, 5),
    DRIFT_CHANNEL: channelId,
    DIGEST_CHANNEL: channelId,
    DIGEST_CRON: z.preprocess(
      blankToUndefined,
      z
        .string()
        .trim()
        .refine(isCronPattern, { message: 'must be a cron pattern such as 0 8 * * *' })
        .default('0 8 * * *'),
    ),
    TZ: z.preprocess(
      // glibc's `:/etc/localtime` form names the system's zone: the same as unset.
      (v) => (typeof v === 'string' && v.trim().startsWith(':') ? undefined : blankToUndefined(v)),
      z
        .string()
        .trim()
        .refine(isTimeZone, { message: 'must be an IANA time zone such as Europe/Paris' })
        .optional(),
    ),
    WATCH_INTERVAL_SECONDS: integer(1, 3600, 30),
    DRIFT_INTERVAL_SECONDS: integer(1, 86_400, 300),
    UNIFI_WEBHOOK_SECRET: z.preprocess(
      blankToUndefined,
      z.string().min(16, { message: 'must be at least 16 characters' }).optional(),
    ),
    LOG_LEVEL: z.preprocess(
      (v) => (typeof v === 'string' ? blankToUndefined(v.trim().toLowerCase()) : v),
      z.enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
    ),
    SIMULATOR_FIREWALL: z.preprocess(
      (v) => (typeof v === 'string' ? blankToUndefined(v.trim().toLowerCase()) : v),
      z.enum(SIMULATOR_FIREWALLS, { message: 'must be zone-based or legacy' }).default('zone-based'),
    ),
    // The Network version the built-in simulator plays (which official operations exist).
    SIMULATOR_API_VERSION: z.preprocess(
      (v) => (typeof v === 'string' ? blankToUndefined(v.trim()) : v),
      z
        .string()
        .regex(/^\d{1,2}\.\d{1,2}(\.\d{1,4})?$/, { message: 'must be a version such as 9.0 or 10.1' })
        .default('10.1'),
    ),
    // Where the built-in simulator logs the bot's Integration requests (the test suite's check).
    SIMULATOR_REQUEST_LOG: z.preprocess(blankToUndefined, z.string().optional()),
    MCP_TOKEN: mcpTokens,
    MCP_WRITES: z.preprocess(
      (v) => (typeof v === 'string' ? blankToUndefined(v.trim().toLowerCase()) : v),
      z.enum(MCP_WRITE_MODES, { message: 'must be approval, confirm or off' }).optional(),
    ),
    MCP_APPROVAL_CHANNEL: z.preprocess(
      blankToUndefined,
      z
        .string()
        .trim()
        .regex(/^[CG][A-Z0-9]{2,}$/, { message: 'must be a Slack channel id (C…)' })
        .optional(),
    ),
    // Guardrail rules (read and checked at start by src/policy-startup.ts).
    POLICY_FILE: readableFile,
    // The bot's own address as the network sees it, when the socket's own is not (NAT, tests).
    BOT_SOURCE_ADDRESS: z.preprocess(
      blankToUndefined,
      z
        .string()
        .trim()
        .regex(/^\d{1,3}(\.\d{1,3}){3}$/, { message: 'must be an IPv4 address such as 10.20.0.50' })
        .optional(),
    ),
  })
  .superRefine((env, ctx) => {
    storeRules(env, ctx);
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (env.SLACK_APP_TOKEN && !env.SLACK_BOT_TOKEN) {
      issue('SLACK_BOT_TOKEN', 'is required when SLACK_APP_TOKEN is set');
    }
    if (Boolean(env.GATEWAY_USERNAME) !== Boolean(env.GATEWAY_PASSWORD)) {
      issue(env.GATEWAY_USERNAME ? 'GATEWAY_PASSWORD' : 'GATEWAY_USERNAME', 'is required with the other');
    }
    if (env.GATEWAY_API_TYPE === 'cloud') {
      if (!env.GATEWAY_API_KEY) issue('GATEWAY_API_KEY', 'is required when GATEWAY_API_TYPE=cloud');
      if (env.GATEWAY_USERNAME) {
        issue('GATEWAY_USERNAME', 'is not used in cloud mode: the Site Manager API takes an API key only');
      }
    } else if (env.GATEWAY_URL && !env.GATEWAY_API_KEY && !env.GATEWAY_USERNAME) {
      issue('GATEWAY_API_KEY', 'is required with GATEWAY_URL (or set GATEWAY_USERNAME and GATEWAY_PASSWORD)');
    }
    mcpRules(env, issue);
    auditRules(env, issue);
    onCallRules(env, issue);
    identityRules(env, issue);
  });

/** MCP_WRITES when unset: change requests in Slack when the bot has Slack, the spec's confirm flag otherwise. */
function mcpWrites(env: { MCP_WRITES?: McpWriteMode; SLACK_BOT_TOKEN?: string }): McpWriteMode {
  return env.MCP_WRITES ?? (env.SLACK_BOT_TOKEN ? 'approval' : 'confirm');
}

function mcpRules(
  env: {
    MCP_TOKEN?: McpToken[];
    MCP_WRITES?: McpWriteMode;
    MCP_APPROVAL_CHANNEL?: string;
    SLACK_BOT_TOKEN?: string;
    WRITE_CHANNELS: string[];
    ALLOW_SELF_APPROVAL?: boolean;
  },
  issue: (path: string, message: string) => void,
): void {
  const writes = mcpWrites(env);
  // A token not labelled with its holder's Slack user id would let the holder approve their own
  // proposal in Slack. Four eyes needs to know whose the token is (docs/decisions.md).
  const unowned = (env.MCP_TOKEN ?? []).filter((t) => !/^[UW][A-Z0-9]{2,}$/.test(t.label));
  if (env.SLACK_BOT_TOKEN && writes === 'approval' && !env.ALLOW_SELF_APPROVAL && unowned.length > 0) {
    issue(
      'MCP_TOKEN',
      `each label must be the Slack user id of the token's holder (U0ALICE:<secret>) when MCP writes need a person's approval, so nobody approves their own proposal; not: ${unowned.map((t) => (t.label === 'mcp' ? 'a bare secret (label mcp)' : `"${t.label}"`)).join(', ')}. Or set MCP_WRITES=off (or confirm)`,
    );
  }
  // The HTTP endpoint lives in the Slack bot; stdio (`netops mcp`) checks the channel when it starts.
  if (env.MCP_TOKEN && env.SLACK_BOT_TOKEN && writes === 'approval' && !env.MCP_APPROVAL_CHANNEL) {
    issue(
      'MCP_APPROVAL_CHANNEL',
      'is required when MCP writes become change requests (MCP_WRITES=approval, the default with Slack); or set MCP_WRITES=confirm or off',
    );
  }
  const channel = env.MCP_APPROVAL_CHANNEL;
  if (channel && env.WRITE_CHANNELS.length > 0 && !env.WRITE_CHANNELS.includes(channel)) {
    issue('MCP_APPROVAL_CHANNEL', 'must be one of WRITE_CHANNELS, where changes may be requested');
  }
}

/**
 * Whether this process runs in a container (Docker, Podman, Kubernetes): the marker files the
 * engines create, or the variable Kubernetes sets in every pod.
 */
export function runningInContainer(
  env: NodeJS.ProcessEnv = process.env,
  exists: (path: string) => boolean = existsSync,
): boolean {
  return Boolean(env.KUBERNETES_SERVICE_HOST) || exists('/.dockerenv') || exists('/run/.containerenv');
}

/**
 * Settings that are valid but do not do what whoever set them likely meant: one line each, logged
 * at start by every face. Not errors, because the console and `netops mcp` stay fully usable.
 */
export function configWarnings(config: Config, host: { container?: boolean } = {}): string[] {
  const warnings: string[] = [];
  // Behind a container's NAT the socket's own address is the container's, which no firewall rule
  // or VLAN on the controller ever sees: the self-lockout check would look at the wrong address.
  if (
    host.container &&
    config.gateway.url &&
    config.gateway.apiType === 'local' &&
    !config.policy.sourceAddress
  ) {
    warnings.push(
      'BOT_SOURCE_ADDRESS is unset in a container: self-lockout checks would use the container’s own address, not the one the controller sees. Set BOT_SOURCE_ADDRESS to the address the bot’s traffic leaves from (the Docker host’s LAN address; on Kubernetes the node’s, which deploy/kubernetes.yaml sets from status.hostIP).',
    );
  }
  if (config.mcp.tokens.length > 0 && !config.slack.botToken) {
    warnings.push(
      'MCP_TOKEN is set but SLACK_BOT_TOKEN is not: POST /mcp is served only by the Slack bot, so no MCP endpoint is open. For an assistant on this machine use `netops mcp` (stdio, needs no token); to serve /mcp over HTTP, set SLACK_BOT_TOKEN and start the bot; or unset MCP_TOKEN.',
    );
  }
  return warnings;
}

/** Every variable config.ts reads, in the schema's order; docs/configuration.md is generated from them. */
export const ENV_VARIABLES = Object.keys(envSchema.shape) as (keyof typeof envSchema.shape)[];

/** One variable config.ts reads. */
export type EnvVariable = (typeof ENV_VARIABLES)[number];

/** Each variable's own schema (its default, its rule): what docs/configuration.md is generated from. */
export const ENV_FIELDS: Readonly<Record<EnvVariable, z.ZodType>> = envSchema.shape;

/**
 * COLUMNS belongs to the shell, not to the bot: an unusable value is ignored rather than refused,
 * and the console falls back to the TTY width.
 */
function columnsOf(value: string | undefined): number | undefined {
  const text = value?.trim() ?? '';
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const columns = Number(text);
  return columns > 0 ? columns : undefined;
}

function configError(error: z.ZodError): ConfigError {
  const issues: FieldIssue[] = error.issues.map((i) => ({
    field: String(i.path[0] ?? 'environment'),
    rule: i.message,
  }));
  return new ConfigError(issues);
}

/**
 * What the Slack bot in HTTP mode needs beyond what every face needs. Only where the Slack bot would
 * start: `netops mcp` and one-shot console commands share the bot's environment (one .env) and
 * must not be refused for a signing secret they never use.
 */
function slackHttpIssues(env: NodeJS.ProcessEnv): FieldIssue[] {
  const set = (name: string) => (env[name] ?? '').trim();
  if (!set('SLACK_BOT_TOKEN') || set('SLACK_APP_TOKEN')) return [];
  const secret = set('SLACK_SIGNING_SECRET');
  if (!secret) {
    return [
      {
        field: 'SLACK_SIGNING_SECRET',
        rule: 'is required in HTTP mode (SLACK_BOT_TOKEN set, SLACK_APP_TOKEN unset); or set SLACK_APP_TOKEN for Socket Mode',
      },
    ];
  }
  // Every request is authenticated by this secret alone: a short one can be guessed offline
  // from one signed request. Slack's are 32 hex characters. The value is never echoed.
  if (secret.length >= MIN_SIGNING_SECRET_LENGTH) return [];
  return [
    {
      field: 'SLACK_SIGNING_SECRET',
      rule: `must be the app's Signing Secret (Basic Information → App Credentials), at least ${MIN_SIGNING_SECRET_LENGTH} characters`,
    },
  ];
}

/** Only the store's variables (DATA_DIR, DATABASE_*, JOURNAL_KEY): what audit:verify and store:import need. */
export function loadStoreConfig(env: NodeJS.ProcessEnv = process.env): StoreConfig {
  const parsed = storeEnvSchema.safeParse(env);
  if (!parsed.success) throw configError(parsed.error);
  return storeConfig(parsed.data);
}

/**
 * Parses the environment; throws ConfigError naming every bad variable and its rule. `slackBot`:
 * whether this process is the Slack bot (no command-line arguments), so the Slack HTTP-mode rules
 * apply; a one-shot command or `netops mcp` passes false.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  options: { slackBot?: boolean } = {},
): Config {
  const parsed = envSchema.safeParse(env);
  const slackIssues = options.slackBot === false ? [] : slackHttpIssues(env);
  if (!parsed.success || slackIssues.length > 0) {
    throw new ConfigError([...(parsed.success ? [] : configError(parsed.error).issues), ...slackIssues]);
  }
  return configFrom(parsed.data, env);
}

/** The variables as the schema parsed them. */
type Env = z.output<typeof envSchema>;

/** The whole runtime configuration, parsed once from the environment: `Config` is what this returns. */
function configFrom(e: Env, env: NodeJS.ProcessEnv) {
  return {
    slack: {
      botToken: e.SLACK_BOT_TOKEN,
      signingSecret: e.SLACK_SIGNING_SECRET,
      appToken: e.SLACK_APP_TOKEN,
      apiUrl: e.SLACK_API_URL,
      port: e.PORT,
    },
    gateway: {
      apiType: e.GATEWAY_API_TYPE,
      /** Unset in local mode means: start the built-in simulator. */
      url: e.GATEWAY_URL ?? (e.GATEWAY_API_TYPE === 'cloud' ? 'https://api.ui.com' : undefined),
      apiKey: e.GATEWAY_API_KEY,
      username: e.GATEWAY_USERNAME,
      password: e.GATEWAY_PASSWORD,
      verifyTls: e.GATEWAY_VERIFY_TLS,
      caFile: e.GATEWAY_CA_FILE,
      consoleId: e.GATEWAY_CONSOLE_ID,
      timeoutMs: e.GATEWAY_TIMEOUT_MS,
      /** One read's whole wait: detection, login, every attempt and the backoff between them. */
      readBudgetMs: e.GATEWAY_READ_BUDGET_MS,
      /** The largest controller answer read, once decompressed; a longer one is refused. */
      maxResponseBytes: e.GATEWAY_MAX_RESPONSE_BYTES,
    },
    /**
     * CONSOLES_FILE: the consoles one bot serves; unset: the one console above (named `default`).
     * The file names each key by its variable, looked up in `env` when the file is loaded.
     */
    ...(e.CONSOLES_FILE ? { consolesFile: { path: resolve(e.CONSOLES_FILE), env: env as ConsolesEnv } } : {}),
    defaultSite: e.DEFAULT_SITE,
    /** The journal exported to a SIEM (AUDIT_SYSLOG_URL, AUDIT_WEBHOOK_URL); unset: not exported. */
    ...(auditConfig(e) ? { audit: auditConfig(e) } : {}),
    /** PagerDuty for `oncall:<schedule>` approvers (PAGERDUTY_TOKEN); unset: such approvers cannot be resolved. */
    ...(onCallConfig(e) ? { onCall: onCallConfig(e) } : {}),
    /** Step-up sign-in at an OpenID Provider (OIDC_ISSUER…); unset: approvals count at the click. */
    ...(identityConfig(e) ? { identity: identityConfig(e) } : {}),
    approvals: {
      approvers: e.APPROVERS,
      allowSelfApproval: e.ALLOW_SELF_APPROVAL,
      requesters: e.REQUESTERS,
      writeChannels: e.WRITE_CHANNELS,
      ttlSeconds: e.APPROVAL_TTL_SECONDS,
      /** One reminder in the thread of a request still pending after this long; 0 = none. */
      remindSeconds: e.APPROVAL_REMIND_SECONDS,
      auditChannel: e.AUDIT_CHANNEL,
      /** How often the journal's head is posted to AUDIT_CHANNEL as an anchor; 0 = only at start and stop. */
      anchorMinutes: e.JOURNAL_ANCHOR_MINUTES,
    },
    /** On SIGTERM: how long running changes may take to finish before the process exits anyway. */
    shutdownGraceSeconds: e.SHUTDOWN_GRACE_SECONDS,
    dataDir: resolve(e.DATA_DIR),
    /** The MCP front end: `netops mcp` on stdio, and POST /mcp on the bot's port when tokens are set. */
    mcp: {
      /** MCP_TOKEN: the bearer tokens of POST /mcp; empty = no HTTP endpoint. */
      tokens: e.MCP_TOKEN ?? [],
      /** MCP_WRITES, or its default (approval with SLACK_BOT_TOKEN, else confirm). */
      writes: mcpWrites(e),
      /** Where change requests from MCP clients are posted. */
      ...(e.MCP_APPROVAL_CHANNEL ? { approvalChannel: e.MCP_APPROVAL_CHANNEL } : {}),
    },
    /** Sampling of live counters: every this many seconds; 0 = off. */
    telemetry: { intervalSeconds: e.TELEMETRY_INTERVAL_SECONDS },
    /** How often due deadlines (Keep-or-revert, change windows) are looked for. */
    changeTimers: { tickSeconds: e.CHANGE_TIMER_TICK_SECONDS },
    /** POLICY_FILE (unset: the default policy) and BOT_SOURCE_ADDRESS. */
    policy: {
      ...(e.POLICY_FILE ? { file: resolve(e.POLICY_FILE) } : {}),
      ...(e.BOT_SOURCE_ADDRESS ? { sourceAddress: e.BOT_SOURCE_ADDRESS } : {}),
    },
    /** Watching the network. */
    watch: watchConfig(e),
    /** The built-in simulator (used when no controller is configured). */
    simulator: {
      firewall: e.SIMULATOR_FIREWALL,
      apiVersion: e.SIMULATOR_API_VERSION,
      ...(e.SIMULATOR_REQUEST_LOG === undefined ? {} : { requestLog: e.SIMULATOR_REQUEST_LOG }),
    },
    store: storeConfig(e),
    logLevel: e.LOG_LEVEL,
    /** True when LOG_LEVEL was set explicitly (the console quietens logs otherwise). */
    logLevelExplicit: typeof env.LOG_LEVEL === 'string' && env.LOG_LEVEL.trim() !== '',
    /** The shell's COLUMNS, when it exports a usable one: the console's table width. */
    ...(columnsOf(env.COLUMNS) === undefined ? {} : { terminalColumns: columnsOf(env.COLUMNS) }),
  };
}

/** Alerts, drift, the digest and Alarm Manager webhooks. */
function watchConfig(e: Env) {
  return {
    /** Device and WAN incidents go here; unset = no alerts. */
    ...(e.ALERT_CHANNEL ? { alertChannel: e.ALERT_CHANNEL } : {}),
    /** A user group (S…) mentioned on new incidents. */
    ...(e.ALERT_MENTION ? { alertMention: e.ALERT_MENTION } : {}),
    /** Down and up again within this many seconds is one incident (flap suppression). */
    flapSeconds: e.ALERT_FLAP_SECONDS,
    /** Alarm Manager alarms posted one by one per channel per minute; the rest are summed up in one message. */
    alarmsPerMinute: e.ALERT_ALARMS_PER_MINUTE,
    /** Configuration changed outside the bot; DRIFT_CHANNEL, else AUDIT_CHANNEL; unset = no drift messages. */
    ...((e.DRIFT_CHANNEL ?? e.AUDIT_CHANNEL) ? { driftChannel: e.DRIFT_CHANNEL ?? e.AUDIT_CHANNEL } : {}),
    /** The daily digest goes here; unset = no scheduled digest. */
    ...(e.DIGEST_CHANNEL ? { digestChannel: e.DIGEST_CHANNEL } : {}),
    digestCron: e.DIGEST_CRON,
    /** TZ: the digest's time zone (else the process's). */
    ...(e.TZ ? { timeZone: e.TZ } : {}),
    intervalSeconds: e.WATCH_INTERVAL_SECONDS,
    driftIntervalSeconds: e.DRIFT_INTERVAL_SECONDS,
    /** Enables POST /webhooks/unifi. */
    ...(e.UNIFI_WEBHOOK_SECRET ? { webhookSecret: e.UNIFI_WEBHOOK_SECRET } : {}),
  };
}

/** The environment a consoles file's `api_key_env` names are read from. */
export type ConsolesEnv = Readonly<Record<string, string | undefined>>;

/** The whole runtime configuration, parsed once from the environment. */
export type Config = ReturnType<typeof configFrom>;

/** Alerts, drift, the digest and Alarm Manager webhooks. */
export type WatchConfig = Config['watch'];
