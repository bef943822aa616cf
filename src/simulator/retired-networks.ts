import type { NetworkConf, SiteState } from './state.js';

/**
 * The Integration UUIDs of deleted networks, by classic `_id`. Policies keep pointing at a deleted
 * network (the controller leaves the reference dangling); their v2 records name it by classic `_id`,
 * and the official view must still show the UUID it had. Kept beside the state, not in it: a reset
 * makes new site objects, and with them forgets.
 */
const retired = new WeakMap<SiteState, Map<string, string>>();

/** Remembers a network's UUID as it is deleted. */
export function retireNetwork(site: SiteState, network: NetworkConf): void {
  if (!network.external_id) return;
  const known = retired.get(site) ?? new Map<string, string>();
  known.set(network._id, network.external_id);
  retired.set(site, known);
}

/** The UUID of a classic network id, of a network that exists or was deleted. */
export function networkUuidOf(site: SiteState, classicId: string): string | undefined {
  return (
    site.networks.find((network) => network._id === classicId)?.external_id ??
    retired.get(site)?.get(classicId)
  );
}
