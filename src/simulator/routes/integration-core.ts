import catalogue from '../../data/dpi-catalogue.json' with { type: 'json' };
import { json } from '../envelopes.js';
import type { Router } from '../router.js';
import type { NetworkConf, SiteState } from '../state.js';
import { isTagged, vlanNumber } from '../validation.js';
import { type Handler, param, uuidSite } from './context.js';
import { listPage, notFound } from './integration-common.js';

/** The version the simulated Network application reports. */
export const APPLICATION_VERSION = '10.1.68';

/** A networkconf record as Integration `/networks` shows it. */
export function integrationNetwork(network: NetworkConf & { external_id: string }) {
  return {
    management: network.purpose === 'vlan-only' ? 'UNMANAGED' : 'GATEWAY',
    id: network.external_id,
    name: network.name,
    enabled: network.enabled !== false,
    // vlanId is 1 for the untagged default network and the tag otherwise.
    vlanId: isTagged(network) ? (vlanNumber(network.vlan) ?? 1) : 1,
    metadata: network.attr_no_delete
      ? { origin: 'SYSTEM_DEFINED', configurable: true }
      : { origin: 'USER_DEFINED' },
    default: network.attr_hidden_id === 'LAN',
  };
}

/** Networks the Integration API lists: everything but WANs (which it does not return). */
export function integrationNetworks(site: SiteState): (NetworkConf & { external_id: string })[] {
  return site.networks.filter(
    (network): network is NetworkConf & { external_id: string } =>
      network.purpose !== 'wan' && typeof network.external_id === 'string',
  );
}

const categories = Object.entries(catalogue.categories).map(([id, name]) => ({ id: Number(id), name }));
const applications = Object.entries(catalogue.applications).map(([id, name]) => ({ id: Number(id), name }));

/** Registers `info`, `sites`, site `networks` and the global DPI catalogue. */
export function registerIntegrationCore(
  router: Router<Handler>,
  version: string = APPLICATION_VERSION,
): void {
  const base = '/integration/v1';
  router
    .on('GET', `${base}/info`, () => json({ applicationVersion: version }))
    .on('GET', `${base}/sites`, (ctx) =>
      listPage(
        ctx,
        ctx.state.sites.map((site) => ({ id: site.uuid, internalReference: site.name, name: site.desc })),
      ),
    )
    .on(
      'GET',
      `${base}/sites/:siteId/networks`,
      uuidSite((ctx, site) => listPage(ctx, integrationNetworks(site).map(integrationNetwork))),
    )
    .on(
      'GET',
      `${base}/sites/:siteId/networks/:id`,
      uuidSite((ctx, site) => {
        const network = integrationNetworks(site).find(
          (candidate) => candidate.external_id === param(ctx, 'id'),
        );
        if (!network) throw notFound('Network', param(ctx, 'id'));
        return json(integrationNetwork(network));
      }),
    )
    .on('GET', `${base}/dpi/categories`, (ctx) => listPage(ctx, categories))
    .on('GET', `${base}/dpi/applications`, (ctx) => listPage(ctx, applications));
}
