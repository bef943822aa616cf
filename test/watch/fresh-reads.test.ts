// The watcher reads the controller as it is now, with the gateway's read cache on as deployed
// (10 s TTL): a poll or sweep inside the TTL must not see the cached answer of an earlier one. And a
// slow digest (its chart) does not hold up the polls.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGateway } from '../../src/gateway/index.js';
import type { Gateway } from '../../src/gateway/types.js';
import { silentLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { changeBehindBot, takeDeviceDown } from '../../src/simulator/scenario-controls.js';
import type { Watcher } from '../../src/watch/index.js';
import type { Incident, WatchNotifier } from '../../src/watch/types.js';
import { testWatcher } from './watcher-harness.js';

let sim: Simulator;
let gateway: Gateway;
let watcher: Watcher;
const posted: Incident[] = [];

const notifier: WatchNotifier = {
  postIncident: async (_channel, incident) => {
    posted.push(incident);
    return { channel: 'C9ALERTS', ts: String(posted.length) };
  },
  updateIncident: async () => {},
  postDrift: async () => ({ channel: 'C8DRIFT', ts: '1' }),
  updateDrift: async () => {},
  postDigest: async () => undefined,
  postAlarmSummary: async () => undefined,
};

type WatcherConfig = ConstructorParameters<typeof Watcher>[0]['config'];

function watcherWith(config: Partial<WatcherConfig> = {}, notify: WatchNotifier = notifier): Watcher {
  return testWatcher(gateway, notify, { config }).watcher;
}

beforeEach(async () => {
  posted.length = 0;
  sim = await startSimulator();
  // The cache as deployed: GATEWAY defaults, 10 s TTL.
  gateway = createGateway({ apiType: 'local', url: sim.url, apiKey: sim.apiKey, logger: silentLogger() });
  watcher = watcherWith();
});

afterEach(async () => {
  await watcher.stop();
  await gateway.close();
  await sim.close();
});

const deviceReads = () => sim.requests.filter((r) => r.route.endsWith('/stat/device')).length;

describe('the watcher with the read cache on', () => {
  it('sees a device that went down since the last poll, however recent that poll was', async () => {
    await watcher.poll();
    expect(posted.map((i) => i.subject)).toEqual(['Garage AP']);
    takeDeviceDown(sim.state, 'Living Room AP');
    const before = deviceReads();
    await watcher.poll();
    expect(deviceReads()).toBe(before + 1);
    expect(posted.map((i) => i.subject)).toEqual(['Garage AP', 'Living Room AP']);
  });

  it("leaves its answer in the cache: a command's read right after a poll sends no request", async () => {
    await watcher.poll();
    const before = deviceReads();
    const { items } = await gateway.classicRead('default', 'stat/device', z.looseObject({ mac: z.string() }));
    expect(items.length).toBeGreaterThan(3);
    expect(deviceReads()).toBe(before);
  });

  it('sees a configuration change made since the last sweep, however recent that sweep was', async () => {
    expect(await watcher.sweepDrift()).toEqual([]); // the baseline
    changeBehindBot(sim.state, 'policies', "Kids' bedtime", { enabled: false });
    const drifts = await watcher.sweepDrift();
    expect(drifts.map((d) => [d.objectName, d.fields.map((f) => f.field)])).toEqual([
      ["Kids' bedtime", ['enabled']],
    ]);
  });
});

describe('the digest beside the polls', () => {
  it('a digest still being posted (a slow chart) does not hold up the next poll', async () => {
    let digestStarted = false;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await watcher.stop();
    watcher = watcherWith(
      // Due every second; polls every second.
      { intervalSeconds: 1, digestChannel: 'C7DIGEST', digestCron: '* * * * * *', driftChannel: undefined },
      {
        ...notifier,
        postDigest: async () => {
          digestStarted = true;
          await held;
          return undefined;
        },
      },
    );
    watcher.start();
    try {
      const until = async (what: () => boolean) => {
        const started = Date.now();
        while (!what()) {
          if (Date.now() - started > 10_000) return false;
          await new Promise((r) => setTimeout(r, 20));
        }
        return true;
      };
      expect(await until(() => digestStarted)).toBe(true);
      takeDeviceDown(sim.state, 'Living Room AP');
      expect(await until(() => posted.some((i) => i.subject === 'Living Room AP'))).toBe(true);
    } finally {
      release();
    }
  }, 20_000);
});
