import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { type App, createApp } from '../../src/app.js';
import { Approvals } from '../../src/approvals/approvals.js';
import type { ApprovalPeople } from '../../src/approvals/people.js';
import type { ApproveOutcome } from '../../src/changes/outcomes.js';
import { loadConfig } from '../../src/config.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { silentLogger } from '../../src/log.js';
import type { Simulator } from '../../src/simulator/index.js';
import { FileStore } from '../../src/store/file/file-store.js';
import type { ChangeStore } from '../../src/store/types.js';
import { testGateway } from '../helpers/test-gateway.js';
import { ALEX, Clock, policyWith, STAN, tempDataDir } from './harness.js';

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

/** Approvals opened afresh for each test of a file, over its test bot, and what approving takes. */
export interface FreshApprovals {
  readonly approvals: Approvals;
  readonly store: FileStore;
  readonly data: ReturnType<typeof tempDataDir>;
  /** Approves as Alex, and as Stan too when a second approval is needed. */
  approveAll(id: string): Promise<ApproveOutcome>;
  /** The same DATA_DIR opened again, as a restarted process opens it (close the store first). */
  reopenStore(): FileStore;
}

/**
 * Before each test: the simulator's faults cleared and Approvals on a new DATA_DIR over `bot`'s app;
 * after it, the store closed and the directory removed.
 */
export function useFreshApprovals(bot: { app: App; sim: Simulator }): FreshApprovals {
  let current: { data: ReturnType<typeof tempDataDir>; store: FileStore; approvals: Approvals } | undefined;
  beforeEach(async () => {
    bot.sim.clearFaults();
    current = await approvalsInTempDir(bot.app, policyWith());
  });
  afterEach(async () => {
    await current?.store.close();
    current?.data.remove();
  });
  const now = () => {
    if (!current) throw new Error('the approvals are used before their beforeEach ran');
    return current;
  };
  return {
    get approvals() {
      return now().approvals;
    },
    get store() {
      return now().store;
    },
    get data() {
      return now().data;
    },
    reopenStore() {
      const fresh = now();
      fresh.store = new FileStore(fresh.data.dir, { data: new MemoryStore() });
      return fresh.store;
    },
    async approveAll(id) {
      const first = await now().approvals.approve(id, ALEX);
      return first.kind === 'endorsed' ? now().approvals.approve(id, STAN) : first;
    },
  };
}
