/**
 * A rollout's health watch: what each written site looks like (devices offline, WAN links down)
 * before its wave and during the soak after it; anything new is a regression that halts the
 * rollout. Read through the tools' context, one console's gateway per site.
 */
import type { RolloutSite } from '../model/change-request.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import { readSiteHealth as readHealthOf, type SiteHealth } from '../tools/devices/site-health.js';
import { siteName } from './rollout.js';

export type { SiteHealth };

/** Reads one written site's devices on its console: those not connected, and WAN links down. */
export function readSiteHealth(context: ToolContext, where: RolloutSite): Promise<SiteHealth> {
  const gateway = context.consoles?.fleet ? context.consoles.gateway(where.console) : context.gateway;
  return readHealthOf(gateway, where.site);
}

/**
 * What got worse at a site since `before`: devices newly offline, WAN links newly down, or a
 * site that can no longer be read. Undefined when nothing did.
 */
export function healthRegression(
  where: RolloutSite,
  before: SiteHealth,
  now: SiteHealth,
): string | undefined {
  if (now.error !== undefined && before.error === undefined)
    return `${siteName(where)} cannot be read any more: ${now.error}`;
  const offline = now.offline.filter((d) => !before.offline.includes(d));
  const wan = now.wanDown.filter((w) => !before.wanDown.includes(w));
  const parts = [
    ...(offline.length > 0
      ? [`${offline.length} device(s) went offline (${offline.slice(0, 5).join(', ')})`]
      : []),
    ...(wan.length > 0 ? [`WAN down (${wan.slice(0, 5).join(', ')})`] : []),
  ];
  return parts.length > 0 ? `${siteName(where)}: ${parts.join('; ')}` : undefined;
}
