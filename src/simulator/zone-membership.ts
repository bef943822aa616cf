import type { FirewallZone, NetworkConf, SiteState } from './state.js';

/** The zone holding a network (by Integration UUID), other than `except`. */
export function zoneOfNetwork(
  site: SiteState,
  networkUuid: string,
  except?: FirewallZone,
): FirewallZone | undefined {
  return site.zones.find((zone) => zone !== except && zone.networkIds.includes(networkUuid));
}

/** Drops a network from every zone (the network was deleted). */
export function removeNetworkFromZones(site: SiteState, networkUuid: string): void {
  for (const zone of site.zones) zone.networkIds = zone.networkIds.filter((id) => id !== networkUuid);
}

/**
 * Zone-based consoles put a new gateway network into a system zone: corporate → Internal,
 * guest → Hotspot. VLAN-only networks have no gateway interface, so they join no zone.
 */
export function assignDefaultZone(site: SiteState, network: NetworkConf): void {
  const zoneName =
    network.purpose === 'corporate' ? 'Internal' : network.purpose === 'guest' ? 'Hotspot' : undefined;
  const zone = site.zones.find(
    (candidate) => candidate.name === zoneName && candidate.metadata.origin === 'SYSTEM_DEFINED',
  );
  if (zone && network.external_id && !zoneOfNetwork(site, network.external_id))
    zone.networkIds.push(network.external_id);
}
