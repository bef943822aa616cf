import { z } from 'zod';
import { NotSupportedError, ResourceNotFoundError } from '../../errors.js';
import { invalidResponse } from '../../gateway/envelopes.js';
import type { Gateway } from '../../gateway/types.js';
import {
  type FirewallPolicyRecord,
  firewallPolicyRecordSchema,
  officialPolicyOrderingSchema,
  officialPolicyRecordSchema,
  type V2ZoneRecord,
  v2ZoneRecordSchema,
} from '../../records/firewall-policy-record.js';
import { zoneRecordSchema } from '../../records/zone-record.js';
import { namesIn, parseEach, withStateLeft } from '../core/crud-model.js';
import { requireZoneBasedFirewall } from '../core/firewall-generation.js';
import { NetworkDirectory } from '../networks/network-ids.js';
import { findNetwork } from '../networks/network-model.js';
import { requireLocal } from './firewall-args.js';
import {
  endpointBody,
  type FirewallPolicy,
  findPolicy,
  findPolicyZone,
  isBeforeGenerated,
  type PolicyNames,
  pairPolicies,
  portsApply,
  toFirewallPolicy,
} from './firewall-policy-model.js';
import {
  networkUuidsIn,
  orderingBody,
  orderingPath,
  type PolicyNetworkIds,
  policyFromOfficial,
  policyToOfficial,
} from './firewall-policy-official.js';

/**
 * The site side of the zone-based firewall policy tools: the policies, zones and networks read
 * together from the endpoints a console offers (v2, or official on 10.1+), the zone pair's order
 * and its reorder request, and the writes on the endpoint in use.
 */

const POLICIES = 'firewall-policies';
const REORDER = 'firewall-policies/batch-reorder';
// aiounifi and go-unifi read the singular form.
const ZONES = 'firewall/zone';
/** The official endpoints (Network 10.1+ with an API key). */
const OFFICIAL_POLICIES = 'firewall/policies';
const OFFICIAL_ZONES = 'firewall/zones';

/** Where a new policy stands in a previewed reorder: its id is the controller's to give. */
export const NEW_POLICY = '(the new policy)';

/** Stored policies exactly as sent: a PUT is a full replace, so untouched fields go back unchanged. */
const storedPolicySchema = z.looseObject({ _id: z.string().min(1) });
type StoredPolicy = z.output<typeof storedPolicySchema>;

/** The site's policies, zones and networks, read together, from the endpoints this console offers. */
interface PolicySite {
  gateway: Gateway;
  site: string;
  /** True when the official `firewall/policies` endpoints serve the policies (Network 10.1+). */
  official: boolean;
  /** As sent by the controller (v2), or the official record in the v2 shape (carrying the original). */
  raw: StoredPolicy[];
  policies: FirewallPolicyRecord[];
  /** Zones by the id policies name them with: the v2 `_id`, or (official) the zone's UUID. */
  zones: V2ZoneRecord[];
  networks: NetworkDirectory;
  names: PolicyNames;
  ids: PolicyNetworkIds;
}

export async function loadPolicies(gateway: Gateway, site: string, fresh: boolean): Promise<PolicySite> {
  // Spec §5 applies as to zones: the cloud connector does not forward the v2 API these tools use.
  requireLocal(
    gateway,
    'firewall policy tools',
    'they use the console’s v2 API, which the cloud connector does not forward',
  );
  // Which API serves policies, the Integration site id and the generation check are asked together:
  // on a cold start that is one round trip before the lists instead of three. A failure to resolve
  // the site id shows through the official reads that need it; v2 does not need it.
  gateway.resolveSiteUuid(site).catch(() => undefined);
  const [official] = await Promise.all([
    gateway.offers('firewall.policies'),
    requireZoneBasedFirewall(gateway, site),
  ]);
  return official ? loadOfficial(gateway, site, fresh) : loadV2(gateway, site, fresh);
}

function siteOf(
  gateway: Gateway,
  site: string,
  official: boolean,
  stored: StoredPolicy[],
  zones: V2ZoneRecord[],
  networks: NetworkDirectory,
  ids: PolicyNetworkIds,
): PolicySite {
  const parsed = parseEach(stored, firewallPolicyRecordSchema);
  return {
    gateway,
    site,
    official,
    raw: parsed.map((pair) => pair.raw),
    policies: parsed.map((pair) => pair.record),
    zones,
    networks,
    ids,
    names: {
      zone: (id) => zones.find((zone) => zone._id === id)?.name ?? null,
      zoneId: (id) => zones.find((zone) => zone._id === id)?.external_id || id,
      network: (id) => networks.records.find((network) => network._id === id)?.name ?? null,
    },
  };
}

async function loadV2(gateway: Gateway, site: string, fresh: boolean): Promise<PolicySite> {
  const [stored, zones, networks] = await Promise.all([
    gateway.v2Read(site, POLICIES, storedPolicySchema, { fresh }),
    gateway.v2Read(site, ZONES, v2ZoneRecordSchema, { fresh }),
    NetworkDirectory.load(gateway, site, { fresh }),
  ]);
  const ids: PolicyNetworkIds = {
    classicOf: (id) => id,
    uuidOf: async (id) => id,
  };
  return siteOf(gateway, site, false, stored.items, zones.items, networks, ids);
}

/**
 * Official policies and zones, turned into the shape the tools work in: a zone is named by its
 * UUID (what the zone tools show), a network by what the network tools show on this console (the
 * UUID where the official API serves networks too).
 */
async function loadOfficial(gateway: Gateway, site: string, fresh: boolean): Promise<PolicySite> {
  const [stored, zones, networks] = await Promise.all([
    gateway.integrationList(site, OFFICIAL_POLICIES, officialPolicyRecordSchema, { fresh }),
    gateway.integrationList(site, OFFICIAL_ZONES, zoneRecordSchema, { fresh }),
    // Policies name networks only: the official overview has their names.
    NetworkDirectory.load(gateway, site, { fresh, withIntegration: true, official: true, overview: true }),
  ]);
  const uuids = [...new Set([...networkUuidsIn(stored.items), ...zones.items.flatMap((z) => z.networkIds)])];
  const classic = new Map((await networks.describeAll(uuids)).map((n) => [n.uuid, n.id]));
  const ids: PolicyNetworkIds = {
    classicOf: (uuid) => classic.get(uuid) ?? uuid,
    uuidOf: async (id) => (await networks.resolve(id, 'networks')).uuid,
  };
  const v2Zones: V2ZoneRecord[] = zones.items.map((zone) => ({
    _id: zone.id,
    name: zone.name,
    zone_key: undefined,
    default_zone: zone.metadata?.origin === 'SYSTEM_DEFINED',
    network_ids: zone.networkIds.map((uuid) => classic.get(uuid) ?? uuid),
    external_id: zone.id,
  }));
  const shaped = stored.items.map((record) => policyFromOfficial(record, ids) as StoredPolicy);
  return siteOf(gateway, site, true, shaped, v2Zones, networks, ids);
}

const V2_ID = /^[0-9a-f]{24}$/i;

/**
 * A policy by id or name; on the official API also by the v2 `_id` older output showed (and the
 * watcher's drift messages carry), mapped through the v2 record's `external_id`, read only on a miss.
 */
export async function findSitePolicy(s: PolicySite, ref: string): Promise<FirewallPolicyRecord> {
  try {
    return findPolicy(s.policies, ref);
  } catch (error) {
    const wanted = ref.trim();
    if (!s.official || !(error instanceof ResourceNotFoundError) || !V2_ID.test(wanted)) throw error;
    const v2 = await s.gateway.v2Read(s.site, POLICIES, storedPolicySchema).catch(() => undefined);
    const uuid = v2?.items.find((p) => p._id === wanted)?.external_id;
    if (typeof uuid !== 'string' || uuid === '') throw error;
    return findPolicy(s.policies, uuid);
  }
}

/** A zone by id or name; on the official API also by its v2 `_id` (mapped as the zone tools map it). */
export async function findSiteZone(s: PolicySite, ref: string, field: string): Promise<V2ZoneRecord> {
  try {
    return findPolicyZone(s.zones, ref, field);
  } catch (error) {
    const wanted = ref.trim();
    if (!s.official || !(error instanceof ResourceNotFoundError) || !V2_ID.test(wanted)) throw error;
    const v2 = await s.gateway.v2Read(s.site, ZONES, v2ZoneRecordSchema).catch(() => undefined);
    const uuid = v2?.items.find((zone) => zone._id === wanted)?.external_id;
    if (!uuid) throw error;
    return findPolicyZone(s.zones, uuid, field);
  }
}

/** A zone pair's user policies, by id: those placed before the controller's own, and after. */
interface PairOrder {
  before: string[];
  after: string[];
}

/** The pair's order: official `policies/ordering` (read fresh), or the v2 records' `index` tiers. */
export async function pairOrder(
  s: PolicySite,
  sourceZoneId: string,
  destinationZoneId: string,
): Promise<PairOrder> {
  if (s.official) {
    const got = await s.gateway.integrationGet(
      s.site,
      orderingPath(sourceZoneId, destinationZoneId),
      officialPolicyOrderingSchema,
      { fresh: true },
    );
    return {
      before: [...got.orderedFirewallPolicyIds.beforeSystemDefined],
      after: [...got.orderedFirewallPolicyIds.afterSystemDefined],
    };
  }
  const pair = pairPolicies(s.policies, sourceZoneId, destinationZoneId);
  return {
    before: pair.filter(isBeforeGenerated).map((p) => p._id),
    after: pair.filter((p) => !isBeforeGenerated(p)).map((p) => p._id),
  };
}

/** The order with `id` at 1-based `position` among those before the controller's own (clamped). */
export function placedAt(
  order: PairOrder,
  id: string,
  position: number,
): { order: PairOrder; position: number } {
  const before = order.before.filter((other) => other !== id);
  const after = order.after.filter((other) => other !== id);
  const at = Math.min(Math.max(position, 1), before.length + 1) - 1;
  before.splice(at, 0, id);
  return { order: { before, after }, position: at + 1 };
}

/** The reorder request for a pair: v2 `batch-reorder` or official `policies/ordering`. */
export function reorderRequest(
  s: PolicySite,
  sourceZoneId: string,
  destinationZoneId: string,
  order: PairOrder,
): { path: string; body: Record<string, unknown> } {
  if (s.official) {
    return {
      path: orderingPath(sourceZoneId, destinationZoneId),
      body: orderingBody(order.before, order.after),
    };
  }
  // The body names every policy of the pair: the controller refuses a partial list
  // (`ShouldIncludeFirewallPolicyInBatchUpdate`).
  return {
    path: REORDER,
    body: {
      source_zone_id: sourceZoneId,
      destination_zone_id: destinationZoneId,
      before_predefined_ids: order.before,
      after_predefined_ids: order.after,
    },
  };
}

/** What is sent for a v2-shaped body: itself (v2), or the official body it maps to. */
export function sentBody(s: PolicySite, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  return s.official ? policyToOfficial(body, s.ids) : Promise.resolve(body);
}

/** A policy write (POST, PUT, DELETE) on the endpoint this console uses. */
export function writePolicy(
  s: PolicySite,
  method: 'POST' | 'PUT' | 'DELETE',
  id: string | undefined,
  body?: Record<string, unknown>,
): Promise<unknown> {
  const base = s.official ? OFFICIAL_POLICIES : POLICIES;
  const path = id === undefined ? base : `${base}/${id}`;
  return s.official
    ? s.gateway.integrationWrite(s.site, method, path, body)
    : s.gateway.v2Write(s.site, method, path, body);
}

/** `{names}` for a preview: every zone, network and policy id in it, so each shows with its name. */
export function previewNames(s: PolicySite, preview: unknown): { names?: Record<string, string> } {
  const names = namesIn(
    preview,
    (id) =>
      s.names.zone(id) ??
      s.names.network(id) ??
      // Official bodies name networks by UUID.
      s.networks.records.find((network) => network.external_id === id)?.name ??
      s.policies.find((p) => p._id === id)?.name ??
      null,
  );
  return Object.keys(names).length > 0 ? { names } : {};
}

export function view(s: PolicySite, record: FirewallPolicyRecord): FirewallPolicy {
  return toFirewallPolicy(record, s.names);
}

/** The view of a written policy, from the controller's answer or, failing that, what was sent. */
export function writtenView(
  s: PolicySite,
  answer: unknown,
  sent: Record<string, unknown>,
): FirewallPolicy | unknown {
  const official = s.official ? officialPolicyRecordSchema.safeParse(answer) : undefined;
  const shaped = official?.success ? policyFromOfficial(official.data, s.ids) : official ? undefined : answer;
  const parsed = firewallPolicyRecordSchema.safeParse(shaped);
  if (parsed.success) return view(s, parsed.data);
  const fallback = firewallPolicyRecordSchema.safeParse({ _id: '(not returned)', ...sent });
  return fallback.success ? view(s, fallback.data) : answer;
}

/** Refuses a change to a policy the controller generates (it answers FirewallPolicyNotFound to its id). */
export function assertUserPolicy(policy: FirewallPolicyRecord, change: 'changed' | 'deleted'): void {
  if (policy.predefined === true) {
    throw new NotSupportedError(
      `firewall policy "${policy.name}" is generated by the controller for its zone pair and cannot be ${change}; ` +
        'add a policy of your own to the same zones to override it',
    );
  }
}

/** Network arguments as classic ids (policies name networkconf `_id`s). */
export function networkIds(s: PolicySite, refs: readonly string[], field: string): string[] {
  return refs.map((ref) => findNetwork(s.networks.records, ref, field)._id);
}

/** Warns about matched networks that are not in the side's zone: such a policy never sees their traffic. */
export function zoneWarnings(
  s: PolicySite,
  zone: V2ZoneRecord,
  ids: readonly string[] | undefined,
): string[] {
  return (ids ?? [])
    .filter((id) => !zone.network_ids.includes(id))
    .map(
      (id) =>
        `network ${s.names.network(id) ?? id} is not in zone "${zone.name}": the policy never matches its traffic`,
    );
}

/** What the arguments say about one side: networks or addresses (undefined: not given), and a port. */
interface SideArgs {
  networks?: string[] | undefined;
  ips?: string[] | undefined;
  port?: string | undefined;
}

export function sideArgs(args: Record<string, unknown>, side: 'source' | 'destination'): SideArgs {
  return {
    networks: args[`${side}_networks`] as string[] | undefined,
    ips: args[`${side}_ips`] as string[] | undefined,
    port: args[`${side}_port`] as string | undefined,
  };
}

/**
 * One side of an updated policy. Untouched parts stay exactly as stored (a PUT replaces the whole
 * policy, and the UI may have set fields the tools do not write); a new target is written afresh.
 */
export function updatedSide(
  s: PolicySite,
  zone: V2ZoneRecord,
  name: 'source' | 'destination',
  stored: Record<string, unknown>,
  current: FirewallPolicyRecord['source'],
  given: SideArgs,
  protocol: string,
  warnings: string[],
): Record<string, unknown> {
  let port = current.port_matching_type === 'SPECIFIC' ? current.port : undefined;
  if (given.port !== undefined) port = given.port === 'any' ? undefined : given.port;
  else if (port !== undefined && !portsApply(protocol)) {
    warnings.push(`the ${name} port ${port} is dropped: ports apply to tcp and udp only`);
    port = undefined;
  }
  if (given.networks !== undefined || given.ips !== undefined) {
    const ids = given.networks === undefined ? undefined : networkIds(s, given.networks, `${name}_networks`);
    warnings.push(...zoneWarnings(s, zone, ids));
    return endpointBody({ zoneId: zone._id, networkIds: ids, ips: given.ips, port });
  }
  if (zone._id !== current.zone_id && current.matching_target === 'NETWORK') {
    warnings.push(...zoneWarnings(s, zone, current.network_ids));
  }
  const kept: Record<string, unknown> = { ...stored, zone_id: zone._id };
  if (port === undefined) {
    kept.port_matching_type = 'ANY';
    delete kept.port;
  } else {
    Object.assign(kept, { port_matching_type: 'SPECIFIC', port });
  }
  return kept;
}

/** The addresses a written side matches, for the IP version check. */
export function sideIps(side: Record<string, unknown>): string[] | undefined {
  return side.matching_target === 'IP' && Array.isArray(side.ips) ? (side.ips as string[]) : undefined;
}

/** The id of a policy the controller answered with, or an error that says the policy was still created. */
export function createdId(s: PolicySite, answer: unknown): string {
  const id = (answer as { _id?: unknown; id?: unknown } | undefined)?.[s.official ? 'id' : '_id'];
  if (typeof id === 'string' && id !== '') return id;
  throw invalidResponse(
    'the created policy has no id, so it cannot be placed',
    s.official ? OFFICIAL_POLICIES : POLICIES,
  );
}

/** Puts a policy at its place in its zone pair; a failure says the policy itself was written. */
export async function place(
  s: PolicySite,
  request: { path: string; body: Record<string, unknown> },
  id: string,
  done: string[],
  step: string,
): Promise<unknown> {
  try {
    if (s.official) {
      // The ordering answers with ids only: the policy's own record stands.
      await s.gateway.integrationWrite(s.site, 'PUT', request.path, request.body);
      return undefined;
    }
    const answer = await s.gateway.v2Write(s.site, 'PUT', request.path, request.body);
    return Array.isArray(answer) ? answer.find((p) => (p as { _id?: unknown })?._id === id) : undefined;
  } catch (error) {
    throw withStateLeft(error, done, step);
  }
}

/** The name of a policy id in an order (the new policy's placeholder stays as it is). */
export function nameIn(s: PolicySite, id: string, fallback: string): string {
  return s.policies.find((p) => p._id === id)?.name ?? fallback;
}
