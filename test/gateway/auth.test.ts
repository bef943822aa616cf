import { describe, expect, it } from 'vitest';
import { GatewayAuthError, NotSupportedError, RateLimitedError } from '../../src/errors.js';
import { createGateway } from '../../src/gateway/gateway.js';
import type { Gateway } from '../../src/gateway/types.js';
import {
  closedAfterEach,
  type FakeServer,
  fixture,
  type Handler,
  type MiniController,
  networkReadError,
  networkSchema,
  sendClassic,
  sendJson,
  startFake,
  startMiniController,
} from './support.js';

const PASSWORD = 'S3cret-pa55word!';
const API_KEY = 'key-7d1e0f3a9b2c4d5e';

const { servers, gateways } = closedAfterEach();

async function controller(flavor: 'unifi-os' | 'self-hosted', apiKey?: string): Promise<MiniController> {
  const server = await startMiniController({ flavor, username: 'admin', password: PASSWORD, apiKey });
  servers.push(server);
  return server;
}

function gatewayFor(
  url: string,
  credentials: { apiKey?: string; username?: string; password?: string },
): Gateway {
  const gateway = createGateway({
    apiType: 'local',
    url,
    timeoutMs: 2000,
    retry: { budgetMs: 3000 },
    ...credentials,
  });
  gateways.push(gateway);
  return gateway;
}

/** A purpose-built fake login flow, and a password gateway that reads networks from it. */
async function passwordReadFrom(handler: Handler): Promise<{ server: FakeServer; error: unknown }> {
  const server = await startFake(handler);
  servers.push(server);
  const gateway = gatewayFor(server.url, { username: 'admin', password: PASSWORD });
  return { server, error: await networkReadError(gateway) };
}

/** A gateway logged in with a password whose session the controller has since ended. */
async function expiredSession(
  flavor: 'unifi-os' | 'self-hosted',
): Promise<{ server: MiniController; gateway: Gateway }> {
  const server = await controller(flavor);
  const gateway = gatewayFor(server.url, { username: 'admin', password: PASSWORD });
  await gateway.classicRead('default', 'rest/networkconf', networkSchema);
  server.expireSessions();
  return { server, gateway };
}

describe('API key', () => {
  it('sends X-API-KEY and Accept: application/json, and no cookie, under the detected UniFi OS prefix', async () => {
    // Arrange
    const server = await controller('unifi-os', API_KEY);
    const gateway = gatewayFor(server.url, { apiKey: API_KEY });

    // Act
    const list = await gateway.classicRead('default', 'rest/networkconf', networkSchema);

    // Assert
    expect(list.items.map((n) => n.name)).toEqual(['Default']);
    const [read] = server.seen('/rest/networkconf', 'GET');
    expect(read?.path).toBe('/proxy/network/api/s/default/rest/networkconf');
    expect(read?.headers['x-api-key']).toBe(API_KEY);
    expect(read?.headers.accept).toBe('application/json');
    expect(read?.headers.cookie).toBeUndefined();
    expect(server.logins).toBe(0);
  });

  it('detects the deployment once, lazily, for all requests', async () => {
    const server = await controller('unifi-os', API_KEY);
    const gateway = gatewayFor(server.url, { apiKey: API_KEY });
    expect(server.requests).toHaveLength(0);

    await Promise.all([
      gateway.classicRead('default', 'rest/networkconf', networkSchema),
      gateway.classicRead('default', 'rest/networkconf', networkSchema, { fresh: true }),
      gateway.classicWrite('default', 'POST', 'rest/networkconf', { name: 'IoT' }),
    ]);

    expect(server.seen('/', 'GET').filter((r) => r.path === '/')).toHaveLength(1);
  });

  it('reports a refused key as GatewayAuthError naming GATEWAY_API_KEY but not the key', async () => {
    const server = await controller('unifi-os', API_KEY);
    const gateway = gatewayFor(server.url, { apiKey: 'wrong-key-123456' });

    const error = await networkReadError(gateway);

    expect(error).toBeInstanceOf(GatewayAuthError);
    expect((error as GatewayAuthError).message).toContain('GATEWAY_API_KEY');
    expect((error as GatewayAuthError).message).not.toContain('wrong-key-123456');
    expect(server.seen('/rest/networkconf')).toHaveLength(1);
  });

  it('refuses Integration routes without an API key, before any request', async () => {
    const server = await controller('unifi-os');
    const gateway = gatewayFor(server.url, { username: 'admin', password: PASSWORD });

    const error = await gateway
      .integrationList('default', 'acl-rules', networkSchema)
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(NotSupportedError);
    expect((error as Error).message).toMatch(/GATEWAY_API_KEY \(an Integration API key/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('UniFi OS session', () => {
  it('logs in once for concurrent first requests and sends TOKEN and X-CSRF-Token on writes', async () => {
    // Arrange
    const server = await controller('unifi-os');
    const gateway = gatewayFor(server.url, { username: 'admin', password: PASSWORD });

    // Act
    await Promise.all([
      gateway.classicRead('default', 'rest/networkconf', networkSchema),
      gateway.v2Read('default', 'lan/enriched-configuration', networkSchema).catch(() => undefined),
      gateway.classicRead('default', 'rest/networkconf?x=1', networkSchema),
    ]);
    const created = await gateway.classicWrite('default', 'POST', 'rest/networkconf', { name: 'IoT' });

    // Assert
    expect(server.logins).toBe(1);
    const login = server.seen('/api/auth/login', 'POST')[0];
    expect(login?.body).toEqual({ username: 'admin', password: PASSWORD, rememberMe: true });
    const [write] = server.seen('/rest/networkconf', 'POST');
    expect(write?.headers.cookie).toBe(`TOKEN=${server.sessionsIssued[0]}`);
    expect(write?.headers['x-csrf-token']).toBe(server.csrfIssued[0]);
    expect(created).toEqual([expect.objectContaining({ name: 'IoT' })]);
  });

  it('follows CSRF rotation: the second write sends the token the first one was given', async () => {
    const server = await controller('unifi-os');
    const gateway = gatewayFor(server.url, { username: 'admin', password: PASSWORD });

    await gateway.classicWrite('default', 'POST', 'rest/networkconf', { name: 'A' });
    await gateway.classicWrite('default', 'POST', 'rest/networkconf', { name: 'B' });

    const writes = server.seen('/rest/networkconf', 'POST');
    expect(server.csrfIssued).toHaveLength(3);
    expect(writes.map((w) => w.headers['x-csrf-token'])).toEqual([
      server.csrfIssued[0],
      server.csrfIssued[1],
    ]);
    expect(server.logins).toBe(1);
  });

  it('logs in again exactly once after the sessions expire, and the read succeeds', async () => {
    const { server, gateway } = await expiredSession('unifi-os');

    const [a, b] = await Promise.all([
      gateway.classicRead('default', 'rest/networkconf', networkSchema, { fresh: true }),
      gateway.classicRead('default', 'rest/networkconf?other=1', networkSchema),
    ]);

    expect(a.items).toHaveLength(1);
    expect(b.items).toHaveLength(1);
    expect(server.logins).toBe(2);
  });

  it('repeats a write once after a 401: the write never reached the controller logic', async () => {
    const { server, gateway } = await expiredSession('unifi-os');

    const created = await gateway.classicWrite('default', 'POST', 'rest/networkconf', { name: 'Cameras' });

    expect(created).toEqual([expect.objectContaining({ name: 'Cameras' })]);
    expect(server.logins).toBe(2);
    const writes = server.seen('/rest/networkconf', 'POST');
    expect(writes).toHaveLength(2);
    expect(writes[1]?.headers.cookie).toBe(`TOKEN=${server.sessionsIssued[1]}`);
  });

  it('fails a bad password with GatewayAuthError that names the variables, not the password', async () => {
    const server = await controller('unifi-os');
    const gateway = gatewayFor(server.url, { username: 'admin', password: 'not-the-password-xyz' });

    const error = await networkReadError(gateway);

    expect(error).toBeInstanceOf(GatewayAuthError);
    const message = (error as Error).message;
    expect(message).toContain('GATEWAY_PASSWORD');
    expect(message).not.toContain('not-the-password-xyz');
    expect(server.logins).toBe(1);
    expect(server.seen('/rest/networkconf')).toHaveLength(0);
  });

  it('turns the UniFi OS login limit (429) into RateLimitedError without retrying the login', async () => {
    const { server, error } = await passwordReadFrom((req, res) => {
      if (req.path === '/') return sendJson(res, 200, {});
      sendJson(res, 429, fixture('errors/unifios-login-429.json'), { 'retry-after': '60' });
    });

    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterSeconds).toBe(60);
    expect(server.seen('/api/auth/login')).toHaveLength(1);
  });
});

describe('self-hosted session', () => {
  it('detects the 302, logs in at /api/login with the unifises cookie, and uses no prefix', async () => {
    const server = await controller('self-hosted');
    const gateway = gatewayFor(server.url, { username: 'admin', password: PASSWORD });

    const list = await gateway.classicRead('default', 'rest/networkconf', networkSchema);

    expect(list.items).toHaveLength(1);
    expect(server.seen('/api/login', 'POST')).toHaveLength(1);
    expect(server.seen('/api/auth/login')).toHaveLength(0);
    const [read] = server.seen('/rest/networkconf', 'GET');
    expect(read?.path).toBe('/api/s/default/rest/networkconf');
    expect(read?.headers.cookie).toBe(`unifises=${server.sessionsIssued[0]}`);
  });

  it('logs in again once when the session ends with api.err.LoginRequired', async () => {
    const { server, gateway } = await expiredSession('self-hosted');

    const list = await gateway.classicRead('default', 'rest/networkconf', networkSchema, { fresh: true });

    expect(list.items).toHaveLength(1);
    expect(server.logins).toBe(2);
  });

  it('reports api.err.Invalid at login as GatewayAuthError', async () => {
    const server = await controller('self-hosted');
    const gateway = gatewayFor(server.url, { username: 'admin', password: 'nope-nope' });

    await expect(gateway.classicRead('default', 'rest/networkconf', networkSchema)).rejects.toThrow(
      GatewayAuthError,
    );
  });
});

describe('a session that a fresh login does not fix', () => {
  it('gives up after one re-login with GatewayAuthError, even with an HTML 401 body', async () => {
    const { server, error } = await passwordReadFrom((req, res) => {
      if (req.path === '/') return sendJson(res, 200, {});
      if (req.path === '/api/auth/login') {
        return sendJson(res, 200, {}, { 'set-cookie': ['TOKEN=abc; Path=/'], 'x-csrf-token': 'c1' });
      }
      if (req.path.endsWith('/stat/health')) return sendClassic(res, []);
      res.writeHead(401, { 'content-type': 'text/html' });
      res.end('<html>Unauthorized</html>');
    });

    expect(error).toBeInstanceOf(GatewayAuthError);
    expect((error as GatewayAuthError).status).toBe(401);
    expect(server.seen('/api/auth/login')).toHaveLength(2);
    expect(server.seen('/rest/networkconf')).toHaveLength(2);
  });
});
