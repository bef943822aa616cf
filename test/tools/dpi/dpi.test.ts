import { beforeEach, describe, expect, it } from 'vitest';
import { ResourceNotFoundError } from '../../../src/errors.js';
import type { DpiApplication, DpiCategory } from '../../../src/tools/dpi/dpi-model.js';

// The wording the issue asks for, pinned here rather than imported from the code under test.
const NO_DATA = 'no DPI data (is traffic identification on?)';
const COUNTERS_NOTE = expect.stringMatching(/cumulative/);

import { startTestBot } from '../../helpers/test-bot.js';
import { rejection, useTestBot, validationIssues } from '../../helpers/tool-test.js';

const bot = useTestBot();
beforeEach(() => {
  bot.sim.setDpiEmpty(false);
});

const TV = '9c:b6:d0:4e:11:07';
const KITCHEN_PLUG = 'ec:fa:bc:01:02:10';

interface Statistics {
  site_id: string;
  time_range: string;
  counters: string;
  note: string;
  has_data: boolean;
  applications: DpiApplication[];
  categories: DpiCategory[];
  total_applications: number;
  total_categories: number;
}

interface ClientDpi {
  client_mac: string;
  has_data: boolean;
  total_tx_bytes: number;
  total_rx_bytes: number;
  total_bytes: number;
  applications: DpiApplication[];
  total_applications: number;
}

function sum(values: number[]): number {
  return values.reduce((total, v) => total + v, 0);
}

/** Percentages carry at most two decimals and add up to 100 (± rounding). */
function expectShares(percentages: number[]) {
  for (const p of percentages) expect(Math.round(p * 100) / 100).toBe(p);
  expect(Math.abs(sum(percentages) - 100)).toBeLessThan(0.011);
}

function expectHighestFirst(rows: { total_bytes: number }[]) {
  const bytes = rows.map((r) => r.total_bytes);
  expect(bytes).toEqual([...bytes].sort((a, b) => b - a));
}

describe('get_dpi_statistics', () => {
  it('answers applications and categories by name, highest bandwidth first, with shares summing to 100', async () => {
    const stats = (await bot.run('get_dpi_statistics')) as Statistics;

    expect(stats).toMatchObject({
      site_id: 'default',
      time_range: '24h',
      counters: 'cumulative',
      note: COUNTERS_NOTE,
      has_data: true,
      total_applications: 18,
      total_categories: stats.categories.length,
    });
    expect(stats.applications).toHaveLength(18);
    expect(stats.applications.slice(0, 2).map((a) => [a.application, a.category])).toEqual([
      ['Youtube', 'Media Streaming'],
      ['Netflix', 'Media Streaming'],
    ]);
    expect(stats.applications.map((a) => a.application)).toEqual(
      expect.arrayContaining(['Zoom', 'Instagram', 'Valve Steam', 'iCloud']),
    );
    for (const app of stats.applications) {
      expect(app.total_bytes).toBe(app.tx_bytes + app.rx_bytes);
      expect(app.application).not.toMatch(/^Unknown/);
    }
    expectHighestFirst(stats.applications);
    expectHighestFirst(stats.categories);
    expectShares(stats.applications.map((a) => a.percentage));
    expectShares(stats.categories.map((c) => c.percentage));
    const media = stats.categories.find((c) => c.category === 'Media Streaming');
    const mediaApps = stats.applications.filter((a) => a.category === 'Media Streaming');
    expect(media).toMatchObject({
      application_count: mediaApps.length,
      total_bytes: sum(mediaApps.map((a) => a.total_bytes)),
    });
  });

  it('asks sitedpi for by_app and by_cat (POSTs that are reads)', async () => {
    await bot.run('get_dpi_statistics', { time_range: '7d' });

    const dpi = bot.sim.requests.filter((r) => r.route.endsWith('/stat/sitedpi'));
    expect(dpi.map((r) => [r.method, r.body])).toEqual(
      expect.arrayContaining([
        ['POST', { type: 'by_app' }],
        ['POST', { type: 'by_cat' }],
      ]),
    );
    expect(dpi).toHaveLength(2);
  });

  it('echoes time_range, defaulting to 24h', async () => {
    const stats = (await bot.run('get_dpi_statistics', { time_range: '30d' })) as Statistics;

    expect(stats.time_range).toBe('30d');
    expect(bot.app.registry.validate('get_dpi_statistics', {})).toEqual({
      site_id: 'default',
      time_range: '24h',
    });
  });

  it('refuses an unknown time_range, naming it, without asking the controller', async () => {
    expect(await validationIssues(bot, 'get_dpi_statistics', { time_range: '2d' })).toEqual([
      { field: 'time_range', rule: 'must be one of 1h, 6h, 12h, 24h, 7d, 30d' },
    ]);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it('says there is no DPI data instead of answering zero traffic', async () => {
    bot.sim.setDpiEmpty(true);

    expect(await bot.run('get_dpi_statistics')).toEqual({
      site_id: 'default',
      time_range: '24h',
      counters: 'cumulative',
      note: COUNTERS_NOTE,
      has_data: false,
      message: NO_DATA,
      applications: [],
      categories: [],
      total_applications: 0,
      total_categories: 0,
    });
  });
});

describe('list_top_applications', () => {
  it('answers the ten heaviest applications by default, in the order of the full statistics', async () => {
    const stats = (await bot.run('get_dpi_statistics')) as Statistics;
    const top = (await bot.run('list_top_applications')) as {
      applications: DpiApplication[];
      total_applications: number;
      counters: string;
      time_range: string;
    };

    expect(top.applications).toEqual(stats.applications.slice(0, 10));
    expect(top).toMatchObject({ total_applications: 18, counters: 'cumulative', time_range: '24h' });
    expect(bot.app.registry.validate('list_top_applications', {})).toEqual({
      site_id: 'default',
      limit: 10,
      time_range: '24h',
    });
  });

  it('honours limit', async () => {
    const top = (await bot.run('list_top_applications', { limit: '3', time_range: '1h' })) as {
      applications: DpiApplication[];
    };

    expect(top.applications.map((a) => a.application)).toEqual(['Youtube', 'Netflix', 'Dropbox']);
  });

  it.each([0, 1001])('refuses limit %s, naming it, without asking the controller', async (limit) => {
    expect(await validationIssues(bot, 'list_top_applications', { limit })).toEqual([
      { field: 'limit', rule: 'must be a whole number from 1 to 1000' },
    ]);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it('refuses a fractional limit, naming it', async () => {
    expect(
      (await validationIssues(bot, 'list_top_applications', { limit: 2.5 })).map((i) => i.field),
    ).toEqual(['limit']);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it('says there is no DPI data instead of an empty list', async () => {
    bot.sim.setDpiEmpty(true);

    expect(await bot.run('list_top_applications')).toMatchObject({
      has_data: false,
      message: NO_DATA,
      applications: [],
      total_applications: 0,
    });
  });
});

describe('get_client_dpi', () => {
  it("answers a client's applications with shares of its own total", async () => {
    const dpi = (await bot.run('get_client_dpi', { client_mac: TV })) as ClientDpi;

    expect(dpi).toMatchObject({
      site_id: 'default',
      client_mac: TV,
      time_range: '24h',
      counters: 'cumulative',
      has_data: true,
      total_applications: 3,
    });
    expect(dpi.applications.map((a) => a.application)).toEqual([
      'Netflix',
      'Youtube',
      'Amazon Instant Video',
    ]);
    expect(dpi.total_tx_bytes).toBe(sum(dpi.applications.map((a) => a.tx_bytes)));
    expect(dpi.total_rx_bytes).toBe(sum(dpi.applications.map((a) => a.rx_bytes)));
    expect(dpi.total_bytes).toBe(dpi.total_tx_bytes + dpi.total_rx_bytes);
    expectHighestFirst(dpi.applications);
    expectShares(dpi.applications.map((a) => a.percentage));
    expect(bot.sim.requests.find((r) => r.route.endsWith('/stat/stadpi'))?.body).toEqual({
      type: 'by_app',
      macs: [TV],
    });
  });

  it.each(['9C-B6-D0-4E-11-07', '9cb6.d04e.1107', '9CB6D04E1107', ' 9c:b6:d0:4e:11:07 '])(
    'accepts the MAC written as %s',
    async (notation) => {
      const dpi = (await bot.run('get_client_dpi', { client_mac: notation })) as ClientDpi;

      expect(dpi.client_mac).toBe(TV);
      expect(dpi.total_applications).toBe(3);
    },
  );

  it.each(['9c:b6:d0:4e:11', 'zz:b6:d0:4e:11:07', '9c:b6-d0:4e:11:07', 'tv'])(
    'refuses the invalid MAC %s, naming client_mac, without asking the controller',
    async (mac) => {
      expect(await validationIssues(bot, 'get_client_dpi', { client_mac: mac })).toEqual([
        { field: 'client_mac', rule: 'must be a MAC address such as aa:bb:cc:dd:ee:ff' },
      ]);
      expect(bot.sim.requests).toHaveLength(0);
    },
  );

  it('refuses an unknown time_range, naming it', async () => {
    expect(await validationIssues(bot, 'get_client_dpi', { client_mac: TV, time_range: 'today' })).toEqual([
      { field: 'time_range', rule: 'must be one of 1h, 6h, 12h, 24h, 7d, 30d' },
    ]);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it('raises ResourceNotFoundError for a MAC the controller does not know', async () => {
    const error = await rejection(bot.run('get_client_dpi', { client_mac: '02:00:00:00:00:99' }));

    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect((error as Error).message).toBe('client 02:00:00:00:00:99 not found on site default');
  });

  it('says there is no DPI data for a known client without identified traffic', async () => {
    const dpi = await bot.run('get_client_dpi', { client_mac: KITCHEN_PLUG });

    expect(dpi).toMatchObject({
      client_mac: KITCHEN_PLUG,
      has_data: false,
      message: NO_DATA,
      total_bytes: 0,
      applications: [],
      total_applications: 0,
    });
  });

  it('says there is no DPI data when the controller reports none', async () => {
    bot.sim.setDpiEmpty(true);

    expect(await bot.run('get_client_dpi', { client_mac: TV })).toMatchObject({
      has_data: false,
      message: NO_DATA,
    });
  });
});

describe('application names', () => {
  it("prefer the controller's catalogue over the bundled table", async () => {
    const own = await startTestBot();
    try {
      own.sim.injectFault({
        kind: 'status',
        status: 200,
        route: '/dpi/applications',
        body: {
          offset: 0,
          limit: 200,
          count: 1,
          totalCount: 1,
          data: [{ id: 262276, name: 'Netflix (renamed)' }],
        },
      });

      const dpi = (await own.run('get_client_dpi', { client_mac: TV })) as ClientDpi;
      const catalogueAsked = own.sim.requests.filter((r) => r.route.includes('/integration/v1/dpi/'));
      own.sim.clearRequests();
      // The fault answered once; the kept catalogue still names the second answer.
      const again = (await own.run('get_client_dpi', { client_mac: TV })) as ClientDpi;

      expect(dpi.applications[0]?.application).toBe('Netflix (renamed)');
      // Ids the controller's catalogue lacks keep their bundled names.
      expect(dpi.applications[1]?.application).toBe('Youtube');
      expect(catalogueAsked.map((r) => r.route).sort()).toEqual([
        '/integration/v1/dpi/applications',
        '/integration/v1/dpi/categories',
      ]);
      expect(again.applications[0]?.application).toBe('Netflix (renamed)');
      expect(own.sim.requests.some((r) => r.route.includes('/dpi/'))).toBe(false);
    } finally {
      await own.close();
    }
  });

  it('come from the bundled table when the Integration API is out of reach (no API key)', async () => {
    const session = await startTestBot({ gateway: { apiKey: '', username: 'admin', password: 'simulator' } });
    try {
      const dpi = (await session.run('get_client_dpi', { client_mac: TV })) as ClientDpi;

      expect(dpi.applications.map((a) => a.application)).toEqual([
        'Netflix',
        'Youtube',
        'Amazon Instant Video',
      ]);
      expect(session.sim.requests.some((r) => r.route.includes('/integration/'))).toBe(false);
    } finally {
      await session.close();
    }
  });
});
