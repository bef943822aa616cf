import type { Gateway } from '../../src/gateway/types.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { type Logger, silentLogger } from '../../src/log.js';
import type { KeyValueStore, LeaseStore } from '../../src/store/types.js';
import type { ConsolePort } from '../../src/tools/core/context.js';
import { createRegistry } from '../../src/tools/index.js';
import { FleetWatcher, Watcher } from '../../src/watch/index.js';
import type { WatchNotifier } from '../../src/watch/types.js';

type WatcherConfig = ConstructorParameters<typeof Watcher>[0]['config'];

/** The watch settings the watcher tests run with: alerts and drift to their own channels, 30 s polls. */
export const WATCH_CONFIG = {
  alertChannel: 'C9ALERTS',
  driftChannel: 'C8DRIFT',
  flapSeconds: 120,
  alarmsPerMinute: 5,
  digestCron: '0 8 * * *',
  intervalSeconds: 30,
  driftIntervalSeconds: 300,
};

/** A change history with nothing in it. */
export const NO_CHANGES = {
  get: async () => undefined,
  list: async () => [],
  count: async () => 0,
  history: async () => undefined,
};

/**
 * A watcher on `gateway` with its own in-memory data, no change history, the demo site and test
 * defaults (alerts to C9ALERTS, drift to C8DRIFT, 30 s polls, 300 s sweeps) over `config`.
 */
export function testWatcher(
  gateway: Gateway,
  notifier: WatchNotifier,
  options: {
    config?: Partial<WatcherConfig>;
    logger?: Logger;
    /** Another watcher's data: two replicas on one store. */
    data?: MemoryStore;
    now?: () => number;
  } = {},
): { watcher: Watcher; data: MemoryStore } {
  const data = options.data ?? new MemoryStore();
  const logger = options.logger ?? silentLogger();
  const watcher = new Watcher({
    config: { ...WATCH_CONFIG, ...options.config },
    site: 'default',
    gateway,
    data,
    changes: NO_CHANGES,
    holder: 'test',
    notifier,
    logger,
    registry: createRegistry('default'),
    context: { gateway, logger, store: data },
    ...(options.now ? { now: options.now } : {}),
  });
  return { watcher, data };
}

/**
 * A fleet watcher over `consoles` (its first console is the context's), the test defaults over
 * `config`, no change history; `data`, leases and the holder given for replicas on one store.
 */
export function testFleetWatcher(
  consoles: ConsolePort,
  notifier: ConstructorParameters<typeof FleetWatcher>[0]['notifier'],
  options: {
    config?: Partial<WatcherConfig>;
    data?: KeyValueStore;
    leases?: LeaseStore;
    digestLeases?: LeaseStore;
    holder?: string;
  } = {},
): FleetWatcher {
  const data = options.data ?? new MemoryStore();
  const logger = silentLogger();
  const registry = createRegistry('default');
  registry.useConsoles(consoles);
  return new FleetWatcher({
    config: { ...WATCH_CONFIG, ...options.config },
    consoles,
    defaultSite: 'default',
    data,
    changes: NO_CHANGES,
    ...(options.leases ? { leases: options.leases } : {}),
    ...(options.digestLeases ? { digestLeases: options.digestLeases } : {}),
    holder: options.holder ?? 'test',
    notifier,
    logger,
    registry,
    context: { gateway: consoles.gateway(consoles.list()[0]?.name ?? ''), logger, store: data, consoles },
  });
}
