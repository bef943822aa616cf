import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type App, createApp } from '../../src/app.js';
import { Approvals } from '../../src/approvals/approvals.js';
import type { ApprovalPeople } from '../../src/approvals/people.js';
import { loadConfig } from '../../src/config.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { silentLogger } from '../../src/log.js';
import type { Simulator } from '../../src/simulator/index.js';
import { FileStore } from '../../src/store/file/file-store.js';
import type { ChangeStore } from '../../src/store/types.js';
import { testGateway } from '../helpers/test-gateway.js';
import { Clock, policyWith, tempDataDir } from './harness.js';

/** A second bot (new gateway, registry and context) over the same simulator: what a restart builds. */
export function appFor(sim: Simulator): App {
  const logger = silentLogger();
  const gateway = testGateway(sim);
  const config = loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'netops-approvals-')) });
  return createApp({
    config,
    logger,
    gateway,
    store: new FileStore(config.dataDir, { data: new MemoryStore() }),
  });
}

/** Opens Approvals over a bot's registry and context, on a change store; recovers what it finds. */
export function openApprovals(
  app: App,
  store: ChangeStore,
  clock: Clock,
  policy: ApprovalPeople = policyWith(),
  ttlSeconds = 900,
): Promise<Approvals> {
  return Approvals.open({
    store,
    registry: app.registry,
    context: app.context,
    policy,
    ttlSeconds,
    logger: silentLogger(),
    now: clock.now,
  });
}

/** Approvals over `app` on a file store in a new DATA_DIR, as each test of a file opens afresh. */
export async function approvalsInTempDir(app: App, policy?: ApprovalPeople) {
  const data = tempDataDir();
  const store = new FileStore(data.dir, { data: new MemoryStore() });
  return { data, store, approvals: await openApprovals(app, store.changes(), new Clock(), policy) };
}
