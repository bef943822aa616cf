import { beforeEach, describe, expect, it } from 'vitest';
import { DEMO_NETWORKS, startSimulator } from '../../src/simulator/index.js';
import { useSimulator } from '../helpers/shared-simulator.js';
import { api, classicData, field, request } from './support.js';

const sim = useSimulator();
beforeEach(() => {
  sim.clearFaults();
  sim.clearRequests();
  sim.reset();
});

const DEVICES = '/api/s/default/stat/device';

describe('fault injection', () => {
  it('delays the answer on a latency fault, then answers normally', async () => {
    sim.injectFault({ kind: 'latency', ms: 150, route: 'stat/device' });

    let answered = false;
    const response = api(sim, 'GET', DEVICES).then((r) => {
      answered = true;
      return r;
    });
    // Set before the request reaches the simulator, so it fires before a 150 ms delay can end.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const answeredWithinTheDelay = answered;

    expect(answeredWithinTheDelay).toBe(false);
    expect(classicData(await response)).toHaveLength(7);
  });

  it('answers a 503 with an HTML page like UniFi OS, and another status with a classic error', async () => {
    sim.injectFault({ kind: 'status', status: 503 });
    sim.injectFault({ kind: 'status', status: 500 });

    const unavailable = await api(sim, 'GET', DEVICES);
    const failed = await api(sim, 'GET', DEVICES);
    const recovered = await api(sim, 'GET', DEVICES);

    expect(unavailable.status).toBe(503);
    expect(unavailable.headers.get('content-type')).toContain('text/html');
    expect(failed.status).toBe(500);
    expect(failed.body).toMatchObject({ meta: { rc: 'error' }, data: [] });
    expect(recovered.status).toBe(200);
  });

  it('can carry a custom body, including a classic error with HTTP 200', async () => {
    sim.injectFault({
      kind: 'status',
      status: 200,
      body: { meta: { rc: 'error', msg: 'api.err.Invalid' }, data: [] },
    });

    const response = await api(sim, 'GET', DEVICES);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ meta: { rc: 'error', msg: 'api.err.Invalid' }, data: [] });
  });

  it('answers 429 with Retry-After on a rate-limit fault, in the route family shape', async () => {
    sim.injectFault({ kind: 'rate-limit', retryAfterSeconds: 7, route: /integration/ });

    const limited = await api(sim, 'GET', '/integration/v1/info');
    const unaffected = await api(sim, 'GET', DEVICES);

    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(field(limited, 'code')).toBe('api.rate-limit.exceeded');
    expect(unaffected.status).toBe(200);
  });

  it('destroys the socket on a drop fault, so fetch rejects', async () => {
    sim.injectFault({ kind: 'drop', method: 'GET' });

    await expect(api(sim, 'GET', DEVICES)).rejects.toThrow();
    expect((await api(sim, 'GET', DEVICES)).status).toBe(200);
  });

  it('honours times (Infinity until cleared) and matches by method', async () => {
    sim.injectFault({ kind: 'status', status: 502, method: 'POST', times: Number.POSITIVE_INFINITY });

    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await api(sim, 'POST', DEVICES, { body: {} })).status);
    const get = await api(sim, 'GET', DEVICES);
    sim.clearFaults();
    const after = await api(sim, 'POST', DEVICES, { body: {} });

    expect(statuses).toEqual([502, 502, 502]);
    expect(get.status).toBe(200);
    expect(after.status).toBe(200);
  });

  it('records every request, faulted ones included, with the prefix stripped', async () => {
    sim.injectFault({ kind: 'status', status: 503 });

    await api(sim, 'GET', `${DEVICES}?x=1`);
    await api(sim, 'POST', '/api/s/default/stat/sitedpi', { body: { type: 'by_app' } });

    expect(sim.requests.map((r) => [r.method, r.path, r.route])).toEqual([
      ['GET', '/proxy/network/api/s/default/stat/device', DEVICES],
      ['POST', '/proxy/network/api/s/default/stat/sitedpi', '/api/s/default/stat/sitedpi'],
    ]);
    expect(sim.requests[0]?.query).toEqual({ x: '1' });
    expect(sim.requests[1]?.body).toEqual({ type: 'by_app' });
    expect(sim.requests[0]?.headers['x-api-key']).toBe(sim.apiKey);
  });
});

describe('cloud connector', () => {
  const connector = (consoleId: string, rest: string) =>
    `${sim.url}/v1/connector/consoles/${encodeURIComponent(consoleId)}/proxy/network${rest}`;
  /** A keyed GET through the connector to this simulator's own console. */
  const viaConnector = (rest: string) => request('GET', connector(sim.consoleId, rest), {}, sim);

  it('lists the console in /v1/hosts with the Site Manager envelope', async () => {
    const response = await request('GET', `${sim.url}/v1/hosts`, {}, sim);

    expect(response.body).toMatchObject({
      httpStatusCode: 200,
      data: [{ id: sim.consoleId, type: 'console' }],
    });
    expect(field(response, 'traceId')).toMatch(/^[0-9a-f]{32}$/);
  });

  it('forwards Integration and classic routes to the same handlers', async () => {
    const integration = await viaConnector('/integration/v1/sites');
    const classic = await viaConnector('/api/s/default/stat/sta');

    expect(field(integration, 'totalCount')).toBe(1);
    expect(classicData(classic)).toHaveLength(41);
    expect(sim.requests.at(-1)?.route).toBe('/api/s/default/stat/sta');
  });

  it('passes upstream errors through unchanged', async () => {
    const response = await viaConnector('/integration/v1/sites/nope/networks');

    expect(response.status).toBe(404);
    expect(field(response, 'code')).toBe('api.resource-not-found');
  });

  it('refuses v2 routes with 403 FORBIDDEN', async () => {
    const response = await viaConnector('/v2/api/site/default/trafficrules');

    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({
      code: 'FORBIDDEN',
      httpStatusCode: 403,
      traceId: expect.any(String),
    });
  });

  it('answers an unknown console with 404 and a missing key with 401, Site Manager shape', async () => {
    const unknown = await request('GET', connector('ABC:1', '/integration/v1/info'), {}, sim);
    const noKey = await request('GET', connector(sim.consoleId, '/integration/v1/info'), { key: false }, sim);

    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'NOT_FOUND', httpStatusCode: 404 });
    expect(noKey.status).toBe(401);
    expect(noKey.body).toMatchObject({ httpStatusCode: 401, code: 'UNAUTHORIZED' });
  });
});

describe('lifecycle', () => {
  it('reset() restores the seeded site after API and direct changes', async () => {
    await api(sim, 'DELETE', `/api/s/default/rest/networkconf/${DEMO_NETWORKS.servers.id}`);
    const before = JSON.stringify(sim.state);
    sim.state.site('default')?.clients.splice(0, 10);

    sim.reset();

    expect(sim.state.site('default')?.networks).toHaveLength(7);
    expect(sim.state.site('default')?.clients).toHaveLength(41);
    expect(JSON.stringify(sim.state)).not.toBe(before);
  });

  it('close() stops the server promptly even with a request waiting on latency', async () => {
    const other = await startSimulator();
    // Far longer than the test may take: close() must cut the waiting request, not wait it out.
    other.injectFault({ kind: 'latency', ms: 600_000 });
    const pending = api(other, 'GET', DEVICES).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));

    await other.close();

    expect(await pending).toBeInstanceOf(Error);
    await expect(fetch(`${other.url}/`)).rejects.toThrow();
  });
});
