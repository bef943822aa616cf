import { createGateway, type GatewayOptions } from '../../src/gateway/index.js';
import type { Gateway } from '../../src/gateway/types.js';
import { silentLogger } from '../../src/log.js';
import type { Simulator } from '../../src/simulator/index.js';

/**
 * A gateway to the simulator tuned for tests: no read cache (tests edit the simulator's state
 * directly and expect to see it), and retries and timeouts short enough to fail fast.
 */
export function testGateway(sim: Simulator, overrides: Partial<GatewayOptions> = {}): Gateway {
  return createGateway({
    apiType: 'local',
    url: sim.url,
    apiKey: sim.apiKey,
    logger: silentLogger(),
    cacheTtlSeconds: 0,
    retry: { attempts: 2, budgetMs: 2000, baseDelayMs: 10, maxDelayMs: 50 },
    timeoutMs: 2000,
    ...overrides,
  });
}
