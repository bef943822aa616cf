/**
 * How a network changed behind the bot is put back with update_network, field by field, from a
 * classic networkconf record and from an official (10.1) network's details. What update_network
 * cannot set is named by the innermost field that differs, so a drift says exactly what stands in
 * the way of a Revert, and a field it can set is never among them.
 */

type Raw = Record<string, unknown>;

/** Fields the update tool cannot set (dotted, as deep as known): the reason a Revert is not offered. */
export interface Unsettable {
  cannot: string[];
}

/**
 * How one changed field is put back by the kind's update tool: one argument (`value` turns the
 * before value, or the whole before record, into it), or several at once (`args`: the arguments,
 * or the fields it cannot set; undefined when this change is one the tool cannot make).
 */
export type FieldRevert =
  | { arg: string; value?: (v: unknown, before: Raw) => unknown }
  | { args: (before: Raw, after: Raw) => Record<string, unknown> | Unsettable | undefined };

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The VLAN a classic network had, as update_network's argument. */
function vlanArgs(before: Raw): Record<string, unknown> | undefined {
  const vlan = Number(before.vlan);
  return Number.isInteger(vlan) && vlan > 0 ? { vlan_id: vlan } : undefined;
}

/**
 * The four DNS servers of a classic network as they were (an empty one clears a slot). Servers kept
 * while switched off cannot be put back: update_network switches them on whenever it sets one.
 */
function classicDnsArgs(before: Raw): Record<string, unknown> | undefined {
  const servers = [1, 2, 3, 4].map((n) => str(before[`dhcpd_dns_${n}`]) ?? '');
  if (before.dhcpd_dns_enabled !== true && servers.some((v) => v !== '')) return undefined;
  return Object.fromEntries(servers.map((v, i) => [`dhcp_dns_${i + 1}`, v]));
}

/** Every classic field update_network sets (planUpdate and dnsUpdate in src/tools/), mapped back. */
export const CLASSIC_NETWORK_FIELDS: Record<string, FieldRevert> = {
  name: { arg: 'name' },
  purpose: { arg: 'purpose' },
  vlan: { arg: 'vlan_id', value: Number },
  // A tag turned off behind the bot: update_network turns it on with the VLAN it had.
  vlan_enabled: { args: (before) => (before.vlan_enabled === true ? vlanArgs(before) : undefined) },
  ip_subnet: { arg: 'subnet' },
  dhcpd_enabled: { arg: 'dhcp_enabled', value: (v) => v === true },
  dhcpd_start: { arg: 'dhcp_start' },
  dhcpd_stop: { arg: 'dhcp_stop' },
  // An empty value clears a server added since.
  dhcpd_dns_1: { arg: 'dhcp_dns_1', value: (v) => str(v) ?? '' },
  dhcpd_dns_2: { arg: 'dhcp_dns_2', value: (v) => str(v) ?? '' },
  dhcpd_dns_3: { arg: 'dhcp_dns_3', value: (v) => str(v) ?? '' },
  dhcpd_dns_4: { arg: 'dhcp_dns_4', value: (v) => str(v) ?? '' },
  // Follows the DNS servers: putting them back as they were sets it as it was.
  dhcpd_dns_enabled: { args: classicDnsArgs },
  domain_name: { arg: 'domain_name', value: (v) => str(v) ?? '' },
};

const ipv4Of = (record: Raw) => (isObject(record.ipv4Configuration) ? record.ipv4Configuration : undefined);
const dhcpOf = (record: Raw) => {
  const dhcp = ipv4Of(record)?.dhcpConfiguration;
  return isObject(dhcp) ? dhcp : undefined;
};
const DHCP = 'ipv4Configuration.dhcpConfiguration';
const unmanaged = (record: Raw) => record.management === 'UNMANAGED';
/** A field there only because the network was a gateway one after the change: vlan-only takes it away. */
const backToVlanOnly = { purpose: 'vlan-only' } as const;

/** `10.0.10.1/24` from an official network's IPv4 block (what update_network's `subnet` takes). */
function subnetOf(record: Raw): string | undefined {
  const ipv4 = ipv4Of(record);
  if (typeof ipv4?.hostIpAddress !== 'string' || typeof ipv4.prefixLength !== 'number') return undefined;
  return `${ipv4.hostIpAddress}/${ipv4.prefixLength}`;
}

const purposeOf = (record: Raw) =>
  unmanaged(record) ? 'vlan-only' : record.isolationEnabled === true ? 'guest' : 'corporate';

// What update_network sets of an official DHCP server.
const DHCP_SETTABLE = new Set(['mode', 'ipAddressRange', 'dnsServerIpAddressesOverride', 'domainName']);
// A server update_network turns on where there is none starts from these (officialBody).
const NEW_SERVER: Raw = { leaseTimeSeconds: 86400, pingConflictDetectionEnabled: false };

/**
 * update_network's DHCP arguments that bring an official network's DHCP back to `before`'s, or the
 * server settings it cannot set: it keeps the current server's lease time and options, and a server
 * it turns on again starts from its defaults, so those must already be what `before` had.
 */
function dhcpArgs(before: Raw, after: Raw): Record<string, unknown> | Unsettable {
  if (unmanaged(before)) return backToVlanOnly;
  const was = dhcpOf(before);
  const now = dhcpOf(after);
  if (was === undefined) return { dhcp_enabled: false };
  if (was.mode !== 'SERVER') return { cannot: [`${DHCP}.mode`] };
  const kept = now?.mode === 'SERVER' ? now : NEW_SERVER;
  const cannot = [...new Set([...Object.keys(was), ...Object.keys(kept)])]
    .filter((k) => !DHCP_SETTABLE.has(k) && !same(was[k], kept[k]))
    .map((k) => `${DHCP}.${k}`);
  if (cannot.length > 0) return { cannot };
  const range = isObject(was.ipAddressRange) ? was.ipAddressRange : {};
  const dns = Array.isArray(was.dnsServerIpAddressesOverride) ? was.dnsServerIpAddressesOverride : [];
  return {
    dhcp_enabled: true,
    ...(typeof range.start === 'string' ? { dhcp_start: range.start } : {}),
    ...(typeof range.stop === 'string' ? { dhcp_stop: range.stop } : {}),
    // Four slots, each set: an empty one clears a server added since.
    ...Object.fromEntries([0, 1, 2, 3].map((i) => [`dhcp_dns_${i + 1}`, str(dns[i]) ?? ''])),
    domain_name: str(was.domainName) ?? '',
  };
}

/** A gateway network's subnet as it was; none to give (a vlan-only one): vlan-only again. */
function subnetArgs(before: Raw): Record<string, unknown> | undefined {
  if (unmanaged(before)) return backToVlanOnly;
  const subnet = subnetOf(before);
  return subnet ? { subnet } : undefined;
}

/**
 * A network's `management` as it was: vlan-only again, or a gateway network again with its purpose,
 * subnet and DHCP (the address plan a vlan-only network does not keep).
 */
function managementArgs(before: Raw, after: Raw): Record<string, unknown> | Unsettable | undefined {
  if (unmanaged(before)) return backToVlanOnly;
  if (before.management !== 'GATEWAY') return undefined;
  const subnet = subnetOf(before);
  if (!subnet) return undefined;
  const dhcp = dhcpArgs(before, after);
  return 'cannot' in dhcp ? dhcp : { purpose: purposeOf(before), subnet, ...dhcp };
}

/**
 * A gateway network's flag (`path`, dotted) that update_network never sets but gives a network it
 * makes a gateway one again (`made`): put back when it appeared with the gateway network or
 * vanished with it and was `made`; changed on a gateway network, it cannot be.
 */
function gatewayFlag(path: string, made: unknown): FieldRevert {
  const read = (record: Raw) => {
    const [outer, inner] = path.split('.');
    const value = record[outer as string];
    return inner === undefined ? value : isObject(value) ? value[inner] : undefined;
  };
  return {
    args: (before, after) => {
      if (unmanaged(before)) return backToVlanOnly;
      if (unmanaged(after) && same(read(before), made)) return {};
      return { cannot: [path] };
    },
  };
}

/** The fields of an official network update_network sets, or that follow one it sets, mapped back. */
export const OFFICIAL_NETWORK_FIELDS: Record<string, FieldRevert> = {
  name: { arg: 'name' },
  // update_network tags a network; it never takes a tag off (vlanId 1 is the untagged network).
  vlanId: {
    args: (before) =>
      typeof before.vlanId === 'number' && before.vlanId > 1
        ? { vlan_id: before.vlanId }
        : { cannot: ['vlanId'] },
  },
  management: { args: managementArgs },
  isolationEnabled: { arg: 'purpose', value: (_v, before) => purposeOf(before) },
  'ipv4Configuration.hostIpAddress': { args: subnetArgs },
  'ipv4Configuration.prefixLength': { args: subnetArgs },
  'ipv4Configuration.dhcpConfiguration': { args: dhcpArgs },
  'ipv4Configuration.autoScaleEnabled': gatewayFlag('ipv4Configuration.autoScaleEnabled', false),
  cellularBackupEnabled: gatewayFlag('cellularBackupEnabled', false),
  internetAccessEnabled: gatewayFlag('internetAccessEnabled', true),
  mdnsForwardingEnabled: gatewayFlag('mdnsForwardingEnabled', false),
  // A zone's network list names its networks, not the other way round: a network made vlan-only
  // and a gateway one again is still in the list of the zone it was in (the simulator's reading;
  // unobserved on a console). A move to another zone is update_firewall_zone's, not this tool's.
  zoneId: {
    args: (before, after) => {
      if (unmanaged(before)) return backToVlanOnly;
      return unmanaged(after) && typeof before.zoneId === 'string' ? {} : { cannot: ['zoneId'] };
    },
  },
};
