/**
 * A rollout's health watch: what each written site looks like (devices offline, WAN links down, and
 * the alerts the watcher has open there) before its wave and during the soak after it; anything new
 * is a regression that halts the rollout. Devices are read through the tools' context, one
 * console's gateway per site; alerts from the watcher's state in the bot's data.
 */
import { z } from 'zod';
import type { RolloutSite } from '../model/change-request.js';
import { scopeOf, stateKey } from '../model/watch-keys.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import { readSiteHealth as readHealthOf, type SiteHealth } from '../tools/devices/site-health.js';
import { siteName } from './rollout.js';

/** An alert the watcher has open at a site: what identifies it while it lasts, and its words. */
export interface OpenAlert {
  /** The watcher's dedup key (`device_offline:<mac>`): the same trouble while it lasts. */
  key: string;
  subject: string;
  kind: string;
}

/** A written site's health as a rollout watches it. */
export interface RolloutHealth extends SiteHealth {
  /** The watcher's open alerts there; undefined when no watcher records the site (devices and WAN only). */
  alerts?: OpenAlert[];
}

// The watcher's own record, read loosely: only what the comparison needs, a malformed incident skipped.
const incidentSchema = z.looseObject({
  key: z.string().min(1),
  kind: z.string(),
  subject: z.string(),
  resolvedAt: z.number().optional(),
  event: z.boolean().optional(),
});
const stateSchema = z.looseObject({ incidents: z.array(z.unknown()) });

/**
 * The alerts the watcher of `where` keeps open (not resolved; one-off events are resolved as they
 * are posted), or undefined when it has recorded nothing there: nobody watches the site.
 */
export async function readOpenAlerts(
  context: ToolContext,
  where: RolloutSite,
): Promise<OpenAlert[] | undefined> {
  // The watcher keys a fleet's sites (CONSOLES_FILE, even of one console) by console and site, the
  // one GATEWAY_* console's by the site alone: the same rule app.ts wires the watcher with.
  const fromFile = context.consoles?.list().some((entry) => entry.via !== 'single') ?? false;
  const key = stateKey(fromFile ? scopeOf(where) : where.site);
  let stored: unknown;
  try {
    stored = await context.store.get(key);
  } catch (error) {
    context.logger.warn({ err: error, key }, 'the watcher state could not be read; alerts not compared');
    return undefined;
  }
  const state = stateSchema.safeParse(stored);
  if (!state.success) return undefined;
  return state.data.incidents.flatMap((raw) => {
    const incident = incidentSchema.safeParse(raw);
    if (!incident.success) return [];
    const { key: id, kind, subject, resolvedAt, event } = incident.data;
    return resolvedAt === undefined && event !== true ? [{ key: id, kind, subject }] : [];
  });
}

/** Reads one written site: its devices on its console (not connected, WAN down) and its open alerts. */
export async function readSiteHealth(context: ToolContext, where: RolloutSite): Promise<RolloutHealth> {
  const gateway = context.consoles?.fleet ? context.consoles.gateway(where.console) : context.gateway;
  const [devices, alerts] = await Promise.all([
    readHealthOf(gateway, where.site),
    readOpenAlerts(context, where),
  ]);
  return alerts === undefined ? devices : { ...devices, alerts };
}

/** At most `max` names, then how many more. */
const some = (names: readonly string[], max: number): string =>
  names.length > max ? `${names.slice(0, max).join(', ')} and ${names.length - max} more` : names.join(', ');

/**
 * What got worse at a site since `before`: devices newly offline, WAN links newly down, alerts the
 * watcher opened that were not open before, or a site that can no longer be read. Alerts are
 * compared only where the watcher recorded the site at both reads. Undefined when nothing did.
 */
export function healthRegression(
  where: RolloutSite,
  before: RolloutHealth,
  now: RolloutHealth,
): string | undefined {
  if (now.error !== undefined && before.error === undefined)
    return `${siteName(where)} cannot be read any more: ${now.error}`;
  const offline = now.offline.filter((d) => !before.offline.includes(d));
  const wan = now.wanDown.filter((w) => !before.wanDown.includes(w));
  const open = new Set(before.alerts?.map((alert) => alert.key));
  const alerts =
    before.alerts === undefined ? [] : (now.alerts ?? []).filter((alert) => !open.has(alert.key));
  const parts = [
    ...(offline.length > 0 ? [`${offline.length} device(s) went offline (${some(offline, 5)})`] : []),
    ...(wan.length > 0 ? [`WAN down (${some(wan, 5)})`] : []),
    ...(alerts.length > 0
      ? [
          `new alert: ${some(
            alerts.map((alert) => `${alert.subject} (${alert.kind})`),
            3,
          )}`,
        ]
      : []),
  ];
  return parts.length > 0 ? `${siteName(where)}: ${parts.join('; ')}` : undefined;
}

/** The sites among `health` whose alerts nobody watches, for the soak's and the halt's words. */
export function alertsNotWatched(health: ReadonlyMap<string, RolloutHealth>): string | undefined {
  const sites = [...health].filter(([, read]) => read.alerts === undefined).map(([name]) => name);
  return sites.length > 0 ? `alerts are not watched at ${some(sites, 5)}` : undefined;
}
