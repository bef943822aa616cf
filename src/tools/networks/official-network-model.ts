import { ValidationError } from '../../errors.js';
import { parseCidr } from '../../lib/ip.js';
import {
  type IntegrationNetworkRecord,
  integrationNetworkRecordSchema,
  type NetworkReferences,
} from '../../records/integration-network-record.js';
import type { NetworkRecord } from '../../records/network-record.js';

/**
 * The official (Integration, 10.1) network model mapped to and from the fields the spec's network
 * results are built from (the classic networkconf names: `purpose`, `ip_subnet`, `dhcpd_*`), so the
 * tools' results are the same whichever API served the network (docs/decisions.md, "Networks
 * through the official API"). On an official record `_id` is the UUID: one id per network on a 10.1
 * console.
 */

/** The official `vlanId` 1 is the untagged default network; the document allows 1–4009. */
export const OFFICIAL_VLAN_MAX = 4009;

function defined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

/**
 * `purpose` is not in the official model: an unmanaged network (a VLAN the gateway does not route)
 * is `vlan-only`, an isolated gateway network `guest`, any other `corporate`.
 */
export function purposeOf(record: IntegrationNetworkRecord): string {
  if (record.management === 'UNMANAGED') return 'vlan-only';
  return record.isolationEnabled === true ? 'guest' : 'corporate';
}

// Official fields the mapping expands into the classic names; the others are shown as they are.
const EXPANDED = new Set(['id', 'name', 'enabled', 'vlanId', 'ipv4Configuration']);

/** An official network as the tool models read networks (classic field names; `_id` = the UUID). */
export function fromOfficial(record: IntegrationNetworkRecord): NetworkRecord {
  const ipv4 = record.ipv4Configuration;
  const dhcp = ipv4?.dhcpConfiguration;
  const server = dhcp?.mode === 'SERVER';
  const dns = server ? (dhcp?.dnsServerIpAddressesOverride ?? []) : [];
  const tagged = record.vlanId !== undefined && record.vlanId > 1;
  const rest = Object.fromEntries(Object.entries(record).filter(([key]) => !EXPANDED.has(key)));
  return defined({
    ...rest,
    _id: record.id,
    external_id: record.id,
    name: record.name,
    purpose: purposeOf(record),
    enabled: record.enabled,
    vlan_enabled: tagged,
    vlan: tagged ? record.vlanId : undefined,
    ip_subnet:
      ipv4?.hostIpAddress && ipv4.prefixLength !== undefined
        ? `${ipv4.hostIpAddress}/${ipv4.prefixLength}`
        : undefined,
    dhcpd_enabled: server,
    dhcpd_start: server ? dhcp?.ipAddressRange?.start : undefined,
    dhcpd_stop: server ? dhcp?.ipAddressRange?.stop : undefined,
    dhcpd_leasetime: server ? dhcp?.leaseTimeSeconds : undefined,
    dhcpd_dns_enabled: dns.length > 0,
    dhcpd_dns_1: dns[0],
    dhcpd_dns_2: dns[1],
    dhcpd_dns_3: dns[2],
    dhcpd_dns_4: dns[3],
    dhcpd_gateway_enabled: server && dhcp?.gatewayIpAddressOverride ? true : undefined,
    dhcpd_gateway: server ? dhcp?.gatewayIpAddressOverride : undefined,
    domain_name: server ? dhcp?.domainName : undefined,
    attr_no_delete: record.metadata?.origin === 'SYSTEM_DEFINED' || record.default === true,
  }) as NetworkRecord;
}

/** `fromOfficial` for a raw record; undefined when it is not a network record at all. */
export function parseOfficial(raw: unknown): NetworkRecord | undefined {
  const parsed = integrationNetworkRecordSchema.safeParse(raw);
  return parsed.success ? fromOfficial(parsed.data) : undefined;
}

/** The settings of a network as the spec's tools change them (classic names), for the official body. */
export type NetworkSettingsRecord = Partial<NetworkRecord> & Record<string, unknown>;

// What each `management` variant of `Create or update Network` names (10.1.85), besides `management`.
const COMMON_KEYS = ['name', 'enabled', 'vlanId', 'dhcpGuarding'];
const VARIANT_KEYS: Record<string, string[]> = {
  UNMANAGED: [],
  GATEWAY: [
    'isolationEnabled',
    'cellularBackupEnabled',
    'zoneId',
    'internetAccessEnabled',
    'mdnsForwardingEnabled',
    'ipv4Configuration',
    'ipv6Configuration',
  ],
  SWITCH: ['isolationEnabled', 'cellularBackupEnabled', 'deviceId', 'ipv4Configuration'],
};
const IPV4_KEYS = {
  GATEWAY: ['autoScaleEnabled', 'additionalHostIpSubnets', 'natOutboundIpAddressConfiguration'],
  SWITCH: ['autoScaleEnabled', 'additionalHostIpSubnets'],
};
const DHCP_SERVER_KEYS = {
  GATEWAY: [
    'pingConflictDetectionEnabled',
    'pxeConfiguration',
    'ntpServerIpAddresses',
    'option43Value',
    'tftpServerAddress',
    'timeOffsetSeconds',
    'wpadUrl',
    'winsServerIpAddresses',
  ],
  SWITCH: [],
};

function pick(source: unknown, keys: readonly string[]): Record<string, unknown> {
  if (typeof source !== 'object' || source === null) return {};
  const record = source as Record<string, unknown>;
  return Object.fromEntries(keys.filter((k) => record[k] !== undefined).map((k) => [k, record[k]]));
}

function objectAt(source: unknown, key: string): Record<string, unknown> | undefined {
  if (typeof source !== 'object' || source === null) return undefined;
  const value = (source as Record<string, unknown>)[key];
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The `Create or update Network` body (10.1.85) for a network whose settings are `after` (classic
 * names, as the create and update plans produce them). `current` is the stored official record on
 * an update: a PUT replaces the whole network, so everything the bot does not model (IPv6, NAT,
 * DHCP options, flags) is carried over from it unchanged; read-only fields (`id`, `metadata`,
 * `default`) and fields the document does not name for the variant are left out.
 */
export function officialBody(
  current: Record<string, unknown> | undefined,
  after: NetworkSettingsRecord,
): Record<string, unknown> {
  const vlanOnly = after.purpose === 'vlan-only';
  const management = vlanOnly ? 'UNMANAGED' : current?.management === 'SWITCH' ? 'SWITCH' : 'GATEWAY';
  const tagged = after.vlan_enabled !== false && typeof after.vlan === 'number' && after.vlan > 1;
  if (tagged && (after.vlan as number) > OFFICIAL_VLAN_MAX) {
    throw new ValidationError([
      { field: 'vlan_id', rule: `this console's official API takes VLAN ids up to ${OFFICIAL_VLAN_MAX}` },
    ]);
  }
  const body: Record<string, unknown> = {
    management,
    ...pick(current, COMMON_KEYS),
    name: after.name,
    enabled: after.enabled !== false,
    vlanId: tagged ? after.vlan : 1,
  };
  if (management === 'UNMANAGED') return body;
  const variant = management as 'GATEWAY' | 'SWITCH';
  // Switching a vlan-only network to a gateway one: the flags start from the console's defaults.
  const previous = current?.management === management ? current : undefined;
  Object.assign(body, pick(previous, VARIANT_KEYS[variant] ?? []), {
    isolationEnabled: after.purpose === 'guest',
    cellularBackupEnabled: previous?.cellularBackupEnabled ?? false,
  });
  if (variant === 'GATEWAY') {
    body.internetAccessEnabled ??= true;
    body.mdnsForwardingEnabled ??= false;
  }
  const cidr = typeof after.ip_subnet === 'string' ? parseCidr(after.ip_subnet) : undefined;
  if (!cidr || typeof after.ip_subnet !== 'string') {
    throw new ValidationError([{ field: 'subnet', rule: 'is required unless purpose is vlan-only' }]);
  }
  const currentIpv4 = objectAt(previous, 'ipv4Configuration');
  const ipv4: Record<string, unknown> = {
    ...pick(currentIpv4, IPV4_KEYS[variant]),
    autoScaleEnabled: currentIpv4?.autoScaleEnabled ?? false,
    hostIpAddress: after.ip_subnet.split('/')[0],
    prefixLength: cidr.prefix,
  };
  const currentDhcp = objectAt(currentIpv4, 'dhcpConfiguration');
  if (after.dhcpd_enabled === true) {
    const server = currentDhcp?.mode === 'SERVER' ? currentDhcp : undefined;
    const dns = after.dhcpd_dns_enabled
      ? [after.dhcpd_dns_1, after.dhcpd_dns_2, after.dhcpd_dns_3, after.dhcpd_dns_4].filter(
          (v): v is string => str(v) !== undefined,
        )
      : [];
    const dhcp: Record<string, unknown> = {
      mode: 'SERVER',
      ...pick(server, DHCP_SERVER_KEYS[variant]),
      ipAddressRange: { start: after.dhcpd_start, stop: after.dhcpd_stop },
      leaseTimeSeconds: after.dhcpd_leasetime ?? server?.leaseTimeSeconds ?? 86400,
    };
    if (variant === 'GATEWAY')
      dhcp.pingConflictDetectionEnabled = server?.pingConflictDetectionEnabled ?? false;
    if (dns.length > 0) dhcp.dnsServerIpAddressesOverride = dns;
    if (str(after.domain_name)) dhcp.domainName = after.domain_name;
    if (after.dhcpd_gateway_enabled === true && str(after.dhcpd_gateway))
      dhcp.gatewayIpAddressOverride = after.dhcpd_gateway;
    ipv4.dhcpConfiguration = dhcp;
  } else if (currentDhcp?.mode === 'RELAY') {
    // A relay is not a DHCP server the bot turns off; it stays as it is.
    ipv4.dhcpConfiguration = currentDhcp;
  }
  body.ipv4Configuration = ipv4;
  return body;
}

/** How an official reference kind reads in a preview, and where the admin finds such objects. */
const REFERENCE_KINDS: Record<string, { kind: string; listedBy: string }> = {
  CLIENT: { kind: 'client', listedBy: 'list_clients' },
  DEVICE: { kind: 'device', listedBy: 'list_devices' },
  WIFI: { kind: 'Wi-Fi broadcast', listedBy: 'list_wifi_broadcasts' },
  STATIC_ROUTE: { kind: 'static route', listedBy: 'UniFi Network (no tool manages static routes)' },
  OSPF_ROUTE: { kind: 'OSPF route', listedBy: 'UniFi Network (no tool manages OSPF routes)' },
  NAT_RULE: { kind: 'NAT rule', listedBy: 'UniFi Network (no tool manages NAT rules)' },
  SD_WAN: { kind: 'SD-WAN', listedBy: 'UniFi Network (no tool manages SD-WAN)' },
  NEXT_AI: { kind: 'NeXT AI', listedBy: 'UniFi Network (no tool manages NeXT AI)' },
};

const COVERED_BY_BOT = new Set(['CLIENT', 'WIFI']);

/** One official reference kind, as the preview lists it. */
export interface OfficialReference {
  kind: string;
  count: number;
  ids: string[];
  listed_by: string;
}

/**
 * The official references answer as the preview shows it. Clients and SSIDs are left out: the
 * preview counts the network's active clients itself, and the bot's own SSID check names them.
 */
export function officialReferences(answer: NetworkReferences): OfficialReference[] {
  return answer.referenceResources
    .filter((r) => !COVERED_BY_BOT.has(r.resourceType) && (r.referenceCount ?? r.references?.length ?? 0) > 0)
    .map((r) => {
      const known = REFERENCE_KINDS[r.resourceType];
      return {
        kind: known?.kind ?? r.resourceType.toLowerCase().replaceAll('_', ' '),
        count: r.referenceCount ?? r.references?.length ?? 0,
        ids: (r.references ?? []).flatMap((ref) => (ref.referenceId ? [ref.referenceId] : [])),
        listed_by: known?.listedBy ?? 'UniFi Network',
      };
    });
}
