import { ConflictError, type FieldIssue, ValidationError } from '../../errors.js';
import { findByIdOrName } from '../../lib/find-by-id-or-name.js';
import {
  defaultDhcpRange,
  formatIpv4,
  type Ipv4Cidr,
  isHostIn,
  overlaps,
  parseCidr,
  parseIpv4,
  toNetworkForm,
} from '../../lib/ip.js';
import { REDACTED } from '../../lib/redact.js';
import { isMaskedValue, isSecretField } from '../../lib/secret-fields.js';
import type { ClientRecord } from '../../records/client-record.js';
import type { NetworkRecord } from '../../records/network-record.js';
import { missingValue } from '../core/missing-values.js';

/** The spec's network object (2.1). */
export interface Network {
  id: string;
  name: string;
  purpose: string | null;
  vlan_id: number | null;
  ip_subnet: string | null;
  dhcpd_enabled: boolean;
}

/** The tag the network really carries: none when tagging is off or the value is unusable (WAN `vlan: ""`). */
export function vlanOf(record: NetworkRecord): number | null {
  if (record.vlan_enabled === false) return null;
  return record.vlan !== undefined && record.vlan > 0 ? record.vlan : null;
}

export function toNetwork(record: NetworkRecord): Network {
  // A vlan-only network has no gateway interface: a subnet left stored from an earlier purpose is unused.
  const tagOnly = record.purpose === 'vlan-only';
  return {
    id: record._id,
    name: record.name,
    purpose: record.purpose ?? null,
    vlan_id: vlanOf(record),
    ip_subnet: tagOnly ? null : record.ip_subnet || null,
    dhcpd_enabled: !tagOnly && record.dhcpd_enabled === true,
  };
}

/**
 * Every stored field, with secrets masked: details are shown in chat. `raw`: the record as the
 * controller sent it, for the stored fields beside the view (a lease time stored as "3600" stays
 * the text it is, so a record set again from them is the one stored).
 */
export function toNetworkDetails(
  record: NetworkRecord,
  raw: Record<string, unknown> = record,
): Network & Record<string, unknown> {
  const details: Network & Record<string, unknown> = { ...toNetwork(record) };
  for (const [key, value] of Object.entries(raw)) {
    if (key === '_id' || key in details) continue;
    // The same rule as every other output (lib/secret-fields.ts), here for the field list itself.
    details[key] = isSecretField(key) && isMaskedValue(value) ? REDACTED : value;
  }
  return details;
}

/** Networks sorted the way admins read them: untagged first, then by VLAN, then by name. */
export function sortNetworks(networks: Network[]): Network[] {
  return [...networks].sort(
    (a, b) => (a.vlan_id ?? 0) - (b.vlan_id ?? 0) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id),
  );
}

// Deliberately alike: the v2 and classic finders are findByIdOrName declarations, each naming its own resource and id fields.
/**
 * Finds a network by classic `_id`, Integration id (`external_id`), or name (case-insensitive).
 * A name shared by several networks is refused rather than guessed.
 */
export function findNetwork(
  records: readonly NetworkRecord[],
  ref: string,
  field = 'network_id',
): NetworkRecord {
  return findByIdOrName(records, ref, {
    resource: 'network',
    field,
    id: (r) => r._id,
    name: (r) => r.name,
    matchesId: (r, wanted) => r._id === wanted || r.external_id === wanted,
  });
}

/** The spec's subnet info (2.2). DNS servers are those pushed to clients: none when custom DNS is off. */
export function toSubnetInfo(record: NetworkRecord) {
  const cidr = record.ip_subnet ? parseCidr(record.ip_subnet) : undefined;
  const gatewayAddress = record.ip_subnet?.split('/')[0] ?? null;
  const customDns = record.dhcpd_dns_enabled === true;
  const dns = (value: string | undefined) => (customDns && value ? value : null);
  return {
    network_id: record._id,
    name: record.name,
    ip_subnet: record.ip_subnet || null,
    network_address: cidr ? toNetworkForm(cidr) : null,
    vlan_id: vlanOf(record),
    dhcpd_enabled: record.dhcpd_enabled === true,
    dhcpd_start: record.dhcpd_start || null,
    dhcpd_stop: record.dhcpd_stop || null,
    dhcpd_leasetime: record.dhcpd_leasetime ?? null,
    dhcpd_dns_enabled: customDns,
    dhcpd_dns_1: dns(record.dhcpd_dns_1),
    dhcpd_dns_2: dns(record.dhcpd_dns_2),
    dhcpd_dns_3: dns(record.dhcpd_dns_3),
    dhcpd_dns_4: dns(record.dhcpd_dns_4),
    dhcpd_gateway:
      record.dhcpd_gateway_enabled === true && record.dhcpd_gateway ? record.dhcpd_gateway : gatewayAddress,
    domain_name: record.domain_name ?? null,
  };
}

/** Bytes of one client, from its own counters or the wired ones (wired records carry only those). */
export function clientBytes(client: ClientRecord): { tx: number; rx: number } {
  return {
    tx: client.tx_bytes ?? client['wired-tx_bytes'] ?? 0,
    rx: client.rx_bytes ?? client['wired-rx_bytes'] ?? 0,
  };
}

/**
 * Which network each client is on: by `network_id` (reliable), and only for clients without one
 * by the spec's VLAN match (a client `vlan` of 0 or absent matches nothing). `official`: the
 * networks came from the official API (ids are UUIDs) while clients carry classic networkconf ids,
 * so a client is matched by its network's name (`network`, unique) instead of its `network_id`.
 */
export function clientsByNetwork(
  networks: readonly NetworkRecord[],
  clients: readonly ClientRecord[],
  official = false,
): Map<string, ClientRecord[]> {
  const result = new Map<string, ClientRecord[]>(networks.map((n) => [n._id, []]));
  const byVlan = new Map<number, string>();
  for (const n of networks) {
    const vlan = vlanOf(n);
    if (vlan !== null && !byVlan.has(vlan)) byVlan.set(vlan, n._id);
  }
  const byName = new Map<string, string | null>();
  for (const n of networks) {
    const key = n.name.toLowerCase();
    byName.set(key, byName.has(key) ? null : n._id);
  }
  for (const client of clients) {
    const named = official && client.network ? byName.get(client.network.toLowerCase()) : undefined;
    const id = named
      ? named
      : client.network_id && result.has(client.network_id)
        ? client.network_id
        : !client.network_id && client.vlan
          ? byVlan.get(client.vlan)
          : undefined;
    if (id) result.get(id)?.push(client);
  }
  return result;
}

/** The spec's per-network statistics (2.3). */
export function networkStatistics(
  networks: readonly NetworkRecord[],
  clients: readonly ClientRecord[],
  official = false,
) {
  const grouped = clientsByNetwork(networks, clients, official);
  return networks.map((n) => {
    const members = grouped.get(n._id) ?? [];
    const totals = members.reduce(
      (acc, c) => {
        const b = clientBytes(c);
        return { tx: acc.tx + b.tx, rx: acc.rx + b.rx };
      },
      { tx: 0, rx: 0 },
    );
    return {
      network_id: n._id,
      name: n.name,
      vlan_id: vlanOf(n),
      client_count: members.length,
      total_tx_bytes: totals.tx,
      total_rx_bytes: totals.rx,
      total_bytes: totals.tx + totals.rx,
    };
  });
}

/** Settings of a network as the create and update tools take them (spec argument names). */
export interface NetworkSettings {
  name?: string;
  vlan_id?: number;
  subnet?: string;
  purpose?: string;
  dhcp_enabled?: boolean;
  dhcp_start?: string;
  dhcp_stop?: string;
  dhcp_dns_1?: string;
  dhcp_dns_2?: string;
  dhcp_dns_3?: string;
  dhcp_dns_4?: string;
  domain_name?: string;
}

/** The spec's DNS arguments, in order. */
export const DNS_FIELDS = ['dhcp_dns_1', 'dhcp_dns_2', 'dhcp_dns_3', 'dhcp_dns_4'] as const;

/** Why `purpose=wan` is refused by create_network and update_network. */
export const WAN_REFUSAL =
  'wan cannot be set here: a WAN needs wan_networkgroup and its wan_* settings (connection type, ' +
  'addressing, DNS), which these tools do not take, and the bot does not update or delete WANs; ' +
  'add a WAN in the console under Internet';

/** Checks a lease range against its subnet; returns the problems, naming the spec's fields. */
export function dhcpRangeIssues(cidr: Ipv4Cidr, gateway: number, start: string, stop: string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const first = parseIpv4(start);
  const last = parseIpv4(stop);
  const subnet = toNetworkForm(cidr);
  if (first === undefined || !isHostIn(cidr, first)) {
    issues.push({ field: 'dhcp_start', rule: `must be a host address inside ${subnet}` });
  }
  if (last === undefined || !isHostIn(cidr, last)) {
    issues.push({ field: 'dhcp_stop', rule: `must be a host address inside ${subnet}` });
  }
  if (issues.length === 0 && first !== undefined && last !== undefined) {
    if (first > last) issues.push({ field: 'dhcp_start', rule: 'must not be after dhcp_stop' });
    else if (gateway >= first && gateway <= last) {
      issues.push({ field: 'dhcp_start', rule: 'the range must not include the gateway address' });
    }
  }
  return issues;
}

/** A remote-access VPN server's record: its `ip_subnet` is the pool its clients get addresses from. */
export function isVpnPool(record: NetworkRecord): boolean {
  return record.purpose === 'remote-user-vpn';
}

/**
 * What a preview says of a subnet that overlaps a VPN client pool: the VPN's clients (by address)
 * and the network's would collide, and routing to either becomes ambiguous.
 */
export function vpnPoolWarnings(
  pools: readonly NetworkRecord[],
  cidr: Ipv4Cidr | undefined,
  clientsIn: (pool: Ipv4Cidr) => number,
): string[] {
  if (!cidr) return [];
  return pools.flatMap((pool) => {
    const theirs = pool.ip_subnet ? parseCidr(pool.ip_subnet) : undefined;
    if (!theirs || !overlaps(cidr, theirs)) return [];
    const count = clientsIn(theirs);
    return [
      `the subnet overlaps the client pool of VPN ${pool.name} (${pool.ip_subnet}); ${count} VPN client(s) ` +
        'use addresses in it, and traffic to them or to the new network would be misrouted',
    ];
  });
}

/** Refuses settings that clash with another network on the site (the controller would refuse too). */
export function assertNoClash(
  others: readonly NetworkRecord[],
  settings: { name?: string; vlan: number | null; cidr?: Ipv4Cidr },
): void {
  for (const other of others) {
    if (settings.name !== undefined && other.name.toLowerCase() === settings.name.toLowerCase()) {
      throw new ConflictError(`a network named "${other.name}" already exists (${other._id})`);
    }
    if (settings.vlan !== null && vlanOf(other) === settings.vlan) {
      throw new ConflictError(`VLAN ${settings.vlan} is already used by ${other.name} (${other._id})`);
    }
    // A VPN client pool overlapping is warned about (vpnPoolWarnings), not refused here.
    const theirs =
      other.purpose !== 'wan' && !isVpnPool(other) && other.ip_subnet
        ? parseCidr(other.ip_subnet)
        : undefined;
    if (settings.cidr && theirs && overlaps(settings.cidr, theirs)) {
      throw new ConflictError(`subnet overlaps ${other.name} (${other.ip_subnet})`);
    }
  }
}

/** Warnings every preview of a network change shows (the controller's accepted range is narrower than the spec's). */
export function vlanWarnings(vlan: number | undefined): string[] {
  if (vlan === undefined) return [];
  if (vlan === 1) return ['VLAN 1 is the untagged default LAN; the controller refuses it as a tag'];
  if (vlan > 4018) return [`the controller accepts tags 2–4018; VLAN ${vlan} will likely be refused`];
  return [];
}

/** The controller body for a new network (spec arguments → networkconf fields). */
export function buildCreatePayload(
  settings: Required<Pick<NetworkSettings, 'name' | 'vlan_id' | 'purpose'>> &
    NetworkSettings & { dhcp_enabled: boolean },
): Record<string, unknown> {
  const base: Record<string, unknown> = {
    name: settings.name,
    purpose: settings.purpose,
    networkgroup: 'LAN',
    enabled: true,
    vlan_enabled: true,
    vlan: settings.vlan_id,
  };
  // A tag-only segment has no address plan on the gateway: no subnet, no DHCP.
  if (settings.purpose === 'vlan-only') return base;
  const cidr = settings.subnet ? parseCidr(settings.subnet) : undefined;
  if (!cidr) throw new ValidationError([missingValue('subnet', 'is required unless purpose is vlan-only')]);
  const issues = subnetIssues(cidr);
  if (issues.length > 0) throw new ValidationError(issues);
  const gatewayCidr = gatewayOf(cidr);
  const payload: Record<string, unknown> = {
    ...base,
    ip_subnet: gatewayCidr.text,
    dhcpd_enabled: settings.dhcp_enabled,
  };
  if (settings.dhcp_enabled) {
    const fallback = defaultDhcpRange(cidr, gatewayCidr.address);
    const start = settings.dhcp_start ?? fallback.start;
    const stop = settings.dhcp_stop ?? fallback.stop;
    const rangeIssues = dhcpRangeIssues(cidr, gatewayCidr.address, start, stop);
    if (rangeIssues.length > 0) throw new ValidationError(rangeIssues);
    Object.assign(payload, { dhcpd_start: start, dhcpd_stop: stop, dhcpd_leasetime: 86400 });
  } else if (settings.dhcp_start || settings.dhcp_stop) {
    throw new ValidationError([{ field: 'dhcp_start', rule: 'a lease range needs dhcp_enabled=true' }]);
  }
  Object.assign(payload, dnsFields(settings));
  if (settings.domain_name) payload.domain_name = settings.domain_name;
  return payload;
}

/** Subnet rules the controller enforces, checked before anything is sent. */
export function subnetIssues(cidr: Ipv4Cidr): FieldIssue[] {
  if (cidr.prefix < 8 || cidr.prefix > 30) {
    return [{ field: 'subnet', rule: 'prefix must be between /8 and /30 (room for a gateway and clients)' }];
  }
  if (cidr.address === cidr.broadcast) {
    return [{ field: 'subnet', rule: 'the gateway address cannot be the broadcast address' }];
  }
  return [];
}

/** The gateway address the controller stores in `ip_subnet`: the one given, or the first host. */
export function gatewayOf(cidr: Ipv4Cidr): { address: number; text: string } {
  const address = cidr.address === cidr.network ? cidr.network + 1 : cidr.address;
  return { address, text: `${formatIpv4(address)}/${cidr.prefix}` };
}

/**
 * The DNS fields of an update: a value sets that server, an empty value clears it (the controller
 * stores `""`). Setting any server turns custom DNS on; clearing the last one turns it off, so
 * clients get the gateway again. Clearing a server that is not set changes nothing.
 */
export function dnsUpdate(current: NetworkRecord, settings: NetworkSettings): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const f of DNS_FIELDS) {
    const value = settings[f];
    const key = f.replace('dhcp_', 'dhcpd_') as `dhcpd_dns_${1 | 2 | 3 | 4}`;
    if (value === undefined || (value === '' && !current[key])) continue;
    fields[key] = value;
  }
  if (Object.keys(fields).length === 0) return {};
  const after = DNS_FIELDS.map((f) => {
    const key = f.replace('dhcp_', 'dhcpd_') as `dhcpd_dns_${1 | 2 | 3 | 4}`;
    return key in fields ? fields[key] : current[key];
  });
  const anySet = Object.values(fields).some((v) => v !== '');
  if (anySet) fields.dhcpd_dns_enabled = true;
  else if (!after.some((v) => typeof v === 'string' && v !== '')) fields.dhcpd_dns_enabled = false;
  return fields;
}

/** Custom DNS servers switch `dhcpd_dns_enabled` on; without it the controller ignores them. */
export function dnsFields(settings: NetworkSettings): Record<string, unknown> {
  const given = DNS_FIELDS.filter((f) => settings[f] !== undefined);
  if (given.length === 0) return {};
  const fields: Record<string, unknown> = { dhcpd_dns_enabled: true };
  for (const f of given) fields[f.replace('dhcp_', 'dhcpd_')] = settings[f];
  return fields;
}
