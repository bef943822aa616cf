import { beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { useSimulator } from '../helpers/shared-simulator.js';
import { api, classicData, classicError, field, I, request } from './support.js';

/** Logs in on UniFi OS and returns the cookie and CSRF token. */
async function osLogin(sim: Simulator): Promise<{ cookie: string; csrf: string }> {
  const response = await request('POST', `${sim.url}/api/auth/login`, {
    body: { username: sim.username, password: sim.password, rememberMe: true },
  });
  expect(response.status).toBe(200);
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  return { cookie, csrf: response.headers.get('x-csrf-token') ?? '' };
}

describe('UniFi OS session login', () => {
  const sim = useSimulator({ loginRateLimit: 50, firewall: 'legacy' });
  beforeEach(() => sim.reset());
  /** A read with the session cookie only, as a browser sends it (no key, no CSRF token). */
  const readWithCookie = (route: string, cookie: string) =>
    api(sim, 'GET', route, { key: false, headers: { Cookie: cookie } });

  it('answers GET / with 200', async () => {
    const response = await request('GET', `${sim.url}/`);

    expect(response.status).toBe(200);
  });

  it('returns a user object (no meta), a TOKEN cookie and an X-CSRF-Token header', async () => {
    const response = await request('POST', `${sim.url}/api/auth/login`, {
      body: { username: 'admin', password: 'simulator' },
    });

    expect(response.status).toBe(200);
    expect(field(response, 'username')).toBe('admin');
    expect(field(response, 'meta')).toBeUndefined();
    expect(response.headers.get('set-cookie')).toMatch(/^TOKEN=[\w-]+\.[\w-]+\.[\w-]+; Path=\/; HttpOnly/);
    expect(response.headers.get('x-csrf-token')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses bad credentials with 401 AUTHENTICATION_FAILED_INVALID_CREDENTIALS', async () => {
    const response = await request('POST', `${sim.url}/api/auth/login`, {
      body: { username: 'admin', password: 'x' },
    });

    expect(response.status).toBe(401);
    expect(field(response, 'code')).toBe('AUTHENTICATION_FAILED_INVALID_CREDENTIALS');
  });

  it('lets a cookie read classic and v2 routes without CSRF', async () => {
    const { cookie } = await osLogin(sim);

    const classic = await readWithCookie('/api/s/default/stat/sta', cookie);
    const v2 = await readWithCookie('/v2/api/site/default/trafficrules', cookie);

    expect(classicData(classic)).toHaveLength(41);
    expect(v2.status).toBe(200);
  });

  it('requires X-CSRF-Token on cookie writes, rotates it, and refuses the old one', async () => {
    const { cookie, csrf } = await osLogin(sim);
    const rule = { enabled: false };
    const path = '/api/s/default/rest/firewallrule/65b3c8e1f4a9d20c7e5a1101';

    const missing = await api(sim, 'PUT', path, { key: false, body: rule, headers: { Cookie: cookie } });
    const first = await api(sim, 'PUT', path, {
      key: false,
      body: rule,
      headers: { Cookie: cookie, 'X-CSRF-Token': csrf },
    });
    const rotated = first.headers.get('x-updated-csrf-token') ?? '';
    const stale = await api(sim, 'PUT', path, {
      key: false,
      body: rule,
      headers: { Cookie: cookie, 'X-CSRF-Token': csrf },
    });
    const fresh = await api(sim, 'PUT', path, {
      key: false,
      body: rule,
      headers: { Cookie: cookie, 'X-CSRF-Token': rotated },
    });

    expect(missing.status).toBe(403);
    expect(classicError(missing)).toBe('api.err.NoPermission');
    expect(first.status).toBe(200);
    expect(rotated).not.toBe('');
    expect(rotated).not.toBe(csrf);
    expect(stale.status).toBe(403);
    expect(fresh.status).toBe(200);
  });

  it('does not rotate the token after a refused write', async () => {
    const { cookie, csrf } = await osLogin(sim);

    const refused = await api(sim, 'POST', '/api/s/default/rest/networkconf', {
      key: false,
      body: { name: 'Bad', purpose: 'corporate', vlan_enabled: true, vlan: 1 },
      headers: { Cookie: cookie, 'X-CSRF-Token': csrf },
    });
    const retry = await api(sim, 'PUT', '/api/s/default/rest/firewallrule/65b3c8e1f4a9d20c7e5a1101', {
      key: false,
      body: { enabled: true },
      headers: { Cookie: cookie, 'X-CSRF-Token': csrf },
    });

    expect(refused.status).toBe(400);
    expect(refused.headers.get('x-updated-csrf-token')).toBeNull();
    expect(retry.status).toBe(200);
  });

  it('refuses Integration routes to a session cookie alone', async () => {
    const { cookie } = await osLogin(sim);

    const response = await readWithCookie('/integration/v1/sites', cookie);

    expect(response.status).toBe(401);
    expect(field(response, 'code')).toBe('api.authentication.missing-credentials');
    expect(field(response, 'requestPath')).toBe('/integration/v1/sites');
  });

  it('answers 401 LoginRequired to cookies after expireSessions()', async () => {
    const { cookie } = await osLogin(sim);

    sim.expireSessions();
    const classic = await readWithCookie('/api/s/default/stat/device', cookie);
    const v2 = await readWithCookie('/v2/api/site/default/trafficrules', cookie);

    expect(classic.status).toBe(401);
    expect(classicError(classic)).toBe('api.err.LoginRequired');
    expect(v2.status).toBe(401);
    expect(classicError(v2)).toBe('api.err.LoginRequired');
  });

  it('ends the session on logout', async () => {
    const { cookie, csrf } = await osLogin(sim);

    const logout = await request('POST', `${sim.url}/api/auth/logout`, {
      headers: { Cookie: cookie, 'X-CSRF-Token': csrf },
    });
    const after = await readWithCookie('/api/s/default/stat/sta', cookie);

    expect(logout.status).toBe(200);
    expect(after.status).toBe(401);
  });
});

describe('API key', () => {
  const sim = useSimulator({ apiKey: 'test-key-1' });

  it('authenticates classic, v2 and Integration routes, header name in any case', async () => {
    const headers = { 'x-api-key': 'test-key-1' };

    const classic = await api(sim, 'GET', '/api/self/sites', { key: false, headers });
    const v2 = await api(sim, 'GET', '/v2/api/site/default/trafficroutes', { key: false, headers });
    const integration = await api(sim, 'GET', `${I}/networks`, { key: false, headers });

    expect(classicData(classic)[0]).toMatchObject({ name: 'default', desc: 'Default' });
    expect(v2.status).toBe(200);
    expect(integration.status).toBe(200);
  });

  it('answers a missing key with the 401 body of each API family', async () => {
    const classic = await api(sim, 'GET', '/api/s/default/stat/device', { key: false });
    const integration = await api(sim, 'GET', '/integration/v1/info', { key: false });

    expect(classic.status).toBe(401);
    expect(classic.body).toEqual({ meta: { rc: 'error', msg: 'api.err.LoginRequired' }, data: [] });
    expect(integration.status).toBe(401);
    expect(integration.body).toMatchObject({
      statusCode: 401,
      statusName: 'UNAUTHORIZED',
      code: 'api.authentication.missing-credentials',
      requestPath: '/integration/v1/info',
    });
    expect(field(integration, 'requestId')).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isNaN(Date.parse(String(field(integration, 'timestamp'))))).toBe(false);
  });

  it('refuses a wrong key', async () => {
    const response = await api(sim, 'GET', '/integration/v1/info', {
      key: false,
      headers: { 'X-API-KEY': 'nope' },
    });

    expect(response.status).toBe(401);
  });
});

describe('login rate limit', () => {
  it('answers the sixth login within a minute with 429 and Retry-After', async () => {
    const sim = await startSimulator();
    try {
      const attempt = () =>
        request('POST', `${sim.url}/api/auth/login`, { body: { username: 'admin', password: 'bad' } });
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await attempt()).status);

      const limited = await attempt();

      expect(statuses).toEqual([401, 401, 401, 401, 401]);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.body).toEqual({
        message: "You've reached the login attempt limit",
        code: 'AUTHENTICATION_FAILED_LIMIT_REACHED',
      });
    } finally {
      await sim.close();
    }
  });
});

describe('self-hosted controller', () => {
  const sim = useSimulator({ flavor: 'self-hosted', firewall: 'legacy' });

  it('redirects / to /manage', async () => {
    const response = await request('GET', `${sim.url}/`);

    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/manage');
  });

  it('logs in at /api/login with a unifises cookie and needs no CSRF for writes', async () => {
    const login = await request('POST', `${sim.url}/api/login`, {
      body: { username: 'admin', password: 'simulator' },
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';

    const write = await request(
      'PUT',
      `${sim.url}/api/s/default/rest/firewallrule/65b3c8e1f4a9d20c7e5a1101`,
      { body: { enabled: true }, headers: { Cookie: cookie } },
    );

    expect(login.status).toBe(200);
    expect(login.body).toEqual({ meta: { rc: 'ok' }, data: [] });
    expect(cookie).toMatch(/^unifises=[0-9a-f]+$/);
    expect(write.status).toBe(200);
    expect(write.headers.get('x-updated-csrf-token')).toBeNull();
  });

  it('refuses bad credentials with 400 api.err.Invalid', async () => {
    const response = await request('POST', `${sim.url}/api/login`, {
      body: { username: 'admin', password: 'no' },
    });

    expect(response.status).toBe(400);
    expect(response.body).toEqual({ meta: { rc: 'error', msg: 'api.err.Invalid' }, data: [] });
  });

  it('serves the Network routes without the /proxy/network prefix', async () => {
    const unprefixed = await request('GET', `${sim.url}/integration/v1/info`, {}, sim);
    const prefixed = await request('GET', `${sim.url}/proxy/network/integration/v1/info`, {}, sim);

    expect(unprefixed.body).toEqual({ applicationVersion: '10.1.68' });
    expect(prefixed.status).toBe(404);
  });
});
