import {
  DEMO_ACL_RULES,
  DEMO_CORE_SWITCH_UUID,
  DEMO_NETWORKS,
  DEMO_SITE,
  DEMO_TRAFFIC_MATCHING_LISTS,
  DEMO_ZONES,
} from './demo-ids.js';
import type {
  AclRule,
  FirewallRule,
  FirewallZone,
  TrafficMatchingList,
  TrafficRoute,
  TrafficRule,
} from './state.js';

const N = DEMO_NETWORKS;

/** What the controller fills on a new legacy rule (go-unifi firewall_rule fields). */
export function newFirewallRuleDefaults(siteId: string) {
  return {
    site_id: siteId,
    enabled: true,
    logging: false,
    protocol: 'all',
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
    setting_preference: 'manual',
  };
}

const RULE_DEFAULTS = newFirewallRuleDefaults(DEMO_SITE.id);

/** The legacy firewall rules. Indexes sit in the 20000 range, which zone-based consoles require. */
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
      rule_index: 20002,
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
      rule_index: 20003,
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
      rule_index: 20004,
      action: 'accept',
      protocol: 'tcp',
      dst_address: '192.168.1.20',
      dst_port: '32400',
      enabled: false,
    },
  ];
}

/** The system zones plus one user zone. The Servers network (VLAN-only, no gateway interface) is in no zone. */
export function demoZones(): FirewallZone[] {
  const system = (id: string, name: string, configurable: boolean, networkIds: string[]): FirewallZone => ({
    id,
    name,
    networkIds,
    metadata: { origin: 'SYSTEM_DEFINED', configurable },
  });
  return [
    system(DEMO_ZONES.internal, 'Internal', true, [N.defaultLan.uuid]),
    // Real: External's members are WAN interfaces that Integration /networks does not list.
    system(DEMO_ZONES.external, 'External', false, [N.wan.uuid]),
    system(DEMO_ZONES.gateway, 'Gateway', false, []),
    system(DEMO_ZONES.vpn, 'Vpn', false, []),
    system(DEMO_ZONES.hotspot, 'Hotspot', true, [N.guest.uuid]),
    system(DEMO_ZONES.dmz, 'Dmz', true, []),
    {
      id: DEMO_ZONES.iotDevices,
      name: 'IoT Devices',
      networkIds: [N.iot.uuid, N.cameras.uuid],
      metadata: { origin: 'USER_DEFINED' },
    },
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
