import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Fleet, startFleet } from '../../src/simulator/fleet.js';
import { KeyRateLimiter } from '../../src/simulator/fleet-cloud.js';
import { type JsonResponse, request } from './support.js';

let fleet: Fleet;
const OTHER_KEY = 'sim-cloud-key-other';
beforeAll(async () => {
  fleet = await startFleet({
    consoles: [{}, {}, { down: true }, {}, {}, { reach: 'connector' }, {}],
    sites: 2,
    cloud: { rateLimitPerMinute: 40, extraApiKeys: [OTHER_KEY], defaultPageSize: 3 },
  });
});
afterAll(() => fleet.close());
beforeEach(() => {
  fleet.cloud.resetRateLimits();
  fleet.cloud.clearFaults();
});

const cloud = (path: string, key: string | null = fleet.cloud.apiKey): Promise<JsonResponse> =>
  request('GET', `${fleet.cloud.url}${path}`, { headers: key === null ? {} : { 'X-API-KEY': key } });

interface Page<T> {
  data: T[];
  nextToken: string;
  httpStatusCode: number;
  traceId: string;
}

async function everyPage<T>(path: string, pageSize?: number): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let token = '';
  let pages = 0;
  do {
    const query = new URLSearchParams();
    if (pageSize !== undefined) query.set('pageSize', String(pageSize));
    if (token !== '') query.set('nextToken', token);
    const page = (await cloud(`${path}?${query}`)).body as Page<T>;
    items.push(...page.data);
    token = page.nextToken;
    pages += 1;
  } while (token !== '' && pages < 50);
  return { items, pages };
}

describe('Site Manager over the fleet', () => {
  it('lists every console in /v1/hosts, paged by pageSize and nextToken, in the envelope', async () => {
    const first = (await cloud('/v1/hosts')).body as Page<{ id: string }>;
    const all = await everyPage<{ id: string; reportedState: { hostname: string; state: string } }>(
      '/v1/hosts',
      2,
    );

    expect(first.data).toHaveLength(3);
    expect(first).toMatchObject({ httpStatusCode: 200, traceId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(first.nextToken).not.toBe('');
    expect(all.pages).toBe(4);
    expect(all.items.map((h) => h.id)).toEqual(fleet.consoles.map((c) => c.consoleId));
    expect(all.items.map((h) => h.reportedState.state)).toEqual([
      'connected',
      'connected',
      'disconnected',
      'connected',
      'connected',
      'connected',
      'connected',
    ]);
  });

  it('refuses a malformed pageSize or nextToken with BAD_REQUEST', async () => {
    const size = await cloud('/v1/hosts?pageSize=0');
    const token = await cloud('/v1/hosts?nextToken=not-a-token');

    expect(size.status).toBe(400);
    expect(size.body).toMatchObject({ code: 'BAD_REQUEST', httpStatusCode: 400 });
    expect(token.status).toBe(400);
  });

  it('answers /v1/hosts/{id} for a fleet console, and NOT_FOUND for another id', async () => {
    const vienna = fleet.console('vienna');

    const host = await cloud(`/v1/hosts/${encodeURIComponent(vienna.consoleId)}`);
    const missing = await cloud('/v1/hosts/ABC:1');

    expect(host.body).toMatchObject({
      data: {
        id: vienna.consoleId,
        reportedState: {
          hostname: 'vienna',
          controllers: [{ name: 'network', version: expect.stringMatching(/^9\.0\.\d+$/) }],
        },
      },
      httpStatusCode: 200,
    });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({
      code: 'NOT_FOUND',
      httpStatusCode: 404,
      message: 'thing not found: ABC:1',
    });
  });

  it('lists each console’s sites in /v1/sites with its hostId', async () => {
    const { items } = await everyPage<{
      hostId: string;
      siteId: string;
      meta: { name: string; desc: string };
    }>('/v1/sites', 5);

    expect(items).toHaveLength(14);
    const paris = fleet.console('paris');
    expect(
      items.filter((s) => s.hostId === paris.consoleId).map((s) => [s.siteId, s.meta.name, s.meta.desc]),
    ).toEqual(paris.state.sites.map((s) => [s._id, s.name, s.desc]));
  });

  it('lists devices per host in /v1/devices, filtered by hostIds[]', async () => {
    const berlin = fleet.console('berlin');
    const zurich = fleet.console('zurich');
    const query = new URLSearchParams([
      ['hostIds[]', berlin.consoleId],
      ['hostIds[]', zurich.consoleId],
    ]);

    const answer = (await cloud(`/v1/devices?${query}`)).body as Page<{
      hostId: string;
      hostName: string;
      devices: { mac: string; status: string }[];
    }>;

    expect(answer.data.map((h) => h.hostName)).toEqual(['berlin', 'zurich']);
    const macs = berlin.state.sites.flatMap((s) =>
      s.devices.map((d) => d.mac.replaceAll(':', '').toUpperCase()),
    );
    expect(answer.data[0]?.devices.map((d) => d.mac)).toEqual(macs);
    const down = (
      await cloud(`/v1/devices?hostIds[]=${encodeURIComponent(fleet.console('hamburg').consoleId)}`)
    ).body as typeof answer;
    expect(down.data[0]?.devices.every((d) => d.status === 'offline')).toBe(true);
  });

  it('refuses a missing or unknown key with UNAUTHORIZED', async () => {
    const none = await cloud('/v1/hosts', null);
    const wrong = await cloud('/v1/hosts', fleet.console('berlin').apiKey);

    expect(none.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ code: 'UNAUTHORIZED', httpStatusCode: 401 });
  });

  it('answers an injected fault on the cloud in its own schema', async () => {
    fleet.cloud.injectFault({
      kind: 'status',
      status: 503,
      route: '/v1/sites',
      body: { code: 'SERVER_ERROR', httpStatusCode: 503 },
    });

    const failed = await cloud('/v1/sites');
    const hosts = await cloud('/v1/hosts');

    expect(failed.status).toBe(503);
    expect(hosts.status).toBe(200);
  });
});

describe('the rate limit per API key', () => {
  it('counts every caller of one key together, Site Manager and connector alike, then answers 429 RATE_LIMIT', async () => {
    const connector = `/v1/connector/consoles/${encodeURIComponent(fleet.console('paris').consoleId)}/proxy/network/integration/v1/info`;
    const calls = Array.from({ length: 40 }, (_, i) => cloud(i % 2 === 0 ? '/v1/hosts' : connector));
    const answered = await Promise.all(calls);

    const over = await cloud('/v1/sites');
    const otherKey = await cloud('/v1/hosts', OTHER_KEY);

    expect(answered.map((a) => a.status)).toEqual(Array(40).fill(200));
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({
      code: 'RATE_LIMIT',
      httpStatusCode: 429,
      message: expect.stringMatching(/^rate limit exceeded, retry after \d+\.\d{9}s$/),
    });
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(otherKey.status).toBe(200);
  });

  it('opens again as calls leave the rolling minute (a clock the test moves)', () => {
    let now = 1_000_000;
    const limiter = new KeyRateLimiter(2, () => now);

    const first = limiter.take('k');
    now += 10_000;
    const second = limiter.take('k');
    const third = limiter.take('k');
    now += 50_001;
    const afterFirstLeft = limiter.take('k');
    const again = limiter.take('k');

    expect([first.ok, second.ok, third.ok, afterFirstLeft.ok, again.ok]).toEqual([
      true,
      true,
      false,
      true,
      false,
    ]);
    expect(third).toEqual({ ok: false, retryAfterMs: 50_000 });
    expect(limiter.take('other').ok).toBe(true);
  });
});
