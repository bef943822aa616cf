import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { singleConsole } from '../../src/consoles/consoles.js';
import { FleetConsoles, fleetGatewayOptions, loadFleet } from '../../src/consoles/fleet-consoles.js';
import { ValidationError } from '../../src/errors.js';
import { ConsolesFileError, parseConsolesFile } from '../../src/fleet/consoles-file.js';
import { resolveConsoles } from '../../src/fleet/resolve.js';
import type { Gateway } from '../../src/gateway/types.js';
import { silentLogger } from '../../src/log.js';

const FILE = `cloud:
  url: https://cloud.example
  api_key_env: CLOUD_KEY
consoles:
  - name: berlin
    url: https://10.1.0.1/
    api_key_env: BERLIN_KEY
    labels: { region: eu }
  - name: munich
    connector: { console_id: host-2 }
    labels: { region: eu }
  - name: boston
    url: https://10.3.0.1
    api_key_env: BOSTON_KEY
    verify_tls: false
    labels: { region: us }
channels:
  C0BERLIN1: { console: berlin }
  C0BERLIN2: { console: berlin, site: default }
  C0EUROPE1: { label: { region: eu } }
`;
const ENV = { CLOUD_KEY: 'cloud-secret', BERLIN_KEY: 'berlin-secret', BOSTON_KEY: 'boston-secret' };

function fleetOf(made: string[]) {
  const file = parseConsolesFile(FILE, '/etc/netops/consoles.yaml');
  const resolved = resolveConsoles(file, ENV);
  return new FleetConsoles(
    file,
    resolved,
    (entry) => {
      made.push(entry.name);
      return { name: entry.name, close: async () => {} } as unknown as Gateway;
    },
    2000,
  );
}

function writeFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'netops-consoles-')), 'consoles.yaml');
  writeFileSync(path, text);
  return path;
}

describe('the consoles of a fleet', () => {
  it('builds a console’s gateway on first use, once, and none for a console never asked about', () => {
    const made: string[] = [];
    const fleet = fleetOf(made);
    expect(fleet.fleet).toBe(true);
    expect(fleet.list().map((each) => [each.name, each.via])).toEqual([
      ['berlin', 'local'],
      ['munich', 'connector'],
      ['boston', 'local'],
    ]);
    expect(made).toEqual([]);
    expect(fleet.gateway('munich')).toBe(fleet.gateway('munich'));
    expect(made).toEqual(['munich']);
  });

  it('keeps at most maxOpen gateways open, closing the least recently used but never the default one', async () => {
    const closed: string[] = [];
    const file = parseConsolesFile(FILE, '/etc/netops/consoles.yaml');
    const fleet = new FleetConsoles(
      file,
      resolveConsoles(file, ENV),
      (entry) =>
        ({ name: entry.name, close: async () => void closed.push(entry.name) }) as unknown as Gateway,
      2000,
      2,
    );
    fleet.defaultGateway(); // berlin, kept for background work
    fleet.gateway('munich');
    fleet.gateway('boston'); // three open: munich, the least recently used but for berlin, is closed
    expect(fleet.open()).toEqual(['berlin', 'boston']);
    fleet.gateway('munich'); // built again; boston goes
    expect(fleet.open()).toEqual(['berlin', 'munich']);
    await Promise.resolve();
    expect(closed).toEqual(['munich', 'boston']);
  });

  it('refuses a name not served, naming the consoles and the nearest', () => {
    const fleet = fleetOf([]);
    const error = (() => {
      try {
        fleet.gateway('berlni');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      {
        field: 'console',
        rule: 'no console is named berlni (this bot serves berlin, munich, boston); did you mean berlin?',
      },
    ]);
  });

  it('answers what a channel is bound to: a console, one of its sites, or every labelled console', () => {
    const fleet = fleetOf([]);
    expect(fleet.channel('C0BERLIN1')).toEqual({ consoles: ['berlin'], site: undefined });
    expect(fleet.channel('C0BERLIN2')).toEqual({ consoles: ['berlin'], site: 'default' });
    expect(fleet.channel('C0EUROPE1')).toEqual({
      consoles: ['berlin', 'munich'],
      site: undefined,
      labels: { region: 'eu' },
    });
    expect(fleet.channel('C0OTHER01')).toBeUndefined();
  });

  it('lists the channels the file binds, in its order, for their daily digests', () => {
    expect(fleetOf([]).boundChannels()).toEqual(['C0BERLIN1', 'C0BERLIN2', 'C0EUROPE1']);
  });

  it('gives each console its own address and key, or the connector with the cloud key', () => {
    const file = parseConsolesFile(FILE, '/etc/netops/consoles.yaml');
    const [berlin, munich, boston] = resolveConsoles(file, ENV);
    const config = loadConfig({ GATEWAY_READ_BUDGET_MS: '3000', GATEWAY_TIMEOUT_MS: '900' });
    const logger = silentLogger();
    if (!berlin || !munich || !boston) throw new Error('three consoles');
    expect(fleetGatewayOptions(berlin, config, logger)).toMatchObject({
      apiType: 'local',
      url: 'https://10.1.0.1',
      apiKey: 'berlin-secret',
      verifyTls: true,
      timeoutMs: 900,
      retry: { budgetMs: 3000 },
    });
    expect(fleetGatewayOptions(munich, config, logger)).toMatchObject({
      apiType: 'cloud',
      url: 'https://cloud.example',
      apiKey: 'cloud-secret',
      consoleId: 'host-2',
    });
    expect(fleetGatewayOptions(boston, config, logger)).toMatchObject({ verifyTls: false });
    expect(fleetOf([]).secretValues().sort()).toEqual(['berlin-secret', 'boston-secret', 'cloud-secret']);
  });

  it('loads CONSOLES_FILE with its keys from the environment, or names the line of the problem', async () => {
    const good = writeFile(FILE);
    const fleet = await loadFleet(loadConfig({ CONSOLES_FILE: good, ...ENV }), silentLogger());
    expect(fleet.list()).toHaveLength(3);
    const unset = () => loadFleet(loadConfig({ CONSOLES_FILE: good, CLOUD_KEY: 'x' }), silentLogger());
    await expect(unset()).rejects.toThrow(ConsolesFileError);
    await expect(unset()).rejects.toThrow(/BERLIN_KEY is not set or empty/);
    const bad = writeFile('consoles:\n  - name: Berlin\n    url: https://10.1.0.1\n    api_key_env: K\n');
    await expect(loadFleet(loadConfig({ CONSOLES_FILE: bad, K: 'k' }), silentLogger())).rejects.toThrow(
      /line 2, consoles\[0\]\.name: must be a slug/,
    );
  });

  it('with discovery, serves the consoles Site Manager lists, each through the connector', async () => {
    const discover = writeFile(
      'cloud: { api_key_env: K }\ndiscover: site_manager\nconsoles:\n  - name: oslo\n    labels: { region: eu }\n',
    );
    const asked: string[] = [];
    const siteManager = async (route: string) => {
      asked.push(route);
      return route === '/v1/hosts'
        ? {
            data: [
              { id: 'H1', reportedState: { name: 'Oslo' } },
              { id: 'H2', reportedState: { name: 'Riga' } },
            ],
          }
        : { data: [] };
    };
    const fleet = await loadFleet(
      loadConfig({ CONSOLES_FILE: discover, K: 'k' }),
      silentLogger(),
      siteManager,
    );
    expect(fleet.list()).toEqual([
      { name: 'oslo', labels: { region: 'eu' }, via: 'connector', sites: undefined },
      { name: 'riga', labels: {}, via: 'connector', sites: undefined },
    ]);
    expect(asked.sort()).toEqual(['/v1/hosts', '/v1/sites']);
    expect(fleet.secretValues()).toEqual(['k', 'k']);
    // The key missing: refused at start on the line of cloud, before Site Manager is asked.
    asked.length = 0;
    await expect(
      loadFleet(loadConfig({ CONSOLES_FILE: discover }), silentLogger(), siteManager),
    ).rejects.toThrow(/line 1, cloud\.api_key_env: K is not set or empty/);
    expect(asked).toEqual([]);
  });
});

describe('the one console of a bot without CONSOLES_FILE', () => {
  it('is named default, serves its gateway, and refuses any other name', () => {
    const gateway = { close: async () => {} } as unknown as Gateway;
    const single = singleConsole(gateway, 8000);
    expect(single.fleet).toBe(false);
    expect(single.list()).toEqual([{ name: 'default', labels: {}, via: 'single', sites: undefined }]);
    expect(single.gateway('default')).toBe(gateway);
    expect(() => single.gateway('berlin')).toThrow(ValidationError);
    expect(single.channel('C0BERLIN1')).toBeUndefined();
  });
});
