/**
 * A fleet's consoles from CONSOLES_FILE, each with its own gateway built on first use. Loaded only
 * when CONSOLES_FILE is set: the file's parser (YAML) is no part of a one-console start.
 */
import { readFileSync } from 'node:fs';
import type { Config } from '../config.js';
import { type BreakerView, ConsoleBreaker } from '../fleet/breaker.js';
import {
  type ChannelBinding,
  type ConsolesFile,
  ConsolesFileError,
  parseConsolesFile,
} from '../fleet/consoles-file.js';
import { discoverAtStart, type SiteManagerGet } from '../fleet/discovery.js';
import { type BudgetBackend, CloudBudget, DEFAULT_REQUESTS_PER_MINUTE } from '../fleet/rate-budget.js';
import { bindingTargets, type ResolvedConsole, resolveConsoles } from '../fleet/resolve.js';
import { createGateway, type Gateway, type GatewayOptions } from '../gateway/index.js';
import type { RequestGuard } from '../lib/request-guard.js';
import type { Logger } from '../log.js';
import type { ChannelScope, ConsoleSummary } from '../tools/core/context.js';
import { type Consoles, unknownConsole } from './consoles.js';

/** The gateway options of one console of the file; timeouts and limits come from GATEWAY_*. */
export function fleetGatewayOptions(entry: ResolvedConsole, config: Config, logger: Logger): GatewayOptions {
  const g = config.gateway;
  const common = {
    timeoutMs: g.timeoutMs,
    retry: { budgetMs: g.readBudgetMs },
    maxResponseBytes: g.maxResponseBytes,
    logger: logger.child({ console: entry.name }),
  };
  const c = entry.connection;
  if (c.kind === 'connector')
    return { ...common, apiType: 'cloud', url: c.cloudUrl, apiKey: c.apiKey, consoleId: c.consoleId };
  return {
    ...common,
    apiType: 'local',
    url: c.url,
    apiKey: c.apiKey,
    verifyTls: c.verifyTls,
    ...(c.ca !== undefined ? { ca: c.ca } : {}),
  };
}

/** How many consoles' gateways stay open at once by default: each holds sockets, caches and timers. */
export const MAX_OPEN_GATEWAYS = 64;

/**
 * Every console of a consoles file; `makeGateway` builds one on first use (tests pass their own).
 * At most `maxOpen` stay open: the least recently used is closed (and built again when asked),
 * except the one background work uses (`defaultGateway`).
 */
export class FleetConsoles implements Consoles {
  readonly fleet: boolean;
  /** In order of last use, oldest first. */
  readonly #gateways = new Map<string, Gateway>();
  readonly #byName: ReadonlyMap<string, ResolvedConsole>;
  /** Kept while the process runs, so a gateway closed and built again finds its console's breaker as it was. */
  readonly #breakers = new Map<string, ConsoleBreaker>();
  /** One per cloud API key: every connector console through it takes from the same budget. */
  readonly #budgets = new Map<string, CloudBudget>();
  #sharedBudget: BudgetBackend | undefined;
  #pinned: string | undefined;

  constructor(
    private readonly file: ConsolesFile,
    private readonly consoles: readonly ResolvedConsole[],
    private readonly makeGateway: (entry: ResolvedConsole, guards: readonly RequestGuard[]) => Gateway,
    readonly readBudgetMs: number,
    private readonly maxOpen = MAX_OPEN_GATEWAYS,
    private readonly now: () => number = Date.now,
    private readonly logger?: Logger,
  ) {
    this.#byName = new Map(consoles.map((entry) => [entry.name, entry]));
    this.fleet = consoles.length > 1;
  }

  /** A console's breaker as the admin sees it: closed, or open since when and until when. */
  breaker(name: string): BreakerView {
    return this.#breakers.get(name)?.view() ?? { state: 'closed' };
  }

  /** From now on the cloud budget is the one the replicas share (the PostgreSQL store's). */
  shareBudget(backend: BudgetBackend): void {
    for (const budget of this.#budgets.values()) budget.share(backend);
    this.#sharedBudget = backend;
  }

  #guards(entry: ResolvedConsole): RequestGuard[] {
    let breaker = this.#breakers.get(entry.name);
    if (breaker === undefined) {
      breaker = new ConsoleBreaker({
        console: entry.name,
        ...this.file.breaker,
        now: this.now,
        ...(this.logger === undefined ? {} : { logger: this.logger }),
      });
      this.#breakers.set(entry.name, breaker);
    }
    if (entry.connection.kind !== 'connector') return [breaker];
    const key = entry.connection.apiKey;
    let budget = this.#budgets.get(key);
    if (budget === undefined) {
      budget = new CloudBudget(
        key,
        this.file.cloud?.requestsPerMinute ?? DEFAULT_REQUESTS_PER_MINUTE,
        this.#sharedBudget,
      );
      if (this.logger !== undefined) budget.logTo(this.logger, this.now);
      this.#budgets.set(key, budget);
    }
    // The breaker first: a console known to be down spends no token.
    return [breaker, budget];
  }

  list(): readonly ConsoleSummary[] {
    return this.consoles.map((entry) => ({
      name: entry.name,
      labels: entry.labels,
      via: entry.connection.kind,
      sites: entry.sites,
    }));
  }

  /** The first console's gateway, never closed while the process runs: telemetry and the watcher use it. */
  defaultGateway(): Gateway {
    const [first] = this.consoles;
    if (first === undefined) throw new Error('a checked consoles file lists a console');
    this.#pinned = first.name;
    return this.gateway(first.name);
  }

  gateway(name: string): Gateway {
    const existing = this.#gateways.get(name);
    if (existing) {
      this.#gateways.delete(name);
      this.#gateways.set(name, existing);
      return existing;
    }
    const entry = this.#byName.get(name);
    if (!entry) throw unknownConsole(name, [...this.#byName.keys()]);
    const gateway = this.makeGateway(entry, this.#guards(entry));
    this.#gateways.set(name, gateway);
    this.#evict();
    return gateway;
  }

  /** Names of the consoles whose gateway is open, oldest use first. */
  open(): string[] {
    return [...this.#gateways.keys()];
  }

  #evict(): void {
    for (const [name, gateway] of this.#gateways) {
      if (this.#gateways.size <= this.maxOpen) return;
      if (name === this.#pinned) continue;
      this.#gateways.delete(name);
      // Closing only stops its timers and idle sockets; a read still running on it finishes or fails alone.
      void gateway.close().catch(() => undefined);
    }
  }

  channel(channelId: string): ChannelScope | undefined {
    const binding: ChannelBinding | undefined = this.file.channels.get(channelId);
    if (binding === undefined) return undefined;
    const targets = bindingTargets(binding, this.consoles);
    return {
      consoles: targets.map((target) => target.console),
      site: binding.kind === 'console' ? binding.site : undefined,
      ...(binding.kind === 'label' ? { labels: binding.labels } : {}),
    };
  }

  boundChannels(): readonly string[] {
    return [...this.file.channels.keys()];
  }

  /** Every key read for the file's consoles, for the scrubber (never for a message). */
  secretValues(): string[] {
    return this.consoles.map((entry) => entry.connection.apiKey);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#gateways.values()].map((gateway) => gateway.close()));
  }
}

/**
 * Reads, checks and resolves CONSOLES_FILE (asking Site Manager for the consoles with discovery):
 * secrets from the environment now, gateways later. Throws ConsolesFileError (a ConfigError: the
 * process exits 2) naming the line of each problem, or DiscoveryError when Site Manager is silent.
 */
export async function loadFleet(
  config: Config,
  logger: Logger,
  siteManager?: SiteManagerGet,
): Promise<FleetConsoles> {
  if (config.consolesFile === undefined) throw new Error('loadFleet needs CONSOLES_FILE');
  const { path, env } = config.consolesFile;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new ConsolesFileError(path, [{ line: undefined, path: '', rule: 'cannot be read' }]);
  }
  const file = parseConsolesFile(text, path);
  // Discovery asks Site Manager once, now; the consoles it lists are served like listed ones.
  const entries =
    file.discover === undefined
      ? file.consoles
      : await discoverAtStart(file, env, {
          timeoutMs: config.gateway.timeoutMs,
          logger,
          ...(siteManager ? { get: siteManager } : {}),
        });
  const resolved = resolveConsoles(file, env, undefined, entries);
  return new FleetConsoles(
    file,
    resolved,
    (entry, guards) => createGateway({ ...fleetGatewayOptions(entry, config, logger), guards }),
    config.gateway.readBudgetMs,
    MAX_OPEN_GATEWAYS,
    Date.now,
    logger,
  );
}
