/**
 * A simulated fleet: N consoles, each its own HTTP server on its own loopback port with its own
 * sites, version and reachability, and one cloud server playing Site Manager and the connector for
 * all of them. Tests drive each console through the same controls as a single simulator.
 */
import { stringify } from 'yaml';
import { DEFAULT_SEED } from './demo-site.js';
import { FleetCloud } from './fleet-cloud.js';
import { consoleLabel, FLEET_LIMITS, fleetSites } from './fleet-seed.js';
import { type Simulator, startSimulator } from './server.js';
import type { SimulatorState } from './state.js';
import type { TrafficStep } from './traffic.js';
import type { FaultSpec, RecordedRequest, SimulatorFirewall } from './types.js';

/** How the bot reaches a console: its local address, or only through the cloud connector. */
export type FleetReach = 'local' | 'connector';

/** One console of the fleet; every field has a default that depends on its position. */
export interface FleetConsoleOptions {
  /** A slug, unique in the fleet (default: a city, then `-2`, `-3`… once the cities run out). */
  name?: string;
  /** The Network version played (default: 10.1 on even positions, 9.0 on odd ones). */
  version?: string;
  /** How many sites (default: the fleet's `sites`). */
  sites?: number;
  /** `connector`: no local URL is exposed; the bot must go through the cloud (default `local`). */
  reach?: FleetReach;
  /** Configured but not answering: its port is closed and the cloud reports it disconnected. */
  down?: boolean;
  /** Answers after a delay: `true` for the fleet's `slowMs`, or a number of ms. */
  slow?: boolean | number;
  /** Firewall generation (default zone-based; every fifth console runs legacy rules). */
  firewall?: SimulatorFirewall;
}

/** Options of startFleet. */
export interface FleetOptions {
  /** How many consoles (all defaults), or each one's options. Default 3. */
  consoles?: number | readonly FleetConsoleOptions[];
  /** Sites per console unless a console says otherwise (default 2). */
  sites?: number;
  seed?: number;
  /** Epoch ms the seeded timestamps are relative to (default: now). */
  startedAt?: number;
  /** Delay of a `slow: true` console, in ms (default 1500). */
  slowMs?: number;
  cloud?: {
    /** The Site Manager key the consoles file names (default a fixed demo key). */
    apiKey?: string;
    /** More keys Site Manager accepts, each with its own rate limit. */
    extraApiKeys?: readonly string[];
    /** Requests per rolling minute per key (default 10 000, Site Manager v1's limit). */
    rateLimitPerMinute?: number;
    /** Page size of the list routes when the caller gives none (default 25). */
    defaultPageSize?: number;
  };
}

/** A running fleet console: its identity, reachability and the single simulator's controls. */
export interface FleetConsole {
  readonly name: string;
  readonly index: number;
  /** Site Manager host id; the connector's `{consoleId}`. */
  readonly consoleId: string;
  readonly version: string;
  readonly reach: FleetReach;
  readonly down: boolean;
  /** Delay of every answer, ms (0 unless slow). */
  readonly delayMs: number;
  /** The console's address, or undefined when it is reachable only through the connector. */
  readonly url: string | undefined;
  /** The key its local API accepts. */
  readonly apiKey: string;
  /** Classic short names of its sites, in order (`default` first). */
  readonly siteNames: readonly string[];
  readonly state: SimulatorState;
  readonly requests: RecordedRequest[];
  clearRequests(): void;
  injectFault(spec: FaultSpec): void;
  clearFaults(): void;
  /** Back to the freshly seeded sites. */
  reset(): void;
  expireSessions(): void;
  setDpiEmpty(empty: boolean): void;
  advanceTraffic(step: TrafficStep, site?: string): void;
}

/** The fleet's cloud: Site Manager and the connector. */
export interface FleetCloudHandle {
  readonly url: string;
  readonly apiKey: string;
  readonly requests: RecordedRequest[];
  clearRequests(): void;
  injectFault(spec: FaultSpec): void;
  clearFaults(): void;
  resetRateLimits(): void;
}

/** A consoles file describing the fleet, and the environment holding the secrets it names. */
export interface FleetConsolesFile {
  text: string;
  env: Record<string, string>;
}

/** A running fleet. */
export interface Fleet {
  readonly consoles: readonly FleetConsole[];
  readonly cloud: FleetCloudHandle;
  /** The console named `name`; throws on an unknown name. */
  console(name: string): FleetConsole;
  /** A CONSOLES_FILE for the fleet (secrets by env variable name) and the env map holding them. */
  consolesFile(): FleetConsolesFile;
  /**
   * A CONSOLES_FILE that discovers the fleet from its Site Manager (`discover: site_manager`),
   * adding each console's labels by name, and `include` when given.
   */
  discoveryFile(include?: readonly string[]): FleetConsolesFile;
  close(): Promise<void>;
}

const CITIES = [
  'berlin',
  'munich',
  'hamburg',
  'vienna',
  'zurich',
  'paris',
  'lyon',
  'madrid',
  'lisbon',
  'milan',
  'prague',
  'warsaw',
  'oslo',
  'dublin',
  'boston',
  'denver',
  'austin',
  'toronto',
  'sydney',
  'osaka',
] as const;
const US_LIKE = new Set(['boston', 'denver', 'austin', 'toronto']);
const APAC = new Set(['sydney', 'osaka']);

/** The default name of the console at `index`: a city, then the same cities numbered. */
export function fleetConsoleName(index: number): string {
  const city = CITIES[index % CITIES.length] ?? 'console';
  const round = Math.floor(index / CITIES.length);
  return round === 0 ? city : `${city}-${round + 1}`;
}

function regionOf(name: string): string {
  const city = name.replace(/-\d+$/, '');
  if (US_LIKE.has(city)) return 'us';
  if (APAC.has(city)) return 'apac';
  return 'eu';
}

/** A Site Manager style host id: 64 hex digits, a colon, a number. */
function consoleIdOf(index: number): string {
  const middle = index.toString(16).toUpperCase().padStart(8, '0');
  return `70A74197${middle}${'0'.repeat(48)}:${1_261_206_302 + index}`;
}

function envName(name: string): string {
  return `FLEET_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_API_KEY`;
}

const CLOUD_KEY_ENV = 'FLEET_CLOUD_API_KEY';
const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

interface Planned extends Required<Omit<FleetConsoleOptions, 'slow'>> {
  index: number;
  delayMs: number;
}

function plan(options: FleetOptions): Planned[] {
  const given = options.consoles ?? 3;
  const list: readonly FleetConsoleOptions[] =
    typeof given === 'number' ? Array.from({ length: given }, () => ({})) : given;
  if (list.length < 1 || list.length > FLEET_LIMITS.consoles)
    throw new RangeError(`a fleet has 1 to ${FLEET_LIMITS.consoles} consoles`);
  const seen = new Set<string>();
  return list.map((each, index) => {
    const name = each.name ?? fleetConsoleName(index);
    if (!NAME.test(name)) throw new RangeError(`console name ${JSON.stringify(name)} is not a slug`);
    if (seen.has(name)) throw new RangeError(`two consoles are named ${name}`);
    seen.add(name);
    const slow = each.slow ?? false;
    return {
      index,
      name,
      version: each.version ?? (index % 2 === 0 ? '10.1' : '9.0'),
      sites: each.sites ?? options.sites ?? 2,
      reach: each.reach ?? 'local',
      down: each.down ?? false,
      firewall: each.firewall ?? (index % 5 === 4 ? 'legacy' : 'zone-based'),
      delayMs: slow === true ? (options.slowMs ?? 1500) : slow === false ? 0 : slow,
    };
  });
}

function consoleHandle(planned: Planned, sim: Simulator): FleetConsole {
  return {
    name: planned.name,
    index: planned.index,
    consoleId: sim.consoleId,
    version: planned.version,
    reach: planned.reach,
    down: planned.down,
    delayMs: planned.delayMs,
    url: planned.reach === 'local' ? sim.url : undefined,
    apiKey: sim.apiKey,
    siteNames: sim.state.sites.map((site) => site.name),
    state: sim.state,
    requests: sim.requests,
    clearRequests: () => sim.clearRequests(),
    injectFault: (spec) => sim.injectFault(spec),
    clearFaults: () => sim.clearFaults(),
    reset: () => sim.reset(),
    expireSessions: () => sim.expireSessions(),
    setDpiEmpty: (empty) => sim.setDpiEmpty(empty),
    advanceTraffic: (step, site) => sim.advanceTraffic(step, site),
  };
}

function consolesFileOf(consoles: readonly FleetConsole[], cloud: FleetCloudHandle): FleetConsolesFile {
  const env: Record<string, string> = { [CLOUD_KEY_ENV]: cloud.apiKey };
  const entries = consoles.map((each) => {
    const labels = { customer: consoleLabel(each.name), region: regionOf(each.name) };
    if (each.url === undefined) return { name: each.name, connector: { console_id: each.consoleId }, labels };
    env[envName(each.name)] = each.apiKey;
    return { name: each.name, url: each.url, api_key_env: envName(each.name), labels };
  });
  const [first] = consoles;
  const channels: Record<string, unknown> = {};
  if (first !== undefined) {
    channels.C0FLEET01 = { console: first.name };
    channels.C0FLEET02 = { console: first.name, site: 'default' };
    channels.C0FLEET03 = { label: { region: regionOf(first.name) } };
  }
  const document = { cloud: { url: cloud.url, api_key_env: CLOUD_KEY_ENV }, consoles: entries, channels };
  const text = `# Simulated fleet: ${consoles.length} consoles. Secrets are named here and held in the environment.\n${stringify(document)}`;
  return { text, env };
}

function discoveryFileOf(
  consoles: readonly FleetConsole[],
  cloud: FleetCloudHandle,
  include: readonly string[] | undefined,
): FleetConsolesFile {
  const entries = consoles.map((each) => ({
    name: each.name,
    labels: { customer: consoleLabel(each.name), region: regionOf(each.name) },
  }));
  const document = {
    cloud: { url: cloud.url, api_key_env: CLOUD_KEY_ENV },
    discover: 'site_manager',
    ...(include !== undefined ? { include: [...include] } : {}),
    consoles: entries,
  };
  const text = `# Simulated fleet, discovered from its Site Manager.\n${stringify(document)}`;
  return { text, env: { [CLOUD_KEY_ENV]: cloud.apiKey } };
}

/** Starts a fleet of simulated consoles and the cloud in front of them. */
export async function startFleet(options: FleetOptions = {}): Promise<Fleet> {
  const planned = plan(options);
  const seed = options.seed ?? DEFAULT_SEED;
  const startedAt = options.startedAt ?? Date.now();
  const sims = await Promise.all(
    planned.map((each) =>
      startSimulator({
        apiVersion: each.version,
        apiKey: `sim-fleet-key-${each.name}`,
        consoleId: consoleIdOf(each.index),
        firewall: each.firewall,
        seed: seed + each.index,
        startedAt,
        delayMs: each.delayMs,
        requestLog: false,
        sites: fleetSites({ index: each.index, name: each.name, sites: each.sites }),
      }),
    ),
  );
  // A down console is configured but not answering: its server closes and its port stays closed.
  await Promise.all(sims.map((sim, i) => (planned[i]?.down ? sim.close() : undefined)));
  const consoles = planned.map((each, i) => consoleHandle(each, sims[i] as Simulator));
  const apiKey = options.cloud?.apiKey ?? 'sim-cloud-key-0000';
  const cloud = new FleetCloud({
    apiKeys: [apiKey, ...(options.cloud?.extraApiKeys ?? [])],
    rateLimitPerMinute: options.cloud?.rateLimitPerMinute ?? 10_000,
    defaultPageSize: options.cloud?.defaultPageSize ?? 25,
    consoles: consoles.map((each, i) => ({
      id: each.consoleId,
      name: each.name,
      version: each.version,
      index: each.index,
      down: each.down,
      internalUrl: (sims[i] as Simulator).url,
      localApiKey: each.apiKey,
      sites: () => each.state.sites,
    })),
  });
  await cloud.listen();
  const cloudHandle: FleetCloudHandle = {
    get url() {
      return cloud.url;
    },
    apiKey,
    requests: cloud.requests,
    clearRequests: () => cloud.clearRequests(),
    injectFault: (spec) => cloud.injectFault(spec),
    clearFaults: () => cloud.clearFaults(),
    resetRateLimits: () => cloud.resetRateLimits(),
  };
  const byName = new Map(consoles.map((each) => [each.name, each]));
  return {
    consoles,
    cloud: cloudHandle,
    console(name) {
      const found = byName.get(name);
      if (!found) throw new RangeError(`no console named ${name} in the fleet`);
      return found;
    },
    consolesFile: () => consolesFileOf(consoles, cloudHandle),
    discoveryFile: (include) => discoveryFileOf(consoles, cloudHandle, include),
    async close() {
      await cloud.close();
      await Promise.all(sims.map((sim, i) => (planned[i]?.down ? undefined : sim.close())));
    },
  };
}
