import { z } from 'zod';
import { INTEGRATION_CODES } from '../envelopes.js';
import type { FirewallZone, SiteState } from '../state.js';
import { zoneOfNetwork } from '../zone-membership.js';
import {
  badRequest,
  type IntegrationResource,
  parseBody,
  removeFrom,
  replaceIn,
} from './integration-common.js';
import { integrationNetworks } from './integration-core.js';

/** Zone error codes (simulator choices; the real codes are not documented). */
export const ZONE_CODES = {
  nameTaken: 'api.firewall-zone.name-already-exists',
  networkInOtherZone: 'api.firewall-zone.network-already-assigned',
  notConfigurable: 'api.firewall-zone.not-configurable',
  nameNotEditable: 'api.firewall-zone.name-not-editable',
  systemDefined: 'api.firewall-zone.system-defined',
  /** Observed on a legacy-firewall console (enuno/unifi-mcp-server PR #134, Network 10.5.67). */
  notConfigured: 'api.firewall.zone-based-firewall-not-configured',
} as const;

// Both fields required on POST and PUT (PUT is a full replace); no `description` exists.
const zoneBody = z.strictObject({
  name: z.string().min(1).max(128),
  networkIds: z.array(z.guid()),
});

function checkName(site: SiteState, name: string, self?: FirewallZone): void {
  const taken = site.zones.find((zone) => zone !== self && zone.name.toLowerCase() === name.toLowerCase());
  if (taken) throw badRequest(`A firewall zone named ${taken.name} already exists`, ZONE_CODES.nameTaken);
}

// The simulator rejects a network that sits in another zone instead of moving it silently:
// the bot has to take it out of the old zone first, and its preview says so.
function checkNetworks(site: SiteState, networkIds: readonly string[], self?: FirewallZone): void {
  if (new Set(networkIds).size !== networkIds.length) throw badRequest('networkIds contains duplicates');
  const known = integrationNetworks(site);
  for (const id of networkIds) {
    const network = known.find((candidate) => candidate.external_id === id);
    if (!network) throw badRequest(`Network ${id} not found`, INTEGRATION_CODES.networkNotFound);
    const other = zoneOfNetwork(site, id, self);
    if (other) {
      throw badRequest(
        `Network ${network.name} (${id}) is already in firewall zone ${other.name}; remove it from that zone first`,
        ZONE_CODES.networkInOtherZone,
      );
    }
  }
}

// Deliberately alike: IntegrationResource declarations share the resource framework's shape; each has its own view and rules.
/** Integration `firewall/zones`: system zones are protected; a network sits in at most one zone. */
export const firewallZones: IntegrationResource<FirewallZone> = {
  path: 'firewall/zones',
  label: 'Firewall zone',
  items: (site) => site.zones,
  view: (_site, zone) => ({
    id: zone.id,
    name: zone.name,
    networkIds: [...zone.networkIds],
    metadata: { ...zone.metadata },
  }),
  create(ctx, site) {
    const body = parseBody(zoneBody, ctx);
    checkName(site, body.name);
    checkNetworks(site, body.networkIds);
    const zone: FirewallZone = {
      id: ctx.state.newUuid(),
      _id: ctx.state.newObjectId(),
      zone_key: null,
      name: body.name,
      networkIds: body.networkIds,
      metadata: { origin: 'USER_DEFINED' },
    };
    site.zones.push(zone);
    return zone;
  },
  replace(ctx, site, existing) {
    const body = parseBody(zoneBody, ctx);
    if (existing.metadata.origin === 'SYSTEM_DEFINED') {
      if (existing.metadata.configurable !== true) {
        throw badRequest(`System zone ${existing.name} cannot be changed`, ZONE_CODES.notConfigurable);
      }
      if (body.name !== existing.name) {
        throw badRequest(`System zone ${existing.name} cannot be renamed`, ZONE_CODES.nameNotEditable);
      }
    }
    checkName(site, body.name, existing);
    checkNetworks(site, body.networkIds, existing);
    return replaceIn(site.zones, existing, { ...existing, name: body.name, networkIds: body.networkIds });
  },
  remove(site, existing) {
    if (existing.metadata.origin === 'SYSTEM_DEFINED') {
      throw badRequest(`System zone ${existing.name} cannot be deleted`, ZONE_CODES.systemDefined);
    }
    removeFrom(site.zones, existing);
    // Policies between a deleted zone and another go with it (a simulator choice; not captured).
    site.firewallPolicies = site.firewallPolicies.filter(
      (policy) => policy.source.zone_id !== existing._id && policy.destination.zone_id !== existing._id,
    );
  },
  guard(site) {
    if (site.firewall === 'legacy') {
      throw badRequest('Zone-based firewall is not configured for this site', ZONE_CODES.notConfigured);
    }
  },
};
