import type { Approvals } from '../approvals/approvals.js';
import type { WatchConfig } from '../config.js';
import type { Gateway } from '../gateway/types.js';
import type { Logger } from '../log.js';
import { stateKey } from '../model/watch-keys.js';
import type { ChangeReader, KeyValueStore, LeaseStore } from '../store/types.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import type { ObservedState } from './observe.js';
import type { Incident, WatchNotifier } from './types.js';

// What the watcher's parts (incidents, drift, alarms, digest) share: how they are built, and the
// store keys more than one of them reads.

/** What the watcher is built from (app.ts wires it; tests pass short intervals and a clock). */
export interface WatcherOptions {
  config: WatchConfig;
  site: string;
  /**
   * The console watched, when a fleet is (CONSOLES_FILE): named on every incident, drift and
   * digest, and part of the store keys, since two consoles may both have a site \`default\`. Unset:
   * the one GATEWAY_* console, with the keys and words of a bot without a fleet.
   */
  console?: string;
  /** The console's gateway; read at each use, so a fleet may close and rebuild an idle one. */
  gateway: Gateway;
  data: KeyValueStore;
  changes: ChangeReader;
  /** Shared leases (PostgreSQL); without them this process is the only watcher. */
  leases?: LeaseStore;
  /** The lease's name [\`watch\`]: a fleet's console name, in its consoles' lease table. */
  leaseName?: string;
  /** Whether this watcher posts its site's digest on DIGEST_CRON [true]; a fleet posts one for all. */
  ownDigest?: boolean;
  /** How long after start the first poll runs [0]: consoles of a fleet are spread over the interval. */
  offsetMs?: number;
  /** This replica, as the lease names it. */
  holder: string;
  notifier: WatchNotifier;
  logger: Logger;
  /** Proposes Reverts; without it (no Slack bot in this process) Revert is refused. */
  approvals?: Approvals;
  registry: ToolRegistry;
  context: ToolContext;
  now?: () => number;
}

/** The incidents and what the last poll saw, kept in the store so another replica carries on. */
export interface WatchState {
  observed: ObservedState;
  incidents: Incident[];
}

export const DAY = 24 * 3_600_000;
// The keys live in model/ (the rollout's health watch reads them too); the watcher's parts import them from here.
export { scopeOf, stateKey } from '../model/watch-keys.js';
export const ALARM_PREFIX = 'watch:alarm:';

/**
 * How many incidents the watcher of `site` has open (not resolved; one-off events are resolved as
 * they are posted); undefined when it has recorded nothing there.
 */
export async function openIncidentCount(data: KeyValueStore, site: string): Promise<number | undefined> {
  const state = await data.get<WatchState>(stateKey(site));
  return state?.incidents.filter((incident) => incident.resolvedAt === undefined && !incident.event).length;
}
