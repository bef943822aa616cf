import catalogue from '../../data/dpi-catalogue.json' with { type: 'json' };
import { json } from '../envelopes.js';
import type { Router } from '../router.js';
import type { Handler } from './context.js';
import { listPage } from './integration-common.js';

/** The version the simulated Network application reports. */
export const APPLICATION_VERSION = '10.1.68';

// The network view and routes live in integration-networks.ts; re-exported for the zone and ACL routes.
export {
  integrationNetwork,
  integrationNetworkOverview,
  integrationNetworks,
} from './integration-networks.js';

const categories = Object.entries(catalogue.categories).map(([id, name]) => ({ id: Number(id), name }));
const applications = Object.entries(catalogue.applications).map(([id, name]) => ({ id: Number(id), name }));

/** Registers `info`, `sites` and the global DPI catalogue (site `networks`: integration-networks.ts). */
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
    .on('GET', `${base}/dpi/categories`, (ctx) => listPage(ctx, categories))
    .on('GET', `${base}/dpi/applications`, (ctx) => listPage(ctx, applications));
}
