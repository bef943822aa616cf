import { z } from 'zod';
import { isIpv4OrCidr, isIpv6OrCidr, overlaps, parseCidr, parseIpv4 } from '../lib/ip.js';
import { SimError } from './envelopes.js';
import { type FirewallRule, NETWORK_PURPOSES, type NetworkConf } from './state.js';

/** One readable sentence from a zod error (unknown properties named explicitly). */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      if (issue.code === 'unrecognized_keys') {
        return `${path ? `${path}: ` : ''}unknown propert${issue.keys.length > 1 ? 'ies' : 'y'} ${issue.keys.join(', ')}`;
      }
      return `${path || 'body'}: ${issue.message}`;
    })
    .join('; ');
}

/** Parses `value` with `schema`; on failure throws what `fail` builds from the issues. */
export function parseOrThrow<T>(
  schema: z.ZodType<T>,
  value: unknown,
  fail: (error: z.ZodError, message: string) => SimError,
): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw fail(parsed.error, describeZodError(parsed.error));
  return parsed.data;
}

// The controller's own field patterns (go-unifi's generated structs quote them from ace.jar).
const PATTERNS: Record<string, string> = {
  name: '.{1,128}',
  purpose: NETWORK_PURPOSES.join('|'),
  vlan: '[2-9]|[1-9][0-9]{1,2}|[1-3][0-9]{3}|400[0-9]|401[0-8]|^$',
  rule_index: '2[0-9]{3,4}|4[0-9]{3,4}',
  ipv4: '^$|(([0-9]|[1-9][0-9]|1[0-9]{2}|2[0-4][0-9]|25[0-5])\\.){3}([0-9]|[1-9][0-9]|1[0-9]{2}|2[0-4][0-9]|25[0-5])',
};

/**
 * The controller's answer to a field that fails its pattern: `api.err.InvalidPayload` with a
 * `validationError {field, pattern}` in `meta` (the shape real consoles return for regex failures).
 */
export function invalidPayload(field: string, pattern = PATTERNS[field]): SimError {
  const validationError = pattern === undefined ? { field } : { field, pattern };
  return new SimError(400, 'api.err.InvalidPayload', `Invalid value for ${field}`, { validationError });
}

function firstField(error: z.ZodError): string {
  return String(error.issues[0]?.path[0] ?? 'body');
}

const DNS_KEYS = ['dhcpd_dns_1', 'dhcpd_dns_2', 'dhcpd_dns_3', 'dhcpd_dns_4'] as const;

const networkFields = z.looseObject({
  name: z.string().min(1).max(128),
  purpose: z.enum(NETWORK_PURPOSES),
  enabled: z.boolean().optional(),
  vlan_enabled: z.boolean().optional(),
  vlan: z.union([z.int(), z.string()]).optional(),
  ip_subnet: z.string().optional(),
  networkgroup: z
    .string()
    .regex(/^LAN[2-8]?$/)
    .optional(),
  dhcpd_enabled: z.boolean().optional(),
  dhcpd_start: z.string().optional(),
  dhcpd_stop: z.string().optional(),
  dhcpd_leasetime: z.union([z.int().min(0), z.string().regex(/^\d*$/)]).optional(),
  dhcpd_dns_enabled: z.boolean().optional(),
  dhcpd_dns_1: z.string().optional(),
  dhcpd_dns_2: z.string().optional(),
  dhcpd_dns_3: z.string().optional(),
  dhcpd_dns_4: z.string().optional(),
  domain_name: z.string().max(253).optional(),
});

/** A tagged VLAN number (2–4018, int or numeric string), else undefined. */
export function vlanNumber(value: unknown): number | undefined {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d+$/.test(value)
        ? Number(value)
        : NaN;
  return Number.isInteger(n) && n >= 2 && n <= 4018 ? n : undefined;
}

/** True when the record carries traffic tagged with its `vlan`. */
export function isTagged(network: NetworkConf): boolean {
  return network.vlan_enabled === true || network.purpose === 'vlan-only';
}

/**
 * Validates a networkconf record (a POST body, or stored record merged with a PUT body) the way
 * the controller does. `others` are the site's other networks.
 */
export function validateNetworkConf(
  candidate: Record<string, unknown>,
  others: readonly NetworkConf[],
): void {
  const parsed = networkFields.safeParse(candidate);
  if (!parsed.success) throw invalidPayload(firstField(parsed.error));
  const network = parsed.data;
  for (const key of DNS_KEYS) {
    const dns = network[key];
    if (dns && parseIpv4(dns) === undefined) throw invalidPayload(key, PATTERNS.ipv4);
  }
  if (network.purpose === 'wan') return;
  const peers = others.filter((other) => other.purpose !== 'wan');

  if (network.vlan_enabled === true || network.purpose === 'vlan-only') {
    const vlan = vlanNumber(network.vlan);
    if (vlan === undefined) throw invalidPayload('vlan');
    const clash = peers.find((other) => isTagged(other) && vlanNumber(other.vlan) === vlan);
    if (clash) throw new SimError(400, 'api.err.VlanUsed', `VLAN ${vlan} is already used by ${clash.name}`);
  }
  if (network.purpose === 'vlan-only') return;

  const subnetText = network.ip_subnet ?? '';
  if (subnetText === '') {
    if (network.purpose === 'corporate' || network.purpose === 'guest') {
      throw new SimError(400, 'api.err.IncorrectIPSubnetSpec', 'ip_subnet is required');
    }
    return;
  }
  const subnet = parseCidr(subnetText);
  // The controller wants the gateway address with its prefix: the network or broadcast address is refused.
  if (
    !subnet ||
    subnet.prefix < 8 ||
    subnet.prefix > 30 ||
    subnet.address === subnet.network ||
    subnet.address === subnet.broadcast
  ) {
    throw new SimError(
      400,
      'api.err.IncorrectIPSubnetSpec',
      `${subnetText} is not a gateway address with prefix`,
    );
  }
  const overlapping = peers.find((other) => {
    const theirs = typeof other.ip_subnet === 'string' ? parseCidr(other.ip_subnet) : undefined;
    return theirs !== undefined && overlaps(theirs, subnet);
  });
  if (overlapping) {
    throw new SimError(400, 'api.err.SubnetOverlapped', `${subnetText} overlaps ${overlapping.name}`);
  }
  if (network.dhcpd_enabled === true) {
    const start = parseIpv4(network.dhcpd_start ?? '');
    const stop = parseIpv4(network.dhcpd_stop ?? '');
    const inside = (ip: number | undefined): ip is number =>
      ip !== undefined && ip > subnet.network && ip < subnet.broadcast;
    if (!inside(start) || !inside(stop) || start > stop) {
      throw new SimError(
        400,
        'api.err.InvalidDHCPRange',
        'DHCP range must lie inside the subnet, start ≤ stop',
      );
    }
  }
}

const RULESETS = ['WAN', 'LAN', 'GUEST'].flatMap((zone) =>
  ['IN', 'OUT', 'LOCAL'].flatMap((dir) => [`${zone}_${dir}`, `${zone}v6_${dir}`]),
);

/**
 * The index blocks of each ruleset family; the IPv6 twins share their family's blocks
 * (terraform-provider-unifi #142 and PR #191: `WAN_IN` with 2050 is FirewallRuleIndexOutOfRange).
 */
export const RULE_INDEX_BLOCKS: Readonly<Record<string, readonly (readonly [number, number])[]>> = {
  LAN: [
    [2000, 2999],
    [20000, 29999],
  ],
  WAN: [
    [3000, 3999],
    [30000, 39999],
  ],
  GUEST: [
    [4000, 4999],
    [40000, 49999],
  ],
};

function indexInBlock(ruleset: string, index: number): boolean {
  const family = /^(WAN|LAN|GUEST)/.exec(ruleset)?.[1] ?? '';
  return (RULE_INDEX_BLOCKS[family] ?? []).some(([low, high]) => index >= low && index <= high);
}

const PORT_SPEC = /^$|^\d{1,5}(-\d{1,5})?(,\d{1,5}(-\d{1,5})?)*$/;
const address = z.string().refine((text) => text === '' || isIpv4OrCidr(text, true));
const addressV6 = z.string().refine((text) => text === '' || isIpv6OrCidr(text, true));
const protocolName = z
  .string()
  .regex(/^[a-z0-9_-]*$/)
  .optional();

const firewallFields = z.looseObject({
  name: z.string().min(1).max(128),
  ruleset: z.string().refine((value) => RULESETS.includes(value)),
  action: z.enum(['accept', 'drop', 'reject']),
  enabled: z.boolean().optional(),
  logging: z.boolean().optional(),
  protocol: protocolName,
  protocol_v6: protocolName,
  src_address: address.optional(),
  dst_address: address.optional(),
  src_address_ipv6: addressV6.optional(),
  dst_address_ipv6: addressV6.optional(),
  // The controller wants ports as strings ("443", "80,443", "8000-8100"); a JSON number is refused.
  src_port: z.string().regex(PORT_SPEC).optional(),
  dst_port: z.string().regex(PORT_SPEC).optional(),
  src_networkconf_id: z.string().optional(),
  dst_networkconf_id: z.string().optional(),
  src_networkconf_type: z.enum(['NETv4', 'ADDRv4', '']).optional(),
  dst_networkconf_type: z.enum(['NETv4', 'ADDRv4', '']).optional(),
  state_established: z.boolean().optional(),
  state_related: z.boolean().optional(),
  state_new: z.boolean().optional(),
  state_invalid: z.boolean().optional(),
  src_firewallgroup_ids: z.array(z.string()).optional(),
  dst_firewallgroup_ids: z.array(z.string()).optional(),
});

/**
 * Validates a firewallrule record (POST body, or stored record merged with a PUT body) against
 * the controller's field rules, its ruleset's index blocks, and the `others` rules of the site
 * (an index already used in the same ruleset is `FirewallRuleIndexExisted`).
 */
export function validateFirewallRule(
  candidate: Record<string, unknown>,
  others: readonly FirewallRule[] = [],
): void {
  const parsed = firewallFields.safeParse(candidate);
  if (!parsed.success) throw invalidPayload(firstField(parsed.error));
  const { ruleset } = parsed.data;
  const raw = candidate.rule_index;
  if (raw === undefined) throw invalidPayload('rule_index');
  const index =
    typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(index) || !indexInBlock(ruleset, index)) {
    throw new SimError(
      400,
      'api.err.FirewallRuleIndexOutOfRange',
      `rule_index ${String(raw)} is out of range for ${ruleset}`,
    );
  }
  const holder = others.find((rule) => rule.ruleset === ruleset && Number(rule.rule_index) === index);
  if (holder) {
    throw new SimError(
      400,
      'api.err.FirewallRuleIndexExisted',
      `rule_index ${index} is already used in ${ruleset} by ${holder.name}`,
    );
  }
  for (const side of ['src', 'dst'] as const) {
    const id = parsed.data[`${side}_networkconf_id`];
    const type = parsed.data[`${side}_networkconf_type`];
    if (id && !type) {
      throw new SimError(
        400,
        'api.err.FirewallRuleNetworkConfTypeRequired',
        `${side}_networkconf_type is required with ${side}_networkconf_id`,
      );
    }
  }
}
