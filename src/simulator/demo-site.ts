import { demoClients } from './demo-clients.js';
import { demoDevices } from './demo-devices.js';
import { demoDpi } from './demo-dpi.js';
import { DEMO_ACL_RULES, DEMO_NOW, DEMO_SITE } from './demo-ids.js';
import { demoNetworks, demoPortProfiles, demoWlans } from './demo-networks.js';
import {
  demoAclRules,
  demoFirewallPolicies,
  demoFirewallRules,
  demoTrafficMatchingLists,
  demoTrafficRoutes,
  demoTrafficRules,
  demoZones,
} from './demo-policies.js';
import { demoLiveActionState } from './live-actions.js';
import { createPrng } from './prng.js';
import type { SiteState } from './state.js';
import type { SimulatorFirewall } from './types.js';

/** The default demo seed (`npm run simulator` and `startSimulator()` without `seed`). */
export const DEFAULT_SEED = 20_240_611;

/**
 * The seeded demo: one site, `default`. Identities are fixed (see demo-ids.ts); the seed drives
 * counters only. The generator is consumed in a fixed order, so the same seed gives the same state.
 * A zone-based site has zones and policies and no traditional rules; a legacy one the reverse.
 */
export function createDemoSites(
  seed: number,
  firewall: SimulatorFirewall = 'zone-based',
  startedAt: number = DEMO_NOW,
): SiteState[] {
  const zoneBased = firewall === 'zone-based';
  const rng = createPrng(seed);
  // Generated around DEMO_NOW, then moved to the start: the seed alone fixes every duration.
  const shift = startedAt - DEMO_NOW;
  const devices = demoDevices(rng).map((d) => shifted(d, DEVICE_TIMES, shift));
  const clients = demoClients(rng).map((c) => shifted(c, CLIENT_TIMES, shift));
  const dpi = demoDpi(rng);
  dpi.lastUpdated += shift;
  // Cloned so no two records (or two simulators) share a nested array from a module constant.
  return structuredClone<SiteState[]>([
    {
      _id: DEMO_SITE.id,
      name: DEMO_SITE.name,
      desc: DEMO_SITE.desc,
      uuid: DEMO_SITE.uuid,
      networks: demoNetworks(),
      devices,
      clients,
      firewall,
      firewallRules: zoneBased ? [] : demoFirewallRules(),
      zones: zoneBased ? demoZones() : [],
      firewallPolicies: zoneBased ? demoFirewallPolicies() : [],
      aclRules: demoAclRules(),
      aclOrdering: Object.values(DEMO_ACL_RULES),
      trafficMatchingLists: demoTrafficMatchingLists(),
      trafficRules: demoTrafficRules(),
      trafficRoutes: demoTrafficRoutes(),
      wlans: demoWlans(),
      portProfiles: demoPortProfiles(),
      dpi,
      ...demoLiveActionState(startedAt * 1000),
    },
  ]);
}

// Epoch-second fields of the seeded records: moved together, so a client connected `uptime`
// seconds before the start says so in `assoc_time`, and `last_seen` is seconds before the start.
const DEVICE_TIMES = ['last_seen'] as const;
const CLIENT_TIMES = ['first_seen', 'last_seen', 'assoc_time', 'latest_assoc_time'] as const;

function shifted<T extends object>(record: T, fields: readonly string[], shift: number): T {
  if (shift === 0) return record;
  const moved = { ...record } as Record<string, unknown>;
  for (const field of fields) {
    const value = moved[field];
    if (typeof value === 'number') moved[field] = value + shift;
  }
  return moved as T;
}
