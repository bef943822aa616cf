import { newFirewallRuleDefaults } from '../demo-policies.js';
import { classicOk, SimError } from '../envelopes.js';
import { retireNetwork } from '../retired-networks.js';
import type { Router } from '../router.js';
import type { FirewallRule, NetworkConf, SimulatorState, SiteState } from '../state.js';
import { validateFirewallRule, validateNetworkConf } from '../validation.js';
import { assignDefaultZone, removeNetworkFromZones } from '../zone-membership.js';
import { bodyObject, type Handler, namedSite, param, type RequestContext } from './context.js';

/** One classic `rest/<name>` collection: list, get, create, merge-update and delete. */
interface ClassicCollection<T extends { _id: string }> {
  name: string;
  items(site: SiteState): T[];
  /** Validates a POST body and returns the stored record (with `_id`, `site_id`…). */
  create(state: SimulatorState, site: SiteState, body: Record<string, unknown>): T;
  /** Validates stored + PUT body merged and returns the replacement record. */
  update(site: SiteState, existing: T, body: Record<string, unknown>): T;
  /** Checks the delete is allowed and cleans up references; the helper removes the record. */
  beforeRemove?(site: SiteState, existing: T): void;
}

const invalidObject = () => new SimError(400, 'api.err.InvalidObject', 'Body must be a JSON object');

// Keys the controller owns; the UI never sends them back, so a PUT cannot change them.
function writable(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(body).filter(
      ([key]) => !['_id', 'site_id', 'external_id'].includes(key) && !key.startsWith('attr_'),
    ),
  );
}

function findOrThrow<T extends { _id: string }>(
  collection: ClassicCollection<T>,
  site: SiteState,
  id: string,
): T {
  const found = collection.items(site).find((item) => item._id === id);
  if (!found) throw new SimError(400, 'api.err.IdInvalid', `No ${collection.name} with _id ${id}`);
  return found;
}

/** Registers GET/POST `rest/<name>` and GET/PUT/DELETE `rest/<name>/{_id}` for a collection. */
export function registerClassicRest<T extends { _id: string }>(
  router: Router<Handler>,
  collection: ClassicCollection<T>,
) {
  const base = `/api/s/:site/rest/${collection.name}`;
  const body = (ctx: RequestContext) => writable(bodyObject(ctx, invalidObject));
  router
    .on(
      'GET',
      base,
      namedSite((_ctx, site) => classicOk(collection.items(site))),
    )
    .on(
      'POST',
      base,
      namedSite((ctx, site) => {
        const record = collection.create(ctx.state, site, body(ctx));
        collection.items(site).push(record);
        return classicOk([record]);
      }),
    )
    .on(
      'GET',
      `${base}/:id`,
      namedSite((ctx, site) => classicOk([findOrThrow(collection, site, param(ctx, 'id'))])),
    )
    .on(
      'PUT',
      `${base}/:id`,
      namedSite((ctx, site) => {
        const existing = findOrThrow(collection, site, param(ctx, 'id'));
        const updated = collection.update(site, existing, body(ctx));
        const items = collection.items(site);
        items.splice(items.indexOf(existing), 1, updated);
        return classicOk([updated]);
      }),
    )
    .on(
      'DELETE',
      `${base}/:id`,
      namedSite((ctx, site) => {
        const existing = findOrThrow(collection, site, param(ctx, 'id'));
        collection.beforeRemove?.(site, existing);
        const items = collection.items(site);
        items.splice(items.indexOf(existing), 1);
        return classicOk([]);
      }),
    );
}

/** A classic `rest/<name>` collection the simulator only serves for reading (`wlanconf`, `portconf`). */
export function registerClassicReadOnly(
  router: Router<Handler>,
  name: string,
  items: (site: SiteState) => { _id: string }[],
) {
  const base = `/api/s/:site/rest/${name}`;
  router
    .on(
      'GET',
      base,
      namedSite((_ctx, site) => classicOk(items(site))),
    )
    .on(
      'GET',
      `${base}/:id`,
      namedSite((ctx, site) => {
        const found = items(site).find((item) => item._id === param(ctx, 'id'));
        if (!found) throw new SimError(400, 'api.err.IdInvalid', `No ${name} with _id ${param(ctx, 'id')}`);
        return classicOk([found]);
      }),
    );
}

/** `rest/networkconf`: networks and VLANs, validated like the controller. */
export const networkconf: ClassicCollection<NetworkConf> = {
  name: 'networkconf',
  items: (site) => site.networks,
  create(state, site, body) {
    validateNetworkConf(body, site.networks);
    const purpose = String(body.purpose);
    const lanDefaults = purpose === 'wan' ? {} : { enabled: true, networkgroup: 'LAN', vlan_enabled: false };
    const network: NetworkConf = {
      ...lanDefaults,
      ...body,
      name: String(body.name),
      purpose,
      _id: state.newObjectId(),
      site_id: site._id,
      external_id: state.newUuid(),
    };
    assignDefaultZone(site, network);
    return network;
  },
  // Deliberately alike: each classic collection merges and validates with its own rules; only the merge step reads the same.
  update(site, existing, body) {
    const merged: NetworkConf = { ...existing, ...body };
    validateNetworkConf(
      merged,
      site.networks.filter((network) => network !== existing),
    );
    return merged;
  },
  beforeRemove(site, existing) {
    // No public capture shows the refusal; a 400 keeps it a rejected change rather than an auth error.
    if (existing.attr_no_delete === true) {
      throw new SimError(400, 'api.err.DeleteNotAllowed', `${existing.name} cannot be deleted`);
    }
    if (existing.external_id) removeNetworkFromZones(site, existing.external_id);
    retireNetwork(site, existing);
  },
};

/**
 * `rest/firewallrule`: legacy firewall rules. A zone-based site lists none and refuses every new
 * one with FirewallRuleIndexOutOfRange, whatever its index (what migrated consoles answer).
 */
export const firewallrule: ClassicCollection<FirewallRule> = {
  name: 'firewallrule',
  items: (site) => site.firewallRules,
  create(state, site, body) {
    if (site.firewall === 'zone-based') {
      throw new SimError(
        400,
        'api.err.FirewallRuleIndexOutOfRange',
        'this site uses the zone-based firewall: traditional rules cannot be created',
      );
    }
    // Checked before defaults are filled, so a networkconf id sent without its type is caught.
    validateFirewallRule(body, site.firewallRules);
    return {
      ...newFirewallRuleDefaults(site._id, body.ruleset),
      ...body,
      name: String(body.name),
      ruleset: String(body.ruleset),
      action: String(body.action),
      rule_index: body.rule_index as number | string,
      _id: state.newObjectId(),
      site_id: site._id,
    };
  },
  update(site, existing, body) {
    const merged: FirewallRule = { ...existing, ...body };
    validateFirewallRule(
      merged,
      site.firewallRules.filter((rule) => rule !== existing),
    );
    return merged;
  },
};
