// get_digest: the digest read now, for faces that cannot receive the Slack message. In
// process through createApp; the built console is in test/process/watch.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { takeDeviceDown } from '../../src/simulator/scenario-controls.js';
import { durationText } from '../../src/tools/bot/watch-tools.js';
import type { Watcher } from '../../src/watch/index.js';
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
