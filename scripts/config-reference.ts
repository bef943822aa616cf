// Generates docs/configuration.md from src/config.ts: the variable names (ENV_VARIABLES), each
// one's default and its rule (asked of its own schema), and the meanings below. `npm run docs:config`
// writes the file; test/docs/generated-docs.test.ts fails when the committed file differs.

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ENV_FIELDS, ENV_VARIABLES, type EnvVariable } from '../src/config.js';

/** docs/configuration.md, the page this script writes. */
export const CONFIGURATION_DOC_PATH = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));

const GROUPS = {
  slack: 'Slack',
  controller: 'Controller',
  approvals: 'Approvals and guardrails',
  store: 'Store and journal',
  watch: 'Watching the network',
  mcp: 'AI assistants (MCP)',
  simulator: 'Built-in simulator',
  process: 'Logging and stopping',
} as const;

type Group = keyof typeof GROUPS;

interface Described {
  group: Group;
  meaning: string;
  /** Said in words where the schema's own default is not the whole story (it depends on others). */
  defaultText?: string;
}

// A Record over every variable: a variable added to config.ts without a meaning here fails to compile.
const DESCRIBED: Record<EnvVariable, Described> = {
  SLACK_BOT_TOKEN: {
    group: 'slack',
    meaning:
      'The bot token (`xoxb-…`). Set, `npm start` runs the Slack bot; unset, the terminal console. See [Slack](slack.md).',
  },
  SLACK_SIGNING_SECRET: {
    group: 'slack',
    meaning:
      "HTTP mode: the app's Signing Secret, which every request is verified with. Required unless `SLACK_APP_TOKEN` is set; at least 16 characters.",
  },
  SLACK_APP_TOKEN: {
    group: 'slack',
    meaning: 'App-level token (`xapp-…`, scope `connections:write`). Set, the bot runs in Socket Mode.',
  },
  SLACK_API_URL: {
    group: 'slack',
    defaultText: "Slack's",
    meaning: 'Web API base URL; the tests point it at a fake Slack.',
  },
  PORT: {
    group: 'slack',
    meaning:
      "The bot's HTTP port, in both modes: `GET /healthz`; in HTTP mode `POST /slack/events`; `POST /mcp` with `MCP_TOKEN`; `POST /webhooks/unifi` with `UNIFI_WEBHOOK_SECRET`. `0` takes any free port.",
  },
  GATEWAY_API_TYPE: {
    group: 'controller',
    meaning:
      '`local`: a console or self-hosted controller on your network. `cloud`: through the Site Manager connector (zone tools work only with `local`).',
  },
  GATEWAY_URL: {
    group: 'controller',
    defaultText: 'the built-in simulator (`local`); `https://api.ui.com` (`cloud`)',
    meaning:
      'Controller base URL: `https://192.168.1.1` for a UniFi OS console, `https://host:8443` for a self-hosted Network application. See [Getting started](getting-started.md#pointing-the-bot-at-a-real-controller).',
  },
  GATEWAY_API_KEY: {
    group: 'controller',
    meaning:
      'API key, sent as `X-API-KEY` (Integration, classic and v2 routes; in cloud mode a Site Manager key). Required with `GATEWAY_URL` unless `GATEWAY_USERNAME` is set.',
  },
  GATEWAY_USERNAME: {
    group: 'controller',
    meaning:
      'Session login instead of a key, with `GATEWAY_PASSWORD` (a local admin without MFA). Classic and v2 routes only: the zone, ACL and traffic-list tools need a key.',
  },
  GATEWAY_PASSWORD: { group: 'controller', meaning: 'The password of `GATEWAY_USERNAME`.' },
  GATEWAY_VERIFY_TLS: {
    group: 'controller',
    meaning:
      '`false` accepts a self-signed certificate; prefer `GATEWAY_CA_FILE`. Applies to the controller client only.',
  },
  GATEWAY_CA_FILE: { group: 'controller', meaning: "PEM file of the console's CA." },
  GATEWAY_CONSOLE_ID: {
    group: 'controller',
    meaning: 'Cloud mode: the console behind the connector (found by itself when the key sees exactly one).',
  },
  GATEWAY_TIMEOUT_MS: {
    group: 'controller',
    meaning: "Per request: a write's one attempt; a read's attempts get at most this.",
  },
  GATEWAY_READ_BUDGET_MS: {
    group: 'controller',
    meaning:
      'How long one read may wait in all (controller detection, login, retries); a hanging controller is reported after this.',
  },
  GATEWAY_MAX_RESPONSE_BYTES: {
    group: 'controller',
    meaning:
      'The largest controller answer the bot reads, counted after decompression (32 MiB). A longer one, such as a gzip bomb, is refused with an error naming this variable. `stat/sta` is about 1–3 KB per client: a site of more than about 10,000 clients needs it raised (64 MiB for 50,000).',
  },
  CONSOLES_FILE: {
    group: 'controller',
    defaultText: 'one console',
    meaning:
      'A YAML file listing several consoles (each by `url` with `api_key_env` or `api_key_file`, or through the cloud `connector`), their labels, and Slack channels bound to a console or site. Set, every tool takes `console=` and the `GATEWAY_*` address and key are not used. A file that does not parse stops the bot at start, naming the line. See [A fleet of consoles](fleet.md).',
  },
  DEFAULT_SITE: { group: 'controller', meaning: 'The `site_id` a command means when it names none.' },
  APPROVERS: {
    group: 'approvals',
    meaning:
      'Slack user ids (U…) and user-group ids (S…) who may approve changes. Unset: anyone but the requester, and the bot warns at start. See [Changes](changes.md#who-may-approve).',
  },
  ALLOW_SELF_APPROVAL: {
    group: 'approvals',
    meaning:
      'Lets a requester approve their own change (single-admin sites); never a change the policy requires two approvals for.',
  },
  REQUESTERS: {
    group: 'approvals',
    meaning: 'Who may request writes in Slack (U…, S…). Unset: anyone. Not applied to MCP clients.',
  },
  WRITE_CHANNELS: {
    group: 'approvals',
    meaning: 'The channels where writes may be requested (C…, G…). Unset: any channel the bot is in.',
  },
  APPROVAL_TTL_SECONDS: { group: 'approvals', meaning: 'A pending change expires after this.' },
  APPROVAL_REMIND_SECONDS: {
    group: 'approvals',
    meaning:
      'One reminder, mentioning the approvers, in the thread of a change still pending after this; `0` = none.',
  },
  DATA_DIR: {
    group: 'store',
    meaning:
      'The file store: the change journal (`approvals.jsonl`), deadlines, bandwidth samples and bot data. One bot process owns it. The Docker image sets `/data`. See [Deploying](deploying.md#the-data-directory).',
  },
  DATABASE_URL: {
    group: 'store',
    meaning:
      '`postgres://user:password@host:5432/db`: change requests, journal, deadlines, samples and bot data in PostgreSQL, shared by several replicas. Unset: files under `DATA_DIR`. See [Deploying](deploying.md#several-replicas-on-postgresql).',
  },
  DATABASE_SSL: {
    group: 'store',
    defaultText: "the URL's `sslmode`",
    meaning:
      '`true` (TLS, certificate verified against the system CAs or `DATABASE_CA_FILE`), `no-verify` (encrypted, not verified) or `false`. Set, it replaces any `sslmode` in the URL.',
  },
  DATABASE_CA_FILE: {
    group: 'store',
    meaning: "PEM file of the CA that signed the database server's certificate (managed PostgreSQL).",
  },
  REPLICA_LEASE_SECONDS: {
    group: 'store',
    meaning:
      'With `DATABASE_URL`: a replica silent this long is presumed dead, and the changes it was running become "outcome unknown".',
  },
  JOURNAL_KEY: {
    group: 'store',
    meaning:
      'A secret of 32 characters or more (`openssl rand -hex 32`): every journal event carries an HMAC-SHA256 under it, so `audit:verify` detects forged and rewritten events. Keep it out of `DATA_DIR` and the database.',
  },
  AUDIT_CHANNEL: {
    group: 'store',
    meaning:
      'Channel id that gets one line per executed or failed change and the journal anchors; drift messages too when `DRIFT_CHANNEL` is unset. See [Finding channel ids](deploying.md#finding-channel-ids).',
  },
  PAGERDUTY_TOKEN: {
    group: 'approvals',
    meaning:
      "A read-only PagerDuty REST API key: a policy rule's approvers may then name `oncall:<schedule id>`, whoever is on call in that schedule now (matched to Slack users by email, looked up at most once a minute).",
  },
  PAGERDUTY_API_URL: {
    group: 'approvals',
    defaultText: '`https://api.pagerduty.com`',
    meaning: "PagerDuty's REST API (tests point it at a fake).",
  },
  AUDIT_SYSLOG_URL: {
    group: 'store',
    meaning:
      'Export every journal event, in order, to a syslog receiver: `tcp://host:port` or `tls://host:port` (RFC 5424, octet-counted). See [Security](security.md#sending-the-journal-to-a-siem).',
  },
  AUDIT_SYSLOG_FORMAT: {
    group: 'store',
    meaning:
      'What each syslog message carries: `json` (the event with its chain link) or `cef` (ArcSight CEF).',
  },
  AUDIT_SYSLOG_CA_FILE: {
    group: 'store',
    meaning: "PEM file of the CA that signed a `tls://` receiver's certificate; unset: the system's CAs.",
  },
  AUDIT_WEBHOOK_URL: {
    group: 'store',
    meaning:
      'Export every journal event, in order, as JSON POSTed to this HTTPS URL (plain http only to this machine), signed with `AUDIT_WEBHOOK_SECRET`.',
  },
  AUDIT_WEBHOOK_SECRET: {
    group: 'store',
    meaning:
      'A secret of 16 characters or more: each webhook body is signed with HMAC-SHA256 over the timestamp and the body (`X-Netops-Signature`).',
  },
  AUDIT_EXPORT_REPLAY_FROM: {
    group: 'store',
    meaning:
      'Export again from this journal event number on, once (the store remembers it was done): for a receiver that lost events.',
  },
  OIDC_ISSUER: {
    group: 'approvals',
    meaning:
      'The OpenID Provider for step-up sign-in (its issuer URL, exactly as its discovery document says; https, plain http only to this machine). Set with the three below: rules with `step_up: true` and, by default, high-risk changes count an approval only after the approver signs in there, and a break-glass change run on the word of its requester runs only after the requester does. See [Security](security.md#step-up-sign-in).',
  },
  OIDC_CLIENT_ID: {
    group: 'approvals',
    meaning:
      "The bot's client id at the OpenID Provider (a confidential client with the redirect URI `PUBLIC_URL/oidc/callback`).",
  },
  OIDC_CLIENT_SECRET: {
    group: 'approvals',
    meaning: "The bot's client secret at the OpenID Provider; sent only to its token endpoint, never logged.",
  },
  PUBLIC_URL: {
    group: 'approvals',
    meaning:
      "The bot's public base URL (https; plain http only to this machine): the provider sends the browser back to `PUBLIC_URL/oidc/callback` on the bot's PORT.",
  },
  OIDC_USERS_FILE: {
    group: 'approvals',
    meaning:
      'YAML map of Slack user id to IdP subject or email (`U0123: alice@example.com`). A listed user is matched by it only; anyone else by the verified email the provider returns, compared with their Slack profile email.',
  },
  OIDC_LINK_SECONDS: {
    group: 'approvals',
    meaning: 'How long a step-up sign-in link works; each link works once.',
  },
  OIDC_MAX_AGE_SECONDS: {
    group: 'approvals',
    meaning:
      'How long ago the approver may have signed in at the identity provider; an older session signs in again (0: every time).',
  },
  JOURNAL_ANCHOR_MINUTES: {
    group: 'store',
    meaning:
      "How often the journal's count and head hash are posted to `AUDIT_CHANNEL` when they moved (also at start and stop); `0` = only at start and stop.",
  },
  SHUTDOWN_GRACE_SECONDS: {
    group: 'process',
    meaning:
      'On SIGTERM or SIGINT: how long running changes may take to finish before the bot exits anyway. Give the container more time than this to stop.',
  },
  TELEMETRY_INTERVAL_SECONDS: {
    group: 'watch',
    meaning:
      'How often the bot samples client, device and DPI byte counters, for `top_clients` windows and DPI `time_range`; `0` = off. With `DATABASE_URL` one replica samples each tick for all.',
  },
  CHANGE_TIMER_TICK_SECONDS: {
    group: 'approvals',
    meaning:
      'How often due change timers are looked for: keep-or-revert and temporary changes, change windows. A timed revert or a scheduled change runs within this of its time.',
  },
  ALERT_CHANNEL: {
    group: 'watch',
    meaning:
      'Channel id for device and WAN incidents (offline and back, WAN down, failover and back, uplink changes, PoE stopped) and Alarm Manager alarms. Unset: no alerts. See [Watching](watching.md#alerts).',
  },
  ALERT_MENTION: {
    group: 'watch',
    meaning: 'User-group id (S…) mentioned on new incidents (never on edits).',
  },
  ALERT_FLAP_SECONDS: {
    group: 'watch',
    meaning: 'A device back and failing again within this is one incident: one message, edited.',
  },
  ALERT_ALARMS_PER_MINUTE: {
    group: 'watch',
    meaning:
      'Alarm Manager alarms posted one by one per channel per minute; the rest of that minute are summed up in one message when it closes, and `ALERT_MENTION` goes out once a burst.',
  },
  DRIFT_CHANNEL: {
    group: 'watch',
    defaultText: '`AUDIT_CHANNEL`',
    meaning:
      'Channel id for configuration changed outside the bot (field by field, with Accept and Revert). Neither set: no drift sweep.',
  },
  DIGEST_CHANNEL: {
    group: 'watch',
    meaning: 'Channel id for the daily digest. Unset: none is scheduled (`/net digest` still posts one).',
  },
  DIGEST_CRON: {
    group: 'watch',
    meaning: 'When the digest is posted: a cron pattern in `TZ` (five fields, or six with seconds first).',
  },
  TZ: {
    group: 'watch',
    defaultText: "the system's",
    meaning:
      "IANA time zone of the digest's cron and of the times in alerts, alarm summaries and drift messages.",
  },
  WATCH_INTERVAL_SECONDS: {
    group: 'watch',
    meaning:
      "One device read per this many seconds for alerts (and the digest's incidents). With `DATABASE_URL` one replica polls; another takes over within three intervals.",
  },
  DRIFT_INTERVAL_SECONDS: { group: 'watch', meaning: 'One configuration sweep per this many seconds.' },
  UNIFI_WEBHOOK_SECRET: {
    group: 'watch',
    meaning:
      "Enables `POST /webhooks/unifi` on `PORT` for Alarm Manager's Custom Webhook; the secret comes as `Authorization: Bearer <secret>`, as the Basic auth password, or as `X-Webhook-Secret`. See [Watching](watching.md#alarm-manager-webhook).",
  },
  LOG_LEVEL: {
    group: 'process',
    defaultText: '`info` (the console: warnings only)',
    meaning:
      'pino level. The Slack bot logs JSON lines on stdout; the console prints warnings only unless this is set, as `warning: …` lines on stderr.',
  },
  SIMULATOR_FIREWALL: {
    group: 'simulator',
    meaning:
      "The built-in simulator's firewall: `zone-based` (zones and policies, no traditional rules) or `legacy` (traditional rules, no zones).",
  },
  SIMULATOR_API_VERSION: {
    group: 'simulator',
    meaning:
      'The UniFi Network version the built-in simulator plays: `10.1` offers every official API operation the bot uses; `9.0` only info, sites, devices and the clients list, and its other `/integration/v1/…` routes answer 404 as a real 9.0 console does.',
  },
  SIMULATOR_REQUEST_LOG: {
    group: 'simulator',
    meaning:
      "A directory: the built-in simulator appends each `/integration/v1/…` request the bot sends to it as a JSON line. The test suite checks them all against Ubiquiti's 10.1.85 document.",
  },
  MCP_TOKEN: {
    group: 'mcp',
    meaning:
      "Bearer tokens of `POST /mcp` on the bot's port: comma-separated `label:secret` (or one bare secret, labelled `mcp`). In `approval` mode each label must be its holder's Slack user id. Unset: no HTTP endpoint; `netops mcp` (stdio) needs none. See [MCP](mcp.md).",
  },
  MCP_WRITES: {
    group: 'mcp',
    defaultText: '`approval` with `SLACK_BOT_TOKEN`, else `confirm`',
    meaning:
      "Writes through MCP: `approval` (change requests approved in Slack), `confirm` (the client's `confirm: true` runs them), `off` (read-only).",
  },
  MCP_APPROVAL_CHANNEL: {
    group: 'mcp',
    meaning:
      'Channel id where change requests from MCP clients are posted; required in `approval` mode, and one of `WRITE_CHANNELS` when that is set.',
  },
  POLICY_FILE: {
    group: 'approvals',
    meaning:
      'Guardrail rules (YAML): CEL conditions with `deny`, `approvals`, `approvers`, `window`, `revert_after`; change windows and freezes. Unset: one approval per write, two for a high-risk one. A file that does not parse or type-check stops the bot at start. See [Changes](changes.md#policy-file).',
  },
  BOT_SOURCE_ADDRESS: {
    group: 'approvals',
    defaultText: "the socket's own",
    meaning:
      "The bot's IPv4 address as the network sees it, for self-lockout checks, when the local address of its connection to the controller is not it (NAT, containers).",
  },
};

/** A schema's default as the table shows it; blank when the variable is simply unset. */
function defaultOf(name: EnvVariable): string {
  const described = DESCRIBED[name];
  if (described.defaultText !== undefined) return described.defaultText;
  const parsed = ENV_FIELDS[name].safeParse(undefined);
  if (!parsed.success) throw new Error(`${name} has no value when unset: ${parsed.error.message}`);
  const value: unknown = parsed.data;
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return '';
  return `\`${String(value)}\``;
}

/**
 * The rule a variable's own schema enforces, in the words the bot refuses a bad value with: asked by
 * giving it a value no variable accepts (a lone control character). Blank for free text.
 */
function ruleOf(name: EnvVariable): string {
  const parsed = ENV_FIELDS[name].safeParse('\u0007');
  if (parsed.success) return '';
  return parsed.error.issues.map((issue) => issue.message).join('; ');
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

const INTRO = `# Configuration

<!-- Generated from src/config.ts by \`npm run docs:config\` (scripts/config-reference.ts); do not edit by hand. -->

Every setting comes from the environment; nothing reads a file by itself. Export the variables, or keep
them in a file and pass it with \`node --env-file=.env dist/main.js\` or \`docker run --env-file .env\`
([\`.env.example\`](../.env.example) lists them all). \`src/config.ts\` is the only reader of the
environment: it checks every variable at start and names each bad one with its rule (exit code 2).
With none set, \`npm start\` runs the console against the built-in simulator.

*Default* is the value when the variable is unset or empty. *Rule* is what the bot checks, in the words
it refuses a bad value with; a few rules join variables (for example \`SLACK_SIGNING_SECRET\` is
required in HTTP mode) and are said under *Meaning*. The store tools (\`npm run audit:verify\`,
\`npm run store:import\`) read only \`DATA_DIR\`, the \`DATABASE_*\` variables and \`JOURNAL_KEY\`.
The console also reads the shell's \`COLUMNS\` for its table width.
`;

/** The whole of docs/configuration.md. */
export function configurationMarkdown(): string {
  const sections = (Object.keys(GROUPS) as Group[]).map((group) => {
    const rows = ENV_VARIABLES.filter((name) => DESCRIBED[name].group === group).map(
      (name) =>
        `| \`${name}\` | ${cell(defaultOf(name))} | ${cell(ruleOf(name))} | ${cell(DESCRIBED[name].meaning)} |`,
    );
    return [
      `## ${GROUPS[group]}`,
      '',
      '| Variable | Default | Rule | Meaning |',
      '|---|---|---|---|',
      ...rows,
    ].join('\n');
  });
  return `${INTRO}\n${sections.join('\n\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const before = (() => {
    try {
      return readFileSync(CONFIGURATION_DOC_PATH, 'utf8');
    } catch {
      return '';
    }
  })();
  const after = configurationMarkdown();
  writeFileSync(CONFIGURATION_DOC_PATH, after);
  console.log(before === after ? 'docs/configuration.md is up to date' : 'docs/configuration.md updated');
}
