import type { Gateway } from '../gateway/types.js';
import type { Logger } from '../log.js';
import type { SampleStore } from '../store/samples.js';
import type { RatePoint } from './series.js';
import { Telemetry, type TelemetryReader, type WindowAnswer } from './telemetry.js';

/** The consoles to sample, as src/consoles/ serves them (each gateway built on first use). */
export interface SampledConsoles {
  list(): readonly { name: string; sites: readonly string[] | undefined }[];
  gateway(name: string): Gateway;
}

export interface FleetTelemetryOptions {
  consoles: SampledConsoles;
  samples: SampleStore;
  logger: Logger;
  intervalMs: number;
  /**
   * Sampled from the first tick on a console whose entry names no sites (DEFAULT_SITE); otherwise its
   * first site. Other sites are sampled once a tool asks about them, as with one console.
   */
  defaultSite: string;
  now?: () => number;
  /** Where in the interval a console's ticks fall (the watcher's stagger), so consoles are not read at once. */
  offsetOf?: (console: string, intervalMs: number) => number;
}

/**
 * A console's samples under its own keys (`berlin/default`): two consoles may both have a site
 * `default`, and each tick of each console is still claimed by one replica.
 */
export function consoleSamples(samples: SampleStore, console: string): SampleStore {
  const key = (site: string) => `${console}/${site}`;
  return {
    claim: (site, slot, at) => samples.claim(key(site), slot, at),
    put: (site, slot, at, payload) => samples.put(key(site), slot, at, payload),
    since: (site, afterSlot) => samples.since(key(site), afterSlot),
    prune: (prune) => samples.prune({ ...prune, site: key(prune.site) }),
  };
}

/**
 * One sampler per console of a fleet, each ticking at its console's offset in the interval. Tools
 * read the console their call runs on (`forConsole`); without one, the first console's.
 */
export class FleetTelemetry implements TelemetryReader {
  readonly intervalMs: number;
  readonly #byConsole = new Map<string, Telemetry>();

  constructor(options: FleetTelemetryOptions) {
    this.intervalMs = options.intervalMs;
    for (const entry of options.consoles.list()) {
      const sampler = new Telemetry({
        // Read at each use: the fleet may close an idle console's gateway and build it again.
        get gateway() {
          return options.consoles.gateway(entry.name);
        },
        samples: consoleSamples(options.samples, entry.name),
        logger: options.logger.child({ console: entry.name }),
        intervalMs: options.intervalMs,
        defaultSite: entry.sites?.[0] ?? options.defaultSite,
        ...(options.now ? { now: options.now } : {}),
        offsetMs: options.offsetOf?.(entry.name, options.intervalMs) ?? 0,
      });
      this.#byConsole.set(entry.name, sampler);
    }
    if (this.#byConsole.size === 0) throw new Error('a fleet sampler needs a console');
  }

  get #first(): Telemetry {
    const [first] = this.#byConsole.values();
    if (!first) throw new Error('a fleet sampler needs a console');
    return first;
  }

  forConsole(name: string): TelemetryReader {
    return this.#byConsole.get(name) ?? this.#first;
  }

  start(): void {
    for (const sampler of this.#byConsole.values()) sampler.start();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.#byConsole.values()].map((sampler) => sampler.stop()));
  }

  /** One tick of every console, in turn (tests drive ticks with their clock). */
  async tick(): Promise<void> {
    for (const sampler of this.#byConsole.values()) await sampler.tick();
  }

  window(...args: Parameters<TelemetryReader['window']>): Promise<WindowAnswer> {
    return this.#first.window(...args);
  }

  rates(...args: Parameters<TelemetryReader['rates']>): Promise<Map<string, RatePoint[]>> {
    return this.#first.rates(...args);
  }

  memoryBytes(): number {
    let bytes = 0;
    for (const sampler of this.#byConsole.values()) bytes += sampler.memoryBytes();
    return bytes;
  }
}
