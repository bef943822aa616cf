import type { FieldIssue } from '../../errors.js';
import type { AclEndpointRecord, AclRuleRecord } from '../../records/acl-rule-record.js';
import { missingValue } from '../core/missing-values.js';

/** The spec's endpoint types. */
export const ACL_ENDPOINT_TYPES = ['network', 'device', 'ip', 'any'] as const;

/**
 * The spec's protocols (icmp is refused: see ICMP_REFUSAL), plus `tcp_udp`, which is how a rule
 * listing both reads (reads and writes share one vocabulary).
 */
export const ACL_PROTOCOLS = ['tcp', 'udp', 'tcp_udp', 'icmp', 'all'] as const;

/** The spec's actions. */
export const ACL_ACTIONS = ['allow', 'deny'] as const;

/** Why `icmp` is refused. */
export const ICMP_REFUSAL =
  'icmp cannot be matched: the controller’s ACL rules match TCP and UDP only (use a firewall rule for ICMP)';

/** The spec's default priority. */
export const DEFAULT_PRIORITY = 100;

/** An endpoint side: `source` or `destination` (the spec's argument prefixes). */
export type Side = 'source' | 'destination';

/** An ACL rule as the tools return it: the spec's fields (2.8), plus id, rule type and origin. */
export interface AclRule {
  id: string;
  name: string;
  action: string;
  enabled: boolean;
  source_type: string;
  /** Classic network ids (comma-separated when several), or MAC addresses for a MAC rule. */
  source_id: string | null;
  /** What `source_id` names, as people know it: network names, or client and device names. */
  source_name: string | null;
  /** Addresses or CIDRs (comma-separated when several). */
  source_network: string | null;
  destination_type: string;
  destination_id: string | null;
  destination_name: string | null;
  destination_network: string | null;
  /** `tcp`, `udp`, `all`, or `tcp_udp` when both are listed. */
  protocol: string;
  /** One port as a number; several as an array. */
  src_port: number | number[] | null;
  dst_port: number | number[] | null;
  /** 1-based position in the evaluation order; null for a rule outside the user ordering. */
  priority: number | null;
  description: string | null;
  rule_type: string;
  origin: string;
}

/** One decoded side of a rule; network ids stay Integration UUIDs here. */
export type Endpoint =
  | { type: 'any'; ports: number[] | null }
  | { type: 'network'; networkUuids: string[]; ports: number[] | null }
  | { type: 'ip'; addresses: string[]; ports: number[] | null }
  | { type: 'mac'; macs: string[] }
  | { type: 'other'; name: string };

/** An endpoint an IPV4 rule can be given by these tools. */
export type Ipv4Endpoint = Extract<Endpoint, { type: 'any' | 'network' | 'ip' }>;

/** The controller's filter object (null = any) as an Endpoint. */
export function decodeEndpoint(filter: AclEndpointRecord | null | undefined): Endpoint {
  if (!filter) return { type: 'any', ports: null };
  const ports = filter.portFilter && filter.portFilter.length > 0 ? filter.portFilter : null;
  switch (filter.type) {
    case 'PORTS':
      return { type: 'any', ports };
    case 'NETWORKS':
      return { type: 'network', networkUuids: filter.networkIds ?? [], ports };
    case 'IP_ADDRESSES_OR_SUBNETS':
      return { type: 'ip', addresses: filter.ipAddressesOrSubnets ?? [], ports };
    case 'MAC_ADDRESSES':
      return { type: 'mac', macs: filter.macAddresses ?? [] };
    default:
      return { type: 'other', name: filter.type };
  }
}

/** The IPV4 filter object for an endpoint: any without ports is null, any with ports a PORTS filter. */
export function encodeEndpoint(endpoint: Ipv4Endpoint): Record<string, unknown> | null {
  const portFilter = endpoint.ports ? { portFilter: endpoint.ports } : {};
  switch (endpoint.type) {
    case 'any':
      return endpoint.ports ? { type: 'PORTS', portFilter: endpoint.ports } : null;
    case 'network':
      return { type: 'NETWORKS', networkIds: endpoint.networkUuids, ...portFilter };
    case 'ip':
      return { type: 'IP_ADDRESSES_OR_SUBNETS', ipAddressesOrSubnets: endpoint.addresses, ...portFilter };
  }
}

/** allow → ALLOW, deny → BLOCK (the controller has no DENY). */
export function toControllerAction(action: (typeof ACL_ACTIONS)[number]): 'ALLOW' | 'BLOCK' {
  return action === 'allow' ? 'ALLOW' : 'BLOCK';
}

/** tcp → ["TCP"], udp → ["UDP"], tcp_udp → ["TCP", "UDP"], all → null (every protocol). */
/**
 * A body without its null fields. The 10.1.85 document marks no field nullable ("when null" means
 * left out), so the bot never sends `null`: an absent filter is every device, source or protocol.
 */
export function withoutNulls(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null));
}

export function toProtocolFilter(protocol: string): string[] | null {
  if (protocol === 'tcp_udp') return ['TCP', 'UDP'];
  return protocol === 'all' ? null : [protocol.toUpperCase()];
}

function protocolOf(filter: readonly string[] | null | undefined): string {
  if (!filter || filter.length === 0) return 'all';
  const names = new Set(filter.map((p) => p.toLowerCase()));
  if (names.size === 2 && names.has('tcp') && names.has('udp')) return 'tcp_udp';
  return [...names].join(',');
}

function portsOf(endpoint: Endpoint): number | number[] | null {
  if (endpoint.type === 'mac' || endpoint.type === 'other' || !endpoint.ports) return null;
  const [only] = endpoint.ports;
  return endpoint.ports.length === 1 && only !== undefined ? only : [...endpoint.ports];
}

/** How a rule's ids read: the classic id of a network UUID, and the name of a network UUID or a MAC. */
export interface AclNaming {
  classicId: (uuid: string) => string;
  nameOf?: (uuidOrMac: string) => string | undefined;
}

function namesOf(keys: readonly string[], naming: AclNaming): string | null {
  const names = keys.map((key) => naming.nameOf?.(key)).filter((n): n is string => Boolean(n));
  return names.length > 0 ? names.join(', ') : null;
}

function sideOf(endpoint: Endpoint, naming: AclNaming) {
  switch (endpoint.type) {
    case 'any':
      return { type: 'any', id: null, name: null, network: null };
    case 'network':
      return {
        type: 'network',
        id: endpoint.networkUuids.map(naming.classicId).join(',') || null,
        name: namesOf(endpoint.networkUuids, naming),
        network: null,
      };
    case 'ip':
      return { type: 'ip', id: null, name: null, network: endpoint.addresses.join(',') || null };
    case 'mac':
      // A MAC filter is what the spec's `device` means (a MAC rule): reads say `device`, the word
      // the write tools take, with the MACs as ids.
      return {
        type: 'device',
        id: endpoint.macs.join(',') || null,
        name: namesOf(endpoint.macs, naming),
        network: null,
      };
    case 'other':
      return { type: endpoint.name.toLowerCase(), id: null, name: null, network: null };
  }
}

/**
 * The tools' view of a rule; `naming` translates a network UUID to its classic id (a bare function
 * is that) and names networks and MACs; `priority` is its 1-based position.
 */
export function toAclRule(
  record: AclRuleRecord,
  priority: number | null,
  naming: AclNaming | ((uuid: string) => string),
): AclRule {
  const names = typeof naming === 'function' ? { classicId: naming } : naming;
  const source = decodeEndpoint(record.sourceFilter);
  const destination = decodeEndpoint(record.destinationFilter);
  const src = sideOf(source, names);
  const dst = sideOf(destination, names);
  const action =
    record.action === 'ALLOW' ? 'allow' : record.action === 'BLOCK' ? 'deny' : (record.action ?? '');
  return {
    id: record.id,
    name: record.name,
    action: action.toLowerCase(),
    enabled: record.enabled !== false,
    source_type: src.type,
    source_id: src.id,
    source_name: src.name,
    source_network: src.network,
    destination_type: dst.type,
    destination_id: dst.id,
    destination_name: dst.name,
    destination_network: dst.network,
    protocol: protocolOf(record.protocolFilter),
    src_port: portsOf(source),
    dst_port: portsOf(destination),
    priority,
    description: record.description || null,
    rule_type: record.type ?? 'IPV4',
    origin: record.metadata?.origin ?? 'USER_DEFINED',
  };
}

/** The 1-based priority of a rule: its place in the ordering, else after it by the rule's `index`. */
export function priorityOf(record: AclRuleRecord, ordering: readonly string[]): number | null {
  const position = ordering.indexOf(record.id);
  if (position >= 0) return position + 1;
  return record.index === undefined ? null : record.index + 1;
}

/** Rules by priority (rules without one last), then name. */
export function sortAclRules(rules: readonly AclRule[]): AclRule[] {
  return [...rules].sort(
    (a, b) =>
      (a.priority ?? Number.MAX_SAFE_INTEGER) - (b.priority ?? Number.MAX_SAFE_INTEGER) ||
      a.name.localeCompare(b.name),
  );
}

/**
 * Where a rule goes for a priority: the priority is a 1-based position, so `p` puts the rule at
 * index `min(p - 1, n)` among the `n` other rules (past the end = last). Returns the new order.
 */
export function placeInOrdering(ordering: readonly string[], ruleId: string, priority: number): string[] {
  const others = ordering.filter((id) => id !== ruleId);
  const index = Math.min(priority - 1, others.length);
  return [...others.slice(0, index), ruleId, ...others.slice(index)];
}

/** The 1-based position `priority` gives a rule (absent from the ordering: a new rule) among the others. */
export function positionFor(ordering: readonly string[], priority: number, ruleId?: string): number {
  const others = ordering.filter((id) => id !== ruleId);
  return Math.min(priority - 1, others.length) + 1;
}

/** What one side of a rule is given as: type, and the id or the address (either may be absent). */
export interface EndpointArgs {
  type: string;
  id: boolean;
  network: boolean;
}

/**
 * The spec's combination rules for one side: `*_id` with network and device (required there),
 * `*_network` with ip (required there), nothing with any. `required` off checks only contradictions
 * (used before the stored rule is known, when an absent value may be kept from it).
 */
export function endpointIssues(side: Side, given: EndpointArgs, required = true): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const needsId = given.type === 'network' || given.type === 'device';
  const needsNetwork = given.type === 'ip';
  if (needsId && required && !given.id) {
    issues.push(missingValue(`${side}_id`, `is required when ${side}_type is ${given.type}`));
  }
  if (needsNetwork && required && !given.network) {
    issues.push(missingValue(`${side}_network`, `is required when ${side}_type is ip`));
  }
  if (!needsId && given.id) {
    issues.push({ field: `${side}_id`, rule: `only applies when ${side}_type is network or device` });
  }
  if (!needsNetwork && given.network) {
    issues.push({ field: `${side}_network`, rule: `only applies when ${side}_type is ip` });
  }
  return issues;
}
