import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type App, createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { GatewayOptions } from '../../src/gateway/index.js';
import { type KeyValueStore, MemoryStore } from '../../src/lib/json-file-store.js';
import { silentLogger } from '../../src/log.js';
import { loadPolicy } from '../../src/policy-startup.js';
import {
  type Simulator,
  type SimulatorOptions,
  type SiteState,
  startSimulator,
} from '../../src/simulator/index.js';
import type { RecordedRequest } from '../../src/simulator/types.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { testGateway } from './test-gateway.js';

/** The bot built as main.ts builds it, against a fresh simulator reached over real HTTP. */
export interface TestBot {
  sim: Simulator;
  app: App;
  /** Runs a tool through the registry, exactly as a front end does. */
  run(tool: string, args?: Record<string, unknown>): Promise<unknown>;
  /** The simulator's demo site (live state). */
  site(): SiteState;
  /** Requests the simulator received that change something. */
  writes(): RecordedRequest[];
  close(): Promise<void>;
}

/** Starts a simulator and a bot wired to it; cache off so direct state edits show at once. */
export async function startTestBot(
  options: {
    simulator?: SimulatorOptions;
    gateway?: Partial<GatewayOptions>;
    env?: Record<string, string>;
    store?: KeyValueStore;
    /** The app's clock (approval expiry, telemetry ticks). */
    now?: () => number;
  } = {},
): Promise<TestBot> {
  const sim = await startSimulator(options.simulator);
  const config = loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'netops-bot-')), ...options.env });
  const logger = silentLogger();
  const gateway = testGateway(sim, options.gateway);
  const store = new FileStore(config.dataDir, { data: options.store ?? new MemoryStore() });
  const app = createApp({
    config,
    logger,
    gateway,
    store,
    policy: await loadPolicy(config),
    ...(options.now ? { now: options.now } : {}),
  });
  return {
    sim,
    app,
    run: (tool, args = {}) => app.registry.run(tool, args, app.context),
    site() {
      const site = sim.state.site('default');
      if (!site) throw new Error('the simulator has no default site');
      return site;
    },
    writes: () => sim.requests.filter((r) => r.method !== 'GET' && !r.route.includes('/stat/')),
    async close() {
      await app.close();
      await sim.close();
    },
  };
}
