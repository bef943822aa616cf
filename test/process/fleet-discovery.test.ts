// A fleet discovered from Site Manager (`discover: site_manager`): the built program lists the
// consoles the cloud key sees and reaches each through the connector; a missing or refused key and
// a silent Site Manager stop the start with a message that says which.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fleet, startFleet } from '../../src/simulator/fleet.js';
import { runBot, stopAllBots } from '../helpers/bot-process.js';

let fleet: Fleet;

function written(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'netops-discovery-')), 'consoles.yaml');
  writeFileSync(path, text);
  return path;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// Deliberately alike: each fleet process suite starts the consoles it needs; the first two are the same pair.
beforeAll(async () => {
  // More hosts than Site Manager's page (3 a page here): discovery must follow nextToken.
  fleet = await startFleet({
    consoles: [
      { name: 'berlin', version: '10.1' },
      { name: 'munich', version: '9.0' },
      { name: 'hamburg', version: '10.1', down: true },
      { name: 'vienna', version: '9.0' },
      { name: 'zurich', version: '10.1' },
    ],
    cloud: { defaultPageSize: 3 },
  });
});

afterAll(async () => {
  await stopAllBots();
  await fleet?.close();
});

describe('a bot discovering its fleet from Site Manager', () => {
  it('lists every console the cloud key sees, each through the connector, reachable or not', async () => {
    const file = fleet.discoveryFile();
    fleet.cloud.clearRequests();
    const run = await runBot(['list_consoles', '--json'], {
      env: { ...file.env, CONSOLES_FILE: written(file.text), GATEWAY_READ_BUDGET_MS: '3000' },
    });
    expect(run.code).toBe(0);
    const rows = JSON.parse(run.stdout) as { console: string; via: string; reachable: boolean }[];
    expect(rows.map((r) => [r.console, r.via, r.reachable])).toEqual([
      ['berlin', 'connector', true],
      ['munich', 'connector', true],
      ['hamburg', 'connector', false],
      ['vienna', 'connector', true],
      ['zurich', 'connector', true],
    ]);
    // Five hosts and ten sites, three a page: every page was asked for.
    const pages = (path: string) => fleet.cloud.requests.filter((r) => r.path === path).length;
    expect([pages('/v1/hosts'), pages('/v1/sites')]).toEqual([2, 4]);
    expect(run.stderr).not.toContain(fleet.cloud.apiKey);
  });

  it('reads one discovered console by console=, through the connector, and serves only what include names', async () => {
    const file = fleet.discoveryFile(['mun*', 'zurich']);
    const env = { ...file.env, CONSOLES_FILE: written(file.text) };
    fleet.cloud.clearRequests();
    const [vlans, consoles, outside] = await Promise.all([
      runBot(['list_vlans', 'console=munich', '--json'], { env }),
      runBot(['list_consoles', '--json'], { env }),
      runBot(['list_vlans', 'console=berlin'], { env }),
    ]);
    expect(vlans.code).toBe(0);
    const seeded = fleet.console('munich').state.sites[0]?.networks.map((n) => n.name) ?? [];
    for (const network of JSON.parse(vlans.stdout) as { name: string }[])
      expect(seeded).toContain(network.name);
    const munichId = encodeURIComponent(fleet.console('munich').consoleId);
    expect(
      fleet.cloud.requests.some((r) =>
        [munichId, fleet.console('munich').consoleId].some((id) =>
          r.path.startsWith(`/v1/connector/consoles/${id}/`),
        ),
      ),
    ).toBe(true);
    expect((JSON.parse(consoles.stdout) as { console: string }[]).map((r) => r.console)).toEqual([
      'munich',
      'zurich',
    ]);
    expect(outside.code).not.toBe(0);
    expect(outside.stderr).toContain('no console is named berlin (this bot serves munich, zurich)');
  });

  it('refuses to start without the cloud key, naming its line and variable', async () => {
    const file = fleet.discoveryFile();
    const run = await runBot(['list_consoles'], { env: { CONSOLES_FILE: written(file.text) } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/line 3, cloud\.api_key_env: FLEET_CLOUD_API_KEY is not set or empty/);
  });

  it('refuses to start when Site Manager refuses the key, without quoting it', async () => {
    const file = fleet.discoveryFile();
    const run = await runBot(['list_consoles'], {
      env: { FLEET_CLOUD_API_KEY: 'not-the-cloud-key-123', CONSOLES_FILE: written(file.text) },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/cloud\.api_key_env: Site Manager refused the key \(HTTP 401\)/);
    expect(run.stderr).not.toContain('not-the-cloud-key-123');
  });

  it('stops the start with exit 1 when Site Manager does not answer', async () => {
    const port = await closedPort();
    const file = fleet.discoveryFile();
    const text = file.text.replace(fleet.cloud.url, `http://127.0.0.1:${port}`);
    const run = await runBot(['list_consoles'], { env: { ...file.env, CONSOLES_FILE: written(text) } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `netops: Site Manager at http://127.0.0.1:${port} did not list the consoles: connection failed (after 3 tries)`,
    );
    expect(run.stdout).toBe('');
  });
});
