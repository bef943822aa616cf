import { z } from 'zod';
import { isIpv4OrCidr, isIpv6OrCidr } from '../../lib/ip.js';
import { DEMO_NOW, DEMO_ZONE_MIGRATION_ID } from '../demo-ids.js';
import { json, SimError } from '../envelopes.js';
import type { Router } from '../router.js';
import type { FirewallPolicy, FirewallZone, SiteState } from '../state.js';
import { parseOrThrow } from '../validation.js';
import { type Handler, namedSite, param, type RequestContext } from './context.js';

/**
 * v2 codes. `FirewallPolicyNotFound` and `ShouldIncludeFirewallPolicyInBatchUpdate` were observed on
 * a live console (liambeeton/unifig ADR-0027 and its replay stand-in); the refusal of a return-rule
 * request beside a blocking verdict was observed as a message only, so its code is the simulator's.
 */
export const POLICY_CODES = {
  notFound: 'api.err.FirewallPolicyNotFound',
  partialReorder: 'api.err.ShouldIncludeFirewallPolicyInBatchUpdate',
  respondNotAllowed: 'api.err.FirewallPolicyCreateRespondTrafficNotAllowed',
  invalid: 'api.err.InvalidPayload',
} as const;

/** Where the controller puts the admin's own policies of a zone pair, and those placed after the system ones. */
export const FIRST_USER_INDEX = 10000;
export const GENERATED_INDEX = 30000;
export const AFTER_PREDEFINED_INDEX = 40000;

const PORT_SPEC = /^\d{1,5}(-\d{1,5})?(,\d{1,5}(-\d{1,5})?)*$/;
const MATCHING = ['ANY', 'SPECIFIC', 'LIST', 'OBJECT'] as const;

// go-unifi cmd/fields/custom/FirewallPolicy.json gives the enums; loose: unknown keys are stored.
const endpoint = z.looseObject({
  zone_id: z.string().min(1),
  matching_target: z.enum(['ANY', 'DEVICE', 'IP', 'NETWORK', 'CLIENT', 'MAC', 'WEB']),
  matching_target_type: z.enum(MATCHING).optional(),
  ips: z.array(z.string()).optional(),
  network_ids: z.array(z.string()).optional(),
  port_matching_type: z.enum(MATCHING).default('ANY'),
  port: z.string().regex(PORT_SPEC).optional(),
  match_opposite_ports: z.boolean().default(false),
});

const schedule = z.looseObject({
  mode: z.enum(['ALWAYS', 'EVERY_DAY', 'EVERY_WEEK', 'ONE_TIME_ONLY', 'CUSTOM']),
  repeat_on_days: z.array(z.enum(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'])).optional(),
  time_all_day: z.boolean().optional(),
  time_range_start: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/)
    .optional(),
  time_range_end: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/)
    .optional(),
});

const policyBody = z.looseObject({
  name: z.string().min(1).max(128),
  description: z.string().max(256).default(''),
  action: z.enum(['ALLOW', 'BLOCK', 'REJECT']),
  enabled: z.boolean(),
  protocol: z.enum(['all', 'tcp', 'udp', 'tcp_udp', 'icmp', 'icmpv6']).default('all'),
  ip_version: z.enum(['BOTH', 'IPV4', 'IPV6']).default('BOTH'),
  logging: z.boolean().default(false),
  create_allow_respond: z.boolean().default(false),
  connection_state_type: z.enum(['ALL', 'RESPOND_ONLY', 'CUSTOM']).default('ALL'),
  connection_states: z.array(z.string()).default([]),
  schedule: schedule.default({ mode: 'ALWAYS' }),
  source: endpoint,
  destination: endpoint,
});

type PolicyBody = z.infer<typeof policyBody>;

const reorderBody = z.object({
  source_zone_id: z.string().min(1),
  destination_zone_id: z.string().min(1),
  before_predefined_ids: z.array(z.string()),
  after_predefined_ids: z.array(z.string()),
});

const invalid = (message: string) => new SimError(400, POLICY_CODES.invalid, message);

function zoneById(site: SiteState, id: string): FirewallZone | undefined {
  return site.zones.find((zone) => zone._id === id);
}

/**
 * The cross-field rules of a policy body: known zones and networks, addresses of the IP version,
 * ports. The official routes check the v2 record they turn a body into with it too.
 */
export function checkPolicy(
  site: SiteState,
  body: Pick<
    PolicyBody,
    'create_allow_respond' | 'action' | 'ip_version' | 'protocol' | 'source' | 'destination'
  >,
): void {
  if (body.create_allow_respond && body.action !== 'ALLOW') {
    throw new SimError(
      400,
      POLICY_CODES.respondNotAllowed,
      'Firewall policy create respond traffic not allowed',
    );
  }
  for (const side of ['source', 'destination'] as const) {
    const end = body[side];
    if (!zoneById(site, end.zone_id)) throw invalid(`${side}.zone_id ${end.zone_id} is not a firewall zone`);
    if (end.matching_target !== 'ANY' && end.matching_target_type === undefined) {
      throw invalid(`${side}.matching_target_type is required with matching_target ${end.matching_target}`);
    }
    if (end.matching_target === 'IP') {
      const ips = end.ips ?? [];
      if (ips.length === 0) throw invalid(`${side}.ips must not be empty`);
      const fits = (ip: string) =>
        (body.ip_version !== 'IPV6' && isIpv4OrCidr(ip, true)) ||
        (body.ip_version !== 'IPV4' && isIpv6OrCidr(ip, true));
      const bad = ips.find((ip) => !fits(ip));
      if (bad !== undefined) throw invalid(`${side}.ips: ${bad} is not an ${body.ip_version} address`);
    }
    if (end.matching_target === 'NETWORK') {
      const ids = end.network_ids ?? [];
      if (ids.length === 0) throw invalid(`${side}.network_ids must not be empty`);
      const unknown = ids.find((id) => !site.networks.some((network) => network._id === id));
      if (unknown !== undefined) throw invalid(`${side}.network_ids: ${unknown} is not a network`);
    }
    if (end.port_matching_type === 'SPECIFIC') {
      if (end.port === undefined) throw invalid(`${side}.port is required with port_matching_type SPECIFIC`);
      if (!['tcp', 'udp', 'tcp_udp'].includes(body.protocol)) {
        throw invalid(`${side}.port applies to tcp and udp only`);
      }
    }
  }
}

function parsePolicy(ctx: RequestContext, site: SiteState): PolicyBody {
  const body = parseOrThrow(policyBody, ctx.body, (_error, message) => invalid(message));
  checkPolicy(site, body);
  return body;
}

export const samePair = (policy: FirewallPolicy, source: string, destination: string) =>
  policy.source.zone_id === source && policy.destination.zone_id === destination;

/** The index the controller gives a new policy: after the pair's last user policy, below the generated tier. */
export function nextIndex(site: SiteState, source: string, destination: string): number {
  const used = site.firewallPolicies
    .filter((p) => !p.predefined && samePair(p, source, destination) && p.index < GENERATED_INDEX)
    .map((p) => p.index);
  return used.length === 0 ? FIRST_USER_INDEX : Math.max(...used) + 1;
}

/** A user policy by `_id`; generated policies and unknown ids are `FirewallPolicyNotFound` (as on a real console). */
function findUserPolicy(site: SiteState, id: string): FirewallPolicy {
  const policy = site.firewallPolicies.find((p) => p._id === id && !p.predefined);
  if (!policy) throw new SimError(404, POLICY_CODES.notFound, `Firewall policy ${id} not found`);
  return policy;
}

/** A zone as the v2 API shows it: networkconf `_id`s and the Integration UUID as `external_id`. */
function v2Zone(site: SiteState, zone: FirewallZone) {
  const system = zone.metadata.origin === 'SYSTEM_DEFINED';
  return {
    _id: zone._id,
    name: zone.name,
    zone_key: zone.zone_key,
    default_zone: system,
    attr_no_edit: system && zone.metadata.configurable !== true,
    network_ids: zone.networkIds.map(
      (uuid) => site.networks.find((network) => network.external_id === uuid)?._id ?? uuid,
    ),
    external_id: zone.id,
  };
}

/** Reorders a zone pair's user policies; the lists must name every one of them. */
function reorder(ctx: RequestContext, site: SiteState) {
  if (ctx.body !== null && typeof ctx.body === 'object') {
    const lists = ctx.body as Record<string, unknown>;
    // A null list made a live console answer 500 (unifig's replay stand-in); so does this.
    if (lists.before_predefined_ids === null || lists.after_predefined_ids === null) {
      throw new SimError(500, 'api.err.ServerError', 'Internal server error');
    }
  }
  const body = parseOrThrow(reorderBody, ctx.body, (_error, message) => invalid(message));
  const pair = site.firewallPolicies.filter(
    (p) => !p.predefined && samePair(p, body.source_zone_id, body.destination_zone_id),
  );
  const named = [...body.before_predefined_ids, ...body.after_predefined_ids];
  const missing = pair.find((p) => !named.includes(p._id));
  if (missing) {
    throw new SimError(400, POLICY_CODES.partialReorder, 'Should include firewall policy in batch update');
  }
  const byId = (id: string) => {
    const policy = pair.find((p) => p._id === id);
    if (!policy) throw new SimError(404, POLICY_CODES.notFound, `Firewall policy ${id} not found`);
    return policy;
  };
  const before = body.before_predefined_ids.map(byId);
  const after = body.after_predefined_ids.map(byId);
  before.forEach((policy, i) => {
    policy.index = FIRST_USER_INDEX + i;
  });
  after.forEach((policy, i) => {
    policy.index = AFTER_PREDEFINED_INDEX + i;
  });
  return json([...before, ...after]);
}

/**
 * Registers the zone-based firewall's v2 routes: `site-feature-migration` (the generation
 * detection), `firewall/zone` (read), and `firewall-policies` (CRUD, PUT a full replace, and
 * `batch-reorder`). On a legacy site the lists are empty, as a real console answers.
 */
export function registerV2Firewall(router: Router<Handler>): void {
  const base = '/v2/api/site/:site';
  const zones = namedSite((_ctx, site) => json(site.zones.map((zone) => v2Zone(site, zone))));
  router
    .on(
      'GET',
      `${base}/site-feature-migration`,
      namedSite((_ctx, site) =>
        json(
          site.firewall === 'zone-based'
            ? [{ _id: DEMO_ZONE_MIGRATION_ID, feature: 'ZONE_BASED_FIREWALL', timestamp: DEMO_NOW * 1000 }]
            : [],
        ),
      ),
    )
    // aiounifi and go-unifi call the singular form; sirkirby/unifi-network-rules falls back to the plural.
    .on('GET', `${base}/firewall/zone`, zones)
    .on('GET', `${base}/firewall/zones`, zones)
    .on(
      'GET',
      `${base}/firewall-policies`,
      namedSite((_ctx, site) => json(site.firewallPolicies)),
    )
    .on(
      'POST',
      `${base}/firewall-policies`,
      namedSite((ctx, site) => {
        const policy = addPolicy(ctx, site, parsePolicy(ctx, site));
        return json(policy);
      }),
    )
    // The literal path must win over `firewall-policies/{id}`.
    .on(
      'PUT',
      `${base}/firewall-policies/batch-reorder`,
      namedSite((ctx, site) => reorder(ctx, site)),
    )
    .on(
      'PUT',
      `${base}/firewall-policies/:id`,
      namedSite((ctx, site) => {
        const existing = findUserPolicy(site, param(ctx, 'id'));
        return json(replacePolicy(site, existing, parsePolicy(ctx, site)));
      }),
    )
    .on(
      'DELETE',
      `${base}/firewall-policies/:id`,
      namedSite((ctx, site) => {
        const existing = findUserPolicy(site, param(ctx, 'id'));
        site.firewallPolicies.splice(site.firewallPolicies.indexOf(existing), 1);
        return { status: 200 };
      }),
    );
}

/** A new user-defined policy (v2 POST and official POST alike), last of its zone pair. */
export function addPolicy(
  ctx: RequestContext,
  site: SiteState,
  body: Pick<FirewallPolicy, 'name' | 'action' | 'enabled' | 'source' | 'destination'> &
    Record<string, unknown>,
): FirewallPolicy {
  const policy: FirewallPolicy = {
    ...body,
    _id: ctx.state.newObjectId(),
    // The same policy's id in the official API (a simulator choice, as on zones and networks).
    external_id: ctx.state.newUuid(),
    index: nextIndex(site, body.source.zone_id, body.destination.zone_id),
    predefined: false,
  };
  site.firewallPolicies.push(policy);
  return policy;
}

/**
 * A full replacement of a stored policy (v2 PUT and official PUT alike): ids kept; `index` is not
 * writable, so the stored one stays unless the policy moves to another zone pair.
 */
export function replacePolicy(
  site: SiteState,
  existing: FirewallPolicy,
  body: Pick<FirewallPolicy, 'name' | 'action' | 'enabled' | 'source' | 'destination'> &
    Record<string, unknown>,
): FirewallPolicy {
  const moved = !samePair(existing, body.source.zone_id, body.destination.zone_id);
  const replacement: FirewallPolicy = {
    ...body,
    _id: existing._id,
    external_id: existing.external_id,
    index: moved ? nextIndex(site, body.source.zone_id, body.destination.zone_id) : existing.index,
    predefined: false,
  };
  site.firewallPolicies.splice(site.firewallPolicies.indexOf(existing), 1, replacement);
  return replacement;
}
