import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type FleetConsoles, loadFleet } from '../../src/consoles/fleet-consoles.js';
import { RateBudgetSpentError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { type Fleet, startFleet } from '../../src/simulator/fleet.js';
import { type FleetApp, startFleetApp } from '../helpers/fleet-consoles.js';

let fleet: Fleet;
let consoles: FleetConsoles;
let app: App;
let running: FleetApp | undefined;

interface Lookup {
  found: { console: string }[];
  unanswered: { console: string; error: string }[];
}

beforeAll(async () => {
  // berlin answers; vienna answers after 5 s, longer than a request may take (1 s).
  running = await startFleetApp(
    { consoles: [{ name: 'berlin' }, { name: 'vienna', slow: 5000 }] },
    'netops-breaker-',
  );
  ({ fleet, consoles, app } = running);
});

afterAll(() => running?.close());

const where = async (client: string) => {
  const started = Date.now();
  const answer = (await app.registry.run('find_client', { client }, app.context)) as Lookup;
  return { answer, ms: Date.now() - started };
};

describe('a fleet lookup with a console that does not answer', () => {
  it('waits out the console’s timeout until its breaker opens, then names it at once', async () => {
    const mac = fleet.console('berlin').state.sites[0]?.clients[0]?.mac ?? '';
    const first = await where(mac);
    expect(first.answer.found.map((row) => row.console)).toContain('berlin');
    expect(first.answer.unanswered.map((row) => row.console)).toContain('vienna');
    // Until the breaker opens each lookup waits up to the read budget for vienna.
    while (consoles.breaker('vienna').state === 'closed') await where(mac);
    expect(consoles.breaker('berlin').state).toBe('closed');

    const fast = await where(mac);
    expect(fast.ms).toBeLessThan(500);
    expect(fast.answer.found.map((row) => row.console)).toContain('berlin');
    const vienna = fast.answer.unanswered.find((row) => row.console === 'vienna');
    expect(vienna?.error).toMatch(
      /^vienna: not answering since \d\d:\d\d \(.+ did not answer within .+\), retrying in \d+s$/,
    );
    const view = consoles.breaker('vienna');
    expect(view.state).toBe('open');
    expect(view.retryAt).toBeGreaterThan(Date.now());
  });
});

describe('a breaker set in the consoles file', () => {
  let tuned: FleetApp | undefined;
  afterAll(() => tuned?.close());

  it('opens after the file’s failures and stays open for its cool-down', async () => {
    tuned = await startFleetApp(
      { consoles: [{ name: 'berlin' }, { name: 'vienna', down: true }] },
      'netops-breaker-file-',
      'breaker: { failures: 1, cool_down_seconds: 120 }\n',
    );
    const before = Date.now();
    await tuned.app.registry.run('list_consoles', {}, tuned.app.context);
    const view = tuned.consoles.breaker('vienna');
    // One refused connection is enough, and the next try is two minutes away, not the default 30 s.
    expect(view.state).toBe('open');
    expect(view.retryAt).toBeGreaterThanOrEqual(before + 119_000);
    expect(tuned.consoles.breaker('berlin').state).toBe('closed');
  });
});

describe('consoles reached through the cloud', () => {
  it('share one budget per key: past it a read fails saying when the next token comes, never with the cloud’s 429', async () => {
    // Site Manager itself would refuse past 4 requests a minute; the bot's budget is 3.
    const cloudFleet = await startFleet({
      consoles: [
        { name: 'oslo', reach: 'connector' },
        { name: 'lisbon', reach: 'connector' },
      ],
      cloud: { rateLimitPerMinute: 4 },
    });
    const file = cloudFleet.consolesFile();
    const cloudDir = mkdtempSync(join(tmpdir(), 'netops-budget-'));
    const path = join(cloudDir, 'consoles.yaml');
    expect(file.text).toContain('api_key_env: FLEET_CLOUD_API_KEY\n');
    writeFileSync(
      path,
      file.text.replace(
        'api_key_env: FLEET_CLOUD_API_KEY\n',
        'api_key_env: FLEET_CLOUD_API_KEY\n  requests_per_minute: 3\n',
      ),
    );
    const config = loadConfig({
      ...file.env,
      CONSOLES_FILE: path,
      DATA_DIR: cloudDir,
      TELEMETRY_INTERVAL_SECONDS: '0',
      GATEWAY_READ_BUDGET_MS: '2000',
      GATEWAY_TIMEOUT_MS: '1000',
    });
    const fleetConsoles = await loadFleet(config, silentLogger());
    try {
      const read = (name: string) =>
        fleetConsoles.gateway(name).classicRead('default', 'stat/device', z.unknown(), { fresh: true });
      // A budget of 3 a minute is a burst of one, then a token every 30 s: oslo's read spends it…
      await read('oslo');
      const sent = cloudFleet.cloud.requests.length;
      // …and lisbon, through the same key, finds none within its read budget: refused, unsent.
      const refused = await read('lisbon').catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RateBudgetSpentError);
      expect((refused as Error).message).toMatch(
        /^the bot's budget of cloud requests for this API key is spent \(3 a minute, shared by every replica\); the next request can go in \d+\.\d s$/,
      );
      expect(cloudFleet.cloud.requests.length).toBe(sent);
    } finally {
      await fleetConsoles.close();
      await cloudFleet.close();
      rmSync(cloudDir, { recursive: true, force: true });
    }
  });
});
