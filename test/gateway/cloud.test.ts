import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GatewayAuthError, NotSupportedError, ResourceNotFoundError } from '../../src/errors.js';
import { createGateway } from '../../src/gateway/gateway.js';
import type { Gateway } from '../../src/gateway/types.js';
import {
  closedAfterEach,
  type FakeServer,
  fixture,
  networkReadError,
  networkSchema,
  sendClassic,
  sendJson,
  startFake,
} from './support.js';

const HOSTS = fixture('site-manager/hosts.json') as { data: { id: string }[] };
const CONSOLE = HOSTS.data[0]?.id ?? '';
const KEY = 'cloud-key-5f4e3d2c1b';

const { servers, gateways } = closedAfterEach();

async function siteManager(hosts: unknown = HOSTS): Promise<FakeServer> {
  const server = await startFake((req, res) => {
    if (req.headers['x-api-key'] !== KEY) {
      return sendJson(res, 401, fixture('errors/site-manager-401.json'));
    }
    if (req.path === '/v1/hosts') return sendJson(res, 200, hosts);
    const prefix = `/v1/connector/consoles/${CONSOLE}/proxy/network`;
    if (!req.path.startsWith(prefix)) {
      return sendJson(res, 404, {
        code: 'NOT_FOUND',
        httpStatusCode: 404,
        message: `thing not found: ${decodeURIComponent(req.path.split('/')[4] ?? '')}`,
        traceId: 't-1',
      });
    }
    const route = req.path.slice(prefix.length);
    if (route.startsWith('/v2/')) {
      return sendJson(res, 403, {
        code: 'FORBIDDEN',
        httpStatusCode: 403,
        message: 'route not allowed through the connector',
        traceId: 't-2',
      });
    }
    if (route === '/api/s/default/rest/networkconf') return sendClassic(res, [{ _id: 'a', name: 'LAN' }]);
    if (route === '/integration/v1/sites') return sendJson(res, 200, fixture('integration/sites.json'));
    sendJson(res, 404, { statusCode: 404, statusName: 'NOT_FOUND', code: 'api.resource-not-found' });
  });
  servers.push(server);
  return server;
}

function cloud(url: string, extra: { consoleId?: string; apiKey?: string } = {}): Gateway {
  const gateway = createGateway({
    apiType: 'cloud',
    url,
    apiKey: KEY,
    timeoutMs: 1000,
    retry: { budgetMs: 1000, baseDelayMs: 10 },
    ...extra,
  });
  gateways.push(gateway);
  return gateway;
}

describe('cloud connector', () => {
  it('reaches the classic API through the connector path with the given console id and the API key', async () => {
    // Arrange
    const server = await siteManager();
    const gateway = cloud(server.url, { consoleId: CONSOLE });

    // Act
    const list = await gateway.classicRead('default', 'rest/networkconf', networkSchema);

    // Assert
    expect(gateway.apiType).toBe('cloud');
    expect(list.items).toEqual([{ _id: 'a', name: 'LAN' }]);
    expect(server.requests.map((r) => r.path)).toEqual([
      `/v1/connector/consoles/${CONSOLE}/proxy/network/api/s/default/rest/networkconf`,
    ]);
    expect(server.requests[0]?.headers['x-api-key']).toBe(KEY);
  });

  it('discovers the console from /v1/hosts when there is exactly one, once', async () => {
    const server = await siteManager();
    const gateway = cloud(server.url);

    await gateway.classicRead('default', 'rest/networkconf', networkSchema);
    const uuid = await gateway.resolveSiteUuid('default');

    expect(uuid).toBe('88f7af54-98f8-306a-a1c7-c9349722b1f6');
    expect(server.seen('/v1/hosts')).toHaveLength(1);
    expect(server.seen('/integration/v1/sites')[0]?.path).toBe(
      `/v1/connector/consoles/${CONSOLE}/proxy/network/integration/v1/sites`,
    );
  });

  it('lists the hosts and names GATEWAY_CONSOLE_ID when the key sees several consoles', async () => {
    const server = await siteManager({
      data: [{ id: 'AAA:1' }, { id: 'BBB:2', reportedState: { hostname: 'branch' } }],
      httpStatusCode: 200,
      traceId: 't',
    });
    const gateway = cloud(server.url);

    const error = await networkReadError(gateway);

    expect(error).toBeInstanceOf(NotSupportedError);
    expect((error as Error).message).toContain('GATEWAY_CONSOLE_ID');
    expect((error as Error).message).toContain('AAA:1, BBB:2 (branch)');
  });

  it('turns the connector refusing a v2 route into NotSupportedError naming the local API', async () => {
    const server = await siteManager();
    const gateway = cloud(server.url, { consoleId: CONSOLE });

    const error = await gateway.v2Read('default', 'trafficrules', z.unknown()).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(NotSupportedError);
    expect((error as Error).message).toContain(
      'needs the local API: set GATEWAY_API_TYPE=local and GATEWAY_URL',
    );
    expect(server.seen('/trafficrules')).toHaveLength(1);
  });

  // Deliberately alike: each connector refusal is read the same way; the error class and what it names differ.
  it('says which console id is unknown to the connector', async () => {
    const server = await siteManager();
    const gateway = cloud(server.url, { consoleId: 'NOPE:42' });

    const error = await networkReadError(gateway);

    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect((error as Error).message).toContain('GATEWAY_CONSOLE_ID');
    expect(server.requests[0]?.path).toContain('/consoles/NOPE:42/');
  });

  it('reports a refused cloud key (lower-case Site Manager code) as GatewayAuthError without the key', async () => {
    const server = await siteManager();
    const gateway = cloud(server.url, { apiKey: 'bad-cloud-key-000' });

    const error = await networkReadError(gateway);

    expect(error).toBeInstanceOf(GatewayAuthError);
    expect((error as Error).message).toContain('GATEWAY_API_KEY');
    expect((error as Error).message).not.toContain('bad-cloud-key-000');
  });
});
