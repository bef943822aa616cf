import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { ConsolesFileError, parseConsolesFile } from '../../src/fleet/consoles-file.js';

const FILE = '/etc/netops/consoles.yaml';

/** The error parsing `text` raises (the test fails when it parses). */
function refusal(text: string): ConsolesFileError {
  try {
    parseConsolesFile(text, FILE);
  } catch (error) {
    if (error instanceof ConsolesFileError) return error;
    throw error;
  }
  throw new Error('the file parsed');
}

// Deliberately alike: a consoles file written out as an admin writes it; the resolver's tests keep their own copy.
const GOOD = `# An MSP's consoles
cloud:
  api_key_env: UI_CLOUD_KEY
consoles:
  - name: berlin
    url: https://10.1.0.1/
    api_key_env: BERLIN_KEY
    ca_file: certs/berlin.pem
    labels: { customer: acme, region: eu }
    sites: [default, lager]
  - name: boston
    url: https://boston.example.net
    api_key_file: /run/secrets/boston
    verify_tls: false
    labels: { customer: initech, region: us }
  - name: oslo
    connector: { console_id: "942A6FCE26520000000008A62C8000000000091C92E70000000067801E31:392959371" }
    labels: { customer: acme, region: eu }
channels:
  C01BERLIN: { console: berlin }
  C02LAGER: { console: berlin, site: lager }
  C03EU: { label: { region: eu } }
`;

describe('parseConsolesFile: good files', () => {
  it('reads local, file-keyed and connector consoles, their labels, sites and channel bindings', () => {
    const file = parseConsolesFile(GOOD, FILE);

    expect(file.file).toBe(FILE);
    expect(file.cloud).toMatchObject({ url: 'https://api.ui.com', apiKeyEnv: 'UI_CLOUD_KEY' });
    expect(file.discover).toBeUndefined();
    expect(file.consoles.map((c) => c.name)).toEqual(['berlin', 'boston', 'oslo']);
    const [berlin, boston, oslo] = file.consoles;
    expect(berlin?.connection).toEqual({
      kind: 'local',
      url: 'https://10.1.0.1',
      apiKeyEnv: 'BERLIN_KEY',
      caFile: 'certs/berlin.pem',
      verifyTls: true,
    });
    expect(berlin?.labels).toEqual({ customer: 'acme', region: 'eu' });
    expect(berlin?.sites).toEqual(['default', 'lager']);
    expect(berlin?.line).toBe(5);
    expect(boston?.connection).toMatchObject({
      kind: 'local',
      apiKeyFile: '/run/secrets/boston',
      verifyTls: false,
    });
    expect(boston?.sites).toBeUndefined();
    expect(oslo?.connection).toEqual({
      kind: 'connector',
      consoleId: '942A6FCE26520000000008A62C8000000000091C92E70000000067801E31:392959371',
    });
    expect(file.channels.get('C01BERLIN')).toEqual({ kind: 'console', console: 'berlin' });
    expect(file.channels.get('C02LAGER')).toEqual({ kind: 'console', console: 'berlin', site: 'lager' });
    expect(file.channels.get('C03EU')).toEqual({ kind: 'label', labels: { region: 'eu' } });
  });

  it('takes the cloud URL from the file when given, and a file with discovery and overlays only', () => {
    const file = parseConsolesFile(
      `discover: site_manager
cloud: { url: "http://127.0.0.1:9000", api_key_file: cloud.key }
consoles:
  - name: berlin-hq
    labels: { customer: acme }
    sites: [default]
channels:
  C0B1: { console: not-listed-yet }
`,
      FILE,
    );

    expect(file.discover).toBe('site_manager');
    expect(file.cloud).toMatchObject({ url: 'http://127.0.0.1:9000', apiKeyFile: 'cloud.key' });
    expect(file.consoles[0]).toMatchObject({ name: 'berlin-hq', connection: undefined, sites: ['default'] });
  });

  it('takes the cloud budget per minute when given, and refuses one that is not a whole number of requests', () => {
    const file = parseConsolesFile(
      `cloud: { api_key_env: CLOUD, requests_per_minute: 600 }
consoles:
  - name: oslo
    connector: { console_id: host-1 }
`,
      FILE,
    );
    expect(file.cloud).toMatchObject({ requestsPerMinute: 600 });
    const one = 'consoles:\n  - name: oslo\n    connector: { console_id: host-1 }\n';
    expect(parseConsolesFile(`cloud: { api_key_env: CLOUD }\n${one}`, FILE).cloud).not.toHaveProperty(
      'requestsPerMinute',
    );
    for (const bad of ['0', '2.5', '"many"'])
      expect(() =>
        parseConsolesFile(`cloud: { api_key_env: CLOUD, requests_per_minute: ${bad} }\n${one}`, FILE),
      ).toThrow(/requests_per_minute/);
  });

  it('takes the breaker’s failures and cool-down when given, within their bounds', () => {
    const one = 'consoles:\n  - name: berlin\n    url: https://10.1.0.1\n    api_key_env: BERLIN_KEY\n';
    expect(parseConsolesFile(one, FILE).breaker).toEqual({});
    expect(
      parseConsolesFile(`breaker: { failures: 2, cool_down_seconds: 90 }\n${one}`, FILE).breaker,
    ).toEqual({
      failures: 2,
      coolDownMs: 90_000,
    });
    const refused = (breaker: string) => {
      try {
        parseConsolesFile(`breaker: ${breaker}\n${one}`, FILE);
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('the file parsed');
    };
    expect(refused('{ failures: 0 }')).toMatch(/line 1, breaker\.failures: must be at least 1/);
    expect(refused('{ cool_down_seconds: 2 }')).toMatch(
      /line 1, breaker\.cool_down_seconds: must be at least 5/,
    );
    expect(refused('{ threshold: 3 }')).toMatch(/line 1, breaker/);
  });
});

describe('parseConsolesFile: bad files name the file, the line and the rule', () => {
  it('is a ConfigError with code config_invalid', () => {
    const error = refusal('consoles: []\n');

    expect(error).toBeInstanceOf(ConfigError);
    expect(error.code).toBe('config_invalid');
    expect(error.message).toContain(FILE);
    expect(error.problems).toEqual([
      { line: 1, path: 'consoles', rule: expect.stringContaining('lists no console') },
    ]);
  });

  it('refuses text that is not YAML, on the line where it breaks', () => {
    const error = refusal('consoles:\n  - name: a\n    url: [http://x\n');

    expect(error.problems[0]?.rule).toMatch(/^not YAML: /);
    expect(error.problems[0]?.line).toBeGreaterThanOrEqual(3);
    expect(error.message).toMatch(/line \d+: not YAML/);
  });

  it('refuses a duplicate YAML key on its line', () => {
    const error = refusal(
      'consoles:\n  - name: a\n    url: http://x\n    url: http://y\n    api_key_env: A\n',
    );

    expect(error.problems).toEqual([{ line: 4, path: '', rule: 'not YAML: Map keys must be unique' }]);
  });

  it('refuses an empty file and a file that is a list', () => {
    expect(refusal('').problems[0]?.rule).toBe('the file is empty');
    expect(refusal('- name: a\n').problems[0]).toMatchObject({
      line: 1,
      rule: expect.stringContaining('must be a map'),
    });
  });

  it('names each bad field with its own line', () => {
    const error = refusal(`consoles:
  - name: Berlin HQ
    url: ftp://10.0.0.1
    api_key_env: 9BAD
    colour: red
channels:
  general: { console: berlin }
`);

    expect(error.problems).toEqual([
      { line: 2, path: 'consoles[0].name', rule: expect.stringContaining('must be a slug') },
      { line: 3, path: 'consoles[0].url', rule: 'must be an http(s) URL' },
      {
        line: 4,
        path: 'consoles[0].api_key_env',
        rule: expect.stringContaining('environment variable name'),
      },
      { line: 5, path: 'consoles[0].colour', rule: 'is not a known key' },
      { line: 7, path: 'channels.general', rule: expect.stringContaining('Slack channel id') },
    ]);
    expect(error.message).toContain('line 3, consoles[0].url: must be an http(s) URL');
  });

  it('says a missing name is required, pointing at the entry', () => {
    const error = refusal('consoles:\n  - url: http://x\n    api_key_env: A\n');

    expect(error.problems).toEqual([{ line: 2, path: 'consoles[0].name', rule: 'is required' }]);
  });

  it('refuses a label value that is not a string', () => {
    const error = refusal(
      'consoles:\n  - name: a\n    url: http://x\n    api_key_env: A\n    labels:\n      region: 7\n',
    );

    expect(error.problems).toEqual([
      { line: 6, path: 'consoles[0].labels.region', rule: 'label values must be strings (quote numbers)' },
    ]);
  });

  it('checks how each console is reached', () => {
    const error = refusal(`cloud: { api_key_env: CLOUD }
consoles:
  - name: a
  - name: b
    url: http://b
  - name: c
    url: http://c
    api_key_env: C
    api_key_file: /c
  - name: d
    url: http://d
    api_key_env: D
    connector: { console_id: x }
  - name: e
    connector: { console_id: x }
    api_key_env: E
  - name: f
    url: http://f
    api_key_env: F
    verify_tls: false
    ca_file: f.pem
`);

    expect(error.problems.map((p) => [p.line, p.path])).toEqual([
      [3, 'consoles[0].name'],
      [5, 'consoles[1].url'],
      [7, 'consoles[2].url'],
      [13, 'consoles[3].connector'],
      [16, 'consoles[4].api_key_env'],
      [21, 'consoles[5].ca_file'],
    ]);
    expect(error.problems[0]?.rule).toContain('needs a url');
    expect(error.problems[2]?.rule).toBe('needs exactly one of api_key_env and api_key_file');
    expect(error.problems[3]?.rule).toContain('not both');
  });

  it('refuses duplicate names, a connector without a cloud key, and channels bound to nothing', () => {
    // Every line below is wrong in its own way but the last, which the schema refuses first.
    const file = `consoles:
  - name: a
    url: http://a
    api_key_env: A
    sites: [default]
  - name: a
    connector: { console_id: x }
channels:
  C0B1: { console: b }
  C0B2: { console: a, site: lager }
  C0B3: { label: { region: mars } }
`;
    const error = refusal(`${file}  C0B4: { site: default }\n`);

    expect(error.problems.map((p) => [p.line, p.path])).toEqual([[12, 'channels.C0B4']]);
    const second = refusal(file);

    expect(second.problems).toEqual([
      { line: 6, path: 'consoles[1].name', rule: 'a is already the name of consoles[0]' },
      { line: 7, path: 'consoles[1].connector', rule: expect.stringContaining('needs cloud') },
      { line: 9, path: 'channels.C0B1.console', rule: 'no console is named b' },
      { line: 10, path: 'channels.C0B2.site', rule: expect.stringContaining('does not serve site lager') },
      { line: 11, path: 'channels.C0B3.label', rule: 'no console has these labels' },
    ]);
  });

  it('with discovery, refuses entries that say how to reach a console, and discovery without a cloud key', () => {
    const error = refusal('discover: site_manager\nconsoles:\n  - name: a\n    url: http://a\n');

    expect(error.problems).toEqual([
      { line: 1, path: 'discover', rule: expect.stringContaining('needs cloud') },
      { line: 4, path: 'consoles[0].url', rule: expect.stringContaining('only add labels and sites') },
    ]);
  });
});

describe('parseConsolesFile: secrets only by reference', () => {
  it('refuses an inline api_key, says what to use instead, and never repeats the value', () => {
    const error = refusal(`consoles:
  - name: berlin
    url: https://10.1.0.1
    api_key: s3cr3t-VALUE-123
`);

    expect(error.problems).toEqual([
      {
        line: 4,
        path: 'consoles[0].api_key',
        rule: expect.stringMatching(/use api_key_env .* or api_key_file/),
      },
    ]);
    expect(error.message).not.toContain('s3cr3t-VALUE-123');
    expect(JSON.stringify(error.issues)).not.toContain('s3cr3t-VALUE-123');
  });

  it('refuses inline secrets wherever they are: the cloud, a password, a token', () => {
    const error = refusal(`cloud:
  api_key: abc
consoles:
  - name: a
    url: http://a
    password: hunter2
    token: t0k3n
`);

    expect(error.problems.map((p) => [p.line, p.path])).toEqual([
      [2, 'cloud.api_key'],
      [6, 'consoles[0].password'],
      [7, 'consoles[0].token'],
    ]);
    expect(error.message).not.toMatch(/hunter2|t0k3n|abc\b/);
  });

  it('does not quote the source in a YAML error, where a secret may sit', () => {
    const error = refusal('consoles:\n  - name: a\n    api_key_env: "HUNTER2SECRET\n');

    expect(error.message).not.toContain('HUNTER2SECRET');
  });
});
