import { z } from 'zod';
import { type FieldIssue, NotSupportedError, ResourceNotFoundError, ValidationError } from '../../errors.js';
import { invalidResponse } from '../../gateway/envelopes.js';
import type { Gateway } from '../../gateway/types.js';
import { isIpv4OrCidr, isIpv6OrCidr } from '../../lib/ip.js';
import {
  type FirewallPolicyRecord,
  firewallPolicyRecordSchema,
  officialPolicyOrderingSchema,
  officialPolicyRecordSchema,
  type V2ZoneRecord,
  v2ZoneRecordSchema,
} from '../../records/firewall-policy-record.js';
import { zoneRecordSchema } from '../../records/zone-record.js';
import { confirm, dryRun, idOrName, intInRange, limit, offset, siteId, text } from '../core/arg-types.js';
import {
  applyDelete,
  fieldChanges,
  namesIn,
  nothingToChange,
  parseEach,
  withStateLeft,
} from '../core/crud-model.js';
import { defineTool, type ToolDefinition } from '../core/define-tool.js';
import { requireZoneBasedFirewall } from '../core/firewall-generation.js';
import { NetworkDirectory } from '../networks/network-ids.js';
import { findNetwork } from '../networks/network-model.js';
import { firewallPolicyChanges } from './changes.js';
import {
  DAYS,
  endpointBody,
  type FirewallPolicy,
  findPolicy,
  findPolicyZone,
  IP_VERSIONS,
  ipIssues,
  isBeforeGenerated,
  POLICY_ACTIONS,
  POLICY_PROTOCOLS,
  type PolicyNames,
  pairPolicies,
  portIssues,
  portsApply,
  SCHEDULES,
  scheduleBody,
  scheduleIssues,
  scheduleWord,
  sortPolicies,
  toFirewallPolicy,
  toPolicyRow,
} from './firewall-policy-model.js';
import {
  networkUuidsIn,
  orderingBody,
  orderingPath,
  type PolicyNetworkIds,
  policyFromOfficial,
  policyToOfficial,
} from './firewall-policy-official.js';

const POLICIES = 'firewall-policies';
const REORDER = 'firewall-policies/batch-reorder';
// aiounifi and go-unifi read the singular form.
const ZONES = 'firewall/zone';
/** The official endpoints (Network 10.1+ with an API key). */
const OFFICIAL_POLICIES = 'firewall/policies';
const OFFICIAL_ZONES = 'firewall/zones';

const policyRef = idOrName('firewall policy');
const zoneRef = idOrName('firewall zone');
const action = z.enum(POLICY_ACTIONS, { error: `must be one of ${POLICY_ACTIONS.join(', ')}` });
const protocol = z
  .enum(POLICY_PROTOCOLS, { error: `must be one of ${POLICY_PROTOCOLS.join(', ')}` })
  .describe('Protocol matched');
const ipVersion = z
  .enum(IP_VERSIONS, { error: `must be one of ${IP_VERSIONS.join(', ')}` })
  .describe('IP version matched: IPV4, IPV6 or BOTH');
const schedule = z
  .enum(SCHEDULES, { error: `must be one of ${SCHEDULES.join(', ')}` })
  .describe(
    'When the policy applies: always, every_day or every_week (with schedule_days), or a time window',
  );
const networks = z
  .array(idOrName('network'))
  .describe('Networks of the zone to match (ids or names); empty: the whole zone');
const ips = z
  .array(
    z
      .string({ error: 'must be IP addresses or CIDRs' })
      .trim()
      .refine((v) => isIpv4OrCidr(v, true) || isIpv6OrCidr(v, true), {
        error: 'must be IP addresses or CIDRs such as 10.0.0.0/24 or 2001:db8::/64',
      }),
  )
  .describe('Addresses or CIDRs to match, instead of networks');
const PORT_RULE = 'must be a port, a list or a range such as 443, 80,443 or 8000-8100 (1–65535), or any';
const portSpec = z
  .string({ error: PORT_RULE })
  .trim()
  .regex(/^(any|\d{1,5}(-\d{1,5})?(,\d{1,5}(-\d{1,5})?)*)$/, { error: PORT_RULE })
  .refine(
    (spec) =>
      spec === 'any' ||
      spec.split(',').every((part) => {
        const [low = 0, high = low] = part.split('-').map(Number);
        return low >= 1 && high <= 65535 && low <= high;
      }),
    { error: PORT_RULE },
  );
const days = z
  .array(z.enum(DAYS, { error: `must be days from ${DAYS.join(', ')}` }))
  .describe('Days for every_week (mon,tue,…)');
const scheduleTime = z
  .string({ error: 'must be a time window such as 09:00-17:00' })
  .trim()
  .regex(/^([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-3]):[0-5]\d$/, {
    error: 'must be a time window such as 09:00-17:00',
  })
  .describe('Time window HH:MM-HH:MM (default: all day)');
const position = intInRange(1, 10_000).describe(
  'Place among the policies of its zone pair, 1 = evaluated first (default: last)',
);
const description = z
  .string({ error: 'must be text' })
  .trim()
  .max(256, { error: 'must be at most 256 characters' })
  .describe('Free text shown with the policy');

/** Where a new policy stands in a previewed reorder: its id is the controller's to give. */
const NEW_POLICY = '(the new policy)';

/** Stored policies exactly as sent: a PUT is a full replace, so untouched fields go back unchanged. */
const storedPolicySchema = z.looseObject({ _id: z.string().min(1) });
type StoredPolicy = z.output<typeof storedPolicySchema>;

/** Spec §5 applies as to zones: the cloud connector does not forward the v2 API these tools use. */
function requireLocal(gateway: Gateway): void {
  if (gateway.apiType !== 'local') {
    throw new NotSupportedError(
      'firewall policy tools need GATEWAY_API_TYPE=local: they use the console’s v2 API, which the cloud connector does not forward',
    );
  }
}

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

async function loadPolicies(gateway: Gateway, site: string, fresh: boolean): Promise<PolicySite> {
  requireLocal(gateway);
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
async function findSitePolicy(s: PolicySite, ref: string): Promise<FirewallPolicyRecord> {
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
async function findSiteZone(s: PolicySite, ref: string, field: string): Promise<V2ZoneRecord> {
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
async function pairOrder(s: PolicySite, sourceZoneId: string, destinationZoneId: string): Promise<PairOrder> {
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
function placedAt(order: PairOrder, id: string, position: number): { order: PairOrder; position: number } {
  const before = order.before.filter((other) => other !== id);
  const after = order.after.filter((other) => other !== id);
  const at = Math.min(Math.max(position, 1), before.length + 1) - 1;
  before.splice(at, 0, id);
  return { order: { before, after }, position: at + 1 };
}

/** The reorder request for a pair: v2 `batch-reorder` or official `policies/ordering`. */
function reorderRequest(
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
function sentBody(s: PolicySite, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  return s.official ? policyToOfficial(body, s.ids) : Promise.resolve(body);
}

/** A policy write (POST, PUT, DELETE) on the endpoint this console uses. */
function writePolicy(
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
function previewNames(s: PolicySite, preview: unknown): { names?: Record<string, string> } {
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

function view(s: PolicySite, record: FirewallPolicyRecord): FirewallPolicy {
  return toFirewallPolicy(record, s.names);
}

/** The view of a written policy, from the controller's answer or, failing that, what was sent. */
function writtenView(
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
function assertUserPolicy(policy: FirewallPolicyRecord, change: 'changed' | 'deleted'): void {
  if (policy.predefined === true) {
    throw new NotSupportedError(
      `firewall policy "${policy.name}" is generated by the controller for its zone pair and cannot be ${change}; ` +
        'add a policy of your own to the same zones to override it',
    );
  }
}

/** Network arguments as classic ids (policies name networkconf `_id`s). */
function networkIds(s: PolicySite, refs: readonly string[], field: string): string[] {
  return refs.map((ref) => findNetwork(s.networks.records, ref, field)._id);
}

/** Warns about matched networks that are not in the side's zone: such a policy never sees their traffic. */
function zoneWarnings(s: PolicySite, zone: V2ZoneRecord, ids: readonly string[] | undefined): string[] {
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

function sideArgs(args: Record<string, unknown>, side: 'source' | 'destination'): SideArgs {
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
function updatedSide(
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
function sideIps(side: Record<string, unknown>): string[] | undefined {
  return side.matching_target === 'IP' && Array.isArray(side.ips) ? (side.ips as string[]) : undefined;
}

/** The id of a policy the controller answered with, or an error that says the policy was still created. */
function createdId(s: PolicySite, answer: unknown): string {
  const id = (answer as { _id?: unknown; id?: unknown } | undefined)?.[s.official ? 'id' : '_id'];
  if (typeof id === 'string' && id !== '') return id;
  throw invalidResponse(
    'the created policy has no id, so it cannot be placed',
    s.official ? OFFICIAL_POLICIES : POLICIES,
  );
}

/** Puts a policy at its place in its zone pair; a failure says the policy itself was written. */
async function place(
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
function nameIn(s: PolicySite, id: string, fallback: string): string {
  return s.policies.find((p) => p._id === id)?.name ?? fallback;
}

const listFirewallPolicies = defineTool({
  name: 'list_firewall_policies',
  description: 'List the zone-based firewall policies by zone pair, in evaluation order (one line each)',
  access: 'read',
  firewall: 'zone-based',
  example: 'limit=10',
  // `IoT Devices: IoT, Cameras`, `Internal: 192.168.1.20 port 32400`: zones, networks, addresses.
  identifierColumns: ['source', 'destination'],
  args: z.object({
    site_id: siteId,
    include_predefined: z
      .boolean({ error: 'must be true or false' })
      .default(false)
      .describe('Also list the policies the controller generates for every zone pair'),
    limit: limit(100),
    offset,
  }),
  async run({ site_id, include_predefined, limit, offset }, { gateway }) {
    const s = await loadPolicies(gateway, site_id, false);
    const shown = s.policies.filter((p) => include_predefined || p.predefined !== true);
    return sortPolicies(shown.map((p) => view(s, p)))
      .slice(offset, offset + limit)
      .map(toPolicyRow);
  },
});

const getFirewallPolicy = defineTool({
  name: 'get_firewall_policy',
  description: 'One firewall policy, with its zones and networks by name',
  access: 'read',
  firewall: 'zone-based',
  example: 'policy_id="Block IoT to Internal"',
  args: z.object({ site_id: siteId, policy_id: policyRef }),
  async run({ site_id, policy_id }, { gateway }) {
    const s = await loadPolicies(gateway, site_id, false);
    return view(s, await findSitePolicy(s, policy_id));
  },
});

/** Arguments that describe what a policy matches, shared by create and update. */
const matchArgs = {
  source_networks: networks.optional(),
  source_ips: ips.optional(),
  source_port: portSpec.optional().describe('Source port(s) (tcp/udp only)'),
  destination_networks: networks.optional(),
  destination_ips: ips.optional(),
  destination_port: portSpec.optional().describe('Destination port(s) (tcp/udp only)'),
};

/** Combinations refused before anything is read: networks and addresses on one side. */
function sideIssues(args: {
  source_networks?: string[] | undefined;
  source_ips?: string[] | undefined;
  destination_networks?: string[] | undefined;
  destination_ips?: string[] | undefined;
}): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const side of ['source', 'destination'] as const) {
    if ((args[`${side}_networks`]?.length ?? 0) > 0 && (args[`${side}_ips`]?.length ?? 0) > 0) {
      issues.push({ field: `${side}_ips`, rule: `give ${side}_networks or ${side}_ips, not both` });
    }
  }
  return issues;
}

function addIssues(issues: readonly FieldIssue[], ctx: z.RefinementCtx): void {
  for (const issue of issues) ctx.addIssue({ code: 'custom', path: [issue.field], message: issue.rule });
}

const createFirewallPolicy = defineTool({
  name: 'create_firewall_policy',
  change: firewallPolicyChanges.create_firewall_policy,
  description:
    'Create a zone-based firewall policy from one zone to another (networks, addresses, ports, schedule)',
  access: 'write',
  firewall: 'zone-based',
  example:
    'name="Cameras to NAS" action=ALLOW source_zone="IoT Devices" source_networks=Cameras destination_zone=Internal destination_ips=192.168.1.20 protocol=tcp destination_port=445',
  args: z
    .object({
      site_id: siteId,
      name: text(128).describe('Policy name'),
      action: action.describe('ALLOW, BLOCK or REJECT'),
      source_zone: zoneRef.describe('Zone the traffic comes from (name or id)'),
      destination_zone: zoneRef.describe('Zone the traffic goes to (name or id)'),
      ...matchArgs,
      protocol: protocol.default('all'),
      ip_version: ipVersion.default('BOTH'),
      schedule: schedule.default('always'),
      schedule_days: days.optional().describe('Days for every_week (mon,tue,…)'),
      schedule_time: scheduleTime.optional().describe('Time window HH:MM-HH:MM (default: all day)'),
      enabled: z
        .boolean({ error: 'must be true or false' })
        .default(true)
        .describe('Whether the policy is active'),
      logging: z
        .boolean({ error: 'must be true or false' })
        .default(false)
        .describe('Log the traffic the policy matches'),
      position: position.optional(),
      description: description.optional(),
      confirm,
      dry_run: dryRun,
    })
    .superRefine((args, ctx) => {
      addIssues(
        [
          ...sideIssues(args),
          ...ipIssues('source_ips', args.source_ips, args.ip_version),
          ...ipIssues('destination_ips', args.destination_ips, args.ip_version),
          ...portIssues(args.protocol, [
            { field: 'source_port', value: args.source_port },
            { field: 'destination_port', value: args.destination_port },
          ]),
          ...scheduleIssues(args.schedule, args.schedule_days, args.schedule_time),
        ],
        ctx,
      );
    }),
  async run(args, { gateway }) {
    const s = await loadPolicies(gateway, args.site_id, true);
    const from = await findSiteZone(s, args.source_zone, 'source_zone');
    const to = await findSiteZone(s, args.destination_zone, 'destination_zone');
    const sides = { source: from, destination: to };
    const warnings: string[] = [];
    const ends = Object.fromEntries(
      (['source', 'destination'] as const).map((name) => {
        const given = sideArgs(args, name);
        const ids =
          given.networks === undefined ? undefined : networkIds(s, given.networks, `${name}_networks`);
        warnings.push(...zoneWarnings(s, sides[name], ids));
        const port = given.port === 'any' ? undefined : given.port;
        return [name, endpointBody({ zoneId: sides[name]._id, networkIds: ids, ips: given.ips, port })];
      }),
    );
    const body: Record<string, unknown> = {
      name: args.name,
      description: args.description ?? '',
      enabled: args.enabled,
      action: args.action,
      protocol: args.protocol,
      ip_version: args.ip_version,
      logging: args.logging,
      // Asks for the return-traffic rule; the controller refuses it beside BLOCK or REJECT (unifig ADR-0022).
      create_allow_respond: args.action === 'ALLOW',
      connection_state_type: 'ALL',
      connection_states: [],
      match_ip_sec: false,
      match_opposite_protocol: false,
      icmp_typename: 'ANY',
      icmp_v6_typename: 'ANY',
      schedule: scheduleBody(args.schedule, args.schedule_days, args.schedule_time),
      source: ends.source,
      destination: ends.destination,
    };
    const sent = await sentBody(s, body);
    // The order is read only when a place is asked for.
    const order = args.position === undefined ? undefined : await pairOrder(s, from._id, to._id);
    const last = (order?.before.length ?? 0) + 1;
    if (args.position !== undefined && args.position > last) {
      warnings.push(
        `position ${args.position} is past the end of ${from.name} → ${to.name}: it goes last (${last})`,
      );
    }
    // The controller puts a new policy after the pair's others; an earlier place needs a reorder.
    const moving = order !== undefined && args.position !== undefined && args.position < last;
    const planned = moving ? placedAt(order, NEW_POLICY, args.position ?? last) : undefined;
    const names = planned?.order.before.map((id) => nameIn(s, id, args.name));
    const extras = names ? { position: args.position, order_after: names } : {};
    if (args.dry_run) {
      const preview = { ...(writtenView(s, undefined, body) as FirewallPolicy), id: null };
      // The reorder is sent too: shown with a placeholder where the controller's new id goes.
      const reorder = planned ? reorderRequest(s, from._id, to._id, planned.order) : undefined;
      const shown = { would_send: sent, ...(reorder ? { would_reorder: reorder.body } : {}) };
      return {
        dry_run: true,
        would_create: preview,
        ...shown,
        ...extras,
        ...previewNames(s, [preview, shown]),
        warnings,
      };
    }
    const answer = await writePolicy(s, 'POST', undefined, sent);
    let final = answer;
    if (moving) {
      const id = createdId(s, answer);
      const placement = placedAt(order, id, args.position ?? last);
      const done = [`policy "${args.name}" created (${id}), last in ${from.name} → ${to.name}`];
      final =
        (await place(
          s,
          reorderRequest(s, from._id, to._id, placement.order),
          id,
          done,
          `moving it to position ${placement.position}`,
        )) ?? answer;
    }
    return { success: true, policy: writtenView(s, final, body), ...extras, warnings };
  },
});

const updateFirewallPolicy = defineTool({
  name: 'update_firewall_policy',
  change: firewallPolicyChanges.update_firewall_policy,
  description: 'Change some fields of a firewall policy, or its place in its zone pair; omitted fields stay',
  access: 'write',
  firewall: 'zone-based',
  example: 'policy_id="Allow Plex from WAN" enabled=true',
  args: z
    .object({
      site_id: siteId,
      policy_id: policyRef,
      name: text(128).optional().describe('New policy name'),
      action: action.optional().describe('New action: ALLOW, BLOCK or REJECT'),
      source_zone: zoneRef.optional(),
      destination_zone: zoneRef.optional(),
      ...matchArgs,
      protocol: protocol.optional(),
      ip_version: ipVersion.optional(),
      schedule: schedule.optional(),
      schedule_days: days.optional(),
      schedule_time: scheduleTime.optional(),
      enabled: z.boolean({ error: 'must be true or false' }).optional().describe('Turn the policy on or off'),
      logging: z
        .boolean({ error: 'must be true or false' })
        .optional()
        .describe('Log the traffic the policy matches'),
      position: position.optional(),
      description: description.optional().describe('New description; empty clears it'),
      confirm,
      dry_run: dryRun,
    })
    .superRefine((args, ctx) => addIssues(sideIssues(args), ctx)),
  async run(args, { gateway }) {
    const s = await loadPolicies(gateway, args.site_id, true);
    const current = await findSitePolicy(s, args.policy_id);
    assertUserPolicy(current, 'changed');
    const stored: Record<string, unknown> = s.raw.find((p) => p._id === current._id) ?? { ...current };
    const zoneOf = async (ref: string | undefined, storedId: string, field: string) => {
      if (ref !== undefined) return findSiteZone(s, ref, field);
      const zone = s.zones.find((z) => z._id === storedId);
      if (zone) return zone;
      throw new NotSupportedError(
        `firewall policy "${current.name}" names zone ${storedId}, which the controller no longer lists`,
      );
    };
    const from = await zoneOf(args.source_zone, current.source.zone_id, 'source_zone');
    const to = await zoneOf(args.destination_zone, current.destination.zone_id, 'destination_zone');
    const protocolNow = args.protocol ?? current.protocol ?? 'all';
    const ipVersionNow = args.ip_version ?? current.ip_version ?? 'BOTH';
    const warnings: string[] = [];
    const source = updatedSide(
      s,
      from,
      'source',
      stored.source as Record<string, unknown>,
      current.source,
      sideArgs(args, 'source'),
      protocolNow,
      warnings,
    );
    const destination = updatedSide(
      s,
      to,
      'destination',
      stored.destination as Record<string, unknown>,
      current.destination,
      sideArgs(args, 'destination'),
      protocolNow,
      warnings,
    );
    const issues: FieldIssue[] = [
      ...ipIssues('source_ips', sideIps(source), ipVersionNow),
      ...ipIssues('destination_ips', sideIps(destination), ipVersionNow),
      ...portIssues(protocolNow, [
        { field: 'source_port', value: args.source_port },
        { field: 'destination_port', value: args.destination_port },
      ]),
    ];
    let schedule: unknown = stored.schedule ?? { mode: 'ALWAYS' };
    if (args.schedule !== undefined || args.schedule_days !== undefined || args.schedule_time !== undefined) {
      const mode = args.schedule ?? scheduleWord(current.schedule?.mode);
      if (mode === undefined) {
        issues.push({
          field: 'schedule',
          rule: `is required: the stored ${current.schedule?.mode} schedule is not one the tools write`,
        });
      } else {
        const sched = current.schedule;
        const keptDays = args.schedule_days ?? (mode === 'every_week' ? sched?.repeat_on_days : undefined);
        const keptTime =
          args.schedule_time ??
          (mode !== 'always' &&
          sched?.time_all_day === false &&
          sched.time_range_start &&
          sched.time_range_end
            ? `${sched.time_range_start}-${sched.time_range_end}`
            : undefined);
        issues.push(...scheduleIssues(mode, keptDays, args.schedule_time));
        schedule = scheduleBody(mode, keptDays, keptTime);
      }
    }
    if (issues.length > 0) throw new ValidationError(issues);

    const body: Record<string, unknown> = { ...stored, schedule, source, destination };
    for (const key of ['name', 'description', 'enabled', 'logging', 'protocol', 'ip_version'] as const) {
      if (args[key] !== undefined) body[key] = args[key];
    }
    if (args.action !== undefined) {
      body.action = args.action;
      // The return-traffic request follows the verdict: refused beside BLOCK/REJECT, wanted with ALLOW.
      body.create_allow_respond = args.action === 'ALLOW';
    }
    const before = view(s, current);
    const { id: _id, index: _index, ...after } = writtenView(s, undefined, body) as FirewallPolicy;
    const changes = fieldChanges({ ...before }, after);
    const policyChanged = Object.keys(changes).length > 0;

    const movedPair = from._id !== current.source.zone_id || to._id !== current.destination.zone_id;
    // The order is read only when a place is asked for (official: `policies/ordering`).
    const order = args.position === undefined ? undefined : await pairOrder(s, from._id, to._id);
    const others = order?.before.filter((id) => id !== current._id) ?? [];
    const last = others.length + 1;
    const at = order?.before.indexOf(current._id) ?? -1;
    const now = movedPair ? null : at >= 0 ? at + 1 : last;
    if (movedPair)
      warnings.push(
        `the policy moves to ${from.name} → ${to.name}, where it goes last unless a position is given`,
      );
    if (args.position !== undefined && args.position > last) {
      warnings.push(
        `position ${args.position} is past the end of ${from.name} → ${to.name}: it goes last (${last})`,
      );
    }
    const wanted = args.position === undefined ? (now ?? last) : Math.min(args.position, last);
    // After a move the controller already puts the policy last; only another place needs a reorder.
    const placement =
      order !== undefined && wanted !== (now ?? last) ? placedAt(order, current._id, wanted) : undefined;
    const reorder = placement ? reorderRequest(s, from._id, to._id, placement.order) : undefined;
    if (args.position !== undefined && wanted !== now) changes.position = { from: now, to: wanted };
    const summary = { policy_id: current._id, name: current.name, changes, warnings };
    const sent = policyChanged ? await sentBody(s, body) : null;
    if (args.dry_run && sent === null && !reorder) return nothingToChange(summary);
    if (args.dry_run) {
      const shown = { would_send: sent, ...(reorder ? { would_reorder: reorder.body } : {}) };
      return { dry_run: true, ...summary, ...shown, ...previewNames(s, [summary, shown]) };
    }
    let answer: unknown;
    if (sent !== null) answer = await writePolicy(s, 'PUT', current._id, sent);
    if (reorder) {
      const done = sent !== null ? [`policy "${current.name}" updated`] : [];
      answer = (await place(s, reorder, current._id, done, `moving it to position ${wanted}`)) ?? answer;
    }
    return {
      success: true,
      ...summary,
      policy: answer === undefined ? before : writtenView(s, answer, body),
    };
  },
});

const deleteFirewallPolicy = defineTool({
  name: 'delete_firewall_policy',
  change: firewallPolicyChanges.delete_firewall_policy,
  description: 'Delete a firewall policy of your own (irreversible)',
  access: 'write',
  firewall: 'zone-based',
  example: 'policy_id="Cameras: no internet"',
  args: z.object({ site_id: siteId, policy_id: policyRef, confirm, dry_run: dryRun }),
  async run({ site_id, policy_id, dry_run }, { gateway }) {
    const s = await loadPolicies(gateway, site_id, true);
    const target = await findSitePolicy(s, policy_id);
    assertUserPolicy(target, 'deleted');
    const shown = view(s, target);
    const warnings = ['deletion is irreversible'];
    if (shown.enabled) {
      warnings.push(
        target.action === 'ALLOW'
          ? `traffic it allows from ${shown.source_zone} to ${shown.destination_zone} falls to the next policy of the pair`
          : `traffic it blocks from ${shown.source_zone} to ${shown.destination_zone} may flow again`,
      );
    }
    return applyDelete({
      dryRun: dry_run,
      preview: shown,
      warnings,
      idField: 'deleted_policy_id',
      id: target._id,
      send: () => writePolicy(s, 'DELETE', target._id),
    });
  },
});

/**
 * Zone-based firewall policies: official `firewall/policies` on Network 10.1+ with an API key, v2
 * `firewall-policies` before; the firewall of migrated consoles.
 */
export const firewallPolicyTools: ToolDefinition[] = [
  listFirewallPolicies,
  getFirewallPolicy,
  createFirewallPolicy,
  updateFirewallPolicy,
  deleteFirewallPolicy,
];
