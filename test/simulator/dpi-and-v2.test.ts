import { beforeEach, describe, expect, it } from 'vitest';
import catalogue from '../../src/data/dpi-catalogue.json' with { type: 'json' };
import { startSimulator } from '../../src/simulator/index.js';
import { useSimulator } from '../helpers/shared-simulator.js';
import { api, classicData, field } from './support.js';

const sim = useSimulator();
beforeEach(() => sim.reset());

// Deliberately alike: the simulator's DPI rows are typed here apart from the bot's DPI types, so each checks the other.
const SITEDPI = '/api/s/default/stat/sitedpi';
const STADPI = '/api/s/default/stat/stadpi';

interface AppRow {
  app: number;
  cat: number;
  rx_bytes: number;
  tx_bytes: number;
  rx_packets: number;
  tx_packets: number;
  known_clients: number;
  clients: { mac: string; rx_bytes: number }[];
}

describe('stat/sitedpi and stat/stadpi', () => {
  it('answers by_app with real catalogue ids, counters and the clients behind them', async () => {
    const data = classicData(await api(sim, 'POST', SITEDPI, { body: { type: 'by_app' } }));

    expect(data).toHaveLength(1);
    const rows = data[0]?.by_app as AppRow[];
    for (const row of rows) {
      expect(Object.hasOwn(catalogue.applications, String((row.cat << 16) | row.app))).toBe(true);
      expect(row.known_clients).toBe(row.clients.length);
      expect(row.rx_bytes).toBeGreaterThan(0);
    }
    const netflix = rows.find((row) => row.cat === 4 && row.app === 132);
    expect(netflix?.clients.map((c) => c.mac)).toContain('9c:b6:d0:4e:11:07');
  });

  it('filters by_app by category', async () => {
    const data = classicData(await api(sim, 'POST', SITEDPI, { body: { type: 'by_app', cats: [4] } }));

    const rows = data[0]?.by_app as AppRow[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.cat === 4)).toBe(true);
  });

  it('answers by_cat with per-category sums equal to the by_app rows', async () => {
    const apps = classicData(await api(sim, 'POST', SITEDPI, { body: { type: 'by_app' } }))[0]
      ?.by_app as AppRow[];
    const cats = classicData(await api(sim, 'POST', SITEDPI, { body: { type: 'by_cat' } }))[0]?.by_cat as {
      cat: number;
      apps: number[];
      rx_bytes: number;
    }[];

    const media = cats.find((row) => row.cat === 4);
    const mediaApps = apps.filter((row) => row.cat === 4);
    expect(media?.rx_bytes).toBe(mediaApps.reduce((sum, row) => sum + row.rx_bytes, 0));
    expect(media?.apps.sort()).toEqual(mediaApps.map((row) => row.app).sort());
  });

  it('answers stadpi per client, filtered by macs', async () => {
    const data = classicData(
      await api(sim, 'POST', STADPI, { body: { type: 'by_app', macs: ['9C:B6:D0:4E:11:07'] } }),
    );

    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ mac: '9c:b6:d0:4e:11:07', last_updated: expect.any(Number) });
    const apps = data[0]?.by_app as AppRow[];
    expect(apps.length).toBeGreaterThan(0);
    expect(Object.keys(apps[0] ?? {}).sort()).toEqual([
      'app',
      'cat',
      'rx_bytes',
      'rx_packets',
      'tx_bytes',
      'tx_packets',
    ]);
  });

  it('answers empty data when DPI reports nothing (Network 10.x behaviour)', async () => {
    sim.setDpiEmpty(true);

    const site = await api(sim, 'POST', SITEDPI, { body: { type: 'by_app' } });
    const clients = await api(sim, 'POST', STADPI, { body: { type: 'by_app' } });

    expect(site.body).toEqual({ meta: { rc: 'ok' }, data: [] });
    expect(classicData(clients)).toEqual([]);
  });

  it('starts with empty DPI when asked to', async () => {
    const empty = await startSimulator({ emptyDpi: true });
    try {
      expect(classicData(await api(empty, 'POST', SITEDPI, { body: { type: 'by_cat' } }))).toEqual([]);
    } finally {
      await empty.close();
    }
  });

  it('refuses an unknown type', async () => {
    const response = await api(sim, 'POST', SITEDPI, { body: { type: 'by_week' } });

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ meta: { rc: 'error', msg: 'api.err.InvalidPayload' } });
  });
});

describe('v2 trafficrules and trafficroutes', () => {
  // Deliberately alike: a traffic rule body as the v2 API takes it; traffic-rules.test.ts posts its own for its own cases.
  const RULES = '/v2/api/site/default/trafficrules';
  const rule = {
    action: 'BLOCK',
    description: 'Block TikTok',
    enabled: true,
    matching_target: 'APP',
    app_ids: [1573022],
    target_devices: [{ type: 'ALL_CLIENTS' }],
  };

  it('lists bare arrays shaped like the fixture', async () => {
    const rules = await api(sim, 'GET', RULES);
    const routes = await api(sim, 'GET', '/v2/api/site/default/trafficroutes');

    expect(Array.isArray(rules.body)).toBe(true);
    expect(rules.body).toHaveLength(3);
    expect((rules.body as unknown[])[0]).toMatchObject({
      action: 'BLOCK',
      bandwidth_limit: { enabled: false },
    });
    expect(routes.body).toHaveLength(2);
    expect((routes.body as unknown[])[0]).toMatchObject({ matching_target: 'DOMAIN', next_hop: '' });
  });

  it('creates a rule and answers the bare stored object', async () => {
    const response = await api(sim, 'POST', RULES, { body: rule });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      ...rule,
      // Stored rules carry catalogue ids as strings (aiounifi's TypedTrafficRule), whatever was sent.
      app_ids: ['1573022'],
      app_category_ids: [],
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      ip_addresses: [],
    });
  });

  it('keeps string app ids as strings and refuses ids that are not numbers', async () => {
    const strings = await api(sim, 'POST', RULES, { body: { ...rule, app_ids: ['1572867'] } });
    const word = await api(sim, 'POST', RULES, { body: { ...rule, app_ids: ['facebook'] } });

    expect(strings.body).toMatchObject({ app_ids: ['1572867'] });
    expect(word.status).toBe(400);
    expect(word.body).toMatchObject({ code: 'api.err.InvalidPayload' });
  });

  it('replaces a rule on PUT (omitted keys go back to defaults)', async () => {
    const id = '65b3c8e1f4a9d20c7e5a1203';

    const response = await api(sim, 'PUT', `${RULES}/${id}`, { body: { ...rule, action: 'ALLOW' } });

    expect(response.body).toMatchObject({ _id: id, action: 'ALLOW', bandwidth_limit: { enabled: false } });
    expect(sim.state.site('default')?.trafficRules.find((r) => r._id === id)?.description).toBe(
      'Block TikTok',
    );
  });

  it('refuses a bad action or bandwidth_limit with a v2 error body', async () => {
    const action = await api(sim, 'POST', RULES, { body: { ...rule, action: 'DENY' } });
    const limit = await api(sim, 'POST', RULES, {
      body: {
        ...rule,
        bandwidth_limit: { download_limit_kbps: 'fast', upload_limit_kbps: 1, enabled: true },
      },
    });

    expect(action.status).toBe(400);
    expect(action.body).toMatchObject({
      code: 'api.err.InvalidPayload',
      errorCode: 400,
      message: expect.any(String),
    });
    expect(limit.status).toBe(400);
  });

  it('answers 404 with a v2 error body for an unknown id, and deletes a known one', async () => {
    const unknown = await api(sim, 'DELETE', `${RULES}/ffffffffffffffffffffffff`);
    const deleted = await api(sim, 'DELETE', `${RULES}/65b3c8e1f4a9d20c7e5a1201`);

    expect(unknown.status).toBe(404);
    expect(field(unknown, 'errorCode')).toBe(404);
    expect(deleted.status).toBe(200);
    expect(sim.state.site('default')?.trafficRules).toHaveLength(2);
  });
});
