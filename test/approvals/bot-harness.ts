import { type App, createApp } from '../../src/app.js';
import { Approvals } from '../../src/approvals/approvals.js';
import type { ApprovalPolicy } from '../../src/approvals/policy.js';
import { loadConfig } from '../../src/config.js';
import { createGateway } from '../../src/gateway/index.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { silentLogger } from '../../src/log.js';
import type { Simulator } from '../../src/simulator/index.js';
import { type Clock, policyWith } from './harness.js';

/** A second bot (new gateway, registry and context) over the same simulator: what a restart builds. */
export function appFor(sim: Simulator): App {
  const logger = silentLogger();
  const gateway = createGateway({
    apiType: 'local',
    url: sim.url,
    apiKey: sim.apiKey,
    logger,
    cacheTtlSeconds: 0,
    retry: { attempts: 2, budgetMs: 2000, baseDelayMs: 10, maxDelayMs: 50 },
    timeoutMs: 2000,
  });
  return createApp({
    config: loadConfig({ DATA_DIR: '/tmp/netops-test-unused' }),
    logger,
    gateway,
    store: new MemoryStore(),
  });
}

/** Opens Approvals over a bot's registry and context. */
export function openApprovals(
  app: App,
  dataDir: string,
  clock: Clock,
  policy: ApprovalPolicy = policyWith(),
  ttlSeconds = 900,
): Approvals {
  return Approvals.open({
    dataDir,
    registry: app.registry,
    context: app.context,
    policy,
    ttlSeconds,
    logger: silentLogger(),
    now: clock.now,
  });
}
