import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Gateway } from '../../src/gateway/types.js';
import { silentLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { FileSampleStore } from '../../src/store/file/sample-files.js';
import type { SampleStore } from '../../src/store/samples.js';
import { FleetTelemetry } from '../../src/telemetry/index.js';
import { staggerOffset } from '../../src/watch/index.js';
import { testGateway } from '../helpers/test-gateway.js';

// A fleet's consoles are each sampled, under keys of their own: two consoles both have a site
// `default`, and a tool run on one console reads that console's traffic.

const MINUTE = 60_000;
const T0 = Date.parse('2026-11-26T12:00:00Z');
const GAMING_PC = 'd8:bb:c1:02:77:05';

let sims: Simulator[] = [];
const gateways: Gateway[] = [];

beforeAll(async () => {
  sims = await Promise.all([startSimulator(), startSimulator()]);
});
afterAll(async () => {
  for (const gateway of gateways) await gateway.close();
  await Promise.all(sims.map((sim) => sim.close()));
});

describe('fleet telemetry', () => {
  it('samples every console apart, and answers each console’s windows from its own samples', async () => {
    const [berlin, munich] = sims as [Simulator, Simulator];
    const byName: Record<string, Gateway> = { berlin: testGateway(berlin), munich: testGateway(munich) };
    gateways.push(...Object.values(byName));
    const dir = mkdtempSync(join(tmpdir(), 'netops-fleet-telemetry-'));
    let clock = T0;
    const telemetry = new FleetTelemetry({
      consoles: {
        list: () => Object.keys(byName).map((name) => ({ name, sites: undefined })),
        gateway: (name) => byName[name] as Gateway,
      },
      samples: new FileSampleStore(dir),
      logger: silentLogger(),
      intervalMs: MINUTE,
      defaultSite: 'default',
      now: () => clock,
    });
    clock += MINUTE;
    await telemetry.tick();
    for (let i = 0; i < 5; i += 1) {
      // Only munich's gaming PC moves traffic.
      munich.advanceTraffic({ seconds: 60, clients: { [GAMING_PC]: { rx: 6_000_000, tx: 0 } } });
      clock += MINUTE;
      await telemetry.tick();
    }

    const onMunich = await telemetry.forConsole('munich').window('default', 'clients', '5m', 5 * MINUTE);
    const onBerlin = await telemetry.forConsole('berlin').window('default', 'clients', '5m', 5 * MINUTE);
    expect(onMunich.totals.get(GAMING_PC)).toEqual({ rx: 30_000_000, tx: 0 });
    expect(onBerlin.totals.get(GAMING_PC)?.rx ?? 0).toBeLessThan(30_000_000);
    // Each console's controller was read once a tick, and its samples are kept under its name.
    for (const sim of [berlin, munich])
      expect(sim.requests.filter((r) => r.route.endsWith('/stat/sta')).length).toBe(6);
    const kept = readdirSync(dir, { recursive: true }).map(String).join(' ');
    expect(kept).toContain('berlin');
    expect(kept).toContain('munich');
  });

  describe('ticks', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('fall at each console’s own offset in the interval, as its watch does', async () => {
      vi.useFakeTimers({ now: T0 });
      const reads: { console: string; at: number }[] = [];
      const names = ['berlin', 'munich', 'hamburg'];
      const gatewayOf = (name: string) =>
        ({
          classicRead: async () => {
            reads.push({ console: name, at: Date.now() });
            return { items: [] };
          },
        }) as unknown as Gateway;
      const samples: SampleStore = {
        claim: async () => true,
        put: async () => undefined,
        since: async () => [],
        prune: async () => undefined,
      };
      const telemetry = new FleetTelemetry({
        consoles: { list: () => names.map((name) => ({ name, sites: undefined })), gateway: gatewayOf },
        samples,
        logger: silentLogger(),
        intervalMs: MINUTE,
        defaultSite: 'default',
        offsetOf: staggerOffset,
      });
      telemetry.start();
      try {
        await vi.advanceTimersByTimeAsync(3 * MINUTE);
      } finally {
        await telemetry.stop();
      }
      for (const name of names) {
        // Four reads a tick (clients, devices, site DPI, client DPI), from one interval after start.
        const ticks = [...new Set(reads.filter((r) => r.console === name).map((r) => r.at - T0))];
        const offset = staggerOffset(name, MINUTE);
        expect(ticks).toEqual([MINUTE + offset, 2 * MINUTE + offset]);
      }
    });
  });
});
