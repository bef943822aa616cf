import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConsolesFileError, parseConsolesFile } from '../../src/fleet/consoles-file.js';
import {
  bindingTargets,
  channelBinding,
  hostSlug,
  mergeDiscovered,
  resolveCloud,
  resolveConsoles,
} from '../../src/fleet/resolve.js';

const dir = mkdtempSync(join(tmpdir(), 'consoles-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TEXT = `cloud:
  api_key_env: CLOUD_KEY
consoles:
  - name: berlin
    url: https://10.1.0.1
    api_key_env: BERLIN_KEY
    ca_file: berlin.pem
    labels: { customer: acme, region: eu }
  - name: boston
    url: https://boston.example.net
    api_key_file: keys/boston
    verify_tls: false
    labels: { customer: initech, region: us }
    sites: [default, warehouse]
  # Deliberately alike: a consoles file as an admin writes it; the parser's tests keep their own copy.
  - name: oslo
    connector: { console_id: "HOST-OSLO:1" }
    labels: { customer: acme, region: eu }
channels:
  C01BERLIN: { console: berlin }
  C02WARE: { console: boston, site: warehouse }
  C03ACME: { label: { customer: acme } }
  C04EUACME: { label: { customer: acme, region: eu } }
`;

function write(relative: string, text: string): void {
  const full = join(dir, relative);
  rmSync(full, { force: true });
  writeFileSync(full, text);
}

const file = () => parseConsolesFile(TEXT, join(dir, 'consoles.yaml'));
const ENV = { CLOUD_KEY: 'cloud-secret', BERLIN_KEY: ' berlin-secret\n' };

describe('resolveConsoles', () => {
  it('reads keys from the environment and from files next to the consoles file, and the CA bundle', async () => {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'keys'), { recursive: true });
    write('keys/boston', 'boston-secret\n');
    write('berlin.pem', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');

    const consoles = resolveConsoles(file(), ENV);

    expect(consoles).toEqual([
      {
        name: 'berlin',
        labels: { customer: 'acme', region: 'eu' },
        sites: undefined,
        connection: {
          kind: 'local',
          url: 'https://10.1.0.1',
          apiKey: 'berlin-secret',
          ca: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
          verifyTls: true,
        },
      },
      {
        name: 'boston',
        labels: { customer: 'initech', region: 'us' },
        sites: ['default', 'warehouse'],
        connection: {
          kind: 'local',
          url: 'https://boston.example.net',
          apiKey: 'boston-secret',
          verifyTls: false,
        },
      },
      {
        name: 'oslo',
        labels: { customer: 'acme', region: 'eu' },
        sites: undefined,
        connection: {
          kind: 'connector',
          consoleId: 'HOST-OSLO:1',
          cloudUrl: 'https://api.ui.com',
          apiKey: 'cloud-secret',
        },
      },
    ]);
  });

  it('names every variable not set and file not readable, with the line, and no secret value', () => {
    const reads: string[] = [];
    const read = (path: string) => {
      reads.push(path);
      if (path.endsWith('berlin.pem')) return 'PEM';
      throw new Error(`ENOENT ${path}`);
    };

    let error: unknown;
    try {
      resolveConsoles(file(), { BERLIN_KEY: '', CLOUD_KEY: 'cloud-secret' }, read);
    } catch (caught) {
      error = caught;
    }

    expect(error).toBeInstanceOf(ConsolesFileError);
    const problems = (error as ConsolesFileError).problems;
    expect(problems).toEqual([
      { line: 4, path: 'consoles[0] (berlin).api_key_env', rule: 'BERLIN_KEY is not set or empty' },
      { line: 9, path: 'consoles[1] (boston).api_key_file', rule: `cannot read ${join(dir, 'keys/boston')}` },
    ]);
    expect(reads).toContain(join(dir, 'keys/boston'));
    expect((error as Error).message).toContain(join(dir, 'consoles.yaml'));
    expect((error as Error).message).not.toContain('cloud-secret');
  });

  it('refuses a key file that is empty', () => {
    const read = (path: string) => (path.endsWith('boston') ? '\n' : 'PEM');

    expect(() => resolveConsoles(file(), ENV, read)).toThrow(/keys\/boston is empty/);
  });

  it('needs the cloud key only when a connector console is used', () => {
    const localOnly = parseConsolesFile(
      'cloud: { api_key_env: CLOUD_KEY }\nconsoles:\n  - name: a\n    url: http://a\n    api_key_env: A\n',
      join(dir, 'x.yaml'),
    );

    expect(resolveConsoles(localOnly, { A: 'a-key' })).toHaveLength(1);
    expect(() => resolveConsoles(file(), { BERLIN_KEY: 'b' }, () => 'text')).toThrow(/CLOUD_KEY is not set/);
  });
});

describe('resolveCloud', () => {
  it('gives the cloud URL and key, or undefined without a cloud section', () => {
    expect(resolveCloud(file(), ENV)).toEqual({ url: 'https://api.ui.com', apiKey: 'cloud-secret' });
    const noCloud = parseConsolesFile(
      'consoles:\n  - name: a\n    url: http://a\n    api_key_env: A\n',
      'c.yaml',
    );
    expect(resolveCloud(noCloud, {})).toBeUndefined();
    expect(() => resolveCloud(file(), {})).toThrow(/line 2, cloud.api_key_env: CLOUD_KEY is not set/);
  });
});

describe('channel bindings', () => {
  it('binds a channel to a console, to one site of it, or to every console with the labels', () => {
    const parsed = file();
    const consoles = parsed.consoles;

    const berlin = channelBinding(parsed, 'C01BERLIN');
    const warehouse = channelBinding(parsed, 'C02WARE');
    const acme = channelBinding(parsed, 'C03ACME');
    const euAcme = channelBinding(parsed, 'C04EUACME');

    expect(berlin && bindingTargets(berlin, consoles)).toEqual([{ console: 'berlin', site: undefined }]);
    expect(warehouse && bindingTargets(warehouse, consoles)).toEqual([
      { console: 'boston', site: 'warehouse' },
    ]);
    expect(acme && bindingTargets(acme, consoles)).toEqual([
      { console: 'berlin', site: undefined },
      { console: 'oslo', site: undefined },
    ]);
    expect(euAcme && bindingTargets(euAcme, consoles).map((t) => t.console)).toEqual(['berlin', 'oslo']);
    expect(channelBinding(parsed, 'C99UNKNOWN')).toBeUndefined();
  });

  it('reaches nothing when the bound console is not among those given (a discovered one that went away)', () => {
    expect(bindingTargets({ kind: 'console', console: 'gone' }, file().consoles)).toEqual([]);
  });
});

describe('mergeDiscovered', () => {
  const discovering = parseConsolesFile(
    `discover: site_manager
cloud: { api_key_env: CLOUD_KEY }
consoles:
  - name: berlin-hq
    labels: { customer: acme }
    sites: [default]
  - name: typo-console
    labels: { customer: nobody }
`,
    'd.yaml',
  );

  it('makes one connector console per host, adds the file’s labels and sites, and lists entries no host matched', () => {
    const { consoles, unmatched } = mergeDiscovered(discovering, [
      { id: 'H1', name: 'Berlin HQ' },
      { id: 'H2', name: 'Zürich Büro' },
      { id: 'H3', name: 'Zürich Büro' },
    ]);

    expect(consoles.map((c) => [c.name, c.connection])).toEqual([
      ['berlin-hq', { kind: 'connector', consoleId: 'H1' }],
      ['zurich-buro', { kind: 'connector', consoleId: 'H2' }],
      ['zurich-buro-2', { kind: 'connector', consoleId: 'H3' }],
    ]);
    expect(consoles[0]).toMatchObject({ labels: { customer: 'acme' }, sites: ['default'] });
    expect(consoles[1]?.labels).toEqual({});
    expect(unmatched).toEqual(['typo-console']);
    const resolved = resolveConsoles(discovering, { CLOUD_KEY: 'k' }, undefined, consoles);
    expect(resolved.map((c) => c.connection)).toEqual([
      { kind: 'connector', consoleId: 'H1', cloudUrl: 'https://api.ui.com', apiKey: 'k' },
      { kind: 'connector', consoleId: 'H2', cloudUrl: 'https://api.ui.com', apiKey: 'k' },
      { kind: 'connector', consoleId: 'H3', cloudUrl: 'https://api.ui.com', apiKey: 'k' },
    ]);
  });

  it('slugs host names the way the file must name them', () => {
    expect(hostSlug('  UDM-Pro (Lager) ')).toBe('udm-pro-lager');
    expect(hostSlug('***')).toBe('console');
  });
});
