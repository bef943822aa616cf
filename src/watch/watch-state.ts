import type { Approvals } from '../approvals/approvals.js';
import type { WatchConfig } from '../config.js';
import type { Gateway } from '../gateway/types.js';
import type { Logger } from '../log.js';
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
  gateway: Gateway;
  data: KeyValueStore;
  changes: ChangeReader;
  /** Shared leases (PostgreSQL); without them this process is the only watcher. */
  leases?: LeaseStore;
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
export const stateKey = (site: string) => `watch:state:${site}`;
export const ALARM_PREFIX = 'watch:alarm:';

/**
 * How many incidents the watcher of `site` has open (not resolved; one-off events are resolved as
 * they are posted); undefined when it has recorded nothing there.
 */
export async function openIncidentCount(data: KeyValueStore, site: string): Promise<number | undefined> {
  const state = await data.get<WatchState>(stateKey(site));
  return state?.incidents.filter((incident) => incident.resolvedAt === undefined && !incident.event).length;
}
