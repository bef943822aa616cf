import type { FieldIssue } from '../../errors.js';
import { isIpv4OrCidr, isIpv6OrCidr } from '../../lib/ip.js';
import type { FirewallRuleRecord } from '../../records/firewall-rule-record.js';

/** Chains the controller accepts (its own `ruleset` values: IPv4 and the IPv6 twins). */
export const RULESETS = ['WAN', 'LAN', 'GUEST'].flatMap((zone) =>
  ['IN', 'OUT', 'LOCAL'].flatMap((dir) => [`${zone}_${dir}`, `${zone}v6_${dir}`]),
) as [string, ...string[]];

/** The spec's actions, which are the controller's. */
export const RULE_ACTIONS = ['accept', 'drop', 'reject'] as const;

/** The spec's protocols. */
export const RULE_PROTOCOLS = ['tcp', 'udp', 'icmp', 'all'] as const;

/** A ruleset family: the part of the ruleset name before `_` or `v6_`. */
export type RulesetFamily = 'LAN' | 'WAN' | 'GUEST';

/**
 * The index blocks each ruleset family must use, the IPv6 twins sharing their family's
 * (terraform-provider-unifi #142 and PR #191: `WAN_IN` with 2050 → FirewallRuleIndexOutOfRange).
 * The five-digit block comes first: it is where a new rule goes by default.
 */
export const RULE_INDEX_BLOCKS: Readonly<Record<RulesetFamily, readonly (readonly [number, number])[]>> = {
  LAN: [
    [20000, 29999],
    [2000, 2999],
  ],
  WAN: [
    [30000, 39999],
    [3000, 3999],
  ],
  GUEST: [
    [40000, 49999],
    [4000, 4999],
  ],
};

// Protocols a destination port can apply to (tcp_udp is the controller's own value, seen on read).
const PORT_PROTOCOLS = new Set(['tcp', 'udp', 'tcp_udp']);

/** The family of a ruleset (`WANv6_IN` → WAN). */
export function rulesetFamily(ruleset: string): RulesetFamily {
  return ruleset.startsWith('WAN') ? 'WAN' : ruleset.startsWith('GUEST') ? 'GUEST' : 'LAN';
}

/** True for the IPv6 rulesets, which carry `protocol_v6` and `*_address_ipv6` instead of the IPv4 fields. */
export function isIpv6Ruleset(ruleset: string): boolean {
  return /^(WAN|LAN|GUEST)v6_/.test(ruleset);
}

/** The allowed indexes of a ruleset as words: `3000–3999 or 30000–39999`. */
export function describeIndexBlocks(ruleset: string): string {
  return [...RULE_INDEX_BLOCKS[rulesetFamily(ruleset)]]
    .sort((a, b) => a[0] - b[0])
    .map(([low, high]) => `${low}–${high}`)
    .join(' or ');
}

/** True when `index` lies in one of the ruleset's blocks. */
export function indexFitsRuleset(ruleset: string, index: number): boolean {
  return RULE_INDEX_BLOCKS[rulesetFamily(ruleset)].some(([low, high]) => index >= low && index <= high);
}

/** The rule of the same ruleset that already has `index`, if any. */
export function ruleHoldingIndex(
  rules: readonly FirewallRuleRecord[],
  ruleset: string,
  index: number,
  except?: string,
): FirewallRuleRecord | undefined {
  return rules.find((r) => r._id !== except && r.ruleset === ruleset && r.rule_index === index);
}

/** The refusal of an index another rule of the ruleset holds (the controller's FirewallRuleIndexExisted). */
export function indexTakenMessage(
  holder: FirewallRuleRecord,
  ruleset: string,
  index: number,
  rules: readonly FirewallRuleRecord[],
): string {
  const next = nextFreeIndex(rules, ruleset);
  return (
    `rule_index ${index} is already used in ${ruleset} by rule "${holder.name}" (${holder._id}); ` +
    (next === undefined ? `${ruleset} has no free index left` : `the next free index there is ${next}`)
  );
}

/** The refusal of an index outside the ruleset's blocks (the controller's FirewallRuleIndexOutOfRange). */
export function indexRangeRule(ruleset: string): string {
  return `must be ${describeIndexBlocks(ruleset)} for ${ruleset}: each ruleset family (LAN, WAN, GUEST, and their v6 twins) has its own index block`;
}

/**
 * Where a new rule of `ruleset` goes: one after the last rule of its five-digit block (so it is
 * evaluated after the rules already there), else the block's first free index, else the
 * four-digit block's. Undefined only when every index of the family is taken in that ruleset.
 */
export function nextFreeIndex(rules: readonly FirewallRuleRecord[], ruleset: string): number | undefined {
  const used = new Set(
    rules.filter((r) => r.ruleset === ruleset && r.rule_index !== undefined).map((r) => r.rule_index),
  );
  for (const [low, high] of RULE_INDEX_BLOCKS[rulesetFamily(ruleset)]) {
    const inBlock = [...used].filter((i): i is number => i !== undefined && i >= low && i <= high);
    const after = inBlock.length === 0 ? low : Math.max(...inBlock) + 1;
    if (after <= high) return after;
    for (let index = low; index <= high; index++) if (!used.has(index)) return index;
  }
  return undefined;
}

/**
 * The issue with an address given for `ruleset`, if it is not of the ruleset's IP version (an
 * IPv6 ruleset stores addresses in `*_address_ipv6`, which the controller checks as IPv6).
 */
export function addressIssue(ruleset: string, field: string, value: string): FieldIssue | undefined {
  if (isIpv6Ruleset(ruleset)) {
    if (isIpv6OrCidr(value, true)) return undefined;
    return {
      field,
      rule: `must be an IPv6 address or CIDR such as 2001:db8::/64: ${ruleset} is an IPv6 ruleset`,
    };
  }
  if (isIpv4OrCidr(value, true)) return undefined;
  const twin = ruleset.replace(/^(WAN|LAN|GUEST)_/, '$1v6_');
  const hint = isIpv6OrCidr(value, true) ? `: ${ruleset} is an IPv4 ruleset (IPv6 rules go in ${twin})` : '';
  return { field, rule: `must be an IPv4 address or CIDR such as 10.0.0.0/24${hint}` };
}

/** The rule's IPv6 address field names when the ruleset is an IPv6 one. */
function addressField(side: 'src' | 'dst', v6: boolean): string {
  return v6 ? `${side}_address_ipv6` : `${side}_address`;
}

/** The protocol as the ruleset stores it: IPv6 rulesets name ICMP `icmpv6` (go-unifi `protocol_v6` values). */
function storedProtocol(protocol: string, v6: boolean): string {
  return v6 && protocol === 'icmp' ? 'icmpv6' : protocol;
}

/** A firewall rule as the tools return it: the create arguments' names (spec 2.10) plus id and network names. */
export interface FirewallRule {
  id: string;
  name: string;
  action: string | null;
  ruleset: string | null;
  rule_index: number | null;
  /** `v6` for the IPv6 rulesets, whose addresses and protocol come from the `*_ipv6` / `protocol_v6` fields. */
  ip_version: 'v4' | 'v6';
  enabled: boolean;
  protocol: string;
  src_address: string | null;
  dst_address: string | null;
  /** The ICMP type matched (`icmp_typename`, or `icmpv6_typename` on IPv6 rules); null when any. */
  icmp_typename: string | null;
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
  const v6 = isIpv6Ruleset(record.ruleset ?? '');
  return {
    id: record._id,
    name: record.name,
    action: record.action ?? null,
    ruleset: record.ruleset ?? null,
    rule_index: record.rule_index ?? null,
    ip_version: v6 ? 'v6' : 'v4',
    enabled: record.enabled !== false,
    protocol: (v6 ? record.protocol_v6 : record.protocol) || 'all',
    src_address: (v6 ? record.src_address_ipv6 : record.src_address) || null,
    dst_address: (v6 ? record.dst_address_ipv6 : record.dst_address) || null,
    icmp_typename: (v6 ? record.icmpv6_typename : record.icmp_typename) || null,
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
 * The controller body for a new rule: `port` becomes the string `dst_port`, each
 * `*_networkconf_type` is sent only with its network id (the controller requires it then), and
 * an IPv6 ruleset gets `protocol_v6` and `*_address_ipv6` instead of the IPv4 fields.
 */
export function buildRulePayload(rule: NewRule): Record<string, unknown> {
  const v6 = isIpv6Ruleset(rule.ruleset);
  const payload: Record<string, unknown> = {
    name: rule.name,
    enabled: rule.enabled,
    ruleset: rule.ruleset,
    rule_index: rule.rule_index,
    action: rule.action,
    [v6 ? 'protocol_v6' : 'protocol']: storedProtocol(rule.protocol ?? 'all', v6),
    logging: rule.logging,
    state_established: rule.state_established,
    state_related: rule.state_related,
    state_new: rule.state_new,
    state_invalid: rule.state_invalid,
  };
  if (rule.src_address !== undefined) payload[addressField('src', v6)] = rule.src_address;
  if (rule.src_networkconf_id !== undefined) {
    payload.src_networkconf_id = rule.src_networkconf_id;
    payload.src_networkconf_type = rule.src_networkconf_type;
  }
  if (rule.dst_address !== undefined) payload[addressField('dst', v6)] = rule.dst_address;
  if (rule.dst_networkconf_id !== undefined) {
    payload.dst_networkconf_id = rule.dst_networkconf_id;
    payload.dst_networkconf_type = rule.dst_networkconf_type;
  }
  if (rule.port !== undefined) payload.dst_port = String(rule.port);
  return payload;
}

/** Preview warnings for a new rule (its index is already checked: in its block and free). */
export function newRuleWarnings(rule: NewRule): string[] {
  const warnings: string[] = [];
  if (rule.src_networkconf_id && rule.dst_networkconf_id && rulesetFamily(rule.ruleset) !== 'LAN') {
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

/** What update_firewall_rule may change (the spec's list, and the rule's place in its ruleset). */
export interface RuleUpdate {
  name?: string | undefined;
  rule_index?: number | undefined;
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
 * IPv6 rules get their `*_address_ipv6` and `protocol_v6` fields. Throws nothing: the
 * port/protocol combination and the index are checked by the caller.
 */
export function planRuleUpdate(
  current: FirewallRuleRecord,
  update: RuleUpdate,
): { set: Record<string, unknown>; warnings: string[]; protocol: string } {
  const set: Record<string, unknown> = {};
  const warnings: string[] = [];
  const v6 = isIpv6Ruleset(current.ruleset ?? '');
  if (update.name !== undefined) set.name = update.name;
  if (update.action !== undefined) set.action = update.action;
  if (update.enabled !== undefined) set.enabled = update.enabled;
  if (update.rule_index !== undefined) set.rule_index = update.rule_index;
  for (const side of ['src', 'dst'] as const) {
    const address = update[`${side}_address`];
    if (address === undefined) continue;
    set[addressField(side, v6)] = address;
    if (current[`${side}_networkconf_id`]) {
      set[`${side}_networkconf_id`] = '';
      warnings.push(`${side}_address replaces the ${side === 'src' ? 'source' : 'destination'} network`);
    }
  }
  const protocolField = v6 ? 'protocol_v6' : 'protocol';
  const protocol =
    update.protocol === undefined ? current[protocolField] || 'all' : storedProtocol(update.protocol, v6);
  if (update.protocol !== undefined) set[protocolField] = protocol;
  if (update.port !== undefined) set.dst_port = String(update.port);
  else if (current.dst_port && !PORT_PROTOCOLS.has(protocol)) {
    set.dst_port = '';
    warnings.push(`the destination port ${current.dst_port} is dropped: ports apply to tcp and udp only`);
  }
  return { set, warnings, protocol };
}
