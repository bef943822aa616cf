import { GatewayRejectedError, isBotError, NotSupportedError } from '../../errors.js';
import type { Gateway } from '../../gateway/types.js';
import { aclRuleRecordSchema } from '../../records/acl-rule-record.js';
import {
  firewallPolicyRecordSchema,
  officialPolicyRecordSchema,
} from '../../records/firewall-policy-record.js';
import { firewallRuleRecordSchema } from '../../records/firewall-rule-record.js';
import { networkReferencesSchema } from '../../records/integration-network-record.js';
import type { NetworkRecord } from '../../records/network-record.js';
import { portProfileRecordSchema } from '../../records/port-profile-record.js';
import { trafficRouteRecordSchema } from '../../records/traffic-route-record.js';
import { trafficRuleRecordSchema } from '../../records/traffic-rule-record.js';
import { wlanRecordSchema } from '../../records/wlan-record.js';
import { zoneRecordSchema } from '../../records/zone-record.js';
import { type FirewallGeneration, firewallGeneration } from '../core/firewall-generation.js';
import { officialWifiSchema } from '../wifi/official-wifi-model.js';
import { classicIdOf } from './network-source.js';
import { officialReferences } from './official-network-model.js';

/**
 * One object that points at a network: what it is, its name and id, which of its fields points,
 * and where the admin finds it (the tool that lists it, or UniFi Network when no tool manages it).
 */
export interface NetworkReference {
  kind: string;
  name: string;
  id: string;
  via: string;
  listed_by: string;
  /** What is true of it once the network is deleted (a preview states only what will be true). */
  after_delete: string;
}

/** What `find` returns: a reference without `listed_by` and `after_delete`, which come from its kind. */
type FoundReference = Omit<NetworkReference, 'listed_by' | 'after_delete'>;

/** What the controller does to a reference when the network is deleted. */
export type AfterDelete = 'dangles' | 'removed';

export const AFTER_DELETE_TEXT: Record<AfterDelete, string> = {
  dangles: 'unchanged: it points at a network that no longer exists',
  removed: 'the controller takes the network out of it',
};

/** The network looked for, in both id spaces (`uuid` is the networkconf `external_id`, when it has one). */
export interface ReferencedNetwork {
  id: string;
  uuid: string | undefined;
  name: string;
}

/**
 * One kind of object that may point at a network. A kind that cannot be read (no Integration API
 * key, an older controller) fails on its own: the others are still checked, and the failure is
 * reported, never taken for "nothing points here".
 */
export interface ReferenceKind {
  /** Plural, as in "could not check ACL rules: …". */
  label: string;
  /**
   * The firewall generation the kind exists on (unset: both). On a console of the other one it is
   * not asked at all: a zone-based console answers the legacy rule list with `[]`, which is no
   * evidence that nothing points at the network.
   */
  firewall?: FirewallGeneration;
  /** Where the admin finds an object of this kind: the tool that lists it, or UniFi Network. */
  listedBy: string;
  /** What the controller does to it when the network is deleted (tested against the simulator). */
  afterDelete: AfterDelete;
  find(gateway: Gateway, site: string, network: ReferencedNetwork): Promise<FoundReference[]>;
}

// Kinds no tool of the bot manages are changed in the controller's own UI.
const IN_UNIFI_NETWORK = (kinds: string) => `UniFi Network (no tool manages ${kinds})`;

// Live state: a delete preview is recomputed at approval and compared (drift).
const FRESH = { fresh: true };

/**
 * The items of a kind that point at the network (`wanted`): for each, the fields whose value is
 * the network (or a list holding it), named as `fields` names them, in their order.
 */
function pointingAt<T>(
  items: readonly T[],
  kind: string,
  wanted: string,
  identity: (item: T) => { id: string; name: string },
  fields: (item: T) => [via: string, value: unknown][],
): FoundReference[] {
  return items.flatMap((item) => {
    const vias = fields(item).flatMap(([via, value]) =>
      value === wanted || (Array.isArray(value) && value.includes(wanted)) ? [via] : [],
    );
    if (vias.length === 0) return [];
    const { id, name } = identity(item);
    return [{ kind, name, id, via: vias.join(', ') }];
  });
}

function uuidOf(network: ReferencedNetwork): string {
  if (!network.uuid) {
    throw new NotSupportedError(`${network.name} has no Integration API id to look it up by`);
  }
  return network.uuid;
}

// Deliberately alike: each reference kind is a declaration (its read, identity and fields); the shared steps are pointingAt.
/** Legacy firewall rules: `src_networkconf_id` / `dst_networkconf_id` (classic `_id`). */
export const firewallRuleReferences: ReferenceKind = {
  label: 'firewall rules',
  firewall: 'legacy',
  listedBy: 'list_firewall_rules',
  afterDelete: 'dangles',
  async find(gateway, site, network) {
    const rules = await gateway.classicRead(site, 'rest/firewallrule', firewallRuleRecordSchema, FRESH);
    return pointingAt(
      rules.items,
      'firewall rule',
      network.id,
      (r) => ({ id: r._id, name: r.name }),
      (r) => [
        ['source', r.src_networkconf_id],
        ['destination', r.dst_networkconf_id],
      ],
    );
  },
};

/** Zone-based firewall policies: a side that matches networks (`network_ids`, classic `_id`). */
export const firewallPolicyReferences: ReferenceKind = {
  label: 'firewall policies',
  firewall: 'zone-based',
  listedBy: 'list_firewall_policies',
  afterDelete: 'dangles',
  async find(gateway, site, network) {
    // Network 10.1+: the official policies, whose network filters name UUIDs.
    if (await gateway.offers('firewall.policies')) {
      const uuid = uuidOf(network);
      const official = await gateway.integrationList(
        site,
        'firewall/policies',
        officialPolicyRecordSchema,
        FRESH,
      );
      const networksIn = (side: Record<string, unknown>) => {
        const filter = side.trafficFilter as
          | { type?: unknown; networkFilter?: { networkIds?: unknown } }
          | undefined;
        return filter?.type === 'NETWORK' ? filter.networkFilter?.networkIds : undefined;
      };
      return pointingAt(
        official.items,
        'firewall policy',
        uuid,
        (p) => ({ id: p.id, name: p.name }),
        (p) => [
          ['source', networksIn(p.source)],
          ['destination', networksIn(p.destination)],
        ],
      );
    }
    const policies = await gateway.v2Read(site, 'firewall-policies', firewallPolicyRecordSchema, FRESH);
    // Ids left in `network_ids` beside another target match nothing, so they do not count.
    const networksOf = (side: { matching_target: string; network_ids: string[] }) =>
      side.matching_target === 'NETWORK' ? side.network_ids : [];
    return pointingAt(
      policies.items,
      'firewall policy',
      network.id,
      (p) => ({ id: p._id, name: p.name }),
      (p) => [
        ['source', networksOf(p.source)],
        ['destination', networksOf(p.destination)],
      ],
    );
  },
};

/** ACL rules: `NETWORKS` filters and a MAC rule's `networkIdFilter` (Integration UUIDs). */
export const aclRuleReferences: ReferenceKind = {
  label: 'ACL rules',
  listedBy: 'list_acl_rules',
  afterDelete: 'dangles',
  async find(gateway, site, network) {
    const uuid = uuidOf(network);
    const rules = await gateway.integrationList(site, 'acl-rules', aclRuleRecordSchema, FRESH);
    return pointingAt(
      rules.items,
      'ACL rule',
      uuid,
      (r) => ({ id: r.id, name: r.name }),
      (r) => [
        ['source', r.sourceFilter?.networkIds],
        ['destination', r.destinationFilter?.networkIds],
        ['network filter', r.networkIdFilter],
      ],
    );
  },
};

/**
 * v2 traffic rules: targets and destination networks. Named as the `*_traffic_route` tools that
 * manage them name them, so the admin finds them with those tools.
 */
export const trafficRuleReferences: ReferenceKind = {
  label: 'traffic routes',
  listedBy: 'list_traffic_routes',
  afterDelete: 'dangles',
  async find(gateway, site, network) {
    const rules = await gateway.v2Read(site, 'trafficrules', trafficRuleRecordSchema, FRESH);
    return pointingAt(
      rules.items,
      'traffic route',
      network.id,
      (r) => ({ id: r._id, name: r.description }),
      (r) => [
        ['applies to', r.target_devices.map((t) => t.network_id)],
        ['destination', r.network_ids],
      ],
    );
  },
};

// Deliberately alike: each reference kind is a declaration (its read, identity and fields); the shared steps are pointingAt.
/**
 * v2 policy-based routes (the controller's `trafficroutes`): the egress network and the networks
 * routed. No tool manages them (the `*_traffic_route` tools are traffic rules); they are changed in
 * UniFi Network.
 */
export const trafficRouteReferences: ReferenceKind = {
  label: 'policy-based routes',
  listedBy: IN_UNIFI_NETWORK('policy-based routes'),
  afterDelete: 'dangles',
  async find(gateway, site, network) {
    const routes = await gateway.v2Read(site, 'trafficroutes', trafficRouteRecordSchema, FRESH);
    return pointingAt(
      routes.items,
      'policy-based route',
      network.id,
      (r) => ({ id: r._id, name: r.description }),
      (r) => [
        ['egress network', r.network_id],
        ['applies to', r.target_devices.map((t) => t.network_id)],
      ],
    );
  },
};

/** Firewall zones the network is a member of (Integration `networkIds`). */
export const zoneReferences: ReferenceKind = {
  label: 'firewall zones',
  firewall: 'zone-based',
  listedBy: 'list_firewall_zones',
  // Deleting a network takes it out of its zone (the zone's networkIds no longer list it).
  afterDelete: 'removed',
  async find(gateway, site, network) {
    const uuid = uuidOf(network);
    const zones = await gateway.integrationList(site, 'firewall/zones', zoneRecordSchema, FRESH);
    return pointingAt(
      zones.items,
      'firewall zone',
      uuid,
      (z) => ({ id: z.id, name: z.name }),
      (z) => [['member', z.networkIds]],
    );
  },
};

/** SSIDs whose clients join the network. */
export const wlanReferences: ReferenceKind = {
  label: 'Wi-Fi networks',
  listedBy: IN_UNIFI_NETWORK('Wi-Fi networks'),
  afterDelete: 'dangles',
  async find(gateway, site, network) {
    const wlans = await gateway.classicRead(site, 'rest/wlanconf', wlanRecordSchema, FRESH);
    return pointingAt(
      wlans.items,
      'Wi-Fi network',
      network.id,
      (w) => ({ id: w._id, name: w.name }),
      (w) => [['network', w.networkconf_id]],
    );
  },
};

/**
 * SSIDs whose clients join the network, read as the Wi-Fi tools read them on a console whose
 * official API serves Wi-Fi broadcasts (10.1): by official id, SPECIFIC network by UUID.
 */
export const officialWlanReferences: ReferenceKind = {
  label: 'Wi-Fi networks',
  listedBy: 'list_wifi_broadcasts',
  afterDelete: 'dangles',
  async find(gateway, site, network) {
    const uuid = uuidOf(network);
    const broadcasts = await gateway.integrationList(site, 'wifi/broadcasts', officialWifiSchema, FRESH);
    return pointingAt(
      broadcasts.items,
      'Wi-Fi network',
      uuid,
      (b) => ({ id: b.id, name: b.name }),
      (b) => [['network', b.network?.type === 'SPECIFIC' ? b.network.networkId : undefined]],
    );
  },
};

/** Switch port profiles carrying the network (native, tagged or voice). */
export const portProfileReferences: ReferenceKind = {
  label: 'port profiles',
  listedBy: IN_UNIFI_NETWORK('port profiles'),
  afterDelete: 'dangles',
  async find(gateway, site, network) {
    const profiles = await gateway.classicRead(site, 'rest/portconf', portProfileRecordSchema, FRESH);
    return pointingAt(
      profiles.items,
      'port profile',
      network.id,
      (p) => ({ id: p._id, name: p.name }),
      (p) => [
        ['native network', p.native_networkconf_id],
        ['tagged network', p.tagged_networkconf_ids],
        ['voice network', p.voice_networkconf_id],
      ],
    );
  },
};

/** Every kind checked before a network is deleted, in the order the preview lists them. */
export const REFERENCE_KINDS: readonly ReferenceKind[] = [
  firewallRuleReferences,
  firewallPolicyReferences,
  aclRuleReferences,
  trafficRuleReferences,
  trafficRouteReferences,
  zoneReferences,
  wlanReferences,
  portProfileReferences,
];

/**
 * What points at a network, the kinds that could not be checked (with the reason), and the kinds
 * that do not exist on the site's firewall generation (not asked).
 */
export interface ReferenceReport {
  references: NetworkReference[];
  unchecked: string[];
  notApplicable: string[];
}

/** Why a kind is not asked on this site, or undefined when it applies (or the generation is unknown). */
async function notApplicableReason(
  gateway: Gateway,
  site: string,
  kind: ReferenceKind,
): Promise<string | undefined> {
  if (kind.firewall === undefined) return undefined;
  // Shared and cached per site; a failed detection fails the kind, so it is reported as unchecked.
  const generation = await firewallGeneration(gateway, site);
  if (generation === undefined || generation === kind.firewall) return undefined;
  return `${kind.label}: not applicable, site ${site} uses the ${generation === 'legacy' ? 'traditional' : 'zone-based'} firewall`;
}

async function findApplicable(
  gateway: Gateway,
  site: string,
  network: ReferencedNetwork,
  kind: ReferenceKind,
): Promise<NetworkReference[] | { notApplicable: string }> {
  const reason = await notApplicableReason(gateway, site, kind);
  if (reason !== undefined) return { notApplicable: reason };
  const found = await kind.find(gateway, site, network);
  return found.map((reference) => ({
    ...reference,
    listed_by: kind.listedBy,
    after_delete: AFTER_DELETE_TEXT[kind.afterDelete],
  }));
}

/**
 * Looks for everything that points at `network`, all kinds at once. A kind of the other firewall
 * generation is skipped and listed in `notApplicable`; a kind whose read fails with a controller or
 * support error is listed in `unchecked`; any other error is a bug and is thrown.
 */
export async function findNetworkReferences(
  gateway: Gateway,
  site: string,
  network: ReferencedNetwork,
  kinds: readonly ReferenceKind[] = REFERENCE_KINDS,
): Promise<ReferenceReport> {
  const results = await Promise.allSettled(kinds.map((kind) => findApplicable(gateway, site, network, kind)));
  const report: ReferenceReport = { references: [], unchecked: [], notApplicable: [] };
  results.forEach((result, i) => {
    const kind = kinds[i];
    if (!kind) return;
    if (result.status === 'fulfilled') {
      const found = result.value;
      if (Array.isArray(found)) {
        report.references.push(
          ...[...found].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id)),
        );
      } else {
        report.notApplicable.push(found.notApplicable);
      }
    } else if (isBotError(result.reason)) {
      // The controller's code is kept: the admin may need it to tell "not on this console" from a fault.
      const code = result.reason instanceof GatewayRejectedError ? ` (${result.reason.controllerCode})` : '';
      report.unchecked.push(`could not check ${kind.label}: ${result.reason.message}${code}`);
    } else {
      throw result.reason;
    }
  });
  return report;
}

/**
 * What the console's official API says points at the network (`GET networks/{id}/references`,
 * 10.1): devices, static and OSPF routes, NAT rules, SD-WAN… Clients (counted by the preview) and
 * SSIDs (found by name by the bot's own check) are left out. An object listed by id is one reference; a kind given only as a count is one
 * entry naming the count. What the console does to them on delete is not documented: they are
 * shown as left pointing at a missing network, the cautious reading.
 */
export const officialReferenceKind: ReferenceKind = {
  label: 'references the console reports',
  listedBy: 'UniFi Network',
  afterDelete: 'dangles',
  async find(gateway, site, network) {
    const answer = await gateway.integrationGet(
      site,
      `networks/${uuidOf(network)}/references`,
      networkReferencesSchema,
      FRESH,
    );
    return officialReferences(answer).flatMap((r) =>
      r.ids.length > 0
        ? r.ids.map((id) => ({ kind: r.kind, name: id, id, via: 'network' }))
        : [{ kind: r.kind, name: `${r.count} ${r.kind}(s)`, id: '', via: 'network' }],
    );
  },
};

/**
 * The kinds checked on a console whose official API serves networks: the bot's own checks (the
 * endpoint leaves out firewall rules and policies, ACL rules, traffic routes, zones and port
 * profiles, and names no SSID) and the console's own references of the other kinds.
 */
export const OFFICIAL_REFERENCE_KINDS: readonly ReferenceKind[] = [
  // Official networks and Wi-Fi broadcasts both come with 10.1 (capabilities.ts): SSIDs by official id.
  ...REFERENCE_KINDS.map((kind) => (kind === wlanReferences ? officialWlanReferences : kind)),
  officialReferenceKind,
];

/**
 * `findNetworkReferences` for a network read through the official API (its `_id` is the UUID).
 * Classic and v2 objects point at networks by the classic networkconf `_id`, which the official
 * API does not give: networkconf is read for it (a translation, not a network read the official
 * API offers); a network it does not know is looked for by UUID only.
 */
export async function officialNetworkReferences(
  gateway: Gateway,
  site: string,
  target: NetworkRecord,
  classic?: Promise<NetworkRecord[]>,
): Promise<ReferenceReport> {
  const known = await classic?.catch(() => undefined);
  const classicId = known
    ? known.find((r) => r.external_id === target._id)?._id
    : await classicIdOf(gateway, site, target._id, true);
  return findNetworkReferences(
    gateway,
    site,
    { id: classicId ?? target._id, uuid: target._id, name: target.name },
    OFFICIAL_REFERENCE_KINDS,
  );
}

/** The references of a network as its tools read it: through the official API (`official`) or classic. */
export function referencesOfNetwork(
  gateway: Gateway,
  site: string,
  network: NetworkRecord,
  official: boolean,
  classic?: Promise<NetworkRecord[]>,
): Promise<ReferenceReport> {
  return official
    ? officialNetworkReferences(gateway, site, network, classic)
    : findNetworkReferences(gateway, site, {
        id: network._id,
        uuid: network.external_id,
        name: network.name,
      });
}
