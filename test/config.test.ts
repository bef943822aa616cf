import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configWarnings, ENV_VARIABLES, loadConfig, loadStoreConfig } from '../src/config.js';
import { ConfigError } from '../src/errors.js';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('gives the documented defaults for an empty environment (console + simulator)', () => {
    const config = loadConfig({});
    expect(config.slack.botToken).toBeUndefined();
    expect(config.slack.port).toBe(3000);
    expect(config.gateway).toMatchObject({
      apiType: 'local',
      url: undefined,
      verifyTls: true,
      timeoutMs: 10_000,
      readBudgetMs: 8_000,
    });
    expect(config.defaultSite).toBe('default');
    expect(config.approvals).toEqual({
      approvers: [],
      allowSelfApproval: false,
      requesters: [],
      writeChannels: [],
      ttlSeconds: 900,
      remindSeconds: 300,
      auditChannel: undefined,
      anchorMinutes: 15,
    });
    expect(config.shutdownGraceSeconds).toBe(20);
    expect(config.dataDir.endsWith('/data')).toBe(true);
    // Deliberately alike: each loadConfig test states its environment and every value it expects, so one changed default fails one test.
    expect(config.logLevel).toBe('info');
    expect(config.logLevelExplicit).toBe(false);
  });

  it('parses lists, booleans, numbers and strips a trailing slash from URLs', () => {
    const config = loadConfig({
      GATEWAY_URL: 'https://192.168.1.1/',
      GATEWAY_API_KEY: 'k',
      GATEWAY_VERIFY_TLS: 'no',
      GATEWAY_TIMEOUT_MS: '2500',
      APPROVERS: 'U123ABC, S0GROUP1',
      ALLOW_SELF_APPROVAL: 'true',
      LOG_LEVEL: 'DEBUG',
    });
    expect(config.gateway.url).toBe('https://192.168.1.1');
    expect(config.gateway.verifyTls).toBe(false);
    expect(config.gateway.timeoutMs).toBe(2500);
    expect(config.approvals.approvers).toEqual(['U123ABC', 'S0GROUP1']);
    expect(config.approvals.allowSelfApproval).toBe(true);
    expect(config.logLevel).toBe('debug');
    expect(config.logLevelExplicit).toBe(true);
  });

  it('names every bad variable and its rule at once', () => {
    const error = configError({
      PORT: 'eighty',
      GATEWAY_API_TYPE: 'remote',
      GATEWAY_TIMEOUT_MS: '5',
      APPROVERS: 'alice',
      LOG_LEVEL: 'loud',
      SLACK_BOT_TOKEN: 'not-a-token',
    });
    const fields = error.issues.map((i) => i.field).sort();
    expect(fields).toEqual([
      'APPROVERS',
      'GATEWAY_API_TYPE',
      'GATEWAY_TIMEOUT_MS',
      'LOG_LEVEL',
      'PORT',
      'SLACK_BOT_TOKEN',
      'SLACK_SIGNING_SECRET',
    ]);
    expect(error.message).toContain('PORT: must be a whole number from 0 to 65535');
    expect(error.message).toContain('GATEWAY_API_TYPE: must be local or cloud');
  });

  it('refuses a signing secret shorter than 16 characters in HTTP mode, without echoing it', () => {
    for (const secret of ['#', 'fifteen-chars-x']) {
      const error = configError({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: secret });
      expect(error.issues).toEqual([
        { field: 'SLACK_SIGNING_SECRET', rule: expect.stringContaining('at least 16 characters') },
      ]);
      expect(error.message).not.toContain(secret);
    }
    expect(
      loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 'sixteen-chars-xx' }).slack,
    ).toMatchObject({ signingSecret: 'sixteen-chars-xx' });
    // Socket Mode does not use it, so a short leftover there is not an error.
    expect(
      loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1', SLACK_SIGNING_SECRET: 'x' }).slack
        .appToken,
    ).toBe('xapp-1');
  });

  it('requires what each mode needs', () => {
    expect(configError({ SLACK_BOT_TOKEN: 'xoxb-1' }).issues).toEqual([
      { field: 'SLACK_SIGNING_SECRET', rule: expect.stringContaining('HTTP mode') },
    ]);
    expect(configError({ GATEWAY_API_TYPE: 'cloud' }).issues.map((i) => i.field)).toEqual([
      'GATEWAY_API_KEY',
    ]);
    expect(configError({ GATEWAY_URL: 'https://10.0.0.1' }).issues.map((i) => i.field)).toEqual([
      'GATEWAY_API_KEY',
    ]);
    expect(
      configError({ GATEWAY_URL: 'https://10.0.0.1', GATEWAY_USERNAME: 'a' }).issues.map((i) => i.field),
    ).toEqual(['GATEWAY_PASSWORD']);
    expect(configError({ GATEWAY_URL: 'ftp://x', GATEWAY_API_KEY: 'k' }).issues.map((i) => i.field)).toEqual([
      'GATEWAY_URL',
    ]);
    expect(configError({ GATEWAY_CA_FILE: '/no/such/file.pem' }).issues.map((i) => i.field)).toEqual([
      'GATEWAY_CA_FILE',
    ]);
  });

  it('asks for the signing secret only where the Slack bot would start', () => {
    const env = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 'short' };
    expect(configError(env).issues.map((i) => i.field)).toEqual(['SLACK_SIGNING_SECRET']);
    // `netops mcp` and one-shot commands share the bot's .env but never read Slack's requests.
    expect(loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1' }, { slackBot: false }).slack.botToken).toBe('xoxb-1');
    expect(loadConfig(env, { slackBot: false }).slack.signingSecret).toBe('short');
    // Other variables are still checked everywhere, and both kinds of problem are named at once.
    expect(() => loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', PORT: 'x' }, { slackBot: false })).toThrow(/PORT/);
    expect(
      configError({ SLACK_BOT_TOKEN: 'xoxb-1', PORT: 'x' })
        .issues.map((i) => i.field)
        .sort(),
    ).toEqual(['PORT', 'SLACK_SIGNING_SECRET']);
  });

  it('accepts Socket Mode without a signing secret, and cloud mode with its default URL', () => {
    const socket = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' });
    expect(socket.slack.appToken).toBe('xapp-1');
    const cloud = loadConfig({ GATEWAY_API_TYPE: 'cloud', GATEWAY_API_KEY: 'k' });
    expect(cloud.gateway.url).toBe('https://api.ui.com');
  });

  it("takes the table width from the shell's COLUMNS, ignoring a value it cannot use", () => {
    expect(loadConfig({ COLUMNS: '132' }).terminalColumns).toBe(132);
    expect(loadConfig({ COLUMNS: ' 80 ' }).terminalColumns).toBe(80);
    for (const unusable of ['', '0', 'wide', '-5', '1e3']) {
      expect(loadConfig({ COLUMNS: unusable }).terminalColumns).toBeUndefined();
    }
    expect(loadConfig({}).terminalColumns).toBeUndefined();
  });

  it('picks the simulator’s firewall from SIMULATOR_FIREWALL: zone-based by default, or legacy', () => {
    expect(loadConfig({}).simulator).toEqual({ firewall: 'zone-based', apiVersion: '10.1' });
    expect(loadConfig({ SIMULATOR_FIREWALL: ' Legacy ' }).simulator).toEqual({
      firewall: 'legacy',
      apiVersion: '10.1',
    });
    expect(configError({ SIMULATOR_FIREWALL: 'zones' }).issues).toEqual([
      { field: 'SIMULATOR_FIREWALL', rule: 'must be zone-based or legacy' },
    ]);
  });

  it('picks the Network version the simulator plays from SIMULATOR_API_VERSION', () => {
    expect(loadConfig({ SIMULATOR_API_VERSION: ' 9.0 ' }).simulator.apiVersion).toBe('9.0');
    expect(loadConfig({ SIMULATOR_API_VERSION: '10.1.85' }).simulator.apiVersion).toBe('10.1.85');
    expect(configError({ SIMULATOR_API_VERSION: 'ten' }).issues).toEqual([
      { field: 'SIMULATOR_API_VERSION', rule: 'must be a version such as 9.0 or 10.1' },
    ]);
  });

  it('reads APPROVAL_REMIND_SECONDS (0 turns reminders off) and refuses a negative or odd value', () => {
    expect(loadConfig({ APPROVAL_REMIND_SECONDS: '0' }).approvals.remindSeconds).toBe(0);
    expect(loadConfig({ APPROVAL_REMIND_SECONDS: ' 120 ' }).approvals.remindSeconds).toBe(120);
    expect(configError({ APPROVAL_REMIND_SECONDS: '-5' }).issues).toEqual([
      { field: 'APPROVAL_REMIND_SECONDS', rule: 'must be a whole number from 0 to 604800' },
    ]);
    expect(configError({ APPROVAL_REMIND_SECONDS: '5m' }).issues[0]?.field).toBe('APPROVAL_REMIND_SECONDS');
  });

  it('reads GATEWAY_MAX_RESPONSE_BYTES (32 MiB unset) and refuses a value out of range, naming it', () => {
    expect(loadConfig({}).gateway.maxResponseBytes).toBe(33_554_432);
    expect(loadConfig({ GATEWAY_MAX_RESPONSE_BYTES: '1048576' }).gateway.maxResponseBytes).toBe(1_048_576);
    expect(configError({ GATEWAY_MAX_RESPONSE_BYTES: '10' }).issues[0]?.field).toBe(
      'GATEWAY_MAX_RESPONSE_BYTES',
    );
  });

  it('reads CONSOLES_FILE as an absolute path with the environment its key names are read from', () => {
    const config = loadConfig({ CONSOLES_FILE: 'package.json', BERLIN_API_KEY: 'k' });
    expect(config.consolesFile?.path).toBe(resolve('package.json'));
    expect(config.consolesFile?.env.BERLIN_API_KEY).toBe('k');
    expect(loadConfig({}).consolesFile).toBeUndefined();
    expect(configError({ CONSOLES_FILE: '/nonexistent/consoles.yaml' }).issues[0]?.field).toBe(
      'CONSOLES_FILE',
    );
  });

  it('lists every variable of the public contract', () => {
    expect(ENV_VARIABLES).toEqual(
      expect.arrayContaining([
        'SLACK_BOT_TOKEN',
        'SLACK_SIGNING_SECRET',
        'SLACK_APP_TOKEN',
        'SLACK_API_URL',
        'PORT',
        'GATEWAY_API_TYPE',
        'GATEWAY_URL',
        'GATEWAY_API_KEY',
        'GATEWAY_USERNAME',
        'GATEWAY_PASSWORD',
        'GATEWAY_VERIFY_TLS',
        'GATEWAY_CA_FILE',
        'GATEWAY_CONSOLE_ID',
        'GATEWAY_TIMEOUT_MS',
        'GATEWAY_READ_BUDGET_MS',
        'GATEWAY_MAX_RESPONSE_BYTES',
        'DEFAULT_SITE',
        'APPROVERS',
        'ALLOW_SELF_APPROVAL',
        'REQUESTERS',
        'WRITE_CHANNELS',
        'APPROVAL_TTL_SECONDS',
        'APPROVAL_REMIND_SECONDS',
        'DATA_DIR',
        'DATABASE_URL',
        'DATABASE_SSL',
        'DATABASE_CA_FILE',
        'REPLICA_LEASE_SECONDS',
        'AUDIT_CHANNEL',
        'LOG_LEVEL',
        'SIMULATOR_FIREWALL',
        'SIMULATOR_API_VERSION',
        'SIMULATOR_REQUEST_LOG',
        'JOURNAL_KEY',
        'JOURNAL_ANCHOR_MINUTES',
        'AUDIT_SYSLOG_URL',
        'AUDIT_SYSLOG_FORMAT',
        'AUDIT_SYSLOG_CA_FILE',
        'AUDIT_WEBHOOK_URL',
        'AUDIT_WEBHOOK_SECRET',
        'AUDIT_EXPORT_REPLAY_FROM',
        'PAGERDUTY_TOKEN',
        'PAGERDUTY_API_URL',
        'OIDC_ISSUER',
        'OIDC_CLIENT_ID',
        'OIDC_CLIENT_SECRET',
        'PUBLIC_URL',
        'OIDC_USERS_FILE',
        'OIDC_LINK_SECONDS',
        'SHUTDOWN_GRACE_SECONDS',
        'MCP_TOKEN',
        'MCP_WRITES',
        'MCP_APPROVAL_CHANNEL',
        'POLICY_FILE',
        'BOT_SOURCE_ADDRESS',
        'ALERT_CHANNEL',
        'ALERT_MENTION',
        'ALERT_FLAP_SECONDS',
        'ALERT_ALARMS_PER_MINUTE',
        'DRIFT_CHANNEL',
        'DIGEST_CHANNEL',
        'DIGEST_CRON',
        'TZ',
        'WATCH_INTERVAL_SECONDS',
        'DRIFT_INTERVAL_SECONDS',
        'UNIFI_WEBHOOK_SECRET',
        'CHANGE_TIMER_TICK_SECONDS',
        'CONSOLES_FILE',
      ]),
    );
    expect(ENV_VARIABLES).toHaveLength(70);
  });
});

describe('store variables', () => {
  it('defaults to the file store in DATA_DIR with a 30 s replica lease', () => {
    const config = loadConfig({ DATA_DIR: '/tmp/netops-x' });
    expect(config.store).toEqual({ dataDir: '/tmp/netops-x', replicaLeaseSeconds: 30 });
  });

  it('reads DATABASE_URL and maps DATABASE_SSL to verify, no-verify or off', () => {
    const url = 'postgres://bot:s3cret@db.internal:5432/netops';
    expect(loadConfig({ DATABASE_URL: url }).store.database).toEqual({ url });
    expect(loadConfig({ DATABASE_URL: url, DATABASE_SSL: 'true' }).store.database?.ssl).toBe('verify');
    expect(loadConfig({ DATABASE_URL: url, DATABASE_SSL: 'No-Verify' }).store.database?.ssl).toBe(
      'no-verify',
    );
    expect(loadConfig({ DATABASE_URL: url, DATABASE_SSL: 'off' }).store.database?.ssl).toBe('off');
    expect(loadConfig({ DATABASE_URL: url, REPLICA_LEASE_SECONDS: '5' }).store.replicaLeaseSeconds).toBe(5);
  });

  it('refuses a bad URL without echoing it, and TLS settings that contradict each other', () => {
    const bad = configError({ DATABASE_URL: 'mysql://bot:s3cret@db/netops' });
    expect(bad.issues).toEqual([
      { field: 'DATABASE_URL', rule: 'must be a postgres:// or postgresql:// URL' },
    ]);
    expect(bad.message).not.toContain('s3cret');
    expect(configError({ DATABASE_SSL: 'true' }).issues).toEqual([
      { field: 'DATABASE_SSL', rule: 'is used only with DATABASE_URL' },
    ]);
    expect(
      configError({
        DATABASE_URL: 'postgres://db/netops',
        DATABASE_SSL: 'no-verify',
        DATABASE_CA_FILE: 'package.json',
      }).issues.map((i) => i.field),
    ).toEqual(['DATABASE_CA_FILE']);
    expect(configError({ DATABASE_URL: 'postgres://db/n', DATABASE_SSL: 'maybe' }).issues[0]?.field).toBe(
      'DATABASE_SSL',
    );
    expect(configError({ REPLICA_LEASE_SECONDS: '1' }).issues[0]?.field).toBe('REPLICA_LEASE_SECONDS');
  });

  it('loadStoreConfig reads only the store variables: a bad Slack or controller setting does not matter', () => {
    const store = loadStoreConfig({
      DATA_DIR: '/tmp/netops-y',
      DATABASE_URL: 'postgresql://db/netops',
      SLACK_BOT_TOKEN: 'not-a-token',
      PORT: 'eighty',
    });
    expect(store).toEqual({
      dataDir: '/tmp/netops-y',
      database: { url: 'postgresql://db/netops' },
      replicaLeaseSeconds: 30,
    });
    expect(() => loadStoreConfig({ DATABASE_URL: 'nope' })).toThrow(ConfigError);
  });

  it('takes a JOURNAL_KEY of 32 characters or more, refuses a shorter one without echoing it', () => {
    const key = 'k'.repeat(31);
    const short = configError({ JOURNAL_KEY: key });
    const store = loadStoreConfig({
      DATA_DIR: '/tmp/netops-z',
      JOURNAL_KEY: ` ${'0123456789abcdef'.repeat(2)} `,
    });

    expect(short.issues).toEqual([
      {
        field: 'JOURNAL_KEY',
        rule: 'must be at least 32 characters (for example the output of `openssl rand -hex 32`)',
      },
    ]);
    expect(short.message).not.toContain(key);
    expect(store.journalKey).toBe('0123456789abcdef'.repeat(2));
    expect(loadConfig({ JOURNAL_KEY: '' }).store.journalKey).toBeUndefined();
  });

  it('reads SHUTDOWN_GRACE_SECONDS (0–600) and JOURNAL_ANCHOR_MINUTES (0–1440)', () => {
    const config = loadConfig({ SHUTDOWN_GRACE_SECONDS: '45', JOURNAL_ANCHOR_MINUTES: '0' });

    expect(config.shutdownGraceSeconds).toBe(45);
    expect(config.approvals.anchorMinutes).toBe(0);
    expect(configError({ SHUTDOWN_GRACE_SECONDS: '601' }).issues).toEqual([
      { field: 'SHUTDOWN_GRACE_SECONDS', rule: 'must be a whole number from 0 to 600' },
    ]);
    expect(configError({ JOURNAL_ANCHOR_MINUTES: 'hourly' }).issues[0]?.field).toBe('JOURNAL_ANCHOR_MINUTES');
  });
});

describe('MCP variables', () => {
  const SECRET = 'a'.repeat(32);
  const slack = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 'signing-secret-16+' };

  it('writes through approval by default with Slack, confirm without; no token, no HTTP endpoint', () => {
    expect(loadConfig({}).mcp).toEqual({ tokens: [], writes: 'confirm' });
    expect(loadConfig(slack).mcp).toEqual({ tokens: [], writes: 'approval' });
    expect(loadConfig({ ...slack, MCP_WRITES: ' OFF ' }).mcp.writes).toBe('off');
    expect(configError({ MCP_WRITES: 'yes' }).issues).toEqual([
      { field: 'MCP_WRITES', rule: 'must be approval, confirm or off' },
    ]);
  });

  it('reads MCP_TOKEN as a bare secret (label mcp) or label:secret pairs, comma-separated', () => {
    expect(loadConfig({ MCP_TOKEN: SECRET }).mcp.tokens).toEqual([{ label: 'mcp', secret: SECRET }]);
    expect(loadConfig({ MCP_TOKEN: `U0ALICE:${SECRET}, ci-bot:${'b'.repeat(20)}` }).mcp.tokens).toEqual([
      { label: 'U0ALICE', secret: SECRET },
      { label: 'ci-bot', secret: 'b'.repeat(20) },
    ]);
  });

  it('refuses short secrets, bad or repeated labels, without echoing the token', () => {
    for (const [value, rule] of [
      ['short', /at least 16 characters/],
      [`bad label:${SECRET}`, /each label/],
      [`a:${SECRET},a:${'c'.repeat(16)}`, /label "a" is used twice/],
    ] as const) {
      const error = configError({ MCP_TOKEN: value });
      expect(error.issues).toHaveLength(1);
      expect(error.issues[0]?.field).toBe('MCP_TOKEN');
      expect(error.issues[0]?.rule).toMatch(rule);
      expect(error.message).not.toContain(SECRET);
    }
  });

  it('needs MCP_APPROVAL_CHANNEL when the bot serves MCP writes as change requests, inside WRITE_CHANNELS', () => {
    expect(configError({ ...slack, MCP_TOKEN: `U0ALICE:${SECRET}` }).issues.map((i) => i.field)).toEqual([
      'MCP_APPROVAL_CHANNEL',
    ]);
    expect(loadConfig({ ...slack, MCP_TOKEN: SECRET, MCP_WRITES: 'confirm' }).mcp.writes).toBe('confirm');
    expect(
      loadConfig({ ...slack, MCP_TOKEN: `U0ALICE:${SECRET}`, MCP_APPROVAL_CHANNEL: 'C0NETOPS' }).mcp
        .approvalChannel,
    ).toBe('C0NETOPS');
    expect(configError({ MCP_APPROVAL_CHANNEL: '#netops' }).issues[0]?.rule).toBe(
      'must be a Slack channel id (C…)',
    );
    expect(configError({ MCP_APPROVAL_CHANNEL: 'C0OTHER', WRITE_CHANNELS: 'C0NETOPS' }).issues).toEqual([
      {
        field: 'MCP_APPROVAL_CHANNEL',
        rule: 'must be one of WRITE_CHANNELS, where changes may be requested',
      },
    ]);
  });

  it('in approval mode each MCP_TOKEN label must be its holder’s Slack user id, or the holder could approve their own proposal', () => {
    const approval = { ...slack, MCP_APPROVAL_CHANNEL: 'C0NETOPS' };
    const error = configError({ ...approval, MCP_TOKEN: `U0ALICE:${SECRET},ci:${'b'.repeat(20)}` });
    expect(error.issues.map((i) => i.field)).toEqual(['MCP_TOKEN']);
    expect(error.issues[0]?.rule).toMatch(/Slack user id of the token's holder .* not: "ci"/);
    expect(error.message).not.toContain(SECRET);
    expect(configError({ ...approval, MCP_TOKEN: SECRET }).issues[0]?.rule).toMatch(/a bare secret/);
    // Where nobody approves (confirm, off), or self-approval is allowed anyway, any label will do.
    expect(loadConfig({ ...approval, MCP_TOKEN: `ci:${SECRET}`, MCP_WRITES: 'off' }).mcp.tokens).toHaveLength(
      1,
    );
    expect(
      loadConfig({ ...approval, MCP_TOKEN: `ci:${SECRET}`, ALLOW_SELF_APPROVAL: 'true' }).mcp.tokens,
    ).toHaveLength(1);
  });

  it('warns, naming MCP_TOKEN and what to do, when it is set without SLACK_BOT_TOKEN (nothing serves /mcp)', () => {
    const warnings = configWarnings(loadConfig({ MCP_TOKEN: SECRET }));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^MCP_TOKEN is set but SLACK_BOT_TOKEN is not: .*no MCP endpoint is open/);
    expect(warnings[0]).toContain('`netops mcp` (stdio, needs no token)');
    expect(warnings[0]).toContain('set SLACK_BOT_TOKEN and start the bot');
    expect(warnings[0]).not.toContain(SECRET);
    expect(configWarnings(loadConfig({}))).toEqual([]);
    expect(configWarnings(loadConfig({ ...slack, MCP_TOKEN: SECRET, MCP_WRITES: 'confirm' }))).toEqual([]);
  });

  it('asks for BOT_SOURCE_ADDRESS in a container talking to a local console, and only there', () => {
    const local = { GATEWAY_URL: 'https://192.168.1.1', GATEWAY_API_KEY: 'k' };
    const [warning, ...rest] = configWarnings(loadConfig(local), { container: true });
    expect(rest).toEqual([]);
    expect(warning).toMatch(/^BOT_SOURCE_ADDRESS is unset in a container: /);
    expect(warning).toContain('status.hostIP');
    expect(configWarnings(loadConfig(local), { container: false })).toEqual([]);
    expect(
      configWarnings(loadConfig({ ...local, BOT_SOURCE_ADDRESS: '192.168.1.20' }), { container: true }),
    ).toEqual([]);
    // The simulator and the cloud connector have no LAN address to lock the bot out of.
    expect(configWarnings(loadConfig({}), { container: true })).toEqual([]);
    expect(
      configWarnings(loadConfig({ GATEWAY_API_TYPE: 'cloud', GATEWAY_API_KEY: 'k' }), { container: true }),
    ).toEqual([]);
  });
});

describe('watch variables', () => {
  it('defaults: no alerts, drift to AUDIT_CHANNEL, the digest at 8:00, 30 s polls, 300 s sweeps', () => {
    const config = loadConfig({ AUDIT_CHANNEL: 'C0AUDIT' });
    expect(config.watch).toEqual({
      flapSeconds: 120,
      alarmsPerMinute: 5,
      driftChannel: 'C0AUDIT',
      digestCron: '0 8 * * *',
      intervalSeconds: 30,
      driftIntervalSeconds: 300,
    });
  });

  it('names the variable and its rule for a bad cron, time zone, channel, group or short secret', () => {
    const issues = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        return (error as { issues: { field: string; rule: string }[] }).issues;
      }
    };
    expect(issues({ DIGEST_CRON: 'every morning' })).toEqual([
      { field: 'DIGEST_CRON', rule: 'must be a cron pattern such as 0 8 * * *' },
    ]);
    expect(issues({ TZ: 'Mars/Olympus' })[0]?.field).toBe('TZ');
    expect(loadConfig({ TZ: ':/etc/localtime' }).watch.timeZone).toBeUndefined();
    expect(loadConfig({ TZ: 'Europe/Paris' }).watch.timeZone).toBe('Europe/Paris');
    expect(issues({ ALERT_CHANNEL: '#alerts' })[0]?.field).toBe('ALERT_CHANNEL');
    expect(issues({ ALERT_MENTION: 'U123' })[0]?.field).toBe('ALERT_MENTION');
    expect(issues({ UNIFI_WEBHOOK_SECRET: 'short' })[0]).toEqual({
      field: 'UNIFI_WEBHOOK_SECRET',
      rule: 'must be at least 16 characters',
    });
    expect(issues({ WATCH_INTERVAL_SECONDS: '0' })[0]?.field).toBe('WATCH_INTERVAL_SECONDS');
  });
});
