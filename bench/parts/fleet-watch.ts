import { createGateway } from '../../src/gateway/index.js';
import type { Gateway } from '../../src/gateway/types.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { silentLogger } from '../../src/log.js';
import { type Fleet, startFleet } from '../../src/simulator/fleet.js';
import type { ConsolePort } from '../../src/tools/core/context.js';
import { createRegistry } from '../../src/tools/index.js';
import { FleetWatcher, staggerOffset } from '../../src/watch/index.js';
import { type PartContext, sleep } from '../lib/context.js';
import { benchWatchConfig, NO_CHANGES, quietNotifier } from '../lib/watch-parts.js';

/** Controller requests per console with the watcher on, for one console and for a fleet. */
export interface FleetWatchRow {
  intervalS: number;
  driftIntervalS: number;
  /** Each console's counting window, s: a whole number of sweeps, placed between its ticks. */
  windowS: number;
  /** The floor: one console, requests per minute. */
  onePerMinute: number;
  /** The fleet's size, and its requests per console per minute (mean, lowest and highest console). */
  consoles: number;
  fleetPerMinute: number;
  fleetLowest: number;
  fleetHighest: number;
  /** fleetPerMinute / onePerMinute. */
  ratio: number;
}

const quiet = quietNotifier();

/** The fleet's consoles as the bot serves them: one gateway each, read cache on (as deployed). */
function portOf(fleet: Fleet): { port: ConsolePort; gateways: Gateway[] } {
  const gateways = new Map<string, Gateway>();
  for (const each of fleet.consoles) {
    if (!each.url) throw new Error('the bench fleet reaches every console locally');
    gateways.set(
      each.name,
      createGateway({ apiType: 'local', url: each.url, apiKey: each.apiKey, logger: silentLogger() }),
    );
  }
  const port: ConsolePort = {
    fleet: true,
    readBudgetMs: 10_000,
    list: () =>
      fleet.consoles.map((each) => ({ name: each.name, labels: {}, via: 'local', sites: undefined })),
    gateway: (name) => {
      const gateway = gateways.get(name);
      if (!gateway) throw new Error(`no console ${name}`);
      return gateway;
    },
    channel: () => undefined,
  };
  return { port, gateways: [...gateways.values()] };
}

/**
 * Watches `count` simulated consoles (all alike: 10.1, zone-based, one site) and counts each
 * console's requests over its own window: from half a poll after one of its sweeps' slots, for a
 * whole number of sweeps, so every console is counted over the same share of its ticks wherever
 * its stagger put them.
 */
async function perConsole(
  count: number,
  timing: { intervalS: number; driftIntervalS: number; windowS: number },
): Promise<number[]> {
  const fleet = await startFleet({
    consoles: Array.from({ length: count }, () => ({ version: '10.1', firewall: 'zone-based', sites: 1 })),
  });
  const { port, gateways } = portOf(fleet);
  const data = new MemoryStore();
  const logger = silentLogger();
  const registry = createRegistry('default');
  registry.useConsoles(port);
  const watcher = new FleetWatcher({
    config: benchWatchConfig(timing.intervalS, timing.driftIntervalS),
    consoles: port,
    defaultSite: 'default',
    data,
    changes: NO_CHANGES,
    holder: 'bench',
    notifier: quiet,
    logger,
    registry,
    context: { gateway: port.gateway(fleet.consoles[0]?.name ?? ''), logger, store: data, consoles: port },
  });
  const pollMs = timing.intervalS * 1000;
  const driftMs = timing.driftIntervalS * 1000;
  try {
    const started = performance.now();
    watcher.start();
    const counts = await Promise.all(
      fleet.consoles.map(async (each) => {
        // The first sweep (the baseline) comes one poll after the console's offset; counting starts
        // half a poll before the next one, the gateway warmed up by then.
        const from = staggerOffset(each.name, pollMs) + pollMs + driftMs - pollMs / 2;
        await sleep(Math.max(0, started + from - performance.now()));
        const before = each.requests.length;
        await sleep(timing.windowS * 1000);
        return each.requests.length - before;
      }),
    );
    return counts.map((n) => (n / timing.windowS) * 60);
  } finally {
    await watcher.stop();
    await Promise.all(gateways.map((gateway) => gateway.close()));
    await fleet.close();
  }
}

/**
 * One console, then a fleet of 50, each console counted over the same window. Polls every 5 s and
 * sweeps every 25 s: the fleet and the bot share this process, and at 1 s polls fifty simulated
 * consoles on a busy 2-core machine measure the CPU's queue (each tick waits its interval after the
 * last one ended), not what the watcher asks of a console.
 */
export async function runFleetWatch(ctx: PartContext): Promise<FleetWatchRow> {
  const timing = { intervalS: 5, driftIntervalS: 25, windowS: ctx.options.quick ? 50 : 100 };
  const consoles = 50;
  ctx.progress(
    `fleet watch: 1 console, polls every ${timing.intervalS} s, sweeps every ${timing.driftIntervalS} s`,
  );
  const [one] = await perConsole(1, timing);
  ctx.progress(`fleet watch: ${consoles} consoles`);
  const fleet = await perConsole(consoles, timing);
  const mean = fleet.reduce((sum, n) => sum + n, 0) / fleet.length;
  const floor = one ?? 0;
  return {
    ...timing,
    onePerMinute: Number(floor.toFixed(1)),
    consoles,
    fleetPerMinute: Number(mean.toFixed(1)),
    fleetLowest: Number(Math.min(...fleet).toFixed(1)),
    fleetHighest: Number(Math.max(...fleet).toFixed(1)),
    ratio: Number((mean / Math.max(floor, 1e-9)).toFixed(3)),
  };
}
