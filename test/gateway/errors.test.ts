import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  GatewayAuthError,
  GatewayRejectedError,
  GatewayUnavailableError,
  NoControllerError,
  ResourceNotFoundError,
} from '../../src/errors.js';
import { createGateway } from '../../src/gateway/gateway.js';
import type { Gateway } from '../../src/gateway/types.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { type FakeServer, fixture, networkSchema, sendClassic, sendJson, startFake } from './support.js';

const SITE_UUID = '88f7af54-98f8-306a-a1c7-c9349722b1f6';
const MISSING_ID = '64ab0c9e8f1a2b3c4d5e0000';

let server: FakeServer;
let gateway: Gateway;
const logs = captureLogger();

beforeAll(async () => {
  server = await startFake((req, res) => {
    const route = req.path.replace(/^\/proxy\/network/, '');
    if (req.path === '/') return sendJson(res, 200, {});
    if (route === '/integration/v1/sites') return sendJson(res, 200, fixture('integration/sites.json'));
    switch (route) {
      case '/api/s/default/stat/no-permission':
        return sendJson(res, 200, fixture('errors/classic-no-permission.json'));
      case `/api/s/default/rest/networkconf/${MISSING_ID}`:
        return sendJson(res, 400, { meta: { rc: 'error', msg: 'api.err.IdInvalid' }, data: [] });
      case '/api/s/default/rest/networkconf':
        if (req.method === 'POST')
          return sendJson(res, 400, { meta: { rc: 'error', msg: 'api.err.VlanUsed' }, data: [] });
        return sendClassic(res, [
          { _id: 'a', name: 'LAN' },
          { _id: 'b', name: 42, x_passphrase: 'wifi-secret-never-logged' },
          { _id: 'c', name: 'IoT' },
        ]);
      case '/api/s/nowhere/rest/networkconf':
        return sendJson(res, 200, { meta: { rc: 'error', msg: 'api.err.NoSiteContext' }, data: [] });
      case '/api/s/default/stat/nothing':
        return sendJson(res, 404, { meta: { rc: 'error', msg: 'api.err.NotFound' }, data: [] });
      case '/api/s/default/stat/html':
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html>login</html>');
      case '/api/s/default/stat/not-envelope':
        return sendJson(res, 200, { hello: 'world' });
      case '/api/s/default/stat/forbidden':
        return sendJson(res, 403, { meta: { rc: 'error', msg: 'api.err.NoPermission' }, data: [] });
      case '/api/s/default/stat/bad-gateway':
        res.writeHead(502, { 'content-type': 'text/html' });
        return res.end('<html>502 Bad Gateway</html>');
      case '/api/s/default/stat/crash':
        res.writeHead(500, { 'content-type': 'text/html' });
        return res.end('<html>500</html>');
      case '/v2/api/site/default/ports':
        return sendJson(res, 400, fixture('errors/v2-error-400.json'));
      case '/v2/api/site/default/firewall/zone/64ab0c9e8f1a2b3c4d5e9999':
        return sendJson(res, 404, { code: 'api.err.ObjectNotFound', message: 'not found', errorCode: 404 });
      case '/v2/api/site/default/trafficrules':
        return sendJson(res, 200, { _id: 'one', name: 'single' });
      case `/integration/v1/sites/${SITE_UUID}/acl-rules/11111111-2222-3333-4444-555555555555`:
        return sendJson(res, 404, {
          statusCode: 404,
          statusName: 'NOT_FOUND',
          code: 'api.resource-not-found',
          message: 'ACL rule not found',
        });
      case `/integration/v1/sites/${SITE_UUID}/firewall/zones`:
        return sendJson(res, 400, {
          statusCode: 400,
          statusName: 'BAD_REQUEST',
          code: 'api.request.invalid',
          message: 'name must not be blank',
        });
      default:
        return sendJson(res, 400, { meta: { rc: 'error', msg: 'api.err.InvalidObject' }, data: [] });
    }
  });
  gateway = createGateway({
    apiType: 'local',
    url: server.url,
    apiKey: 'k-123',
    timeoutMs: 1000,
    retry: { attempts: 2, budgetMs: 1000, baseDelayMs: 10 },
    logger: logs.logger,
  });
});

afterAll(async () => {
  await gateway.close();
  await server.close();
});

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  return run().then(
    () => new Error('expected a failure'),
    (error: unknown) => error,
  );
}

// Deliberately alike: one describe per envelope kind, each mapping the controller's error to a BotError the same way.
describe('classic envelope errors', () => {
  it('turns a classic error envelope on HTTP 200 into GatewayRejectedError', async () => {
    const error = await failure(() => gateway.classicRead('default', 'stat/no-permission', networkSchema));

    expect(error).toBeInstanceOf(GatewayRejectedError);
    expect(error).toMatchObject({ controllerCode: 'api.err.NoPermission', status: 200 });
    expect((error as Error).message).toContain('lacks permission');
  });

  it('maps api.err.IdInvalid to ResourceNotFoundError with the resource and id from the path', async () => {
    const error = await failure(() =>
      gateway.classicRead('default', `rest/networkconf/${MISSING_ID}`, networkSchema),
    );

    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect(error).toMatchObject({ resource: 'networkconf', id: MISSING_ID });
  });

  it('maps api.err.VlanUsed on a write to GatewayRejectedError with code, sentence and status', async () => {
    const error = await failure(() =>
      gateway.classicWrite('default', 'POST', 'rest/networkconf', {
        name: 'IoT',
        vlan: 30,
        vlan_enabled: true,
      }),
    );

    expect(error).toBeInstanceOf(GatewayRejectedError);
    expect(error).toMatchObject({ controllerCode: 'api.err.VlanUsed', status: 400 });
    expect((error as Error).message).toBe(
      'VLAN 30 is already used by another network on site default; pick a free VLAN',
    );
  });

  it('maps api.err.NotFound to ResourceNotFoundError', async () => {
    const error = await failure(() => gateway.classicRead('default', 'stat/nothing', networkSchema));

    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect(error).toMatchObject({ resource: 'nothing', id: '' });
  });

  it('names the unknown site for api.err.NoSiteContext', async () => {
    const error = await failure(() => gateway.classicRead('nowhere', 'rest/networkconf', networkSchema));

    expect(error).toBeInstanceOf(GatewayRejectedError);
    expect((error as Error).message).toContain('unknown site "nowhere"');
  });

  it('takes an HTML page where an envelope belongs for no controller, and a foreign JSON body as InvalidResponse', async () => {
    const html = await failure(() => gateway.classicRead('default', 'stat/html', networkSchema));
    const foreign = await failure(() => gateway.classicRead('default', 'stat/not-envelope', networkSchema));

    expect(html).toBeInstanceOf(NoControllerError);
    expect((html as Error).message).toBe(
      `no UniFi Network controller at ${server.url}: GET /proxy/network/api/s/default/stat/html answered ` +
        'HTTP 200 with a web page; check GATEWAY_URL (a UniFi OS console: https://<console>; a self-hosted controller: https://<host>:8443)',
    );
    expect(foreign).toMatchObject({ controllerCode: 'InvalidResponse' });
  });

  it('maps 403 to GatewayAuthError, and 502 and 500 HTML pages to GatewayUnavailableError', async () => {
    const forbidden = await failure(() => gateway.classicRead('default', 'stat/forbidden', networkSchema));
    const badGateway = await failure(() => gateway.classicRead('default', 'stat/bad-gateway', networkSchema));
    const crash = await failure(() => gateway.classicRead('default', 'stat/crash', networkSchema));

    expect(forbidden).toBeInstanceOf(GatewayAuthError);
    expect(badGateway).toBeInstanceOf(GatewayUnavailableError);
    expect((badGateway as Error).message).toContain(new URL(server.url).host);
    expect(crash).toBeInstanceOf(GatewayUnavailableError);
    expect(crash).toMatchObject({ status: 500 });
    // 502 is transient (retried once with attempts: 2); 500 is not.
    expect(server.seen('/stat/bad-gateway')).toHaveLength(2);
    expect(server.seen('/stat/crash')).toHaveLength(1);
  });
});

describe('lenient records', () => {
  it('skips and counts a record that fails its schema, logging the path but never the record', async () => {
    const list = await gateway.classicRead('default', 'rest/networkconf', networkSchema, { fresh: true });

    expect(list.items.map((n) => n.name)).toEqual(['LAN', 'IoT']);
    expect(list.skipped).toBe(1);
    const skippedLine = JSON.stringify(logs.lines().find((l) => l.msg.includes('skipped a record')));
    expect(skippedLine).toContain('/api/s/default/rest/networkconf');
    expect(skippedLine).toContain('name');
    expect(logs.text()).not.toContain('wifi-secret-never-logged');
  });
});

describe('v2 and Integration errors', () => {
  it('maps a v2 {code,message,errorCode} 400 to GatewayRejectedError', async () => {
    const error = await failure(() => gateway.v2Read('default', 'ports', networkSchema));

    expect(error).toBeInstanceOf(GatewayRejectedError);
    expect(error).toMatchObject({ controllerCode: 'api.err.PurePoeRequiresUplinkException', status: 400 });
    expect((error as Error).message).toContain('PORT_NOT_POE_CAPABLE');
  });

  it('maps a v2 404 to ResourceNotFoundError', async () => {
    const error = await failure(() =>
      gateway.v2Write('default', 'DELETE', 'firewall/zone/64ab0c9e8f1a2b3c4d5e9999'),
    );

    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect(error).toMatchObject({ resource: 'zone', id: '64ab0c9e8f1a2b3c4d5e9999' });
  });

  it('returns a bare v2 object as a one-item list', async () => {
    const list = await gateway.v2Read('default', 'trafficrules', z.looseObject({ name: z.string() }));

    expect(list).toEqual({ items: [{ _id: 'one', name: 'single' }], skipped: 0 });
  });

  it('maps an Integration 404 to ResourceNotFoundError and an Integration 400 body to GatewayRejectedError', async () => {
    const missing = await failure(() =>
      gateway.integrationGet('default', 'acl-rules/11111111-2222-3333-4444-555555555555', z.unknown()),
    );
    const refused = await failure(() =>
      gateway.integrationWrite('default', 'POST', 'firewall/zones', { name: '', networkIds: [] }),
    );

    expect(missing).toBeInstanceOf(ResourceNotFoundError);
    expect(missing).toMatchObject({ resource: 'acl-rule', id: '11111111-2222-3333-4444-555555555555' });
    expect(refused).toBeInstanceOf(GatewayRejectedError);
    expect(refused).toMatchObject({ controllerCode: 'api.request.invalid', status: 400 });
    expect((refused as Error).message).toContain('name must not be blank');
  });
});
