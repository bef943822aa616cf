/**
 * What is wrong at a site right now, by name: devices not connected and WAN links down, from one
 * classic stat/device read. A rollout's health watch and the fleet status both read it.
 */
import { z } from 'zod';
import type { Gateway } from '../../gateway/types.js';

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
  /** How many devices the site has adopted. */
  devices?: number;
  /** The read failed: the site's health is unknown (never taken for healthy). */
  error?: string;
}

/** Reads one site's devices: those not connected, and WAN links enabled but down. */
export async function readSiteHealth(gateway: Gateway, site: string): Promise<SiteHealth> {
  try {
    const { items } = await gateway.classicRead(site, 'stat/device', deviceSchema);
    const name = (d: z.infer<typeof deviceSchema>) => d.name ?? d.mac;
    const wanDown = items.flatMap((d) =>
      (['wan1', 'wan2'] as const)
        .filter((port) => d[port]?.enable !== false && d[port]?.up === false)
        .map((port) => `${name(d)} ${port}`),
    );
    // State 1 is connected; anything else (disconnected, adopting, upgrading) counts as not there.
    return { offline: items.filter((d) => d.state !== 1).map(name), wanDown, devices: items.length };
  } catch (error) {
    return { offline: [], wanDown: [], error: error instanceof Error ? error.message : String(error) };
  }
}
