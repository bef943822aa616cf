import { describe, expect, it } from 'vitest';
import {
  alertsNotWatched,
  healthRegression,
  type RolloutHealth,
  readSiteHealth,
} from '../../src/changes/rollout-health.js';
import { ValidationError } from '../../src/errors.js';
import type { Gateway } from '../../src/gateway/types.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { silentLogger } from '../../src/log.js';
import type { ConsolePort, ConsoleSummary, ToolContext } from '../../src/tools/core/context.js';
import { trackConditions } from '../../src/watch/incidents.js';
import { type Condition, EMPTY_OBSERVED } from '../../src/watch/observe.js';
import type { Incident } from '../../src/watch/types.js';
import { scopeOf, stateKey } from '../../src/watch/watch-state.js';

type Device = { mac: string; name: string; state: number };
const up = (name: string): Device => ({ mac: `aa:${name}`, name, state: 1 });

/** A gateway whose stat/device answers the devices of `devices[site]` (read at each call). */
function gatewayServing(devices: Record<string, Device[]>): Gateway {
  return {
    classicRead: async (site: string) => ({ items: devices[site] ?? [], dropped: 0 }),
  } as unknown as Gateway;
}

/** Consoles served from a file (`via: local`), or the one GATEWAY_* console (`via: single`). */
function consolesOf(names: string[], via: ConsoleSummary['via'], gateway: Gateway): ConsolePort {
  return {
    fleet: names.length > 1,
    readBudgetMs: 500,
    list: () => names.map((name) => ({ name, labels: {}, via, sites: ['default'] })),
    gateway(name) {
      if (!names.includes(name))
        throw new ValidationError([{ field: 'console', rule: `no console ${name}` }]);
      return gateway;
    },
    channel: () => undefined,
  };
}

function contextOf(consoles: string[], via: ConsoleSummary['via'], devices: Record<string, Device[]> = {}) {
  const gateway = gatewayServing(devices);
  const context: ToolContext = {
    gateway,
    logger: silentLogger(),
    store: new MemoryStore(),
    consoles: consolesOf(consoles, via, gateway),
  };
  return context;
}

/** The watcher of one site as incident-watch.ts keeps it: each poll's conditions tracked, the state stored. */
function watcherOf(context: ToolContext, scope: string, site = 'default') {
  const incidents: Incident[] = [];
  return {
    incidents,
    async poll(conditions: Condition[], at: number) {
      trackConditions(incidents, conditions, site, at, 60_000);
      await context.store.set(stateKey(scope), { observed: EMPTY_OBSERVED, incidents });
    },
  };
}

const offline = (name: string): Condition => ({
  key: `device_offline:aa:${name}`,
  kind: 'device_offline',
  subject: name,
  mac: `aa:${name}`,
});
const wanDown: Condition = { key: 'wan_down:aa:gw', kind: 'wan_down', subject: 'Gateway WAN', mac: 'aa:gw' };
const berlin = { console: 'berlin', site: 'default' };

describe("a rollout's health watch reads the watcher's open alerts", () => {
  it('halts on an alert opened since the baseline, naming its site, subject and kind', async () => {
    const context = contextOf(['berlin', 'munich'], 'local', { default: [up('Garage AP')] });
    const watcher = watcherOf(context, scopeOf(berlin));
    await watcher.poll([], 1_000);
    const before = await readSiteHealth(context, berlin);
    expect(before.alerts).toEqual([]);

    await watcher.poll([offline('Garage AP')], 2_000);
    const now = await readSiteHealth(context, berlin);
    // Devices still read connected: the alert alone is the regression.
    expect(now.offline).toEqual([]);
    expect(healthRegression(berlin, before, now)).toBe(
      'berlin/default: new alert: Garage AP (device_offline)',
    );
  });

  it('names several new alerts, a few by name, and keeps the device and WAN parts beside them', () => {
    const before: RolloutHealth = { offline: [], wanDown: [], alerts: [] };
    const alerts = ['A', 'B', 'C', 'D'].map((name) => ({
      key: `device_offline:${name}`,
      subject: name,
      kind: 'device_offline',
    }));
    const now: RolloutHealth = { offline: ['A'], wanDown: [], alerts };
    expect(healthRegression(berlin, before, now)).toBe(
      'berlin/default: 1 device(s) went offline (A); new alert: A (device_offline), B (device_offline), C (device_offline) and 1 more',
    );
  });

  it('lets pass an alert that was already open before the wave, still open or flapping back', async () => {
    const context = contextOf(['berlin', 'munich'], 'local');
    const watcher = watcherOf(context, scopeOf(berlin));
    await watcher.poll([wanDown], 1_000);
    const before = await readSiteHealth(context, berlin);
    expect(before.alerts).toEqual([{ key: wanDown.key, subject: 'Gateway WAN', kind: 'wan_down' }]);

    await watcher.poll([wanDown], 2_000);
    expect(healthRegression(berlin, before, await readSiteHealth(context, berlin))).toBeUndefined();
    // Back, then down again within the flap window: the same incident reopened, not a new alert.
    await watcher.poll([], 3_000);
    await watcher.poll([wanDown], 4_000);
    expect(watcher.incidents).toHaveLength(1);
    expect(healthRegression(berlin, before, await readSiteHealth(context, berlin))).toBeUndefined();
  });

  it('lets pass what is resolved: an alert that ended, and a one-off event (resolved as it is posted)', async () => {
    const context = contextOf(['berlin', 'munich'], 'local');
    const watcher = watcherOf(context, scopeOf(berlin));
    await watcher.poll([wanDown], 1_000);
    const before = await readSiteHealth(context, berlin);

    const uplink: Condition = {
      key: 'uplink_changed:aa:ap',
      kind: 'uplink_changed',
      subject: 'Office AP',
      event: true,
    };
    await watcher.poll([offline('Office AP')], 2_000);
    await watcher.poll([uplink], 3_000);
    // Opened during the soak and ended before the read, the WAN back, and an event: nothing open.
    expect(watcher.incidents.filter((i) => i.resolvedAt === undefined)).toEqual([]);
    const now = await readSiteHealth(context, berlin);
    expect(now.alerts).toEqual([]);
    expect(healthRegression(berlin, before, now)).toBeUndefined();
  });

  it('reads a site nobody watches as before (devices and WAN only) and says alerts are not watched there', async () => {
    const devices = { default: [up('Garage AP')] };
    const context = contextOf(['berlin', 'munich'], 'local', devices);
    const before = await readSiteHealth(context, berlin);
    expect(before).toEqual({ offline: [], wanDown: [], devices: 1 });
    expect(alertsNotWatched(new Map([['berlin/default', before]]))).toBe(
      'alerts are not watched at berlin/default',
    );

    // A watcher starting mid-soak finds troubles older than the wave: they are not counted as new.
    await watcherOf(context, scopeOf(berlin)).poll([wanDown], 2_000);
    expect(healthRegression(berlin, before, await readSiteHealth(context, berlin))).toBeUndefined();
    // The device checks still run there.
    devices.default = [{ ...up('Garage AP'), state: 0 }];
    expect(healthRegression(berlin, before, await readSiteHealth(context, berlin))).toBe(
      'berlin/default: 1 device(s) went offline (Garage AP)',
    );
  });

  it("reads each console's own site in a fleet, and the site alone on the one GATEWAY_* console", async () => {
    const fleet = contextOf(['berlin', 'munich'], 'local');
    await watcherOf(fleet, 'munich/default').poll([wanDown], 1_000);
    expect((await readSiteHealth(fleet, berlin)).alerts).toBeUndefined();
    expect((await readSiteHealth(fleet, { console: 'munich', site: 'default' })).alerts).toHaveLength(1);

    const single = contextOf(['default'], 'single');
    await watcherOf(single, 'lab', 'lab').poll([wanDown], 1_000);
    expect((await readSiteHealth(single, { console: 'default', site: 'lab' })).alerts).toEqual([
      { key: wanDown.key, subject: 'Gateway WAN', kind: 'wan_down' },
    ]);
  });

  it('skips an incident it cannot read, and takes a state it cannot read for no watcher', async () => {
    const context = contextOf(['berlin', 'munich'], 'local');
    await context.store.set(stateKey('berlin/default'), {
      incidents: [{ key: 'device_offline:x' }, { key: 'wan_down:y', kind: 'wan_down', subject: 'Y WAN' }],
    });
    expect((await readSiteHealth(context, berlin)).alerts).toEqual([
      { key: 'wan_down:y', kind: 'wan_down', subject: 'Y WAN' },
    ]);
    await context.store.set(stateKey('berlin/default'), { incidents: 'none' });
    expect((await readSiteHealth(context, berlin)).alerts).toBeUndefined();
  });
});
