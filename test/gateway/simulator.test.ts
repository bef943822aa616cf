import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  GatewayAuthError,
  GatewayRejectedError,
  GatewayUnavailableError,
  NotSupportedError,
  ResourceNotFoundError,
} from '../../src/errors.js';
import { createGateway } from '../../src/gateway/gateway.js';
import type { GatewayOptions } from '../../src/gateway/options.js';
import type { Gateway } from '../../src/gateway/types.js';
import { DEMO_SITE, type Simulator, startSimulator } from '../../src/simulator/index.js';
import type { RecordedRequest } from '../../src/simulator/types.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { useSimulator } from '../helpers/shared-simulator.js';
import { networkReadError, networkSchema, timed } from './support.js';

const NETWORKS_ROUTE = '/api/s/default/rest/networkconf';
// Room for a loaded 2-core CI machine: three 300 ms attempts and their pauses fit well inside the budget.
const BUDGET_MS = 2500;
// Per attempt, where the simulator is made to hang. Where it answers (data, a 503, a 429, a
// dropped connection) an attempt may take the whole budget: a slow machine must not turn an
// answer into a timeout and change which error a test sees.
const TIMEOUT_MS = 300;

/** A tag-only network: the simulator validates it like the controller, without subnet rules. */
const vlanOnly = (vlan: number) => ({
  name: `Segment ${vlan}`,
  purpose: 'vlan-only',
  vlan_enabled: true,
  vlan,
  networkgroup: 'LAN',
});

function header(request: RecordedRequest | undefined, name: string): string | undefined {
  const value = request?.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function onRoute(sim: Simulator, route: string, method?: string): RecordedRequest[] {
  return sim.requests.filter((r) => r.route === route && (method === undefined || r.method === method));
}

const logins = (sim: Simulator) =>
  sim.requests.filter((r) => r.route === '/api/auth/login' || r.route === '/api/login').length;

function gatewayFor(sim: Simulator, options: Partial<GatewayOptions>): Gateway {
  return createGateway({
    apiType: 'local',
    url: sim.url,
    timeoutMs: BUDGET_MS,
    retry: { attempts: 3, budgetMs: BUDGET_MS, baseDelayMs: 20, maxDelayMs: 100 },
    ...options,
  });
}

describe('simulator: UniFi OS console', () => {
  let sim: Simulator;
  let gateway: Gateway;

  beforeAll(async () => {
    sim = await startSimulator({ loginRateLimit: 100 });
  });

  afterEach(async () => {
    await gateway.close();
    sim.clearFaults();
    sim.clearRequests();
    sim.reset();
  });

  afterAll(async () => {
    await sim.close();
  });

  describe('with an API key', () => {
    beforeEach(() => {
      gateway = gatewayFor(sim, { apiKey: sim.apiKey });
    });

    it('sends X-API-KEY and Accept: application/json, no cookie, under /proxy/network', async () => {
      // Act
      const list = await gateway.classicRead('default', 'rest/networkconf', networkSchema);

      // Assert
      expect(list.items.map((n) => n.name)).toContain('IoT');
      const [read] = onRoute(sim, NETWORKS_ROUTE, 'GET');
      expect(read?.path).toBe(`/proxy/network${NETWORKS_ROUTE}`);
      expect(header(read, 'x-api-key')).toBe(sim.apiKey);
      expect(header(read, 'accept')).toBe('application/json');
      expect(read?.headers.cookie).toBeUndefined();
      expect(logins(sim)).toBe(0);
    });

    it('turns a classic error envelope on HTTP 200 into GatewayRejectedError', async () => {
      sim.injectFault({
        kind: 'status',
        status: 200,
        route: NETWORKS_ROUTE,
        body: { meta: { rc: 'error', msg: 'api.err.NoPermission' }, data: [] },
      });

      const error = await networkReadError(gateway);

      expect(error).toBeInstanceOf(GatewayRejectedError);
      expect(error).toMatchObject({ controllerCode: 'api.err.NoPermission', status: 200 });
    });

    it('maps api.err.IdInvalid to ResourceNotFoundError', async () => {
      const id = '0000000000000000000000ff';

      const error = await gateway
        .classicRead('default', `rest/networkconf/${id}`, networkSchema)
        .catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ResourceNotFoundError);
      expect(error).toMatchObject({ resource: 'networkconf', id });
    });

    it('maps api.err.VlanUsed to GatewayRejectedError with the code and a sentence', async () => {
      const error = await gateway
        .classicWrite('default', 'POST', 'rest/networkconf', vlanOnly(20))
        .catch((e: unknown) => e);

      expect(error).toBeInstanceOf(GatewayRejectedError);
      expect(error).toMatchObject({ controllerCode: 'api.err.VlanUsed', status: 400 });
      expect((error as Error).message).toBe(
        'VLAN 20 is already used by another network on site default; pick a free VLAN',
      );
    });

    it('follows Integration pages (2279 DPI applications at 200 per page)', async () => {
      const list = await gateway.integrationGlobalList(
        'dpi/applications',
        z.object({ id: z.number(), name: z.string() }),
      );

      expect(list.items.length).toBe(2279);
      expect(new Set(list.items.map((a) => a.id)).size).toBe(2279);
      const pages = onRoute(sim, '/integration/v1/dpi/applications');
      expect(pages).toHaveLength(12);
      expect(pages.map((p) => p.query.offset)).toEqual([
        '0',
        '200',
        '400',
        '600',
        '800',
        '1000',
        '1200',
        '1400',
        '1600',
        '1800',
        '2000',
        '2200',
      ]);
      expect(pages.every((p) => p.query.limit === '200')).toBe(true);
    });

    it('resolves the site UUID by internalReference and uses it on Integration site routes', async () => {
      const small = gatewayFor(sim, { apiKey: sim.apiKey, pageSize: 2 });

      const uuid = await small.resolveSiteUuid('default');
      const networks = await small.integrationList('default', 'networks', z.looseObject({ id: z.string() }));
      await small.close();

      expect(uuid).toBe(DEMO_SITE.uuid);
      const pages = onRoute(sim, `/integration/v1/sites/${DEMO_SITE.uuid}/networks`);
      expect(networks.items.length).toBeGreaterThan(2);
      expect(pages.length).toBe(Math.ceil(networks.items.length / 2));
    });

    it('raises ResourceNotFoundError for a site the controller does not have', async () => {
      const error = await gateway.resolveSiteUuid('nowhere').catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ResourceNotFoundError);
      expect(error).toMatchObject({ resource: 'site', id: 'nowhere' });
    });
  });

  describe('with a username and password', () => {
    beforeEach(() => {
      gateway = gatewayFor(sim, { username: sim.username, password: sim.password });
    });

    it('logs in once, sends TOKEN and X-CSRF-Token on writes, and follows CSRF rotation', async () => {
      // Act
      await Promise.all([
        gateway.classicRead('default', 'rest/networkconf', networkSchema),
        gateway.v2Read('default', 'trafficrules', z.unknown()),
      ]);
      const first = await gateway.classicWrite('default', 'POST', 'rest/networkconf', vlanOnly(61));
      const second = await gateway.classicWrite('default', 'POST', 'rest/networkconf', vlanOnly(62));

      // Assert
      expect(logins(sim)).toBe(1);
      expect(first).toEqual([expect.objectContaining({ vlan: 61 })]);
      expect(second).toEqual([expect.objectContaining({ vlan: 62 })]);
      const writes = onRoute(sim, NETWORKS_ROUTE, 'POST');
      expect(writes).toHaveLength(2);
      const cookie = header(writes[0], 'cookie') ?? '';
      expect(cookie).toMatch(/^TOKEN=[\w-]+\.[\w-]+\.[\w-]+$/);
      const payload = JSON.parse(Buffer.from(cookie.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
        csrfToken: string;
      };
      expect(header(writes[0], 'x-csrf-token')).toBe(payload.csrfToken);
      // The simulator refuses a stale token, so the second write succeeding proves the rotation was followed.
      expect(header(writes[1], 'x-csrf-token')).not.toBe(payload.csrfToken);
    });

    it('logs in again exactly once after expireSessions(), and the request succeeds', async () => {
      await gateway.classicRead('default', 'rest/networkconf', networkSchema);
      sim.expireSessions();

      const [list, written] = await Promise.all([
        gateway.classicRead('default', 'rest/networkconf', networkSchema, { fresh: true }),
        gateway.classicWrite('default', 'POST', 'rest/networkconf', vlanOnly(63)),
      ]);

      expect(list.items.length).toBeGreaterThan(0);
      expect(written).toEqual([expect.objectContaining({ vlan: 63 })]);
      expect(logins(sim)).toBe(2);
    });

    it('reports a bad password as GatewayAuthError without the password', async () => {
      const wrong = gatewayFor(sim, { username: sim.username, password: 'definitely-wrong-pw-42' });

      const error = await networkReadError(wrong);
      await wrong.close();

      expect(error).toBeInstanceOf(GatewayAuthError);
      expect((error as Error).message).toContain('GATEWAY_PASSWORD');
      expect((error as Error).message).not.toContain('definitely-wrong-pw-42');
      expect(onRoute(sim, NETWORKS_ROUTE)).toHaveLength(0);
    });

    it('refuses Integration routes without an API key', async () => {
      await expect(gateway.integrationList('default', 'networks', z.unknown())).rejects.toBeInstanceOf(
        NotSupportedError,
      );
    });
  });

  describe('retries and faults', () => {
    beforeEach(() => {
      gateway = gatewayFor(sim, { apiKey: sim.apiKey });
    });

    /** This test's gateway, made one that gives up on an attempt after TIMEOUT_MS (for latency faults). */
    async function impatient(): Promise<Gateway> {
      await gateway.close();
      gateway = gatewayFor(sim, { apiKey: sim.apiKey, timeoutMs: TIMEOUT_MS });
      return gateway;
    }

    it('retries a read that gets 503 and fails as GatewayUnavailableError within the budget', async () => {
      sim.injectFault({ kind: 'status', status: 503, route: NETWORKS_ROUTE, times: 10 });

      const { error } = await timed(() => gateway.classicRead('default', 'rest/networkconf', networkSchema));

      expect(error).toBeInstanceOf(GatewayUnavailableError);
      expect(onRoute(sim, NETWORKS_ROUTE, 'GET')).toHaveLength(3);
    });

    it('retries a read that times out and fails within the budget', async () => {
      sim.injectFault({ kind: 'latency', ms: 2000, route: NETWORKS_ROUTE, times: 10 });
      const hurried = await impatient();

      const { error } = await timed(() => hurried.classicRead('default', 'rest/networkconf', networkSchema));

      expect(error).toBeInstanceOf(GatewayUnavailableError);
      expect((error as Error).message).toContain('did not answer within');
      expect(onRoute(sim, NETWORKS_ROUTE, 'GET')).toHaveLength(3);
    });

    it('recovers when a retry gets through', async () => {
      sim.injectFault({ kind: 'drop', route: NETWORKS_ROUTE });
      sim.injectFault({ kind: 'status', status: 502, route: NETWORKS_ROUTE });

      const list = await gateway.classicRead('default', 'rest/networkconf', networkSchema);

      expect(list.items.length).toBeGreaterThan(0);
      expect(onRoute(sim, NETWORKS_ROUTE, 'GET')).toHaveLength(3);
    });

    it('honours Retry-After on a 429', async () => {
      const logs = captureLogger();
      const patient = gatewayFor(sim, {
        apiKey: sim.apiKey,
        retry: { attempts: 3, budgetMs: 3000 },
        logger: logs.logger,
      });
      sim.injectFault({ kind: 'rate-limit', retryAfterSeconds: 1, route: NETWORKS_ROUTE });

      const { value } = await timed(() => patient.classicRead('default', 'rest/networkconf', networkSchema));
      await patient.close();

      // The wait the retry planned (logged with each retry), not a measured time.
      const planned = logs.lines().flatMap((l) => (l.delayMs === undefined ? [] : [l.delayMs]));
      expect(value?.items.length).toBeGreaterThan(0);
      expect(onRoute(sim, NETWORKS_ROUTE, 'GET')).toHaveLength(2);
      expect(planned).toHaveLength(1);
      expect(planned[0]).toBeGreaterThanOrEqual(1000);
    });

    it.each([
      ['a 503', { kind: 'status', status: 503 } as const, 73],
      ['a timeout', { kind: 'latency', ms: 400 } as const, 74],
      ['a dropped connection', { kind: 'drop' } as const, 75],
    ])(
      'never retries a POST that fails with %s: the simulator saw exactly one',
      async (_name, fault, vlan) => {
        sim.injectFault({ ...fault, route: NETWORKS_ROUTE, method: 'POST', times: 5 });
        const writer = fault.kind === 'latency' ? await impatient() : gateway;

        const { error } = await timed(() =>
          writer.classicWrite('default', 'POST', 'rest/networkconf', vlanOnly(vlan)),
        );

        expect(error).toBeInstanceOf(GatewayUnavailableError);
        expect(onRoute(sim, NETWORKS_ROUTE, 'POST')).toHaveLength(1);
      },
    );
  });

  describe('read cache', () => {
    beforeEach(() => {
      gateway = gatewayFor(sim, { apiKey: sim.apiKey });
    });

    it('makes one upstream request for two identical concurrent reads', async () => {
      sim.injectFault({ kind: 'latency', ms: 50, route: NETWORKS_ROUTE });

      const [a, b] = await Promise.all([
        gateway.classicRead('default', 'rest/networkconf', networkSchema),
        gateway.classicRead('default', 'rest/networkconf', networkSchema),
      ]);

      expect(a).toEqual(b);
      expect(onRoute(sim, NETWORKS_ROUTE, 'GET')).toHaveLength(1);
    });

    it('sends the next read upstream after a write, and fresh: true always goes upstream', async () => {
      await gateway.classicRead('default', 'rest/networkconf', networkSchema);
      await gateway.classicRead('default', 'rest/networkconf', networkSchema);
      expect(onRoute(sim, NETWORKS_ROUTE, 'GET')).toHaveLength(1);

      await gateway.classicWrite('default', 'POST', 'rest/networkconf', vlanOnly(71));
      const after = await gateway.classicRead('default', 'rest/networkconf', networkSchema);
      await gateway.classicRead('default', 'rest/networkconf', networkSchema, { fresh: true });

      expect(after.items.map((n) => n.name)).toContain('Segment 71');
      expect(onRoute(sim, NETWORKS_ROUTE, 'GET')).toHaveLength(3);
    });
  });

  describe('logging', () => {
    it('writes no password, API key, cookie or CSRF token, at level trace', async () => {
      // Arrange
      const logs = captureLogger();
      gateway = gatewayFor(sim, { username: sim.username, password: sim.password, logger: logs.logger });
      const keyed = gatewayFor(sim, { apiKey: sim.apiKey, logger: logs.logger });

      // Act: a login, reads, a rotating write, a failing write, and API-key reads.
      await gateway.classicRead('default', 'rest/networkconf', networkSchema);
      await gateway.classicWrite('default', 'POST', 'rest/networkconf', vlanOnly(72));
      await gateway.classicWrite('default', 'POST', 'rest/networkconf', vlanOnly(20)).catch(() => undefined);
      await keyed.classicRead('default', 'rest/networkconf', networkSchema);
      await keyed.integrationList('default', 'networks', z.unknown());
      await keyed.close();

      // Assert
      const secrets = new Set<string>([sim.password, sim.apiKey]);
      for (const request of sim.requests) {
        const cookie = header(request, 'cookie');
        const csrf = header(request, 'x-csrf-token');
        if (cookie) secrets.add(cookie.replace(/^TOKEN=/, ''));
        if (csrf) secrets.add(csrf);
      }
      expect(secrets.size).toBeGreaterThanOrEqual(5);
      const text = logs.text();
      expect(logs.lines().length).toBeGreaterThan(5);
      for (const secret of secrets) expect(text).not.toContain(secret);
    });
  });
});

describe('simulator: self-hosted controller', () => {
  const sim = useSimulator({ flavor: 'self-hosted' });

  it('logs in at /api/login with the unifises cookie and uses no prefix', async () => {
    const gateway = gatewayFor(sim, { username: sim.username, password: sim.password });

    const list = await gateway.classicRead('default', 'rest/networkconf', networkSchema);
    const written = await gateway.classicWrite('default', 'POST', 'rest/networkconf', vlanOnly(80));
    await gateway.close();

    expect(list.items.length).toBeGreaterThan(0);
    expect(written).toHaveLength(1);
    expect(sim.requests.filter((r) => r.path === '/api/login')).toHaveLength(1);
    expect(sim.requests.filter((r) => r.path === '/api/auth/login')).toHaveLength(0);
    const [read] = onRoute(sim, NETWORKS_ROUTE, 'GET');
    expect(read?.path).toBe(NETWORKS_ROUTE);
    expect(header(read, 'cookie')).toMatch(/^unifises=\w+$/);
  });
});

describe('simulator: cloud connector', () => {
  const sim = useSimulator();

  function cloud(consoleId?: string): Gateway {
    return createGateway({
      apiType: 'cloud',
      url: sim.url,
      apiKey: sim.apiKey,
      timeoutMs: 1000,
      ...(consoleId === undefined ? {} : { consoleId }),
    });
  }

  it('discovers the only console from /v1/hosts and reaches classic and Integration through the connector', async () => {
    sim.clearRequests();
    const gateway = cloud();

    const list = await gateway.classicRead('default', 'rest/networkconf', networkSchema);
    const uuid = await gateway.resolveSiteUuid('default');
    await gateway.close();

    expect(list.items.length).toBeGreaterThan(0);
    expect(uuid).toBe(DEMO_SITE.uuid);
    expect(sim.requests.filter((r) => r.path === '/v1/hosts')).toHaveLength(1);
    const connector = `/v1/connector/consoles/${sim.consoleId}/proxy/network`;
    expect(onRoute(sim, NETWORKS_ROUTE)[0]?.path).toBe(`${connector}${NETWORKS_ROUTE}`);
    expect(sim.requests.some((r) => r.path === `${connector}/integration/v1/sites`)).toBe(true);
    expect(sim.requests.every((r) => header(r, 'x-api-key') === sim.apiKey)).toBe(true);
  });

  it('uses the configured console id without asking /v1/hosts', async () => {
    sim.clearRequests();
    const gateway = cloud(sim.consoleId);

    await gateway.classicRead('default', 'rest/networkconf', networkSchema);
    await gateway.close();

    expect(sim.requests.filter((r) => r.path === '/v1/hosts')).toHaveLength(0);
    expect(sim.requests[0]?.path).toBe(
      `/v1/connector/consoles/${sim.consoleId}/proxy/network${NETWORKS_ROUTE}`,
    );
  });

  it('turns the refused v2 route into NotSupportedError naming the local API', async () => {
    const gateway = cloud(sim.consoleId);

    const error = await gateway.v2Read('default', 'trafficrules', z.unknown()).catch((e: unknown) => e);
    await gateway.close();

    expect(error).toBeInstanceOf(NotSupportedError);
    expect((error as Error).message).toContain(
      'needs the local API: set GATEWAY_API_TYPE=local and GATEWAY_URL',
    );
  });
});
