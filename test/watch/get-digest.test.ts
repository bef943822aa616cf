// get_digest: the digest read now, for faces that cannot receive the Slack message. In
// process through createApp; the built console is in test/process/watch.test.ts.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { render } from '../../src/format/plain-text.js';
import { takeDeviceDown } from '../../src/simulator/scenario-controls.js';
import { durationText } from '../../src/tools/bot/watch-tools.js';
import type { Watcher } from '../../src/watch/index.js';
import { type FleetApp, startFleetApp } from '../helpers/fleet-consoles.js';
import { type SlackBot, startSlackBot } from '../helpers/slack-bot.js';

let bot: SlackBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

describe('get_digest', () => {
  it('says when no poll was recorded, then shows what the watcher recorded: incidents, offline now, pending approvals', async () => {
    let now = Date.parse('2026-11-26T02:14:00Z');
    bot = await startSlackBot({ env: { ALERT_CHANNEL: 'C9ALERTS', TZ: 'UTC' }, now: () => now });
    const run = (args: Record<string, unknown> = {}) =>
      bot?.app.registry.run('get_digest', args, bot.app.context) as Promise<Record<string, unknown>>;

    const before = await run();
    expect(before).toMatchObject({ site: 'default', incidents: [], offline_now: [] });
    expect(before.notes).toEqual([expect.stringContaining('no poll recorded yet')]);

    const watcher = bot.app.watcher as Watcher;
    await watcher.poll();
    takeDeviceDown(bot.sim.state, 'Living Room AP');
    now += 60_000;
    await watcher.poll();
    const { id } = await bot.propose('create_network name=Cams vlan_id=61 subnet=10.61.0.0/24');
    now += 17 * 60_000;
    const after = await run();
    expect(after).toMatchObject({
      site: 'default',
      from: '2026-11-25T02:32:00Z',
      to: '2026-11-26T02:32:00Z',
      incidents: [
        {
          subject: 'Garage AP',
          kind: 'device_offline',
          started_at: '2026-11-26T02:14:00Z',
          resolved_at: null,
          duration: 'still open',
        },
        { subject: 'Living Room AP', kind: 'device_offline', started_at: '2026-11-26T02:15:00Z' },
      ],
      offline_now: expect.arrayContaining(['Garage AP', 'Living Room AP']),
      pending_approvals: [{ change_id: id, tool: 'create_network' }],
      notes: [],
    });
  });

  it('says that incidents and drift are watched on DEFAULT_SITE only when asked about another site', async () => {
    bot = await startSlackBot({ env: { ALERT_CHANNEL: 'C9ALERTS' } });
    const answer = (await bot.app.registry.run('get_digest', { site_id: 'branch' }, bot.app.context)) as {
      site: string;
      notes: string[];
    };
    expect(answer.site).toBe('branch');
    expect(answer.notes).toContain('incidents and drift are watched on default only (DEFAULT_SITE)');
  });

  it('words durations as a person reads them', () => {
    expect([40_000, 17 * 60_000, 2 * 3_600_000, 125 * 60_000].map(durationText)).toEqual([
      '40 s',
      '17 min',
      '2 h',
      '2 h 5 min',
    ]);
  });
});

describe('get_digest in a fleet', () => {
  let app: App;
  let running: FleetApp | undefined;

  beforeAll(async () => {
    // vienna answers after 5 s, past the fleet's read budget (2 s).
    running = await startFleetApp(
      { consoles: [{ name: 'berlin' }, { name: 'munich' }, { name: 'vienna', slow: 5000 }] },
      'netops-fleet-digest-',
    );
    ({ app } = running);
  });
  afterAll(() => running?.close());

  it('without console= answers the fleet digest: totals, the sites with anything, the quiet counted', async () => {
    // A drift berlin's watcher recorded an hour ago.
    await app.store.data.set('watch:drift:dr_1', {
      id: 'dr_1',
      site: 'default',
      console: 'berlin',
      kind: 'policies',
      objectId: 'p1',
      objectName: 'Kids',
      change: 'changed',
      fields: [],
      noticedAt: Date.now() - 3_600_000,
    });
    const answer = (await app.registry.run('get_digest', {}, app.context)) as Record<string, unknown>;
    expect(answer).toMatchObject({
      consoles: 3,
      sites_watched: 3,
      drift: 1,
      unreadable_sites: 1,
      quiet_sites: 1,
      sites: [
        { console: 'vienna', site: 'default', problem: expect.stringMatching(/^could not be read: /) },
        { console: 'berlin', site: 'default', drift: 1, problem: null },
      ],
    });
    // The console's words, through the plain-text renderer every read uses.
    const text = render(answer);
    expect(text).toContain('quiet_sites: 1');
    expect(text).toMatch(/vienna\s+default/);
  }, 20_000);

  it('with console= answers that console’s site digest, named, as before; an unknown console is refused', async () => {
    const answer = (await app.registry.run('get_digest', { console: 'munich' }, app.context)) as Record<
      string,
      unknown
    >;
    expect(answer).toMatchObject({ console: 'munich', site: 'default', drift: [] });
    expect(answer.notes).toEqual([expect.stringContaining('no poll recorded yet')]);
    await expect(app.registry.run('get_digest', { console: 'nowhere' }, app.context)).rejects.toThrow(
      /nowhere|console/,
    );
  });
});
