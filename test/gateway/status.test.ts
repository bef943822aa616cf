import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGateway } from '../../src/gateway/gateway.js';
import type { Gateway } from '../../src/gateway/types.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { APPLICATION_VERSION } from '../../src/simulator/routes/integration-core.js';

// Short waits between tries, and room enough that a loaded CI machine answers within the budget:
// no test here waits on a silent controller.
const fast = { attempts: 2, budgetMs: 5_000, baseDelayMs: 10, maxDelayMs: 20 };

describe('gateway.status(): what App Home shows about the controller', () => {
  let sim: Simulator;
  const gateways: Gateway[] = [];
  const gateway = (options: Parameters<typeof createGateway>[0]) => {
    const created = createGateway({ timeoutMs: 3_000, retry: fast, ...options });
    gateways.push(created);
    return created;
  };

  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterEach(async () => {
    sim.clearFaults();
    for (const g of gateways.splice(0)) await g.close();
  });
  afterAll(() => sim.close());

  it('reads the version from the Integration API with a key, and the kind detected on the way', async () => {
    const g = gateway({ apiType: 'local', url: sim.url, apiKey: sim.apiKey });

    const status = await g.status('default');

    expect(status).toMatchObject({
      apiType: 'local',
      kind: 'unifi-os',
      reachable: true,
      version: APPLICATION_VERSION,
    });
    expect(Date.parse(status.lastReadAt ?? '')).toBeGreaterThan(Date.now() - 5000);
    expect(sim.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('reads the version from classic sysinfo with a session, without writing anything', async () => {
    const g = gateway({ apiType: 'local', url: sim.url, username: sim.username, password: sim.password });

    const status = await g.status('default');

    expect(status).toMatchObject({ reachable: true, version: APPLICATION_VERSION, kind: 'unifi-os' });
    expect(sim.requests.some((r) => r.route.endsWith('/stat/sysinfo'))).toBe(true);
  });

  it('asks the controller at most once per 30 s, while the last answered read moves with the tools', async () => {
    const g = gateway({ apiType: 'local', url: sim.url, apiKey: sim.apiKey, cacheTtlSeconds: 0 });
    const first = await g.status('default');
    const probes = () => sim.requests.filter((r) => r.route.endsWith('/integration/v1/info')).length;
    const before = probes();
    await new Promise((r) => setTimeout(r, 20));
    await g.classicRead('default', 'rest/networkconf', z.unknown());

    const second = await g.status('default');

    expect(probes()).toBe(before);
    expect(Date.parse(second.lastReadAt ?? '')).toBeGreaterThan(Date.parse(first.lastReadAt ?? ''));
  });

  it('answers "not reachable" with the reason when the controller fails, and never throws', async () => {
    const g = gateway({ apiType: 'local', url: sim.url, apiKey: sim.apiKey, deployment: 'unifi-os' });
    sim.injectFault({ kind: 'status', status: 503, times: Number.POSITIVE_INFINITY });

    const status = await g.status('default');

    expect(status.reachable).toBe(false);
    expect(status.error).toMatch(/503/);
    expect(status.lastReadAt).toBeUndefined();
    expect(status.kind).toBe('unifi-os');
    expect(JSON.stringify(status)).not.toContain(sim.apiKey);
  });
});
