import {
  DEMO_ACL_RULES,
  DEMO_CORE_SWITCH_UUID,
  DEMO_FIREWALL_POLICIES,
  DEMO_FIREWALL_POLICY_UUIDS,
  DEMO_NETWORKS,
  DEMO_PREDEFINED_POLICY_UUIDS,
  DEMO_SITE,
  DEMO_TRAFFIC_MATCHING_LISTS,
  DEMO_ZONE_IDS,
  DEMO_ZONES,
} from './demo-ids.js';
import type {
  AclRule,
  FirewallPolicy,
  FirewallPolicyEndpoint,
  FirewallRule,
  FirewallZone,
  TrafficMatchingList,
  TrafficRoute,
  TrafficRule,
} from './state.js';

const N = DEMO_NETWORKS;

/** True for the IPv6 rulesets (`WANv6_IN`…), which carry the `*_ipv6` and `protocol_v6` fields. */
export function isIpv6Ruleset(ruleset: unknown): boolean {
  return typeof ruleset === 'string' && /^(WAN|LAN|GUEST)v6_/.test(ruleset);
}

/**
 * What the controller fills on a new legacy rule (go-unifi firewall_rule fields). The protocol
 * field of the other IP version is stored empty (a simulator choice: no capture shows it).
 */
export function newFirewallRuleDefaults(siteId: string, ruleset?: unknown) {
  const v6 = isIpv6Ruleset(ruleset);
  return {
    site_id: siteId,
    enabled: true,
    logging: false,
    protocol: v6 ? '' : 'all',
    protocol_v6: v6 ? 'all' : '',
    protocol_match_excepted: false,
    src_address: '',
    src_port: '',
    src_mac_address: '',
    src_networkconf_id: '',
    src_networkconf_type: 'NETv4',
    src_firewallgroup_ids: [],
    dst_address: '',
    dst_port: '',
    dst_networkconf_id: '',
    dst_networkconf_type: 'NETv4',
    dst_firewallgroup_ids: [],
    state_established: false,
    state_related: false,
    state_new: false,
    state_invalid: false,
    ipsec: '',
    icmp_typename: '',
    icmpv6_typename: '',
    setting_preference: 'manual',
    ...(v6 ? { src_address_ipv6: '', dst_address_ipv6: '' } : {}),
  };
}

const RULE_DEFAULTS = newFirewallRuleDefaults(DEMO_SITE.id);

/**
 * The legacy firewall rules (legacy flavour). Each index sits in its ruleset family's five-digit
 * block: LAN 20000s, WAN 30000s, as rules made in the UI of Network 7+ are numbered.
 */
export function demoFirewallRules(): FirewallRule[] {
  return [
    {
      ...RULE_DEFAULTS,
      _id: '65b3c8e1f4a9d20c7e5a1101',
      name: 'Allow established/related',
      ruleset: 'LAN_IN',
      rule_index: 20000,
      action: 'accept',
      state_established: true,
      state_related: true,
    },
    {
      ...RULE_DEFAULTS,
      _id: '65b3c8e1f4a9d20c7e5a1102',
      name: 'Block IoT to LAN',
      ruleset: 'LAN_IN',
      rule_index: 20001,
      action: 'drop',
      src_networkconf_id: N.iot.id,
      src_networkconf_type: 'NETv4',
      dst_networkconf_id: N.defaultLan.id,
      dst_networkconf_type: 'NETv4',
    },
    {
      ...RULE_DEFAULTS,
      _id: '65b3c8e1f4a9d20c7e5a1103',
      name: 'Cameras: no internet',
      ruleset: 'WAN_OUT',
      rule_index: 30000,
      action: 'reject',
      src_networkconf_id: N.cameras.id,
      src_networkconf_type: 'NETv4',
      logging: true,
    },
    {
      ...RULE_DEFAULTS,
      _id: '65b3c8e1f4a9d20c7e5a1104',
      name: 'Drop Telnet from WAN',
      ruleset: 'WAN_IN',
      rule_index: 30000,
      action: 'drop',
      protocol: 'tcp',
      dst_port: '23',
      logging: true,
    },
    {
      ...RULE_DEFAULTS,
      _id: '65b3c8e1f4a9d20c7e5a1105',
      name: 'Allow Plex to NAS',
      ruleset: 'WAN_IN',
      rule_index: 30001,
      action: 'accept',
      protocol: 'tcp',
      dst_address: '192.168.1.20',
      dst_port: '32400',
      enabled: false,
    },
    {
      ...newFirewallRuleDefaults(DEMO_SITE.id, 'WANv6_IN'),
      _id: '65b3c8e1f4a9d20c7e5a1106',
      name: 'Allow ICMPv6 echo to LAN',
      ruleset: 'WANv6_IN',
      rule_index: 30000,
      action: 'accept',
      protocol_v6: 'icmpv6',
      icmpv6_typename: 'echo-request',
      dst_address_ipv6: '2001:db8:10::/64',
    },
  ];
}

/** The system zones plus one user zone. The Servers network (VLAN-only, no gateway interface) is in no zone. */
export function demoZones(): FirewallZone[] {
  const system = (
    key: Exclude<keyof typeof DEMO_ZONES, 'iotDevices'>,
    name: string,
    configurable: boolean,
    networkIds: string[],
  ): FirewallZone => ({
    id: DEMO_ZONES[key],
    _id: DEMO_ZONE_IDS[key],
    zone_key: key,
    name,
    networkIds,
    metadata: { origin: 'SYSTEM_DEFINED', configurable },
  });
  return [
    system('internal', 'Internal', true, [N.defaultLan.uuid]),
    // Real: External's members are WAN interfaces that Integration /networks does not list.
    system('external', 'External', false, [N.wan.uuid]),
    system('gateway', 'Gateway', false, []),
    system('vpn', 'Vpn', false, []),
    system('hotspot', 'Hotspot', true, [N.guest.uuid]),
    system('dmz', 'Dmz', true, []),
    {
      id: DEMO_ZONES.iotDevices,
      _id: DEMO_ZONE_IDS.iotDevices,
      zone_key: null,
      name: 'IoT Devices',
      networkIds: [N.iot.uuid, N.cameras.uuid],
      metadata: { origin: 'USER_DEFINED' },
    },
  ];
}

/** What the controller fills on a policy side left to match anything. */
function anyEndpoint(zoneId: string): FirewallPolicyEndpoint {
  return { zone_id: zoneId, matching_target: 'ANY', port_matching_type: 'ANY', match_opposite_ports: false };
}

/** A policy side that matches one network of its zone, as the controller stores it. */
function networkEndpoint(zoneId: string, networkId: string): FirewallPolicyEndpoint {
  return {
    ...anyEndpoint(zoneId),
    matching_target: 'NETWORK',
    matching_target_type: 'OBJECT',
    network_ids: [networkId],
    match_opposite_networks: false,
  };
}

/** The fields every stored policy carries (aiounifi's captured policy, unifig's recording). */
function policyDefaults() {
  return {
    connection_state_type: 'ALL',
    connection_states: [],
    description: '',
    enabled: true,
    icmp_typename: 'ANY',
    icmp_v6_typename: 'ANY',
    ip_version: 'BOTH',
    logging: false,
    match_ip_sec: false,
    match_opposite_protocol: false,
    predefined: false,
    protocol: 'all',
    schedule: { mode: 'ALWAYS' },
  };
}

/**
 * A policy the controller generates for a zone pair: its `_id` is the two zone ids and the index
 * run together, and it cannot be fetched, changed or deleted by that id (unifig ADR-0027).
 */
function predefinedPolicy(
  uuid: string,
  name: string,
  action: string,
  from: keyof typeof DEMO_ZONE_IDS,
  to: keyof typeof DEMO_ZONE_IDS,
  index: number,
  extra: Record<string, unknown> = {},
): FirewallPolicy {
  return {
    ...policyDefaults(),
    _id: `${DEMO_ZONE_IDS[from]}${DEMO_ZONE_IDS[to]}${index}`,
    external_id: uuid,
    name,
    action,
    create_allow_respond: true,
    index,
    predefined: true,
    source: anyEndpoint(DEMO_ZONE_IDS[from]),
    destination: anyEndpoint(DEMO_ZONE_IDS[to]),
    ...extra,
  };
}

// Deliberately alike: demo fixtures: each policy spelled out as the controller stores it.
/**
 * The zone-based flavour's policies: four of the admin's own (controller-assigned indexes from
 * 10000 per zone pair) and a few of the controller's generated ones (a real console ships 86).
 */
export function demoFirewallPolicies(): FirewallPolicy[] {
  const Z = DEMO_ZONE_IDS;
  const P = DEMO_PREDEFINED_POLICY_UUIDS;
  return [
    {
      ...policyDefaults(),
      _id: DEMO_FIREWALL_POLICIES.blockIotToInternal,
      external_id: DEMO_FIREWALL_POLICY_UUIDS.blockIotToInternal,
      name: 'Block IoT to Internal',
      action: 'BLOCK',
      create_allow_respond: false,
      index: 10000,
      source: networkEndpoint(Z.iotDevices, N.iot.id),
      destination: anyEndpoint(Z.internal),
    },
    {
      ...policyDefaults(),
      _id: DEMO_FIREWALL_POLICIES.camerasNoInternet,
      external_id: DEMO_FIREWALL_POLICY_UUIDS.camerasNoInternet,
      name: 'Cameras: no internet',
      action: 'REJECT',
      create_allow_respond: false,
      index: 10000,
      logging: true,
      source: networkEndpoint(Z.iotDevices, N.cameras.id),
      destination: anyEndpoint(Z.external),
    },
    {
      ...policyDefaults(),
      _id: DEMO_FIREWALL_POLICIES.allowPlexFromWan,
      external_id: DEMO_FIREWALL_POLICY_UUIDS.allowPlexFromWan,
      name: 'Allow Plex from WAN',
      action: 'ALLOW',
      create_allow_respond: true,
      enabled: false,
      index: 10000,
      ip_version: 'IPV4',
      protocol: 'tcp',
      source: anyEndpoint(Z.external),
      destination: {
        ...anyEndpoint(Z.internal),
        matching_target: 'IP',
        matching_target_type: 'SPECIFIC',
        ips: ['192.168.1.20'],
        match_opposite_ips: false,
        port_matching_type: 'SPECIFIC',
        port: '32400',
      },
    },
    {
      ...policyDefaults(),
      _id: DEMO_FIREWALL_POLICIES.kidsBedtime,
      external_id: DEMO_FIREWALL_POLICY_UUIDS.kidsBedtime,
      name: "Kids' bedtime",
      action: 'BLOCK',
      create_allow_respond: false,
      index: 10000,
      source: {
        ...anyEndpoint(Z.internal),
        matching_target: 'IP',
        matching_target_type: 'SPECIFIC',
        ips: ['192.168.1.140'],
        match_opposite_ips: false,
      },
      destination: anyEndpoint(Z.external),
      schedule: {
        mode: 'EVERY_DAY',
        repeat_on_days: [],
        time_all_day: false,
        time_range_start: '21:30',
        time_range_end: '23:59',
      },
    },
    predefinedPolicy(P[0], 'Allow All Traffic', 'ALLOW', 'internal', 'external', 2147483647),
    predefinedPolicy(P[1], 'Allow All Traffic', 'ALLOW', 'iotDevices', 'external', 2147483647),
    predefinedPolicy(P[2], 'Allow Return Traffic', 'ALLOW', 'external', 'internal', 30000, {
      connection_state_type: 'RESPOND_ONLY',
    }),
    predefinedPolicy(P[3], 'Block All Traffic', 'BLOCK', 'external', 'internal', 2147483647),
  ];
}

/** User-defined ACL rules, in their seeded order. */
export function demoAclRules(): AclRule[] {
  return [
    {
      type: 'IPV4',
      id: DEMO_ACL_RULES.blockIotToNas,
      enabled: true,
      name: 'Block IoT to NAS',
      description: 'IoT devices must not reach the file shares',
      action: 'BLOCK',
      enforcingDeviceFilter: null,
      sourceFilter: { type: 'NETWORKS', networkIds: [N.iot.uuid] },
      destinationFilter: {
        type: 'IP_ADDRESSES_OR_SUBNETS',
        ipAddressesOrSubnets: ['192.168.1.20'],
        portFilter: [445, 5000],
      },
      protocolFilter: ['TCP'],
      metadata: { origin: 'USER_DEFINED' },
    },
    {
      type: 'IPV4',
      id: DEMO_ACL_RULES.allowCamerasToNvr,
      enabled: true,
      name: 'Allow cameras to NVR',
      action: 'ALLOW',
      enforcingDeviceFilter: { type: 'DEVICES', deviceIds: [DEMO_CORE_SWITCH_UUID] },
      sourceFilter: { type: 'NETWORKS', networkIds: [N.cameras.uuid] },
      destinationFilter: {
        type: 'IP_ADDRESSES_OR_SUBNETS',
        ipAddressesOrSubnets: ['10.60.0.10/32'],
        portFilter: [554, 7447],
      },
      protocolFilter: ['TCP', 'UDP'],
      metadata: { origin: 'USER_DEFINED' },
    },
    {
      type: 'IPV4',
      id: DEMO_ACL_RULES.blockGuestSsh,
      enabled: false,
      name: 'Block guest SSH',
      action: 'BLOCK',
      enforcingDeviceFilter: null,
      sourceFilter: { type: 'NETWORKS', networkIds: [N.guest.uuid] },
      destinationFilter: { type: 'PORTS', portFilter: [22] },
      protocolFilter: ['TCP'],
      metadata: { origin: 'USER_DEFINED' },
    },
    {
      type: 'MAC',
      id: DEMO_ACL_RULES.blockKidsTabletMac,
      enabled: true,
      name: "Block kids' tablet",
      description: 'Bedtime',
      action: 'BLOCK',
      enforcingDeviceFilter: null,
      sourceFilter: { type: 'MAC_ADDRESSES', macAddresses: ['8c:85:90:1f:aa:0b'] },
      destinationFilter: null,
      networkIdFilter: N.defaultLan.uuid,
      metadata: { origin: 'USER_DEFINED' },
    },
  ];
}

/** One traffic matching list of each type, with ranges and subnets. */
export function demoTrafficMatchingLists(): TrafficMatchingList[] {
  return [
    {
      type: 'PORTS',
      id: DEMO_TRAFFIC_MATCHING_LISTS.webPorts,
      name: 'Web Ports',
      items: [
        { type: 'PORT_NUMBER', value: 80 },
        { type: 'PORT_NUMBER', value: 443 },
        { type: 'PORT_NUMBER_RANGE', start: 8000, stop: 8100 },
      ],
    },
    // Deliberately alike: demo fixtures, one traffic matching list per type, spelled out as the controller stores it.
    {
      type: 'IPV4_ADDRESSES',
      id: DEMO_TRAFFIC_MATCHING_LISTS.trustedAdminHosts,
      name: 'Trusted Admin Hosts',
      items: [
        { type: 'IP_ADDRESS', value: '192.168.1.112' },
        { type: 'SUBNET', value: '10.20.0.0/24' },
        { type: 'IP_ADDRESS_RANGE', start: '192.168.1.100', stop: '192.168.1.120' },
      ],
    },
    {
      type: 'IPV6_ADDRESSES',
      id: DEMO_TRAFFIC_MATCHING_LISTS.ipv6CloudDns,
      name: 'IPv6 Cloud DNS',
      items: [
        { type: 'IP_ADDRESS', value: '2606:4700:4700::1111' },
        { type: 'SUBNET', value: '2001:4860:4860::/48' },
      ],
    },
  ];
}

const ALWAYS = { mode: 'ALWAYS', repeat_on_days: [], time_all_day: false };
const NO_LIMIT = { download_limit_kbps: 1024, enabled: false, upload_limit_kbps: 1024 };

/** v2 Traffic Management rules: a BLOCK, an ALLOW, and a bandwidth limit. */
export function demoTrafficRules(): TrafficRule[] {
  const empty = {
    app_category_ids: [],
    app_ids: [],
    domains: [],
    ip_addresses: [],
    ip_ranges: [],
    network_ids: [],
    regions: [],
  };
  return [
    {
      _id: '65b3c8e1f4a9d20c7e5a1201',
      action: 'BLOCK',
      ...empty,
      // Facebook and Instagram (cat 24), as strings like every stored rule.
      app_ids: ['1572867', '1573022'],
      bandwidth_limit: NO_LIMIT,
      description: 'Block social media on IoT',
      enabled: true,
      matching_target: 'APP',
      schedule: ALWAYS,
      target_devices: [{ network_id: N.iot.id, type: 'NETWORK' }],
    },
    {
      _id: '65b3c8e1f4a9d20c7e5a1202',
      action: 'ALLOW',
      ...empty,
      bandwidth_limit: NO_LIMIT,
      description: 'Allow NAS offsite backup',
      enabled: true,
      ip_addresses: [{ ip_or_subnet: '198.51.100.50', ip_version: 'v4', port_ranges: [], ports: [22] }],
      matching_target: 'IP',
      schedule: ALWAYS,
      target_devices: [{ client_mac: '00:11:32:8a:bc:04', type: 'CLIENT' }],
    },
    {
      _id: '65b3c8e1f4a9d20c7e5a1203',
      action: 'ALLOW',
      ...empty,
      bandwidth_limit: { download_limit_kbps: 20480, enabled: true, upload_limit_kbps: 5120 },
      description: 'Guest bandwidth cap',
      enabled: true,
      matching_target: 'INTERNET',
      schedule: {
        mode: 'CUSTOM',
        repeat_on_days: ['fri', 'sat', 'sun'],
        time_all_day: false,
        time_range_start: '18:00',
        time_range_end: '23:59',
      },
      target_devices: [{ network_id: N.guest.id, type: 'NETWORK' }],
    },
  ];
}

/** v2 policy-based routes (read-only here). */
export function demoTrafficRoutes(): TrafficRoute[] {
  const common = { ip_ranges: [], kill_switch_enabled: false, next_hop: '', regions: [] };
  return [
    {
      _id: '65b3c8e1f4a9d20c7e5a1301',
      ...common,
      description: 'Work domains via primary WAN',
      domains: [{ domain: 'corp.example.com', port_ranges: [], ports: [] }],
      enabled: true,
      ip_addresses: [],
      matching_target: 'DOMAIN',
      network_id: N.wan.id,
      target_devices: [{ network_id: N.defaultLan.id, type: 'NETWORK' }],
    },
    {
      _id: '65b3c8e1f4a9d20c7e5a1302',
      ...common,
      description: 'NVR cloud uploads',
      domains: [],
      enabled: false,
      ip_addresses: [
        {
          ip_or_subnet: '198.51.100.0/24',
          ip_version: 'v4',
          port_ranges: [{ port_start: 8000, port_stop: 8100 }],
          ports: [],
        },
      ],
      matching_target: 'IP',
      network_id: N.wan.id,
      target_devices: [{ client_mac: 'e0:63:da:c1:00:1e', type: 'CLIENT' }],
    },
  ];
}
