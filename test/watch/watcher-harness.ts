import type { Gateway } from '../../src/gateway/types.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { type Logger, silentLogger } from '../../src/log.js';
import { createRegistry } from '../../src/tools/index.js';
import { Watcher } from '../../src/watch/index.js';
import type { WatchNotifier } from '../../src/watch/types.js';

type WatcherConfig = ConstructorParameters<typeof Watcher>[0]['config'];

/**
 * A watcher on `gateway` with its own in-memory data, no change history, the demo site and test
 * defaults (alerts to C9ALERTS, drift to C8DRIFT, 30 s polls, 300 s sweeps) over `config`.
 */
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
