// The fleet's one daily digest: the summary of every site (pure), its read across consoles (a down
// console costs its timeout once), and its post, once per due time among replicas on one store.
import { describe, expect, it } from 'vitest';
import { GatewayUnavailableError } from '../../src/errors.js';
import type { Gateway } from '../../src/gateway/types.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import type { ChangeRequest } from '../../src/model/change-request.js';
import { takeDeviceDown } from '../../src/simulator/scenario-controls.js';
import type { KeyValueStore, LeaseStore } from '../../src/store/types.js';
import type { ChannelScope, ConsolePort } from '../../src/tools/core/context.js';
import {
  channelDigestKey,
  digestScopeOf,
  FLEET_DIGEST_KEY,
  type FleetDigest,
  type FleetDigestNotifier,
  type FleetReading,
  type SiteDigestOutcome,
  summarizeFleet,
  summarizeScope,
} from '../../src/watch/index.js';
import type { Digest, WatchNotifier } from '../../src/watch/types.js';
import { consolePortOf } from '../helpers/fleet-consoles.js';
import { usePostgresReplicas } from '../helpers/postgres.js';
import { useSimulator } from '../helpers/shared-simulator.js';
import { testGateway } from '../helpers/test-gateway.js';
import { testFleetWatcher, WATCH_CONFIG } from './watcher-harness.js';

const AT = Date.parse('2026-12-07T08:00:00Z');
const HOUR = 3_600_000;

/** A site's digest with nothing in it but what `part` gives. */
function digestOf(part: Partial<Digest> = {}): Digest {
  return {
    site: 'default',
    from: AT - 24 * HOUR,
    to: AT,
    changes: [],
    drift: [],
    incidents: [],
    offlineNow: [],
    topClients: [],
    topApps: [],
    pendingApprovals: [],
    notes: [],
    ...part,
  };
}

const incident = (subject: string, resolved: boolean) => ({
  subject,
  kind: 'device_offline' as const,
  startedAt: AT - 2 * HOUR,
  ...(resolved ? { resolvedAt: AT - HOUR } : {}),
});

/** A change request as the summary sees it: where it was made. */
const change = (console: string, site: string) =>
  ({ site, args: { console, site_id: site } }) as Pick<ChangeRequest, 'site' | 'args'>;

const quietSite = (console: string, site = 'default'): SiteDigestOutcome => ({
  console,
  site,
  digest: digestOf({ site }),
});

describe('the fleet digest summary', () => {
  const outcomes: SiteDigestOutcome[] = [
    quietSite('aachen'),
    { console: 'berlin', site: 'default', digest: digestOf({ drift: [driftItem()] }) },
    quietSite('cologne'),
    {
      console: 'dresden',
      site: 'default',
      digest: digestOf({ offlineNow: ['Garage AP'], incidents: [incident('Garage AP', true)] }),
    },
    { console: 'essen', site: 'shop', error: 'no answer within 2000 ms' },
    {
      console: 'frankfurt',
      site: 'default',
      digest: digestOf({
        incidents: [incident('Core Switch', false), incident('Office AP', true)],
        offlineNow: ['Core Switch'],
      }),
    },
    quietSite('frankfurt', 'branch'),
    {
      console: 'hamburg',
      site: 'default',
      digest: digestOf({ unreachable: 'the console refused the connection' }),
    },
  ];
  const summary = summarizeFleet(
    outcomes,
    {
      recent: [change('berlin', 'default'), change('berlin', 'default'), change('cologne', 'lab')],
      pending: [change('aachen', 'default')],
      overdueReviews: 1,
    },
    { at: AT, timeZone: 'Europe/Berlin' },
  );

  it('counts the whole fleet in its header, each change once', () => {
    expect(summary).toMatchObject({
      from: AT - 24 * HOUR,
      to: AT,
      consoles: 7,
      sites: 8,
      changes: 3,
      incidents: 3,
      open: 1,
      drift: 1,
      offline: 2,
      pending: 1,
      overdueReviews: 1,
      unreadable: 2,
    });
  });

  it('puts the unreadable first, then open incidents, then devices offline, then the rest in file order', () => {
    expect(summary.lines.map((line) => `${line.console}/${line.site}`)).toEqual([
      'essen/shop',
      'hamburg/default',
      'frankfurt/default',
      'dresden/default',
      'aachen/default',
      'berlin/default',
    ]);
  });

  it('names the sites it could not read, and counts the quiet ones without listing them', () => {
    expect(summary.lines[0]).toMatchObject({ unreadable: 'no answer within 2000 ms' });
    expect(summary.lines[1]).toMatchObject({ unreadable: 'the console refused the connection' });
    // cologne and frankfurt/branch had nothing; cologne's change was on a site it does not watch.
    expect(summary.quiet).toBe(2);
    expect(summary.lines.length + summary.quiet).toBe(outcomes.length);
  });

  it('counts changes and pending approvals on the site they were made on', () => {
    const byPlace = new Map(summary.lines.map((line) => [`${line.console}/${line.site}`, line]));
    expect(byPlace.get('berlin/default')).toMatchObject({ changes: 2, drift: 1, pending: 0 });
    expect(byPlace.get('aachen/default')).toMatchObject({ changes: 0, pending: 1 });
    expect(byPlace.get('frankfurt/default')).toMatchObject({ incidents: 2, open: 1, offline: 1 });
  });

  it('has no lines and every site quiet when nothing happened', () => {
    const calm = summarizeFleet(
      [quietSite('a'), quietSite('b'), quietSite('b', 'x')],
      {
        recent: [],
        pending: [],
        overdueReviews: 0,
      },
      { at: AT },
    );
    expect(calm).toMatchObject({ consoles: 2, sites: 3, lines: [], quiet: 3, unreadable: 0 });
  });
});

describe('a bound channel’s digest, from the fleet’s one reading', () => {
  const reading: FleetReading = {
    outcomes: [
      { console: 'acme-hq', site: 'default', digest: digestOf({ drift: [driftItem()] }) },
      {
        console: 'acme-hq',
        site: 'guest',
        digest: digestOf({ offlineNow: ['Lobby AP'], incidents: [incident('Lobby AP', false)] }),
      },
      quietSite('acme-shop'),
      { console: 'globex', site: 'default', digest: digestOf({ offlineNow: ['Core Switch'] }) },
    ],
    changes: {
      recent: [change('acme-hq', 'default'), change('acme-shop', 'default'), change('globex', 'default')],
      pending: [change('acme-hq', 'guest'), change('globex', 'default')],
      overdueReviews: 2,
    },
    window: { at: AT, timeZone: 'Europe/Berlin' },
  };

  it('covers a label’s consoles only, their changes counted and no one else’s', () => {
    const scope = digestScopeOf({
      consoles: ['acme-hq', 'acme-shop'],
      site: undefined,
      labels: { customer: 'acme' },
    });
    const digest = summarizeScope(reading, scope);
    expect(digest).toMatchObject({
      covers: 'customer=acme',
      from: AT - 24 * HOUR,
      to: AT,
      timeZone: 'Europe/Berlin',
      consoles: 2,
      sites: 3,
      changes: 2,
      pending: 1,
      incidents: 1,
      open: 1,
      drift: 1,
      offline: 1,
      unreadable: 0,
      quiet: 0,
    });
    // The approvers' break-glass reviews stay in the whole fleet's digest.
    expect(digest.overdueReviews).toBe(0);
    expect(digest.lines.map((line) => `${line.console}/${line.site}`)).toEqual([
      'acme-hq/guest',
      'acme-hq/default',
      'acme-shop/default',
    ]);
  });

  it('covers every site of a console bound by name', () => {
    const digest = summarizeScope(reading, digestScopeOf({ consoles: ['acme-hq'], site: undefined }));
    expect(digest).toMatchObject({ covers: 'acme-hq', consoles: 1, sites: 2, changes: 1, pending: 1 });
  });

  it('covers one site of a console bound with its site', () => {
    const digest = summarizeScope(reading, digestScopeOf({ consoles: ['acme-hq'], site: 'guest' }));
    expect(digest).toMatchObject({
      covers: 'acme-hq · guest',
      consoles: 1,
      sites: 1,
      changes: 0,
      pending: 1,
    });
    expect(digest.lines.map((line) => line.site)).toEqual(['guest']);
  });

  it('names the sites unreadable when every console of the channel failed', () => {
    const down: FleetReading = {
      ...reading,
      outcomes: reading.outcomes.map((outcome) =>
        outcome.console.startsWith('acme')
          ? { console: outcome.console, site: outcome.site, error: 'no answer within 2000 ms' }
          : outcome,
      ),
    };
    const digest = summarizeScope(
      down,
      digestScopeOf({ consoles: ['acme-hq', 'acme-shop'], site: undefined, labels: { customer: 'acme' } }),
    );
    expect(digest).toMatchObject({ consoles: 2, sites: 3, unreadable: 3, offline: 0, quiet: 0 });
    expect(digest.lines.every((line) => line.unreadable === 'no answer within 2000 ms')).toBe(true);
  });

  it('leaves the whole fleet’s digest uncovered and unchanged', () => {
    const whole = summarizeFleet(reading.outcomes, reading.changes, reading.window);
    expect(whole.covers).toBeUndefined();
    expect(whole).toMatchObject({ consoles: 3, sites: 4, changes: 3, pending: 2, overdueReviews: 2 });
  });
});

function driftItem() {
  return {
    kind: 'policies' as const,
    objectName: 'Kids',
    change: 'changed',
    noticedAt: AT - HOUR,
    accepted: false,
  };
}

/** A gateway that never answers anything: a console behind a dead link. */
const silentGateway = (): Gateway =>
  new Proxy({} as Gateway, {
    get: (_target, name) => (name === 'then' ? undefined : () => new Promise(() => undefined)),
  });

/** A gateway that refuses at once, as a console whose address answers nothing does. */
const downGateway = (): Gateway =>
  new Proxy({} as Gateway, {
    get: (_target, name) =>
      name === 'then'
        ? undefined
        : async () => Promise.reject(new GatewayUnavailableError('connection refused')),
  });

interface Posts {
  fleet: FleetDigest[];
  sites: Digest[];
  /** The channel of each fleet digest, in order. */
  to?: string[];
}

const countingNotifier = (posts: Posts): WatchNotifier & FleetDigestNotifier => ({
  postIncident: async (channel) => ({ channel, ts: '1.0' }),
  updateIncident: async () => undefined,
  postAlarmSummary: async () => undefined,
  postDrift: async (channel) => ({ channel, ts: '2.0' }),
  updateDrift: async () => undefined,
  postDigest: async (_channel, digest) => {
    posts.sites.push(digest);
    return undefined;
  },
  postFleetDigest: async (channel, digest) => {
    posts.fleet.push(digest);
    posts.to?.push(channel);
    return undefined;
  },
});

function fleetWatcher(
  consoles: ConsolePort,
  options: {
    data?: KeyValueStore;
    digestLeases?: LeaseStore;
    holder?: string;
    posts?: Posts;
    digestCron?: string;
    digestChannel?: string;
  } = {},
) {
  return testFleetWatcher(consoles, countingNotifier(options.posts ?? { fleet: [], sites: [] }), {
    config: {
      digestChannel: options.digestChannel ?? 'C7DIGEST',
      digestCron: options.digestCron ?? WATCH_CONFIG.digestCron,
      timeZone: 'UTC',
    },
    ...(options.data ? { data: options.data } : {}),
    ...(options.digestLeases ? { digestLeases: options.digestLeases } : {}),
    ...(options.holder ? { holder: options.holder } : {}),
  });
}

describe('the fleet digest read', () => {
  const berlin = useSimulator({ apiVersion: '9.0' });
  const munich = useSimulator({ apiVersion: '9.0' });

  it('reads every site, names a silent console’s sites unreadable, and waits for it once, not per site', async () => {
    const consoles = consolePortOf(
      {
        berlin: testGateway(berlin),
        munich: testGateway(munich),
        vienna: silentGateway(),
        wien: downGateway(),
      },
      { vienna: ['default', 'branch', 'shop'] },
      400,
    );
    const watcher = fleetWatcher(consoles);
    const reachable = watcher.sites.filter((s) => s.console === 'berlin' || s.console === 'munich');
    for (const each of reachable) await each.watcher.poll();
    takeDeviceDown(munich.state, 'Living Room AP');
    for (const each of reachable) await each.watcher.poll();

    const started = performance.now();
    const digest = await watcher.fleetDigest();
    const took = performance.now() - started;
    // Three sites behind one silent console: one 400 ms wait, not three.
    expect(took).toBeGreaterThanOrEqual(380);
    expect(took).toBeLessThan(1100);
    expect(digest).toMatchObject({ consoles: 4, sites: 6, unreadable: 4 });
    const names = digest.lines.map((line) => `${line.console}/${line.site}`);
    expect(names.slice(0, 4).sort()).toEqual([
      'vienna/branch',
      'vienna/default',
      'vienna/shop',
      'wien/default',
    ]);
    expect(digest.lines.find((line) => line.console === 'vienna')?.unreadable).toBe(
      'no answer within 400 ms',
    );
    expect(digest.lines.find((line) => line.console === 'wien')?.unreadable).toContain('connection refused');
    // Both seeded sites start with a device offline (open incidents), after the unreadable, in file
    // order; munich has the one more taken down.
    expect(names.slice(4)).toEqual(['berlin/default', 'munich/default']);
    const [ofBerlin, ofMunich] = digest.lines.slice(4);
    expect(ofBerlin?.open).toBeGreaterThanOrEqual(1);
    expect(ofMunich?.incidents).toBe((ofBerlin?.incidents ?? 0) + 1);
    expect(ofMunich?.offline).toBe((ofBerlin?.offline ?? 0) + 1);
  });
});

describe('the fleet digest on its cron', () => {
  it('is one message for the fleet: no site posts a digest of its own', async () => {
    const posts: Posts = { fleet: [], sites: [] };
    const gateways = { berlin: downGateway(), munich: downGateway() };
    const watcher = fleetWatcher(consolePortOf(gateways, { munich: ['default', 'branch'] }), {
      posts,
      digestCron: '*/2 * * * * *',
    });
    watcher.start();
    try {
      await waitFor(() => posts.fleet.length >= 1, 5_000);
    } finally {
      await watcher.stop();
    }
    expect(posts.sites).toEqual([]);
    expect(posts.fleet[0]).toMatchObject({ consoles: 2, sites: 3 });
  });

  it('is posted once per due time by one store’s watchers, and not again after a restart', async () => {
    const data = new MemoryStore();
    const posts: Posts = { fleet: [], sites: [] };
    const gateways = { berlin: downGateway() };
    const first = fleetWatcher(consolePortOf(gateways), { data, posts });
    const due = Date.parse('2026-12-07T08:00:00Z');
    expect(await first.fireDigest(due)).toBe(true);
    expect(await first.fireDigest(due)).toBe(false);
    expect(await data.get(FLEET_DIGEST_KEY)).toBe(due);
    // The process restarted: a new watcher on the same store finds it posted.
    const restarted = fleetWatcher(consolePortOf(gateways), { data, posts });
    expect(await restarted.fireDigest(due)).toBe(false);
    expect(await restarted.fireDigest(due + 24 * HOUR)).toBe(true);
    expect(posts.fleet).toHaveLength(2);
  });
});

/** A fleet port whose consoles file binds `channels`, in that order. */
function boundPortOf(
  gateways: Record<string, Gateway>,
  channels: Record<string, ChannelScope>,
  sites: Record<string, string[]> = {},
): ConsolePort {
  return {
    ...consolePortOf(gateways, sites),
    channel: (id) => channels[id],
    boundChannels: () => Object.keys(channels),
  };
}

/** A gateway that refuses at once, counting each call in `calls`. */
const countedDownGateway = (calls: { n: number }): Gateway =>
  new Proxy({} as Gateway, {
    get: (_target, name) =>
      name === 'then'
        ? undefined
        : async () => {
            calls.n++;
            return Promise.reject(new GatewayUnavailableError('connection refused'));
          },
  });

const ACME_BINDINGS: Record<string, ChannelScope> = {
  C03ACME: { consoles: ['acme-hq', 'acme-shop'], site: undefined, labels: { customer: 'acme' } },
  C01BERLIN: { consoles: ['berlin'], site: undefined },
  C02GUEST: { consoles: ['acme-hq'], site: 'guest' },
  // DIGEST_CHANNEL bound too: it keeps the whole fleet's digest, once.
  C7DIGEST: { consoles: ['berlin'], site: undefined },
};

describe('the bound channels’ digests on the cron', () => {
  const gateways = () => ({ 'acme-hq': downGateway(), 'acme-shop': downGateway(), berlin: downGateway() });
  const sites = { 'acme-hq': ['default', 'guest'] };
  const due = Date.parse('2026-12-07T08:00:00Z');

  it('posts each bound channel the digest of what it is bound to, once per due time, and not again after a restart', async () => {
    const data = new MemoryStore();
    const posts: Posts = { fleet: [], sites: [], to: [] };
    const first = fleetWatcher(boundPortOf(gateways(), ACME_BINDINGS, sites), { data, posts });
    expect(await first.fireDigest(due)).toBe(true);
    expect(await first.fireDigest(due)).toBe(false);
    expect(posts.to).toEqual(['C7DIGEST', 'C03ACME', 'C01BERLIN', 'C02GUEST']);
    expect(posts.fleet.map((digest) => digest.covers)).toEqual([
      undefined,
      'customer=acme',
      'berlin',
      'acme-hq · guest',
    ]);
    expect(posts.fleet.map((digest) => digest.sites)).toEqual([4, 3, 1, 1]);
    // Every console is down: the acme channel still gets its digest, each of its sites named unreadable.
    expect(posts.fleet[1]).toMatchObject({ consoles: 2, sites: 3, unreadable: 3, quiet: 0 });
    expect(posts.fleet[1]?.lines.map((line) => `${line.console}/${line.site}`)).toEqual([
      'acme-hq/default',
      'acme-hq/guest',
      'acme-shop/default',
    ]);
    expect(await data.get(channelDigestKey('C03ACME'))).toBe(due);
    expect(await data.get(channelDigestKey('C7DIGEST'))).toBeUndefined();

    // Restarted with one more channel bound: only the new channel is owed this due time.
    const more = { ...ACME_BINDINGS, C04NEW: { consoles: ['berlin'], site: 'default' } };
    const restarted = fleetWatcher(boundPortOf(gateways(), more, sites), { data, posts });
    expect(await restarted.fireDigest(due)).toBe(true);
    expect(posts.to?.slice(4)).toEqual(['C04NEW']);
    expect(await restarted.fireDigest(due)).toBe(false);
    expect(await restarted.fireDigest(due + 24 * HOUR)).toBe(true);
    expect(posts.to?.slice(5)).toEqual(['C7DIGEST', 'C03ACME', 'C01BERLIN', 'C02GUEST', 'C04NEW']);
  });

  it('reads each site once per due time, however many channels are bound', async () => {
    const unbound = { n: 0 };
    const bound = { n: 0 };
    const each = (calls: { n: number }) => ({
      'acme-hq': countedDownGateway(calls),
      'acme-shop': countedDownGateway(calls),
      berlin: countedDownGateway(calls),
    });
    const posts: Posts = { fleet: [], sites: [], to: [] };
    await fleetWatcher(boundPortOf(each(unbound), {}, sites)).fireDigest(due);
    await fleetWatcher(boundPortOf(each(bound), ACME_BINDINGS, sites), { posts }).fireDigest(due);
    expect(posts.to).toHaveLength(4);
    expect(unbound.n).toBeGreaterThan(0);
    expect(bound.n).toBe(unbound.n);
  });

  it('posts nothing without DIGEST_CHANNEL, bound channels or not', async () => {
    const posts: Posts = { fleet: [], sites: [], to: [] };
    const watcher = fleetWatcher(boundPortOf(gateways(), ACME_BINDINGS, sites), { posts, digestChannel: '' });
    expect(await watcher.fireDigest(due)).toBe(false);
    expect(posts.fleet).toEqual([]);
  });

  it('keeps posting the other channels when one channel refuses the post', async () => {
    const posts: Posts = { fleet: [], sites: [], to: [] };
    const refusing = countingNotifier(posts);
    const post = refusing.postFleetDigest;
    refusing.postFleetDigest = async (channel, digest) => {
      if (channel === 'C03ACME') throw new Error('not_in_channel');
      return post(channel, digest);
    };
    const watcher = testFleetWatcher(boundPortOf(gateways(), ACME_BINDINGS, sites), refusing, {
      config: { digestChannel: 'C7DIGEST', timeZone: 'UTC' },
    });
    expect(await watcher.fireDigest(due)).toBe(true);
    expect(posts.to).toEqual(['C7DIGEST', 'C01BERLIN', 'C02GUEST']);
  });

  it('answers `/net digest` in a bound channel with its own digest, elsewhere with the fleet’s', async () => {
    const posts: Posts = { fleet: [], sites: [], to: [] };
    const watcher = fleetWatcher(boundPortOf(gateways(), ACME_BINDINGS, sites), { posts });
    expect(await watcher.postDigest('C03ACME', due)).toMatchObject({ covers: 'customer=acme', sites: 3 });
    expect((await watcher.postDigest('C9OTHER', due)).covers).toBeUndefined();
    expect((await watcher.postDigest('C7DIGEST', due)).covers).toBeUndefined();
    expect(posts.to).toEqual(['C03ACME', 'C9OTHER', 'C7DIGEST']);
  });
});

describe('two replicas posting the fleet digest on PostgreSQL', () => {
  const { open } = usePostgresReplicas();

  it('post it once per due time, whichever replica asks first', async () => {
    const [storeA, storeB] = await Promise.all([open(), open()]);
    const posts: Posts = { fleet: [], sites: [] };
    const replica = (holder: string, store: typeof storeA) =>
      fleetWatcher(consolePortOf({ berlin: downGateway(), munich: downGateway() }), {
        data: store.data,
        digestLeases: store.leases(),
        holder,
        posts,
      });
    const a = replica('a', storeA);
    const b = replica('b', storeB);
    const due = Date.parse('2026-12-07T08:00:00Z');
    for (const at of [due, due + 24 * HOUR, due + 48 * HOUR]) {
      const fired = await Promise.all([
        a.fireDigest(at),
        b.fireDigest(at),
        a.fireDigest(at),
        b.fireDigest(at),
      ]);
      expect(fired.filter(Boolean)).toHaveLength(1);
    }
    expect(posts.fleet).toHaveLength(3);
    // Late, or after a restart: each due time is done.
    expect(await replica('c', storeA).fireDigest(due + 48 * HOUR)).toBe(false);
    expect(posts.fleet).toHaveLength(3);
  });

  it('post each bound channel its digest once per due time, whichever replica asks first', async () => {
    const [storeA, storeB] = await Promise.all([open(), open()]);
    const posts: Posts = { fleet: [], sites: [], to: [] };
    const replica = (holder: string, store: typeof storeA) =>
      fleetWatcher(
        boundPortOf(
          { 'acme-hq': downGateway(), 'acme-shop': downGateway(), berlin: downGateway() },
          ACME_BINDINGS,
        ),
        { data: store.data, digestLeases: store.leases(), holder, posts },
      );
    const a = replica('a', storeA);
    const b = replica('b', storeB);
    const due = Date.parse('2026-12-07T08:00:00Z');
    for (const at of [due, due + 24 * HOUR]) {
      await Promise.all([a.fireDigest(at), b.fireDigest(at), a.fireDigest(at), b.fireDigest(at)]);
      await replica('c', storeB).fireDigest(at);
    }
    const perChannel = new Map<string, number>();
    for (const channel of posts.to ?? []) perChannel.set(channel, (perChannel.get(channel) ?? 0) + 1);
    expect(Object.fromEntries(perChannel)).toEqual({ C7DIGEST: 2, C03ACME: 2, C01BERLIN: 2, C02GUEST: 2 });
    expect(posts.fleet.filter((digest) => digest.covers === 'customer=acme')).toHaveLength(2);
  });

  it('on their timers, never post the same due time twice', async () => {
    const [storeA, storeB] = await Promise.all([open(), open()]);
    const posts: Posts = { fleet: [], sites: [] };
    const stamps: number[] = [];
    const replica = (holder: string, store: typeof storeA) =>
      fleetWatcher(consolePortOf({ berlin: downGateway() }), {
        data: store.data,
        digestLeases: store.leases(),
        holder,
        posts,
        digestCron: '* * * * * *',
      });
    const watchers = [replica('a', storeA), replica('b', storeB)];
    for (const each of watchers) each.start();
    try {
      await waitFor(() => posts.fleet.length >= 3, 8_000);
    } finally {
      await Promise.all(watchers.map((each) => each.stop()));
    }
    for (const digest of posts.fleet) stamps.push(digest.to);
    // One a second: two replicas posting the same due time would post milliseconds apart.
    const gaps = stamps
      .sort((x, y) => x - y)
      .slice(1)
      .map((at, i) => at - (stamps[i] ?? 0));
    expect(Math.min(...gaps)).toBeGreaterThan(500);
    expect(posts.sites).toEqual([]);
  }, 15_000);
});

async function waitFor(ok: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
