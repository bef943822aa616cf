import { describe, expect, it } from 'vitest';
import { ENV_VARIABLES, loadConfig, loadStoreConfig } from '../src/config.js';
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
      auditChannel: undefined,
    });
    expect(config.dataDir.endsWith('/data')).toBe(true);
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
    ]);
    expect(error.message).toContain('PORT: must be a whole number from 0 to 65535');
    expect(error.message).toContain('GATEWAY_API_TYPE: must be local or cloud');
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
    expect(loadConfig({}).simulator).toEqual({ firewall: 'zone-based' });
    expect(loadConfig({ SIMULATOR_FIREWALL: ' Legacy ' }).simulator).toEqual({ firewall: 'legacy' });
    expect(configError({ SIMULATOR_FIREWALL: 'zones' }).issues).toEqual([
      { field: 'SIMULATOR_FIREWALL', rule: 'must be zone-based or legacy' },
    ]);
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
        'DEFAULT_SITE',
        'APPROVERS',
        'ALLOW_SELF_APPROVAL',
        'REQUESTERS',
        'WRITE_CHANNELS',
        'APPROVAL_TTL_SECONDS',
        'DATA_DIR',
        'DATABASE_URL',
        'DATABASE_SSL',
        'DATABASE_CA_FILE',
        'REPLICA_LEASE_SECONDS',
        'AUDIT_CHANNEL',
        'LOG_LEVEL',
        'SIMULATOR_FIREWALL',
      ]),
    );
    expect(ENV_VARIABLES).toHaveLength(29);
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
});
