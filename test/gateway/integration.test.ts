import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GatewayRejectedError, ResourceNotFoundError } from '../../src/errors.js';
import { createGateway } from '../../src/gateway/gateway.js';
import type { Gateway } from '../../src/gateway/types.js';
import { type FakeServer, fixture, sendJson, startFake } from './support.js';

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
      return sendJson(res, 200, { offset: 0, limit: 200, count: 0, totalCount: 0, data: [] });
    }
    if (route === `/sites/${DEFAULT_UUID}/endless`) {
      return sendJson(res, 200, {
        offset: 0,
        limit: 200,
        count: 1,
        totalCount: 1_000_000,
        data: [{ id: 'x', name: 'x' }],
      });
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

  it('gives up on a server whose pages never end', async () => {
    const error = await gateway.integrationList('default', 'endless', clientSchema).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(GatewayRejectedError);
    expect(error).toMatchObject({ controllerCode: 'InvalidResponse' });
    expect(server.seen('/endless')).toHaveLength(20);
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
