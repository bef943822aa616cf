import type { FieldIssue } from '../errors.js';
import type { FirewallRuleRecord } from '../gateway/records/firewall-rule-record.js';

/** Chains the controller accepts (its own `ruleset` values: IPv4 and the IPv6 twins). */
export const RULESETS = ['WAN', 'LAN', 'GUEST'].flatMap((zone) =>
  ['IN', 'OUT', 'LOCAL'].flatMap((dir) => [`${zone}_${dir}`, `${zone}v6_${dir}`]),
) as [string, ...string[]];

/** The spec's actions, which are the controller's. */
export const RULE_ACTIONS = ['accept', 'drop', 'reject'] as const;

/** The spec's protocols. */
export const RULE_PROTOCOLS = ['tcp', 'udp', 'icmp', 'all'] as const;

/** Where a new rule goes when no index is given; the spec's default. */
export const DEFAULT_RULE_INDEX = 2000;

/** Zone-based consoles (Network 9+) refuse user rules below this index. */
export const ZONE_BASED_MIN_INDEX = 20000;

// Protocols a destination port can apply to (tcp_udp is the controller's own value, seen on read).
const PORT_PROTOCOLS = new Set(['tcp', 'udp', 'tcp_udp']);

/** A firewall rule as the tools return it: the create arguments' names (spec 2.10) plus id and network names. */
export interface FirewallRule {
  id: string;
  name: string;
  action: string | null;
  ruleset: string | null;
  rule_index: number | null;
  enabled: boolean;
  protocol: string;
  src_address: string | null;
  dst_address: string | null;
  /** A number for one port; the controller's text for lists and ranges ("80,443", "8000-8100"). */
  port: number | string | null;
  src_networkconf_id: string | null;
  src_networkconf_type: string | null;
  src_network_name: string | null;
  dst_networkconf_id: string | null;
  dst_networkconf_type: string | null;
  dst_network_name: string | null;
  state_established: boolean;
  state_related: boolean;
  state_new: boolean;
  state_invalid: boolean;
  logging: boolean;
}

/** The tools' view of a stored rule; `nameOf` gives a classic network id's name. */
export function toFirewallRule(
  record: FirewallRuleRecord,
  nameOf: (id: string) => string | null,
): FirewallRule {
  const port = record.dst_port || null;
  const srcNetwork = record.src_networkconf_id || null;
  const dstNetwork = record.dst_networkconf_id || null;
  return {
    id: record._id,
    name: record.name,
    action: record.action ?? null,
    ruleset: record.ruleset ?? null,
    rule_index: record.rule_index ?? null,
    enabled: record.enabled !== false,
    protocol: record.protocol || 'all',
    src_address: record.src_address || null,
    dst_address: record.dst_address || null,
    port: port !== null && /^\d+$/.test(port) ? Number(port) : port,
    src_networkconf_id: srcNetwork,
    // A type without a network means nothing; shown only where it applies.
    src_networkconf_type: srcNetwork ? (record.src_networkconf_type ?? null) : null,
    src_network_name: srcNetwork ? nameOf(srcNetwork) : null,
    dst_networkconf_id: dstNetwork,
    dst_networkconf_type: dstNetwork ? (record.dst_networkconf_type ?? null) : null,
    dst_network_name: dstNetwork ? nameOf(dstNetwork) : null,
    state_established: record.state_established === true,
    state_related: record.state_related === true,
    state_new: record.state_new === true,
    state_invalid: record.state_invalid === true,
    logging: record.logging === true,
  };
}

/** Rules in evaluation order within each chain: by ruleset, then rule_index, then name. */
export function sortRules(rules: readonly FirewallRule[]): FirewallRule[] {
  return [...rules].sort(
    (a, b) =>
      (a.ruleset ?? '').localeCompare(b.ruleset ?? '') ||
      (a.rule_index ?? Number.MAX_SAFE_INTEGER) - (b.rule_index ?? Number.MAX_SAFE_INTEGER) ||
      a.name.localeCompare(b.name) ||
      a.id.localeCompare(b.id),
  );
}

/** Argument combinations the controller cannot express, named by field (checked before any request). */
export function ruleArgumentIssues(args: {
  protocol?: string | undefined;
  port?: number | undefined;
  src_address?: string | undefined;
  src_networkconf_id?: string | undefined;
  dst_address?: string | undefined;
  dst_networkconf_id?: string | undefined;
}): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (args.port !== undefined && !PORT_PROTOCOLS.has(args.protocol ?? 'all')) {
    issues.push({
      field: 'port',
      rule: `only applies with protocol tcp or udp (protocol is ${args.protocol ?? 'all'})`,
    });
  }
  for (const side of ['src', 'dst'] as const) {
    if (args[`${side}_address`] !== undefined && args[`${side}_networkconf_id`] !== undefined) {
      issues.push({
        field: `${side}_address`,
        rule: `give ${side}_address or ${side}_networkconf_id, not both`,
      });
    }
  }
  return issues;
}

/** What create_firewall_rule takes, networks already resolved to classic ids. */
export interface NewRule {
  name: string;
  action: string;
  ruleset: string;
  rule_index: number;
  protocol?: string | undefined;
  port?: number | undefined;
  src_address?: string | undefined;
  dst_address?: string | undefined;
  src_networkconf_id?: string | undefined;
  src_networkconf_type: string;
  dst_networkconf_id?: string | undefined;
  dst_networkconf_type: string;
  state_established: boolean;
  state_related: boolean;
  state_new: boolean;
  state_invalid: boolean;
  logging: boolean;
  enabled: boolean;
}

/**
 * The controller body for a new rule: `port` becomes the string `dst_port`, and each
 * `*_networkconf_type` is sent only with its network id (the controller requires it then).
 */
export function buildRulePayload(rule: NewRule): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    name: rule.name,
    enabled: rule.enabled,
    ruleset: rule.ruleset,
    rule_index: rule.rule_index,
    action: rule.action,
    protocol: rule.protocol ?? 'all',
    logging: rule.logging,
    state_established: rule.state_established,
    state_related: rule.state_related,
    state_new: rule.state_new,
    state_invalid: rule.state_invalid,
  };
  if (rule.src_address !== undefined) payload.src_address = rule.src_address;
  if (rule.src_networkconf_id !== undefined) {
    payload.src_networkconf_id = rule.src_networkconf_id;
    payload.src_networkconf_type = rule.src_networkconf_type;
  }
  if (rule.dst_address !== undefined) payload.dst_address = rule.dst_address;
  if (rule.dst_networkconf_id !== undefined) {
    payload.dst_networkconf_id = rule.dst_networkconf_id;
    payload.dst_networkconf_type = rule.dst_networkconf_type;
  }
  if (rule.port !== undefined) payload.dst_port = String(rule.port);
  return payload;
}

/** Preview warnings for a new rule, given the rules already stored. */
export function newRuleWarnings(rule: NewRule, existing: readonly FirewallRuleRecord[]): string[] {
  const warnings: string[] = [];
  if (rule.rule_index < ZONE_BASED_MIN_INDEX) {
    warnings.push(
      `rule_index ${rule.rule_index} is below ${ZONE_BASED_MIN_INDEX}: zone-based consoles (Network 9+) refuse it (FirewallRuleIndexOutOfRange); use ${ZONE_BASED_MIN_INDEX} or more there`,
    );
  }
  const same = existing.find((r) => r.ruleset === rule.ruleset && r.rule_index === rule.rule_index);
  if (same) {
    warnings.push(
      `rule "${same.name}" already has index ${rule.rule_index} in ${rule.ruleset}; indexes are not renumbered, so their order is undefined`,
    );
  }
  if (rule.src_networkconf_id && rule.dst_networkconf_id && !rule.ruleset.startsWith('LAN_')) {
    warnings.push(
      `an inter-VLAN rule (source and destination networks) usually belongs in LAN_IN, not ${rule.ruleset}`,
    );
  }
  for (const side of ['src', 'dst'] as const) {
    if (rule[`${side}_networkconf_id`] === undefined && rule[`${side}_networkconf_type`] !== 'NETv4') {
      warnings.push(`${side}_networkconf_type applies only with ${side}_networkconf_id; it is not sent`);
    }
  }
  return warnings;
}

/** What update_firewall_rule may change (the spec's list). */
export interface RuleUpdate {
  name?: string | undefined;
  action?: string | undefined;
  src_address?: string | undefined;
  dst_address?: string | undefined;
  protocol?: string | undefined;
  port?: number | undefined;
  enabled?: boolean | undefined;
}

/**
 * The stored fields an update sets, with warnings for what it changes besides the named fields:
 * an address replaces a network on the same side, and a protocol without ports drops the port.
 * Throws nothing: the port/protocol combination is checked by the caller with the final protocol.
 */
export function planRuleUpdate(
  current: FirewallRuleRecord,
  update: RuleUpdate,
): { set: Record<string, unknown>; warnings: string[]; protocol: string } {
  const set: Record<string, unknown> = {};
  const warnings: string[] = [];
  if (update.name !== undefined) set.name = update.name;
  if (update.action !== undefined) set.action = update.action;
  if (update.enabled !== undefined) set.enabled = update.enabled;
  for (const side of ['src', 'dst'] as const) {
    const address = update[`${side}_address`];
    if (address === undefined) continue;
    set[`${side}_address`] = address;
    if (current[`${side}_networkconf_id`]) {
      set[`${side}_networkconf_id`] = '';
      warnings.push(`${side}_address replaces the ${side === 'src' ? 'source' : 'destination'} network`);
    }
  }
  const protocol = update.protocol ?? (current.protocol || 'all');
  if (update.protocol !== undefined) set.protocol = update.protocol;
  if (update.port !== undefined) set.dst_port = String(update.port);
  else if (current.dst_port && !PORT_PROTOCOLS.has(protocol)) {
    set.dst_port = '';
    warnings.push(`the destination port ${current.dst_port} is dropped: ports apply to tcp and udp only`);
  }
  return { set, warnings, protocol };
}
