import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGateway } from '../../src/gateway/gateway.js';
import type { Gateway } from '../../src/gateway/types.js';
import { type FakeServer, networkSchema, sendClassic, sendJson, startFake } from './support.js';

let server: FakeServer;
let gateway: Gateway;
let readDelayMs = 0;
let version = 0;

beforeAll(async () => {
  server = await startFake(async (req, res) => {
    if (req.method !== 'GET') {
      version += 1;
      if (req.path.endsWith('/fail')) return sendJson(res, 503, {});
      return req.path.includes('/v2/') ? sendJson(res, 200, { ok: true }) : sendClassic(res, []);
    }
    await sleep(readDelayMs);
    if (req.path.includes('/v2/')) return sendJson(res, 200, [{ _id: 'z', name: `zone-v${version}` }]);
    sendClassic(res, [{ _id: 'a', name: `net-v${version}` }]);
  });
  gateway = createGateway({
    apiType: 'local',
    url: server.url,
    apiKey: 'k-cache',
    deployment: 'unifi-os',
    timeoutMs: 2000,
    cacheTtlSeconds: 30,
  });
});

beforeEach(() => {
  gateway.invalidate();
  server.requests.length = 0;
  readDelayMs = 0;
});

afterAll(async () => {
  await gateway.close();
  await server.close();
});

const NETWORKS = '/proxy/network/api/s/default/rest/networkconf';
const upstreamReads = (path = NETWORKS) =>
  server.requests.filter((r) => r.method === 'GET' && r.path === path).length;

describe('read cache and single-flight', () => {
  it('makes ONE upstream request for two identical concurrent reads on a cold cache', async () => {
    readDelayMs = 80;

    const [a, b] = await Promise.all([
      gateway.classicRead('default', 'rest/networkconf', networkSchema),
      gateway.classicRead('default', 'rest/networkconf', networkSchema),
    ]);

    expect(upstreamReads()).toBe(1);
    expect(a).toEqual(b);
  });

  it('answers a repeated read from the cache within the TTL', async () => {
    await gateway.classicRead('default', 'rest/networkconf', networkSchema);
    await gateway.classicRead('default', 'rest/networkconf', networkSchema);

    expect(upstreamReads()).toBe(1);
  });

  it('keys on site, path, query and body: different reads go upstream separately', async () => {
    await gateway.classicRead('default', 'rest/networkconf', networkSchema);
    await gateway.classicRead('default', 'rest/networkconf?x=1', networkSchema);
    await gateway.classicRead('lab', 'rest/networkconf', networkSchema);
    await gateway.classicRead('default', 'stat/sitedpi', networkSchema, { body: { type: 'by_app' } });
    await gateway.classicRead('default', 'stat/sitedpi', networkSchema, { body: { type: 'by_cat' } });

    expect(server.requests).toHaveLength(5);
  });

  it('sends the next read upstream after a write to the same site, and sees the new state', async () => {
    const before = await gateway.classicRead('default', 'rest/networkconf', networkSchema);

    await gateway.classicWrite('default', 'POST', 'rest/networkconf', { name: 'IoT' });
    const after = await gateway.classicRead('default', 'rest/networkconf', networkSchema);

    expect(upstreamReads()).toBe(2);
    expect(after.items[0]?.name).not.toBe(before.items[0]?.name);
  });

  it('invalidates every API of the site on a write (a v2 write drops cached classic reads), but not other sites', async () => {
    await gateway.classicRead('default', 'rest/networkconf', networkSchema);
    await gateway.classicRead('lab', 'rest/networkconf', networkSchema);

    await gateway.v2Write('default', 'PUT', 'firewall/zone/z', { name: 'x' });
    await gateway.classicRead('default', 'rest/networkconf', networkSchema);
    await gateway.classicRead('lab', 'rest/networkconf', networkSchema);

    expect(upstreamReads()).toBe(2);
    expect(upstreamReads('/proxy/network/api/s/lab/rest/networkconf')).toBe(1);
  });

  it('invalidates even when the write fails (a failed write may still have landed)', async () => {
    await gateway.classicRead('default', 'rest/networkconf', networkSchema);

    await gateway.classicWrite('default', 'POST', 'rest/networkconf/fail', {}).catch(() => undefined);
    await gateway.classicRead('default', 'rest/networkconf', networkSchema);

    expect(upstreamReads()).toBe(2);
  });

  it('does not cache an answer that was in flight when a write happened', async () => {
    readDelayMs = 150;
    const slowRead = gateway.classicRead('default', 'rest/networkconf', networkSchema);
    await sleep(30);
    readDelayMs = 0;

    await gateway.classicWrite('default', 'POST', 'rest/networkconf', { name: 'IoT' });
    await slowRead;
    await gateway.classicRead('default', 'rest/networkconf', networkSchema);

    expect(upstreamReads()).toBe(2);
  });

  it('goes upstream for fresh: true, and concurrent fresh reads still share one request', async () => {
    await gateway.classicRead('default', 'rest/networkconf', networkSchema);
    readDelayMs = 60;

    await Promise.all([
      gateway.classicRead('default', 'rest/networkconf', networkSchema, { fresh: true }),
      gateway.classicRead('default', 'rest/networkconf', networkSchema, { fresh: true }),
    ]);

    expect(upstreamReads()).toBe(2);
  });

  // Deliberately alike: a gateway of its own with a short cache TTL, built from the same options every gateway test starts from.
  it('expires entries after the TTL', async () => {
    const shortLived = createGateway({
      apiType: 'local',
      url: server.url,
      apiKey: 'k-cache',
      deployment: 'unifi-os',
      cacheTtlSeconds: 0.1,
    });
    await shortLived.v2Read('default', 'firewall/zone', networkSchema);
    await sleep(150);
    await shortLived.v2Read('default', 'firewall/zone', networkSchema);
    await shortLived.close();

    expect(upstreamReads('/proxy/network/v2/api/site/default/firewall/zone')).toBe(2);
  });
});

describe('records are validated once per answer', () => {
  /** networkSchema that counts the records it validates. */
  function countingSchema() {
    const counter = { parsed: 0 };
    const schema = networkSchema.transform((record) => {
      counter.parsed += 1;
      return record;
    });
    return { counter, schema };
  }

  it('parses a shared answer once for every concurrent reader and for later cache hits', async () => {
    readDelayMs = 50;
    const { counter, schema } = countingSchema();

    const burst = await Promise.all(
      Array.from({ length: 20 }, () => gateway.classicRead('default', 'rest/networkconf', schema)),
    );
    const hit = await gateway.classicRead('default', 'rest/networkconf', schema);

    expect(upstreamReads()).toBe(1);
    expect(counter.parsed).toBe(1);
    for (const list of [...burst, hit]) expect(list.items).toEqual([{ _id: 'a', name: expect.any(String) }]);
  });

  it('gives every reader a list of its own, so one reader changing its list leaves the others alone', async () => {
    const first = await gateway.classicRead('default', 'rest/networkconf', networkSchema);
    first.items.length = 0;

    const second = await gateway.classicRead('default', 'rest/networkconf', networkSchema);

    expect(second.items).toHaveLength(1);
  });

  it('parses the same answer again for a different schema, and again after a write', async () => {
    const { counter, schema } = countingSchema();
    const other = z.looseObject({ _id: z.string() });

    await gateway.classicRead('default', 'rest/networkconf', schema);
    const narrow = await gateway.classicRead('default', 'rest/networkconf', other);
    await gateway.classicWrite('default', 'POST', 'rest/networkconf', { name: 'x' });
    const after = await gateway.classicRead('default', 'rest/networkconf', schema);

    expect(narrow.items).toEqual([{ _id: 'a', name: expect.any(String) }]);
    expect(counter.parsed).toBe(2);
    expect(after.items[0]?.name).toBe(`net-v${version}`);
  });
});
