import { z } from 'zod';
import { INTEGRATION_CODES, json } from '../envelopes.js';
import { networkUuidOf } from '../retired-networks.js';
import type { Router } from '../router.js';
import type { FirewallPolicy, FirewallPolicyEndpoint, FirewallZone, SiteState } from '../state.js';
import { type Handler, param, type RequestContext, uuidSite } from './context.js';
import { badRequest, listPage, notFound, parseBody } from './integration-common.js';
import { ZONE_CODES } from './integration-zones.js';
import {
  AFTER_PREDEFINED_INDEX,
  addPolicy,
  checkPolicy,
  FIRST_USER_INDEX,
  GENERATED_INDEX,
  replacePolicy,
  samePair,
} from './v2-firewall.js';

/**
 * The official `firewall/policies` (CRUD, PATCH of `loggingEnabled`) and `firewall/policies/ordering`
 * routes of Network 10.1 (Ubiquiti's OpenAPI 10.1.85). One state: a policy is stored as the v2
 * record (`site.firewallPolicies`), shown here by its `external_id` and translated both ways, so a
 * policy written through either API reads back through the other. Bodies are checked against the
 * document's shapes (strictly: unknown properties are a 400); filters the simulator does not model
 * (regions, VPNs, domains, applications, IPv6 interface ids) are refused with a 400 that says so.
 */

/** Policy error codes (simulator choices; the real codes are not documented). */
export const OFFICIAL_POLICY_CODES = {
  systemDefined: 'api.firewall-policy.system-defined',
  invalidOrdering: 'api.firewall-policy.invalid-ordering',
  unsupported: 'api.firewall-policy.unsupported-by-simulator',
} as const;

const PORT = z.int().min(1).max(65535);
const portItem = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('PORT_NUMBER'), value: PORT }),
  z.strictObject({ type: z.literal('PORT_NUMBER_RANGE'), start: PORT, stop: PORT }),
]);
const portFilter = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('PORTS'), matchOpposite: z.boolean(), items: z.array(portItem).min(1) }),
  z.strictObject({
    type: z.literal('TRAFFIC_MATCHING_LIST'),
    matchOpposite: z.boolean(),
    trafficMatchingListId: z.guid(),
  }),
]);
const ipItem = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('IP_ADDRESS'), value: z.string().min(1) }),
  z.strictObject({ type: z.literal('SUBNET'), value: z.string().min(1) }),
  z.strictObject({ type: z.literal('IP_ADDRESS_RANGE'), start: z.string().min(1), stop: z.string().min(1) }),
]);
const ipAddressFilter = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('IP_ADDRESSES'),
    matchOpposite: z.boolean(),
    items: z.array(ipItem).min(1),
  }),
  z.strictObject({
    type: z.literal('TRAFFIC_MATCHING_LIST'),
    matchOpposite: z.boolean(),
    trafficMatchingListId: z.guid(),
  }),
]);
const networkFilter = z.strictObject({ networkIds: z.array(z.guid()).min(1), matchOpposite: z.boolean() });
// The filter types the simulator models; the document has more (see the refusal below).
const trafficFilter = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('PORT'), portFilter }),
  z.strictObject({
    type: z.literal('NETWORK'),
    networkFilter,
    macAddressFilter: z.string().optional(),
    portFilter: portFilter.optional(),
  }),
  z.strictObject({
    type: z.literal('IP_ADDRESS'),
    ipAddressFilter,
    macAddressFilter: z.string().optional(),
    portFilter: portFilter.optional(),
  }),
  z.strictObject({
    type: z.literal('MAC_ADDRESS'),
    macAddressFilter: z.strictObject({ macAddresses: z.array(z.string()).min(1) }),
    portFilter: portFilter.optional(),
  }),
]);
const MODELLED = new Set(['PORT', 'NETWORK', 'IP_ADDRESS', 'MAC_ADDRESS']);
const side = z.strictObject({ zoneId: z.guid(), trafficFilter: trafficFilter.optional() });
const protocolFilter = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('NAMED_PROTOCOL'),
    protocol: z.looseObject({ name: z.string().min(1) }),
    matchOpposite: z.boolean(),
  }),
  z.strictObject({
    type: z.literal('PROTOCOL_NUMBER'),
    protocolNumber: z.int().min(0).max(255),
    matchOpposite: z.boolean(),
  }),
  z.strictObject({ type: z.literal('PRESET'), preset: z.strictObject({ name: z.literal('TCP_UDP') }) }),
]);
const time = z.strictObject({
  startTime: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/),
  stopTime: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/),
});
const DAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;
const days = z.array(z.enum(DAYS)).min(1);
const date = z.iso.date();
const schedule = z.discriminatedUnion('mode', [
  z.strictObject({ mode: z.literal('EVERY_DAY'), timeFilter: time }),
  z.strictObject({ mode: z.literal('EVERY_WEEK'), repeatOnDays: days, timeFilter: time.optional() }),
  z.strictObject({ mode: z.literal('ONE_TIME_ONLY'), date, timeFilter: time }),
  z.strictObject({
    mode: z.literal('CUSTOM'),
    repeatOnDays: days,
    startDate: date,
    stopDate: date,
    timeFilter: time.optional(),
  }),
]);
const policyBody = z.strictObject({
  enabled: z.boolean(),
  name: z.string().min(1).max(128),
  description: z.string().max(256).optional(),
  action: z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('ALLOW'), allowReturnTraffic: z.boolean() }),
    z.strictObject({ type: z.literal('BLOCK') }),
    z.strictObject({ type: z.literal('REJECT') }),
  ]),
  source: side,
  destination: side,
  ipProtocolScope: z.strictObject({
    ipVersion: z.enum(['IPV4', 'IPV6', 'IPV4_AND_IPV6']),
    protocolFilter: protocolFilter.optional(),
  }),
  connectionStateFilter: z
    .array(z.enum(['NEW', 'INVALID', 'ESTABLISHED', 'RELATED']))
    .min(1)
    .optional(),
  ipsecFilter: z.enum(['MATCH_ENCRYPTED', 'MATCH_NOT_ENCRYPTED']).optional(),
  loggingEnabled: z.boolean(),
  schedule: schedule.optional(),
});
type PolicyBody = z.infer<typeof policyBody>;
type Side = z.infer<typeof side>;

const PROTOCOL_OF_NUMBER: Readonly<Record<number, string>> = { 1: 'icmp', 6: 'tcp', 17: 'udp', 58: 'icmpv6' };
const V2_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const dayToV2 = (day: (typeof DAYS)[number]) => V2_DAYS[DAYS.indexOf(day)] ?? 'mon';
const dayFromV2 = (day: unknown) => DAYS[V2_DAYS.indexOf(day as (typeof V2_DAYS)[number])] ?? 'MONDAY';

/** Refuses a filter type the document has and the simulator does not model, before the strict parse. */
function refuseUnmodelled(ctx: RequestContext): void {
  const body = ctx.body as Record<string, { trafficFilter?: { type?: unknown } } | undefined> | undefined;
  for (const name of ['source', 'destination']) {
    const type = body?.[name]?.trafficFilter?.type;
    if (typeof type === 'string' && !MODELLED.has(type)) {
      throw badRequest(
        `${name}.trafficFilter type ${type} is not modelled by the simulator`,
        OFFICIAL_POLICY_CODES.unsupported,
      );
    }
  }
}

function zoneByUuid(site: SiteState, uuid: string): FirewallZone {
  const zone = site.zones.find((candidate) => candidate.id === uuid);
  if (!zone) throw badRequest(`Firewall zone ${uuid} not found`);
  return zone;
}

function portToV2(filter: z.infer<typeof portFilter> | undefined): Record<string, unknown> {
  if (filter === undefined) return { port_matching_type: 'ANY', match_opposite_ports: false };
  if (filter.type === 'TRAFFIC_MATCHING_LIST') {
    return {
      port_matching_type: 'OBJECT',
      port_group_id: filter.trafficMatchingListId,
      match_opposite_ports: filter.matchOpposite,
    };
  }
  const port = filter.items
    .map((item) => (item.type === 'PORT_NUMBER' ? String(item.value) : `${item.start}-${item.stop}`))
    .join(',');
  return { port_matching_type: 'SPECIFIC', port, match_opposite_ports: filter.matchOpposite };
}

function sideToV2(site: SiteState, given: Side): FirewallPolicyEndpoint {
  const zone = zoneByUuid(site, given.zoneId);
  const filter = given.trafficFilter;
  const out: FirewallPolicyEndpoint = {
    zone_id: zone._id,
    matching_target: 'ANY',
    ...portToV2(filter === undefined ? undefined : filter.portFilter),
  };
  if (filter?.type === 'NETWORK') {
    const ids = filter.networkFilter.networkIds.map((uuid) => {
      const network = site.networks.find((candidate) => candidate.external_id === uuid);
      if (!network) throw badRequest(`Network ${uuid} not found`, INTEGRATION_CODES.networkNotFound);
      return network._id;
    });
    Object.assign(out, {
      matching_target: 'NETWORK',
      matching_target_type: 'OBJECT',
      network_ids: ids,
      match_opposite_networks: filter.networkFilter.matchOpposite,
    });
  } else if (filter?.type === 'IP_ADDRESS') {
    const ip = filter.ipAddressFilter;
    Object.assign(
      out,
      ip.type === 'IP_ADDRESSES'
        ? {
            matching_target: 'IP',
            matching_target_type: 'SPECIFIC',
            ips: ip.items.map((item) =>
              item.type === 'IP_ADDRESS_RANGE' ? `${item.start}-${item.stop}` : item.value,
            ),
            match_opposite_ips: ip.matchOpposite,
          }
        : {
            matching_target: 'IP',
            matching_target_type: 'OBJECT',
            ip_group_id: ip.trafficMatchingListId,
            match_opposite_ips: ip.matchOpposite,
          },
    );
  } else if (filter?.type === 'MAC_ADDRESS') {
    Object.assign(out, {
      matching_target: 'MAC',
      matching_target_type: 'SPECIFIC',
      client_macs: filter.macAddressFilter.macAddresses,
    });
  }
  if (filter !== undefined && 'macAddressFilter' in filter && typeof filter.macAddressFilter === 'string')
    out.mac = filter.macAddressFilter;
  return out;
}

function protocolToV2(filter: z.infer<typeof protocolFilter> | undefined): Record<string, unknown> {
  if (filter === undefined) return { protocol: 'all', match_opposite_protocol: false };
  if (filter.type === 'PRESET') return { protocol: 'tcp_udp', match_opposite_protocol: false };
  if (filter.type === 'PROTOCOL_NUMBER') {
    const word = PROTOCOL_OF_NUMBER[filter.protocolNumber];
    return word === undefined
      ? {
          protocol: 'number',
          protocol_number: filter.protocolNumber,
          match_opposite_protocol: filter.matchOpposite,
        }
      : { protocol: word, match_opposite_protocol: filter.matchOpposite };
  }
  return { protocol: filter.protocol.name.toLowerCase(), match_opposite_protocol: filter.matchOpposite };
}

function scheduleToV2(given: PolicyBody['schedule']): Record<string, unknown> {
  if (given === undefined) return { mode: 'ALWAYS' };
  const range = given.timeFilter
    ? {
        time_all_day: false,
        time_range_start: given.timeFilter.startTime,
        time_range_end: given.timeFilter.stopTime,
      }
    : { time_all_day: true };
  switch (given.mode) {
    case 'EVERY_DAY':
      return { mode: 'EVERY_DAY', repeat_on_days: [], ...range };
    case 'EVERY_WEEK':
      return { mode: 'EVERY_WEEK', repeat_on_days: given.repeatOnDays.map(dayToV2), ...range };
    case 'ONE_TIME_ONLY':
      return {
        mode: 'ONE_TIME_ONLY',
        repeat_on_days: [],
        date_start: given.date,
        date_end: given.date,
        ...range,
      };
    case 'CUSTOM':
      return {
        mode: 'CUSTOM',
        repeat_on_days: given.repeatOnDays.map(dayToV2),
        date_start: given.startDate,
        date_end: given.stopDate,
        ...range,
      };
  }
}

/** The v2 record fields of an official body (everything but `_id`, `external_id`, `index`, `predefined`). */
function toV2(site: SiteState, body: PolicyBody) {
  const record = {
    name: body.name,
    description: body.description ?? '',
    enabled: body.enabled,
    action: body.action.type,
    create_allow_respond: body.action.type === 'ALLOW' && body.action.allowReturnTraffic,
    ip_version: body.ipProtocolScope.ipVersion === 'IPV4_AND_IPV6' ? 'BOTH' : body.ipProtocolScope.ipVersion,
    ...protocolToV2(body.ipProtocolScope.protocolFilter),
    logging: body.loggingEnabled,
    connection_state_type: body.connectionStateFilter ? 'CUSTOM' : 'ALL',
    connection_states: body.connectionStateFilter ?? [],
    match_ip_sec: body.ipsecFilter !== undefined,
    ...(body.ipsecFilter === undefined ? {} : { ipsec: body.ipsecFilter }),
    icmp_typename: 'ANY',
    icmp_v6_typename: 'ANY',
    schedule: scheduleToV2(body.schedule),
    source: sideToV2(site, body.source),
    destination: sideToV2(site, body.destination),
  };
  // The v2 route's own cross-field rules (addresses of the IP version, ports with tcp or udp only).
  checkPolicy(site, record as unknown as Parameters<typeof checkPolicy>[1]);
  return record;
}

// ---------------------------------------------------------------- the official view of a v2 record

// Deliberately alike: the simulator maps a v2 port side to the official view on its own, apart from the bot's tools, so each checks the other.
function portView(end: FirewallPolicyEndpoint): Record<string, unknown> | undefined {
  if (end.port_matching_type === 'SPECIFIC' && typeof end.port === 'string') {
    const items = end.port.split(',').map((part) => {
      const [start = '', stop] = part.split('-');
      return stop === undefined
        ? { type: 'PORT_NUMBER', value: Number(start) }
        : { type: 'PORT_NUMBER_RANGE', start: Number(start), stop: Number(stop) };
    });
    return { type: 'PORTS', matchOpposite: end.match_opposite_ports === true, items };
  }
  if (end.port_matching_type === 'OBJECT' && typeof end.port_group_id === 'string') {
    return {
      type: 'TRAFFIC_MATCHING_LIST',
      matchOpposite: end.match_opposite_ports === true,
      trafficMatchingListId: end.port_group_id,
    };
  }
  return undefined;
}

function ipView(text: string): Record<string, unknown> {
  const range = /^([^/-]+)-([^/-]+)$/.exec(text);
  if (range) return { type: 'IP_ADDRESS_RANGE', start: range[1], stop: range[2] };
  return text.includes('/') ? { type: 'SUBNET', value: text } : { type: 'IP_ADDRESS', value: text };
}

function sideView(site: SiteState, end: FirewallPolicyEndpoint): Record<string, unknown> {
  const zone = site.zones.find((candidate) => candidate._id === end.zone_id);
  const ports = portView(end);
  const withPorts = (filter: Record<string, unknown>) => (ports ? { ...filter, portFilter: ports } : filter);
  const mac = typeof end.mac === 'string' ? { macAddressFilter: end.mac } : {};
  let filter: Record<string, unknown> | undefined;
  if (end.matching_target === 'NETWORK') {
    const ids = Array.isArray(end.network_ids) ? (end.network_ids as string[]) : [];
    filter = withPorts({
      type: 'NETWORK',
      networkFilter: {
        // A deleted network is still named by the UUID it had (the reference dangles).
        networkIds: ids.map((id) => networkUuidOf(site, id) ?? id),
        matchOpposite: end.match_opposite_networks === true,
      },
      ...mac,
    });
  } else if (end.matching_target === 'IP') {
    filter = withPorts({
      type: 'IP_ADDRESS',
      ipAddressFilter:
        end.matching_target_type === 'OBJECT'
          ? {
              type: 'TRAFFIC_MATCHING_LIST',
              matchOpposite: end.match_opposite_ips === true,
              trafficMatchingListId: end.ip_group_id,
            }
          : {
              type: 'IP_ADDRESSES',
              matchOpposite: end.match_opposite_ips === true,
              items: (Array.isArray(end.ips) ? (end.ips as string[]) : []).map(ipView),
            },
      ...mac,
    });
  } else if (end.matching_target === 'MAC') {
    const macs = Array.isArray(end.client_macs) ? end.client_macs : [];
    filter = withPorts({ type: 'MAC_ADDRESS', macAddressFilter: { macAddresses: macs } });
  } else if (ports) {
    filter = { type: 'PORT', portFilter: ports };
  }
  return { zoneId: zone?.id ?? end.zone_id, ...(filter ? { trafficFilter: filter } : {}) };
}

function protocolView(policy: FirewallPolicy): Record<string, unknown> | undefined {
  const protocol = String(policy.protocol ?? 'all');
  const opposite = policy.match_opposite_protocol === true;
  if (protocol === 'all') return undefined;
  if (protocol === 'tcp_udp') return { type: 'PRESET', preset: { name: 'TCP_UDP' } };
  if (protocol === 'number') {
    return {
      type: 'PROTOCOL_NUMBER',
      protocolNumber: Number(policy.protocol_number),
      matchOpposite: opposite,
    };
  }
  // What the console itself shows for a protocol picked by name in its UI.
  return { type: 'NAMED_PROTOCOL', protocol: { name: protocol }, matchOpposite: opposite };
}

function scheduleView(value: unknown): Record<string, unknown> | undefined {
  const s = (value ?? {}) as Record<string, unknown>;
  const mode = String(s.mode ?? 'ALWAYS');
  if (mode === 'ALWAYS') return undefined;
  const timeFilter =
    s.time_all_day === false && typeof s.time_range_start === 'string' && typeof s.time_range_end === 'string'
      ? { timeFilter: { startTime: s.time_range_start, stopTime: s.time_range_end } }
      : {};
  const days = Array.isArray(s.repeat_on_days) ? s.repeat_on_days.map(dayFromV2) : [];
  if (mode === 'EVERY_WEEK') return { mode, repeatOnDays: days, ...timeFilter };
  if (mode === 'ONE_TIME_ONLY') return { mode, date: s.date_start, ...timeFilter };
  if (mode === 'CUSTOM')
    return { mode, repeatOnDays: days, startDate: s.date_start, stopDate: s.date_end, ...timeFilter };
  return { mode, ...timeFilter };
}

/** A stored (v2) policy as the official API shows it. */
export function officialPolicyView(site: SiteState, policy: FirewallPolicy): Record<string, unknown> {
  const action = String(policy.action);
  const states = Array.isArray(policy.connection_states) ? policy.connection_states : [];
  const protocol = protocolView(policy);
  const scheduled = scheduleView(policy.schedule);
  return {
    id: policy.external_id ?? policy._id,
    enabled: policy.enabled,
    name: policy.name,
    description: typeof policy.description === 'string' ? policy.description : '',
    index: policy.index,
    action:
      action === 'ALLOW'
        ? { type: 'ALLOW', allowReturnTraffic: policy.create_allow_respond === true }
        : { type: action },
    source: sideView(site, policy.source),
    destination: sideView(site, policy.destination),
    ipProtocolScope: {
      ipVersion:
        policy.ip_version === 'IPV4' || policy.ip_version === 'IPV6' ? policy.ip_version : 'IPV4_AND_IPV6',
      ...(protocol ? { protocolFilter: protocol } : {}),
    },
    ...(policy.connection_state_type === 'CUSTOM' && states.length > 0
      ? { connectionStateFilter: states.map((state) => String(state).toUpperCase()) }
      : {}),
    ...(typeof policy.ipsec === 'string' ? { ipsecFilter: policy.ipsec } : {}),
    loggingEnabled: policy.logging === true,
    ...(scheduled ? { schedule: scheduled } : {}),
    metadata: { origin: policy.predefined ? 'SYSTEM_DEFINED' : 'USER_DEFINED' },
  };
}

// ---------------------------------------------------------------- routes

function findByUuid(site: SiteState, id: string): FirewallPolicy {
  const policy = site.firewallPolicies.find((candidate) => candidate.external_id === id);
  if (!policy) throw notFound('Firewall policy', id);
  return policy;
}

function userDefined(policy: FirewallPolicy): FirewallPolicy {
  if (policy.predefined) {
    throw badRequest(
      `Firewall policy ${policy.name} is system-defined and cannot be changed`,
      OFFICIAL_POLICY_CODES.systemDefined,
    );
  }
  return policy;
}

function guard(site: SiteState): void {
  if (site.firewall === 'legacy') {
    throw badRequest('Zone-based firewall is not configured for this site', ZONE_CODES.notConfigured);
  }
}

/** The zone pair named by the ordering query (both required, both existing zones). */
function pairOf(ctx: RequestContext, site: SiteState): { source: FirewallZone; destination: FirewallZone } {
  const read = (name: string) => {
    const value = ctx.query.get(name);
    if (value === null || value === '') throw badRequest(`Query parameter ${name} is required`);
    return zoneByUuid(site, value);
  };
  return { source: read('sourceFirewallZoneId'), destination: read('destinationFirewallZoneId') };
}

function pairUserPolicies(site: SiteState, pair: { source: FirewallZone; destination: FirewallZone }) {
  return site.firewallPolicies
    .filter((p) => !p.predefined && samePair(p, pair.source._id, pair.destination._id))
    .sort((a, b) => a.index - b.index);
}

function orderingOf(site: SiteState, pair: { source: FirewallZone; destination: FirewallZone }) {
  const policies = pairUserPolicies(site, pair);
  const id = (p: FirewallPolicy) => p.external_id ?? p._id;
  return {
    orderedFirewallPolicyIds: {
      beforeSystemDefined: policies.filter((p) => p.index < GENERATED_INDEX).map(id),
      afterSystemDefined: policies.filter((p) => p.index >= GENERATED_INDEX).map(id),
    },
  };
}

const orderingBody = z.strictObject({
  orderedFirewallPolicyIds: z.strictObject({
    beforeSystemDefined: z.array(z.guid()),
    afterSystemDefined: z.array(z.guid()),
  }),
});

/** Registers the official firewall policy routes (the literal `ordering` before `{id}`). */
export function registerIntegrationPolicies(router: Router<Handler>): void {
  const base = '/integration/v1/sites/:siteId/firewall/policies';
  const guarded = (handler: Parameters<typeof uuidSite>[0]) =>
    uuidSite((ctx, site) => {
      guard(site);
      return handler(ctx, site);
    });
  const parse = (ctx: RequestContext, site: SiteState) => {
    refuseUnmodelled(ctx);
    return toV2(site, parseBody(policyBody, ctx));
  };
  // Deliberately alike: route registrations share the router's chain shape; each handler reads its own records.
  router
    .on(
      'GET',
      `${base}/ordering`,
      guarded((ctx, site) => json(orderingOf(site, pairOf(ctx, site)))),
    )
    .on(
      'PUT',
      `${base}/ordering`,
      guarded((ctx, site) => {
        const pair = pairOf(ctx, site);
        const { orderedFirewallPolicyIds: lists } = parseBody(orderingBody, ctx);
        const policies = pairUserPolicies(site, pair);
        const named = [...lists.beforeSystemDefined, ...lists.afterSystemDefined];
        const complete =
          new Set(named).size === named.length &&
          named.length === policies.length &&
          policies.every((p) => named.includes(p.external_id ?? p._id));
        if (!complete) {
          throw badRequest(
            'orderedFirewallPolicyIds must list every user-defined policy of the zone pair exactly once',
            OFFICIAL_POLICY_CODES.invalidOrdering,
          );
        }
        const byId = (id: string) => policies.find((p) => (p.external_id ?? p._id) === id) as FirewallPolicy;
        lists.beforeSystemDefined.map(byId).forEach((policy, i) => {
          policy.index = FIRST_USER_INDEX + i;
        });
        lists.afterSystemDefined.map(byId).forEach((policy, i) => {
          policy.index = AFTER_PREDEFINED_INDEX + i;
        });
        return json(orderingOf(site, pair));
      }),
    )
    // Deliberately alike: policies are found by external_id and add ordering and PATCH routes, so registerIntegrationCrud does not fit them.
    .on(
      'GET',
      base,
      guarded((ctx, site) =>
        listPage(
          ctx,
          site.firewallPolicies.map((p) => officialPolicyView(site, p)),
        ),
      ),
    )
    .on(
      'POST',
      base,
      guarded((ctx, site) => {
        return json(officialPolicyView(site, addPolicy(ctx, site, parse(ctx, site))), 201);
      }),
    )
    .on(
      'GET',
      `${base}/:id`,
      guarded((ctx, site) => json(officialPolicyView(site, findByUuid(site, param(ctx, 'id'))))),
    )
    .on(
      'PUT',
      `${base}/:id`,
      guarded((ctx, site) => {
        const existing = userDefined(findByUuid(site, param(ctx, 'id')));
        return json(officialPolicyView(site, replacePolicy(site, existing, parse(ctx, site))));
      }),
    )
    .on(
      'PATCH',
      `${base}/:id`,
      guarded((ctx, site) => {
        const existing = userDefined(findByUuid(site, param(ctx, 'id')));
        const { loggingEnabled } = parseBody(z.strictObject({ loggingEnabled: z.boolean().optional() }), ctx);
        if (loggingEnabled !== undefined) existing.logging = loggingEnabled;
        return json(officialPolicyView(site, existing));
      }),
    )
    .on(
      'DELETE',
      `${base}/:id`,
      guarded((ctx, site) => {
        const existing = userDefined(findByUuid(site, param(ctx, 'id')));
        site.firewallPolicies.splice(site.firewallPolicies.indexOf(existing), 1);
        return { status: 200 };
      }),
    );
}
