import { DEMO_NETWORKS, DEMO_SITE } from './demo-ids.js';
import type { NetworkConf, PortConf, WlanConf } from './state.js';

// Keys every LAN record on a UDM carries (fixture classic/rest-networkconf.udm.json).
const LAN_COMMON = {
  site_id: DEMO_SITE.id,
  enabled: true,
  networkgroup: 'LAN',
  igmp_snooping: false,
  auto_scale_enabled: false,
  dhcp_relay_enabled: false,
  dhcpd_gateway_enabled: false,
  dhcpd_unifi_controller: '',
  dhcpguard_enabled: false,
  dhcpd_ntp_enabled: false,
  dhcpd_boot_enabled: false,
  dhcpd_time_offset_enabled: false,
  dhcpd_wpad_url: '',
  dhcpd_tftp_server: '',
  lte_lan_enabled: false,
  ipv6_interface_type: 'none',
  ipv6_pd_start: '::2',
  ipv6_pd_stop: '::7d1',
  gateway_type: 'default',
  nat_outbound_ip_addresses: [],
  is_nat: true,
} as const;

/**
 * The demo networks, shaped like the UDM capture (quirks included). One function: it is data, one
 * record after another.
 */
export function demoNetworks(): NetworkConf[] {
  const { wan, defaultLan, iot, guest, cameras, servers, vpn } = DEMO_NETWORKS;
  return [
    {
      _id: wan.id,
      attr_no_delete: true,
      attr_hidden_id: 'WAN',
      wan_networkgroup: 'WAN',
      site_id: DEMO_SITE.id,
      purpose: 'wan',
      name: wan.name,
      external_id: wan.uuid,
      wan_type: 'dhcp',
      wan_provider_capabilities: { upload_kilobits_per_second: 40000, download_kilobits_per_second: 250000 },
      report_wan_event: false,
      wan_type_v6: 'disabled',
      wan_load_balance_type: 'failover-only',
      wan_load_balance_weight: 50,
      wan_vlan_enabled: false,
      // Both quirks are real: numeric fields served as empty strings on the WAN record.
      wan_vlan: '',
      vlan: '',
      wan_egress_qos: '',
      wan_dns1: '1.1.1.1',
      wan_dns2: '8.8.8.8',
      wan_smartq_enabled: false,
      mac_override_enabled: false,
      wan_dhcp_options: [],
      wan_ip_aliases: [],
      enabled: true,
    },
    {
      _id: defaultLan.id,
      attr_no_delete: true,
      attr_hidden_id: 'LAN',
      ...LAN_COMMON,
      name: defaultLan.name,
      external_id: defaultLan.uuid,
      vlan_enabled: false,
      purpose: 'corporate',
      ip_subnet: '192.168.1.1/24',
      domain_name: 'home.arpa',
      dhcpd_enabled: true,
      dhcpd_start: '192.168.1.6',
      dhcpd_stop: '192.168.1.254',
      dhcpd_dns_enabled: false,
      dhcpd_leasetime: 86400,
      gateway_device: '74:ac:b9:1c:20:01',
    },
    {
      _id: iot.id,
      ...LAN_COMMON,
      name: iot.name,
      external_id: iot.uuid,
      purpose: 'corporate',
      vlan_enabled: true,
      vlan: 20,
      ip_subnet: '10.20.0.1/24',
      domain_name: 'iot.home.arpa',
      dhcpd_enabled: true,
      dhcpd_start: '10.20.0.100',
      dhcpd_stop: '10.20.0.250',
      dhcpd_dns_enabled: false,
      // A real quirk: the lease time arrives as a string on some records.
      dhcpd_leasetime: '3600',
      igmp_snooping: true,
      mdns_enabled: true,
    },
    {
      _id: guest.id,
      ...LAN_COMMON,
      name: guest.name,
      external_id: guest.uuid,
      purpose: 'guest',
      vlan_enabled: true,
      vlan: 30,
      ip_subnet: '10.30.0.1/24',
      dhcpd_enabled: true,
      dhcpd_start: '10.30.0.10',
      dhcpd_stop: '10.30.0.250',
      dhcpd_dns_enabled: false,
      dhcpd_leasetime: 7200,
    },
    {
      _id: cameras.id,
      ...LAN_COMMON,
      name: cameras.name,
      external_id: cameras.uuid,
      purpose: 'corporate',
      vlan_enabled: true,
      vlan: 60,
      ip_subnet: '10.60.0.1/24',
      domain_name: 'cams.home.arpa',
      dhcpd_enabled: true,
      dhcpd_start: '10.60.0.50',
      dhcpd_stop: '10.60.0.200',
      dhcpd_dns_enabled: true,
      dhcpd_dns_1: '9.9.9.9',
      dhcpd_dns_2: '149.112.112.112',
      dhcpd_leasetime: 86400,
    },
    {
      _id: servers.id,
      site_id: DEMO_SITE.id,
      name: servers.name,
      external_id: servers.uuid,
      enabled: true,
      purpose: 'vlan-only',
      networkgroup: 'LAN',
      vlan_enabled: true,
      vlan: 50,
      igmp_snooping: false,
      dhcpguard_enabled: false,
    },
    // The remote-access server: its client pool is a subnet of the site (the VPN client's 10.40.0.23).
    {
      _id: vpn.id,
      site_id: DEMO_SITE.id,
      name: vpn.name,
      enabled: true,
      purpose: 'remote-user-vpn',
      vpn_type: 'wireguard-server',
      ip_subnet: '10.40.0.1/24',
      wireguard_interface: 'wan',
      wireguard_local_port: 51820,
      x_wireguard_private_key: 'demo-wireguard-private-key-not-a-secret=',
      dhcpd_dns_enabled: false,
    },
  ];
}

/** The SSIDs the demo clients use (their `essid`), each on its network (go-unifi WLAN fields). */
export function demoWlans(): WlanConf[] {
  const { defaultLan, iot, guest } = DEMO_NETWORKS;
  const wlan = (_id: string, name: string, networkconf_id: string, is_guest: boolean): WlanConf => ({
    _id,
    site_id: DEMO_SITE.id,
    name,
    enabled: true,
    security: 'wpapsk',
    wpa_mode: 'wpa2',
    // A WPA-PSK SSID always has one; the official details return it (a PUT must restate it).
    x_passphrase: `demo-${_id.slice(-4)}-passphrase`,
    is_guest,
    networkconf_id,
    wlan_bands: ['2g', '5g'],
  });
  return [
    wlan('65b3c8e1f4a9d20c7e5a1501', 'Home', defaultLan.id, false),
    wlan('65b3c8e1f4a9d20c7e5a1502', 'Home-IoT', iot.id, false),
    wlan('65b3c8e1f4a9d20c7e5a1503', 'Guest WiFi', guest.id, true),
  ];
}

/** Switch port profiles: camera ports on the Cameras VLAN, and an AP trunk tagging IoT and Guest. */
export function demoPortProfiles(): PortConf[] {
  const { defaultLan, iot, guest, cameras } = DEMO_NETWORKS;
  return [
    {
      _id: '65b3c8e1f4a9d20c7e5a1601',
      site_id: DEMO_SITE.id,
      name: 'Camera ports',
      forward: 'native',
      native_networkconf_id: cameras.id,
      poe_mode: 'auto',
    },
    {
      _id: '65b3c8e1f4a9d20c7e5a1602',
      site_id: DEMO_SITE.id,
      name: 'AP trunk',
      forward: 'customize',
      native_networkconf_id: defaultLan.id,
      tagged_networkconf_ids: [iot.id, guest.id],
    },
  ];
}
