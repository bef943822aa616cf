import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Gateway } from '../../src/gateway/types.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { changeBehindBot, takeDeviceDown } from '../../src/simulator/scenario-controls.js';
import { incidentMessage } from '../../src/slack/blocks/alerts.js';
import { digestMessage } from '../../src/slack/blocks/digest.js';
import { driftMessage } from '../../src/slack/blocks/drift.js';
import type { KeyValueStore, LeaseStore } from '../../src/store/types.js';
import type { ConsolePort } from '../../src/tools/core/context.js';
import { revertCall } from '../../src/watch/drift.js';
import { type FleetDigestNotifier, staggerOffset } from '../../src/watch/index.js';
import type { Drift, Incident, WatchNotifier } from '../../src/watch/types.js';
import { consolePortOf } from '../helpers/fleet-consoles.js';
import { usePostgresReplicas } from '../helpers/postgres.js';
import { useSimulator } from '../helpers/shared-simulator.js';
import { testGateway } from '../helpers/test-gateway.js';
import { testFleetWatcher } from './watcher-harness.js';

const POLICY = '65b3c8e1f4a9d20c7e5a1604'; // Kids' bedtime
const CITIES = ['berlin', 'munich', 'hamburg', 'vienna', 'zurich'];

/** A gateway whose every device read answers no devices, noting when and on which site it was asked. */
function countingGateway(name: string, reads: { console: string; site: string; at: number }[]): Gateway {
  return {
    classicRead: async (site: string) => {
      reads.push({ console: name, site, at: Date.now() });
      return { items: [] };
    },
  } as unknown as Gateway;
}

const quietNotifier = (
  drifts: Drift[] = [],
  incidents: Incident[] = [],
): WatchNotifier & FleetDigestNotifier => ({
  postIncident: async (channel, incident) => {
    incidents.push(structuredClone(incident));
    return { channel, ts: `${incidents.length}.5` };
  },
  updateIncident: async (incident) => {
    incidents.push(structuredClone(incident));
  },
  postAlarmSummary: async () => undefined,
  postDrift: async (channel, drift) => {
    drifts.push(structuredClone(drift));
    return { channel, ts: `${drifts.length}.0` };
  },
  updateDrift: async () => undefined,
  postDigest: async () => undefined,
  postFleetDigest: async () => undefined,
});

function fleetWatcher(
  consoles: ConsolePort,
  options: {
    data?: KeyValueStore;
    leases?: LeaseStore;
    holder?: string;
    intervalSeconds?: number;
    notifier?: WatchNotifier & FleetDigestNotifier;
  } = {},
) {
  return testFleetWatcher(consoles, options.notifier ?? quietNotifier(), {
    config: { intervalSeconds: options.intervalSeconds ?? 30 },
    ...(options.data ? { data: options.data } : {}),
    ...(options.leases ? { leases: options.leases } : {}),
    ...(options.holder ? { holder: options.holder } : {}),
  });
}

describe('the stagger', () => {
  it('gives a console the same offset every time, within the interval', () => {
    for (const name of CITIES) {
      const offset = staggerOffset(name, 30_000);
      expect(offset).toBe(staggerOffset(name, 30_000));
      expect(offset).toBeGreaterThanOrEqual(0);
      expect(offset).toBeLessThan(30_000);
    }
    expect(staggerOffset('berlin', 0)).toBe(0);
  });

  it('spreads fifty consoles over the interval instead of one second', () => {
    const names = Array.from({ length: 50 }, (_, i) => `console-${i}`);
    const seconds = names.map((name) => Math.floor(staggerOffset(name, 30_000) / 1000));
    // Thirty one-second slots for fifty consoles: most slots are used, none is crowded.
    const perSecond = new Map<number, number>();
    for (const second of seconds) perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    expect(perSecond.size).toBeGreaterThanOrEqual(18);
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(6);
  });

  describe('with the watcher', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('polls each console first at its own offset, then once per interval from there', async () => {
      vi.useFakeTimers({ now: 0 });
      const reads: { console: string; site: string; at: number }[] = [];
      const gateways = Object.fromEntries(CITIES.map((name) => [name, countingGateway(name, reads)]));
      const watcher = fleetWatcher(consolePortOf(gateways), { intervalSeconds: 10 });
      watcher.start();
      try {
        await vi.advanceTimersByTimeAsync(25_000);
      } finally {
        await watcher.stop();
      }
      for (const name of CITIES) {
        const times = reads.filter((r) => r.console === name).map((r) => r.at);
        const offset = staggerOffset(name, 10_000);
        expect(times).toEqual([offset, offset + 10_000, offset + 20_000].filter((t) => t <= 25_000));
      }
      const firsts = new Set(CITIES.map((name) => staggerOffset(name, 10_000)));
      expect(firsts.size).toBe(CITIES.length);
    });
  });
});

describe("a fleet's drift", () => {
  const berlin = useSimulator({ apiVersion: '9.0' });
  const munich = useSimulator({ apiVersion: '9.0' });

  it('is noticed on the console it happened on, named with its console and site, and reverted there', async () => {
    const consoles = consolePortOf({ berlin: testGateway(berlin), munich: testGateway(munich) });
    const posted: Drift[] = [];
    const data = new MemoryStore();
    const watcher = fleetWatcher(consoles, { data, notifier: quietNotifier(posted) });
    // Both consoles have a site `default` with the same policy: their baselines are kept apart.
    expect(await watcher.sweepDrift()).toEqual([]);
    const baselines = (await data.keys()).filter((key) => key.startsWith('watch:baseline:')).sort();
    expect(baselines).toEqual(['watch:baseline:berlin/default', 'watch:baseline:munich/default']);

    changeBehindBot(munich.state, 'policies', POLICY, { enabled: false });
    const drifts = await watcher.sweepDrift();

    expect(drifts).toHaveLength(1);
    expect(posted).toEqual([
      expect.objectContaining({ console: 'munich', site: 'default', objectId: POLICY }),
    ]);
    const message = driftMessage(posted[0] as Drift);
    expect(message.text).toContain('(console munich, site default)');
    expect(JSON.stringify(message.blocks)).toContain('console munich · site default');
    // Its Revert is a change request on munich.
    expect(revertCall(posted[0] as Drift)?.args).toMatchObject({ console: 'munich', site_id: 'default' });
    // Seen once: the next sweep has nothing new on either console.
    expect(await watcher.sweepDrift()).toEqual([]);
  });

  it('alerts name the console a device went down on, and Acknowledge reaches that console’s incident', async () => {
    berlin.reset();
    munich.reset();
    const consoles = consolePortOf({ berlin: testGateway(berlin), munich: testGateway(munich) });
    const incidents: Incident[] = [];
    const watcher = fleetWatcher(consoles, { notifier: quietNotifier([], incidents) });
    await watcher.poll();
    // Both seeded sites start alike: what each holds at start is posted once per console, named.
    const named = (name: string) => incidents.filter((i) => i.console === name).length;
    expect(named('berlin')).toBe(named('munich'));
    expect(named('berlin') + named('munich')).toBe(incidents.length);
    const atStart = incidents.length;
    takeDeviceDown(munich.state, 'Living Room AP');
    await watcher.poll();

    expect(incidents.slice(atStart)).toEqual([
      expect.objectContaining({ console: 'munich', site: 'default', subject: 'Living Room AP' }),
    ]);
    const incident = incidents[atStart] as Incident;
    expect(incidentMessage(incident).text).toContain('(console munich, site default)');
    const ack = await watcher.acknowledge(incident.id, { userId: 'U0ALEX' });
    expect(ack).toMatchObject({
      kind: 'done',
      value: { console: 'munich', acknowledgedBy: { userId: 'U0ALEX' } },
    });
    expect(await watcher.acknowledge('in_unknown', { userId: 'U0ALEX' })).toEqual({
      kind: 'not_found',
      id: 'in_unknown',
    });
    // The digest of munich holds munich's incident; berlin's holds none, and each names its console.
    const digests = await Promise.all(watcher.sites.map((each) => each.watcher.digest()));
    const [ofBerlin, ofMunich] = digests.map((d) => d.digest);
    expect(ofMunich?.incidents.map((i) => i.subject)).toContain('Living Room AP');
    expect(ofBerlin?.incidents.map((i) => i.subject)).not.toContain('Living Room AP');
    expect(ofMunich?.incidents.length).toBe((ofBerlin?.incidents.length ?? 0) + 1);
    expect(digestMessage(ofMunich as never).text).toMatch(/^Network digest for munich \/ default:/);
  });
});

describe('two replicas watching a fleet on PostgreSQL', () => {
  const { open } = usePostgresReplicas();

  it('each console is polled by one replica at a time; a dead replica’s consoles are taken over once its leases ran out', async () => {
    const [storeA, storeB] = await Promise.all([open(), open()]);
    const reads: { console: string; site: string; at: number }[] = [];
    const replica = (holder: string, store: typeof storeA) => {
      const byReplica = Object.fromEntries(
        ['berlin', 'munich', 'vienna'].map((name) => [name, countingGateway(`${holder}:${name}`, reads)]),
      );
      // 0.25 s polls: a lease lasts two intervals, 500 ms.
      return fleetWatcher(consolePortOf(byReplica, { vienna: ['default', 'branch'] }), {
        leases: store.consoleLeases(),
        holder,
        intervalSeconds: 0.25,
      });
    };
    const a = replica('a', storeA);
    const b = replica('b', storeB);
    await a.poll();
    await b.poll();
    expect(a.led()).toEqual(['berlin', 'munich', 'vienna']);
    expect(b.led()).toEqual([]);
    // Both keep polling: only A reads, every site of every console (vienna has two).
    for (let round = 0; round < 3; round++) await Promise.all([a.poll(), b.poll()]);
    expect(new Set(reads.map((r) => r.console.split(':')[0]))).toEqual(new Set(['a']));
    expect(reads.filter((r) => r.console === 'a:vienna').map((r) => r.site)).toContain('branch');

    // A dies: it polls no more and never releases. B takes each console only after the lease ran out.
    const diedAt = Date.now();
    reads.length = 0;
    while (b.led().length < 3) {
      await b.poll();
      if (Date.now() - diedAt > 5_000) throw new Error('the consoles were never taken over');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const firstRead = Math.min(...reads.map((r) => r.at));
    expect(firstRead - diedAt).toBeGreaterThanOrEqual(400);
    expect(reads.every((r) => r.console.startsWith('b:'))).toBe(true);
    // A comes back: B still renews, so A polls nothing.
    const before = reads.length;
    await a.poll();
    expect(a.led()).toEqual([]);
    expect(reads.slice(before).every((r) => r.console.startsWith('b:'))).toBe(true);
  });
});
