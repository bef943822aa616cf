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
export function createDemoSites(seed: number, firewall: SimulatorFirewall = 'zone-based'): SiteState[] {
  const zoneBased = firewall === 'zone-based';
  const rng = createPrng(seed);
  const devices = demoDevices(rng);
  const clients = demoClients(rng);
  const dpi = demoDpi(rng);
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
      ...demoLiveActionState(DEMO_NOW * 1000),
    },
  ]);
}
