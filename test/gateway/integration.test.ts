import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GatewayRejectedError, ResourceNotFoundError } from '../../src/errors.js';
import { createGateway } from '../../src/gateway/gateway.js';
import type { Gateway } from '../../src/gateway/types.js';
import { type FakeServer, fixture, sendFirstPage, sendJson, startFake } from './support.js';

const DEFAULT_UUID = '88f7af54-98f8-306a-a1c7-c9349722b1f6';
const LAB_UUID = '0f6c2d9e-1b7a-4c55-9d1e-3a2b4c5d6e7f';
const TOTAL_CLIENTS = 437;

const clientSchema = z.looseObject({ id: z.string(), name: z.string() });

let server: FakeServer;
let gateway: Gateway;

/** Pages the way the controller does: at most `limit` (capped at `maxLimit`) from `offset`. */
function page(items: unknown[], query: Record<string, string>, maxLimit = 200) {
  const offset = Number(query.offset ?? 0);
  const limit = Math.min(Number(query.limit ?? 25), maxLimit);
  const data = items.slice(offset, offset + limit);
  return { offset, limit, count: data.length, totalCount: items.length, data };
}

const clients = Array.from({ length: TOTAL_CLIENTS }, (_, i) => ({ id: `c-${i}`, name: `client ${i}` }));
const HELD_PAGES = 5;
const held = Array.from({ length: HELD_PAGES * 50 - 7 }, (_, i) => ({ id: `h-${i}`, name: `held ${i}` }));
const waiting: (() => void)[] = [];
let heldPeak = 0;
let heldByTimer = false;

beforeAll(async () => {
  server = await startFake((req, res) => {
    const route = req.path.replace(/^\/proxy\/network\/integration\/v1/, '');
    if (req.path === '/') return sendJson(res, 200, {});
    if (req.headers['x-api-key'] !== 'k-int')
      return sendJson(res, 401, { error: { code: 401, message: 'Unauthorized' } });
    if (route === '/sites') {
      const sites = fixture('integration/sites.json') as { data: unknown[] };
      const all = [...sites.data, { id: LAB_UUID, internalReference: 'lab', name: 'Lab' }];
      // One site per page, so resolution itself has to follow pages.
      return sendJson(res, 200, page(all, req.query, 1));
    }
    if (route === `/sites/${DEFAULT_UUID}/clients`) {
      // Mixed records: one without a name is skipped, not fatal.
      const withOdd = [...clients.slice(0, 10), { id: 'odd' }, ...clients.slice(10)];
      return sendJson(res, 200, page(withOdd, req.query, 150));
    }
    if (route === `/sites/${LAB_UUID}/acl-rules`) {
      return sendFirstPage(res, []);
    }
    if (route === `/sites/${DEFAULT_UUID}/endless`) {
      return sendFirstPage(res, [{ id: 'x', name: 'x' }], 1_000_000);
    }
    if (route === `/sites/${DEFAULT_UUID}/growing`) {
      const offset = Number(req.query.offset ?? 0);
      const item = { id: `g-${offset}`, name: 'g' };
      return sendJson(res, 200, { offset, limit: 1, count: 1, totalCount: offset + 2, data: [item] });
    }
    if (route === `/sites/${DEFAULT_UUID}/held`) {
      const body = page(held, req.query, 50);
      if (body.offset === 0) return sendJson(res, 200, body);
      waiting.push(() => sendJson(res, 200, body));
      heldPeak = Math.max(heldPeak, waiting.length);
      const release = () => {
        for (const send of waiting.splice(0)) send();
      };
      if (waiting.length === HELD_PAGES - 1) release();
      else if (waiting.length === 1) {
        setTimeout(() => {
          if (waiting.length > 0) heldByTimer = true;
          release();
        }, 2000);
      }
      return;
    }
    if (route === `/sites/${DEFAULT_UUID}/shrinking`) {
      // The page at 150 comes back short (100 records), as if records moved while paging.
      const cap = req.query.offset === '150' ? 100 : 150;
      return sendJson(res, 200, page(clients, req.query, cap));
    }
    if (route === `/sites/${DEFAULT_UUID}/broken`) return sendJson(res, 200, { items: [] });
    if (route === '/dpi/categories') {
      return sendJson(
        res,
        200,
        page(
          [
            { id: 0, name: 'Instant Messengers' },
            { id: 5, name: 'Email' },
          ],
          req.query,
        ),
      );
    }
    if (route === `/sites/${DEFAULT_UUID}/firewall/zones` && req.method === 'POST') {
      return sendJson(res, 201, { id: 'zone-1', name: 'IoT', networkIds: [] });
    }
    if (route.startsWith(`/sites/${DEFAULT_UUID}/firewall/zones/`) && req.method === 'DELETE') {
      res.writeHead(200);
      return res.end();
    }
    sendJson(res, 404, {
      statusCode: 404,
      statusName: 'NOT_FOUND',
      code: 'api.resource-not-found',
      message: 'nope',
    });
  });
  gateway = createGateway({
    apiType: 'local',
    url: server.url,
    apiKey: 'k-int',
    timeoutMs: 2000,
    maxPages: 20,
  });
});

beforeEach(() => {
  server.requests.length = 0;
});

afterAll(async () => {
  await gateway.close();
  await server.close();
});

describe('Integration pages', () => {
  it('follows every page with limit=200, moving offset by count until totalCount', async () => {
    // Act
    const list = await gateway.integrationList('default', 'clients', clientSchema);

    // Assert
    expect(list.items).toHaveLength(TOTAL_CLIENTS);
    expect(list.skipped).toBe(1);
    expect(list.items.at(-1)).toEqual({ id: `c-${TOTAL_CLIENTS - 1}`, name: `client ${TOTAL_CLIENTS - 1}` });
    const pages = server.seen('/clients');
    expect(pages.map((p) => p.query)).toEqual([
      { offset: '0', limit: '200' },
      { offset: '150', limit: '200' },
      { offset: '300', limit: '200' },
    ]);
  });

  it('passes the filter through on every page', async () => {
    await gateway.integrationList('default', 'clients', clientSchema, {
      filter: "name.like('client*')",
      fresh: true,
    });

    const pages = server.seen('/clients');
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.every((p) => p.query.filter === "name.like('client*')")).toBe(true);
  });

  it('stops on an empty page', async () => {
    const list = await gateway.integrationList('lab', 'acl-rules', clientSchema);

    expect(list).toEqual({ items: [], skipped: 0 });
    expect(server.seen('/acl-rules')).toHaveLength(1);
  });

  it('refuses, after the first page, a total that would take more pages than allowed', async () => {
    const error = await gateway.integrationList('default', 'endless', clientSchema).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(GatewayRejectedError);
    expect(error).toMatchObject({ controllerCode: 'InvalidResponse' });
    expect(server.seen('/endless')).toHaveLength(1);
  });

  it('gives up on a server whose total grows with every page', async () => {
    const error = await gateway.integrationList('default', 'growing', clientSchema).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(GatewayRejectedError);
    expect(error).toMatchObject({ controllerCode: 'InvalidResponse' });
    expect(server.seen('/growing')).toHaveLength(20);
  });

  it('requests the pages after the first together, once the first has told the total', async () => {
    // The server answers no page after the first until all of them have arrived: fetched one after
    // another, they would never all be pending, and the read would wait for the release timer.
    const list = await gateway.integrationList('default', 'held', clientSchema);

    expect(list.items.map((c) => c.id)).toEqual(held.map((c) => c.id));
    expect(heldPeak).toBe(HELD_PAGES - 1);
    expect(heldByTimer).toBe(false);
    expect(server.seen('/held').map((p) => p.query.offset)).toEqual(
      expect.arrayContaining(['0', '50', '100', '150', '200']),
    );
  });

  it('reads a gap left by a page shorter than the first one by one, keeping every record once and in order', async () => {
    const list = await gateway.integrationList('default', 'shrinking', clientSchema);

    expect(list.items.map((c) => c.id)).toEqual(clients.map((c) => c.id));
    const offsets = server.seen('/shrinking').map((p) => Number(p.query.offset));
    // 0 and 150 (150 records each); 300 together with 150; the short page at 150 leaves 250..299,
    // read where the gap is; then 400 from there.
    expect(new Set(offsets)).toEqual(new Set([0, 150, 300, 250, 400]));
  });

  it('refuses a body that is not a page as InvalidResponse', async () => {
    await expect(gateway.integrationList('default', 'broken', clientSchema)).rejects.toMatchObject({
      controllerCode: 'InvalidResponse',
    });
  });

  it('lists global resources outside any site', async () => {
    const list = await gateway.integrationGlobalList(
      'dpi/categories',
      z.object({ id: z.number(), name: z.string() }),
    );

    expect(list.items.map((c) => c.name)).toEqual(['Instant Messengers', 'Email']);
    expect(server.seen('/dpi/categories')[0]?.path).toBe('/proxy/network/integration/v1/dpi/categories');
  });
});

describe('site resolution', () => {
  it('resolves the site UUID by internalReference, following pages, and caches it', async () => {
    const fresh = createGateway({
      apiType: 'local',
      url: server.url,
      apiKey: 'k-int',
      deployment: 'unifi-os',
    });

    const first = await fresh.resolveSiteUuid('lab');
    const again = await fresh.resolveSiteUuid('default');
    const third = await fresh.resolveSiteUuid('lab');
    await fresh.close();

    expect(first).toBe(LAB_UUID);
    expect(again).toBe(DEFAULT_UUID);
    expect(third).toBe(LAB_UUID);
    expect(server.seen('/sites')).toHaveLength(2);
  });

  it('raises ResourceNotFoundError for an unknown site', async () => {
    const error = await gateway.resolveSiteUuid('nowhere').catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect(error).toMatchObject({ resource: 'site', id: 'nowhere' });
  });

  it('uses the resolved UUID in Integration writes, and returns undefined for an empty body', async () => {
    const created = await gateway.integrationWrite('default', 'POST', 'firewall/zones', {
      name: 'IoT',
      networkIds: [],
    });
    const deleted = await gateway.integrationWrite('default', 'DELETE', 'firewall/zones/zone-1');

    expect(created).toEqual({ id: 'zone-1', name: 'IoT', networkIds: [] });
    expect(deleted).toBeUndefined();
    const [post] = server.seen('/firewall/zones', 'POST');
    expect(post?.path).toBe(`/proxy/network/integration/v1/sites/${DEFAULT_UUID}/firewall/zones`);
    expect(post?.body).toEqual({ name: 'IoT', networkIds: [] });
  });

  it('parses a single object with integrationGet and maps a 404 to ResourceNotFoundError', async () => {
    const error = await gateway
      .integrationGet('default', 'devices/11111111-2222-3333-4444-555555555555', clientSchema)
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect(error).toMatchObject({ resource: 'device', id: '11111111-2222-3333-4444-555555555555' });
  });
});
