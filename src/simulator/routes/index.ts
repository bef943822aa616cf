import { DEFAULT_API_VERSION, type OfficialExtra, reportedVersion, simulatorOffers } from '../api-version.js';
import { Router } from '../router.js';
import { registerClassicCommands } from './classic-cmd.js';
import { firewallrule, networkconf, registerClassicReadOnly, registerClassicRest } from './classic-rest.js';
import { registerClassicSites, registerClassicStat } from './classic-stat.js';
import type { Handler } from './context.js';
import { aclRules, registerAclOrdering } from './integration-acl.js';
import { registerIntegrationActions } from './integration-actions.js';
import { registerIntegrationCrud } from './integration-common.js';
import { registerIntegrationCore } from './integration-core.js';
import { trafficMatchingLists } from './integration-lists.js';
import { registerIntegrationLive } from './integration-live.js';
import { registerIntegrationNetworks } from './integration-networks.js';
import { registerIntegrationPolicies } from './integration-policies.js';
import { registerIntegrationWifi } from './integration-wifi.js';
import { firewallZones } from './integration-zones.js';
import { registerV2 } from './v2.js';
import { registerV2Firewall } from './v2-firewall.js';

/** The Network application's routes, one router per API family (paths without the deployment prefix). */
export interface NetworkRouters {
  classic: Router<Handler>;
  v2: Router<Handler>;
  integration: Router<Handler>;
}

/**
 * The Integration router of a console playing `apiVersion`: routes of operations that version
 * lacks are left out, so they answer 404 like a real older console (src/simulator/api-version.ts).
 */
class VersionedRouter extends Router<Handler> {
  constructor(
    private readonly apiVersion: string,
    private readonly also: readonly OfficialExtra[],
  ) {
    super();
  }

  override on(method: string, pattern: string, handler: Handler): this {
    if (simulatorOffers(this.apiVersion, pattern, this.also)) super.on(method, pattern, handler);
    return this;
  }
}

/** Builds the route tables once per simulator; `also`: official operations served on any version. */
export function networkRouters(
  apiVersion: string = DEFAULT_API_VERSION,
  also: readonly OfficialExtra[] = [],
): NetworkRouters {
  const classic = new Router<Handler>();
  registerClassicSites(classic);
  registerClassicStat(classic, reportedVersion(apiVersion));
  registerClassicRest(classic, networkconf);
  registerClassicRest(classic, firewallrule);
  registerClassicReadOnly(classic, 'wlanconf', (site) => site.wlans);
  registerClassicReadOnly(classic, 'portconf', (site) => site.portProfiles);
  registerClassicCommands(classic);

  const v2 = new Router<Handler>();
  registerV2(v2);
  registerV2Firewall(v2);

  const integration = new VersionedRouter(apiVersion, also);
  registerIntegrationCore(integration, reportedVersion(apiVersion));
  registerIntegrationNetworks(integration);
  registerIntegrationCrud(integration, firewallZones);
  registerIntegrationPolicies(integration);
  // The literal `ordering` path must win over `acl-rules/{id}`.
  registerAclOrdering(integration);
  registerIntegrationCrud(integration, aclRules);
  registerIntegrationCrud(integration, trafficMatchingLists);
  registerIntegrationLive(integration);
  registerIntegrationActions(integration);
  registerIntegrationWifi(integration);

  return { classic, v2, integration };
}
