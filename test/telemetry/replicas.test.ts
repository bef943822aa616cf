import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/types.js';
import { silentLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { FileSampleStore } from '../../src/store/file/sample-files.js';
import type { SampleStore } from '../../src/store/samples.js';
import { Telemetry } from '../../src/telemetry/index.js';
import { usePostgresReplicas } from '../helpers/postgres.js';
import { testGateway } from '../helpers/test-gateway.js';

// Samples shared through the store: one replica reads the controller per tick, every replica
// answers the same windows; a restarted process keeps its windows from DATA_DIR.

const MINUTE = 60_000;
const T0 = Date.parse('2026-11-26T12:00:00Z');
const GAMING_PC = 'd8:bb:c1:02:77:05';

let sim: Simulator;
let gateways: Gateway[] = [];
let clock = T0;

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  clock = T0;
  sim.reset();
});
afterEach(async () => {
  for (const gateway of gateways) await gateway.close();
  gateways = [];
});

function telemetry(samples: SampleStore): Telemetry {
  const gateway = testGateway(sim);
  gateways.push(gateway);
  return new Telemetry({
    gateway,
    samples,
    logger: silentLogger(),
    intervalMs: MINUTE,
    defaultSite: 'default',
    now: () => clock,
  });
}

const staReads = () => sim.requests.filter((r) => r.route.endsWith('/stat/sta')).length;

async function fiveMinutes(tick: () => Promise<void>): Promise<void> {
  clock += MINUTE;
  await tick();
  for (let i = 0; i < 5; i += 1) {
    sim.advanceTraffic({ seconds: 60, clients: { [GAMING_PC]: { rx: 6_000_000, tx: 0 } } });
    clock += MINUTE;
    await tick();
  }
}

describe('samples in DATA_DIR', () => {
  it('a restarted process answers the windows of the samples its predecessor took', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'netops-telemetry-'));
    const first = telemetry(new FileSampleStore(dir));
    await fiveMinutes(() => first.tick());

    const second = telemetry(new FileSampleStore(dir));
    const window = await second.window('default', 'clients', '5m', 5 * MINUTE);

    expect(window.totals.get(GAMING_PC)).toEqual({ rx: 30_000_000, tx: 0 });
    // This process started just now: the samples came from the store, and the answer says so.
    const hour = await second.window('default', 'clients', '1h', 60 * MINUTE);
    expect(hour.coverage.covers).toBe('last 5 min: the samples kept go back 5 min');
  });
});

describe('samples in PostgreSQL, shared by replicas', () => {
  const { open } = usePostgresReplicas();

  it('one replica reads the controller per tick; both answer the same window', async () => {
    const [a, b] = [telemetry((await open()).samples()), telemetry((await open()).samples())];
    sim.clearRequests();
    await fiveMinutes(async () => {
      await a.tick();
      await b.tick();
    });

    // Six ticks, each read once, by whichever replica claimed it.
    expect(staReads()).toBe(6);
    const [fromA, fromB] = await Promise.all([
      a.window('default', 'clients', '5m', 5 * MINUTE),
      b.window('default', 'clients', '5m', 5 * MINUTE),
    ]);
    expect(fromA.totals.get(GAMING_PC)).toEqual({ rx: 30_000_000, tx: 0 });
    // b lost every claim to a (a ticks first) and took a's stored samples instead.
    expect(fromB.totals.get(GAMING_PC)).toEqual({ rx: 30_000_000, tx: 0 });
    expect(fromB.coverage).toEqual(fromA.coverage);
  });
});
