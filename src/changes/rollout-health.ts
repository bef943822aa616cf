/**
 * A rollout's health watch: what each written site looks like (devices offline, WAN links down)
 * before its wave and during the soak after it; anything new is a regression that halts the
 * rollout. Read through the tools' context, one console's gateway per site.
 */
import { z } from 'zod';
import type { RolloutSite } from '../model/change-request.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import { siteName } from './rollout.js';

const loose = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);
const wanSchema = z.looseObject({ up: loose(z.boolean()), enable: loose(z.boolean()) });
const deviceSchema = z.looseObject({
  mac: z.string().min(1),
  name: loose(z.string()),
  state: loose(z.coerce.number()),
  wan1: loose(wanSchema),
  wan2: loose(wanSchema),
});

/** One site's health as read now: what is wrong there, by name. */
export interface SiteHealth {
  offline: string[];
  wanDown: string[];
  /** The read failed: the site cannot be watched (never taken for healthy). */
  error?: string;
}

/** Reads one site's devices (stat/device): those not connected, and WAN links down. */
export async function readSiteHealth(context: ToolContext, where: RolloutSite): Promise<SiteHealth> {
  const gateway = context.consoles?.fleet ? context.consoles.gateway(where.console) : context.gateway;
  try {
    const { items } = await gateway.classicRead(where.site, 'stat/device', deviceSchema);
    const name = (d: z.infer<typeof deviceSchema>) => d.name ?? d.mac;
    const wanDown = items.flatMap((d) =>
      (['wan1', 'wan2'] as const)
        .filter((port) => d[port]?.enable !== false && d[port]?.up === false)
        .map((port) => `${name(d)} ${port}`),
    );
    // State 1 is connected; anything else (disconnected, adopting, upgrading) counts as not there.
    return { offline: items.filter((d) => d.state !== 1).map(name), wanDown };
  } catch (error) {
    return { offline: [], wanDown: [], error: error instanceof Error ? error.message : String(error) };
  }
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
