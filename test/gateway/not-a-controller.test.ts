import { describe, expect, it } from 'vitest';
import { GatewayUnavailableError, NoControllerError, ResourceNotFoundError } from '../../src/errors.js';
import { createGateway } from '../../src/gateway/gateway.js';
import type { Gateway } from '../../src/gateway/types.js';
import { silentLogger } from '../../src/log.js';
import { closedAfterEach, type FakeServer, networkSchema, sendJson, startFake } from './support.js';

const tracked = closedAfterEach();

const NGINX_WELCOME =
  '<!DOCTYPE html><html><head><title>Welcome to nginx!</title></head><body>…</body></html>';
const NGINX_404 = '<html><head><title>404 Not Found</title></head><body><center>nginx</center></body></html>';

/** A web server with a default site: its welcome page at `/`, an HTML 404 for every other path. */
async function nginxDefaultSite(): Promise<FakeServer> {
  const server = await startFake((req, res) => {
    const found = req.path === '/' && req.method === 'GET';
    res.writeHead(found ? 200 : 404, { 'content-type': 'text/html' });
    res.end(found ? NGINX_WELCOME : NGINX_404);
  });
  tracked.servers.push(server);
  return server;
}

function gatewayTo(url: string, auth: { apiKey: string } | { username: string; password: string }): Gateway {
  const gateway = createGateway({
    apiType: 'local',
    url,
    ...auth,
    logger: silentLogger(),
    cacheTtlSeconds: 0,
    retry: { attempts: 3, budgetMs: 2000, baseDelayMs: 10, maxDelayMs: 20 },
    timeoutMs: 2000,
  });
  tracked.gateways.push(gateway);
  return gateway;
}

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('a GATEWAY_URL that answers HTTP but is no UniFi controller', () => {
  it('says there is no controller, instead of "networkconf not found", and does not retry', async () => {
    const nginx = await nginxDefaultSite();
    const gateway = gatewayTo(nginx.url, { apiKey: 'k-1' });

    const error = await failure(() => gateway.classicRead('default', 'rest/networkconf', networkSchema));

    expect(error).toBeInstanceOf(NoControllerError);
    expect(error).toBeInstanceOf(GatewayUnavailableError);
    expect(error).not.toBeInstanceOf(ResourceNotFoundError);
    expect((error as Error).message).toBe(
      `no UniFi Network controller at ${nginx.url}: GET /proxy/network/api/s/default/rest/networkconf ` +
        'answered HTTP 404 with a web page; check GATEWAY_URL (a UniFi OS console: https://<console>; ' +
        'a self-hosted controller: https://<host>:8443)',
    );
    expect((error as NoControllerError).url).toBe(nginx.url);
    expect(nginx.seen('/rest/networkconf')).toHaveLength(1);
  });

  it('says so for the v2 and Integration APIs too, naming the API', async () => {
    const nginx = await nginxDefaultSite();
    const gateway = gatewayTo(nginx.url, { apiKey: 'k-1' });

    const v2 = await failure(() => gateway.v2Read('default', 'trafficroutes', networkSchema));
    const integration = await failure(() => gateway.integrationList('default', 'networks', networkSchema));

    expect(v2).toBeInstanceOf(NoControllerError);
    expect((v2 as Error).message).toMatch(
      new RegExp(
        `^no UniFi Network controller at ${nginx.url} for the v2 API: GET /proxy/network/v2/api/site/default/trafficroutes answered HTTP 404 with a web page`,
      ),
    );
    expect(integration).toBeInstanceOf(NoControllerError);
    expect((integration as Error).message).toContain(
      `no UniFi Network controller at ${nginx.url} for the Integration API: GET /proxy/network/integration/v1/sites answered HTTP 404`,
    );
  });

  it('says so at the session login, before any API call', async () => {
    const nginx = await nginxDefaultSite();
    const gateway = gatewayTo(nginx.url, { username: 'admin', password: 'pw-never-shown' });

    const error = await failure(() => gateway.classicRead('default', 'rest/networkconf', networkSchema));

    expect(error).toBeInstanceOf(NoControllerError);
    expect((error as Error).message).toContain(
      `no UniFi Network controller at ${nginx.url}: POST /api/auth/login answered HTTP 404 with a web page`,
    );
    expect((error as Error).message).not.toContain('pw-never-shown');
    expect(nginx.seen('/rest/networkconf')).toHaveLength(0);
  });

  it('says so for a JSON service whose 404 is no controller error, and for plain text', async () => {
    const api = await startFake((req, res) => {
      if (req.path.includes('/stat/')) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        return res.end('Not Found');
      }
      return sendJson(res, 404, { message: 'Not Found', path: req.path });
    });
    tracked.servers.push(api);
    const gateway = gatewayTo(api.url, { apiKey: 'k-1' });

    const json = await failure(() => gateway.classicRead('default', 'rest/networkconf', networkSchema));
    const text = await failure(() => gateway.classicRead('default', 'stat/sta', networkSchema));

    expect(json).toBeInstanceOf(NoControllerError);
    expect((json as Error).message).toContain('answered HTTP 404 with JSON of no controller shape');
    expect(text).toBeInstanceOf(NoControllerError);
    expect((text as Error).message).toContain('answered HTTP 404 with plain text');
  });

  it('says where API requests are redirected to', async () => {
    const redirecting = await startFake((req, res) => {
      res.writeHead(301, { location: `https://elsewhere.example${req.path}` });
      res.end();
    });
    tracked.servers.push(redirecting);
    const gateway = gatewayTo(redirecting.url, { apiKey: 'k-1' });

    const error = await failure(() => gateway.classicRead('default', 'rest/networkconf', networkSchema));

    expect(error).toBeInstanceOf(NoControllerError);
    expect((error as Error).message).toBe(
      `no UniFi Network controller at ${redirecting.url}: GET /api/s/default/rest/networkconf is redirected ` +
        'to https://elsewhere.example/api/s/default/rest/networkconf (HTTP 301); set GATEWAY_URL to the address the controller answers on',
    );
  });

  it('never names a user or password written into GATEWAY_URL', async () => {
    const nginx = await nginxDefaultSite();
    const withUser = nginx.url.replace('http://', 'http://admin:url-secret@');
    const gateway = gatewayTo(withUser, { apiKey: 'k-1' });

    const error = await failure(() => gateway.classicRead('default', 'rest/networkconf', networkSchema));

    expect(error).toBeInstanceOf(NoControllerError);
    expect((error as Error).message).toContain(`no UniFi Network controller at ${nginx.url}:`);
    expect((error as Error).message).not.toContain('url-secret');
  });

  it('still reads a real controller 404 (a JSON envelope) as a missing object', async () => {
    const controller = await startFake((req, res) => {
      if (req.path === '/') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html>UniFi OS</html>');
      }
      return sendJson(res, 404, { meta: { rc: 'error', msg: 'api.err.NotFound' }, data: [] });
    });
    tracked.servers.push(controller);
    const gateway = gatewayTo(controller.url, { apiKey: 'k-1' });

    const error = await failure(() => gateway.classicRead('default', 'stat/nothing', networkSchema));

    expect(error).toBeInstanceOf(ResourceNotFoundError);
  });
});
