import { DEMO_DEVICES, DEMO_NETWORKS, DEMO_NOW, DEMO_SITE, type DemoNetworkKey } from './demo-ids.js';
import type { Prng } from './prng.js';
import type { ClientRecord } from './state.js';

/** Switches a wired client can hang off. */
export type DemoSwitchKey = 'coreSwitch' | 'officeSwitch' | 'flexSwitch';
/** APs a wireless client can associate with (the garage AP is offline). */
export type DemoApKey = 'livingAp' | 'meshAp';

/** How a demo client is connected. */
export type ClientLink =
  | { kind: 'wired'; device: DemoSwitchKey; port: number; rate: 100 | 1000 }
  | { kind: 'wireless'; ap: DemoApKey; essid: string; radio: 'na' | 'ng' }
  /** A remote-access VPN client: the gateway terminates it, no switch port or AP (Integration type VPN). */
  | { kind: 'vpn' };

/** What a client typically does on the network; drives its DPI applications. */
export type TrafficProfile =
  | 'phone'
  | 'laptop'
  | 'tablet'
  | 'desktop'
  | 'tv'
  | 'console'
  | 'speaker'
  | 'server'
  | 'iot'
  | 'camera';

/** A demo client's fixed identity; counters are added from the seed. */
export interface ClientSeed {
  mac: string;
  name?: string;
  hostname?: string;
  oui: string;
  /** A network key, or a bare VLAN: such records have no `network_id` (a real case). */
  network: DemoNetworkKey | { vlan: number } | { vpn: string };
  ip: string;
  link: ClientLink;
  profile: TrafficProfile;
}

const wired = (device: DemoSwitchKey, port: number, rate: 100 | 1000 = 1000): ClientLink => ({
  kind: 'wired',
  device,
  port,
  rate,
});
const wifi = (ap: DemoApKey, essid: string, radio: 'na' | 'ng' = 'na'): ClientLink => ({
  kind: 'wireless',
  ap,
  essid,
  radio,
});

/**
 * The 41 demo clients. Names cover the awkward cases on purpose: empty `name` with a hostname,
 * neither (a UI falls back to the MAC), non-ASCII, an ampersand, double quotes and angle brackets.
 */
// biome-ignore format: one client per line reads as a table
export const DEMO_CLIENT_SEEDS: readonly ClientSeed[] = [
  // Default LAN (15)
  { mac: 'a4:83:e7:11:22:01', name: "Zoë's iPhone", hostname: 'Zoes-iPhone', oui: 'Apple', network: 'defaultLan', ip: '192.168.1.101', link: wifi('livingAp', 'Home'), profile: 'phone' },
  { mac: 'f0:18:98:3c:9a:02', name: 'MacBook Pro (Work)', hostname: 'mbp-work', oui: 'Apple', network: 'defaultLan', ip: '192.168.1.102', link: wifi('livingAp', 'Home'), profile: 'laptop' },
  { mac: '3c:22:fb:45:10:03', name: "Tom & Jerry's iPad", hostname: 'iPad', oui: 'Apple', network: 'defaultLan', ip: '192.168.1.103', link: wifi('meshAp', 'Home'), profile: 'tablet' },
  { mac: '00:11:32:8a:bc:04', name: 'Synology NAS', hostname: 'nas', oui: 'Synology', network: 'defaultLan', ip: '192.168.1.20', link: wired('coreSwitch', 1), profile: 'server' },
  { mac: 'd8:bb:c1:02:77:05', name: 'Gaming PC', hostname: 'DESKTOP-7Q2LK9', oui: 'Micro-Star', network: 'defaultLan', ip: '192.168.1.21', link: wired('coreSwitch', 2), profile: 'desktop' },
  { mac: '64:16:7f:aa:31:06', name: 'Printer <Office>', hostname: 'HP-LaserJet', oui: 'HP', network: 'defaultLan', ip: '192.168.1.30', link: wired('officeSwitch', 2, 100), profile: 'iot' },
  { mac: '9c:b6:d0:4e:11:07', name: 'Living Room "Big" TV', hostname: 'LGwebOSTV', oui: 'LG Electronics', network: 'defaultLan', ip: '192.168.1.40', link: wired('flexSwitch', 2), profile: 'tv' },
  { mac: 'f0:b3:ec:21:55:08', name: 'Apple TV', hostname: 'Apple-TV', oui: 'Apple', network: 'defaultLan', ip: '192.168.1.41', link: wired('flexSwitch', 3), profile: 'tv' },
  { mac: '7c:bb:8a:90:12:09', name: 'PlayStation 5', hostname: 'PS5-123', oui: 'Sony', network: 'defaultLan', ip: '192.168.1.42', link: wired('flexSwitch', 4), profile: 'console' },
  { mac: 'ac:bc:32:7d:01:0a', name: '', hostname: 'Pixel-8', oui: 'Google', network: 'defaultLan', ip: '192.168.1.110', link: wifi('livingAp', 'Home'), profile: 'phone' },
  { mac: '8c:85:90:1f:aa:0b', name: 'Küchen-Tablet', hostname: 'kuechen-tablet', oui: 'Samsung', network: 'defaultLan', ip: '192.168.1.111', link: wifi('meshAp', 'Home', 'ng'), profile: 'tablet' },
  { mac: 'e4:5f:01:bb:0c:0c', name: 'Office Dock (Ana)', hostname: 'ana-thinkpad', oui: 'Lenovo', network: 'defaultLan', ip: '192.168.1.112', link: wired('officeSwitch', 1), profile: 'laptop' },
  { mac: '5c:e9:1e:43:2d:0d', oui: 'Apple', network: 'defaultLan', ip: '192.168.1.113', link: wifi('livingAp', 'Home'), profile: 'phone' },
  { mac: '2c:f0:5d:66:77:0e', name: '', hostname: 'android-5f2c9a', oui: 'Xiaomi', network: 'defaultLan', ip: '192.168.1.114', link: wifi('livingAp', 'Home', 'ng'), profile: 'phone' },
  { mac: 'b8:27:eb:12:34:0f', name: 'Pi-hole', hostname: 'pihole', oui: 'Raspberry Pi', network: 'defaultLan', ip: '192.168.1.5', link: wired('coreSwitch', 3), profile: 'server' },
  // IoT (9)
  { mac: 'ec:fa:bc:01:02:10', name: 'Kitchen Plug', hostname: 'ESP_0102A1', oui: 'Espressif', network: 'iot', ip: '10.20.0.101', link: wifi('meshAp', 'Home-IoT', 'ng'), profile: 'iot' },
  { mac: 'ec:fa:bc:01:02:11', name: '', hostname: 'ESP_0102B7', oui: 'Espressif', network: 'iot', ip: '10.20.0.102', link: wifi('livingAp', 'Home-IoT', 'ng'), profile: 'iot' },
  { mac: '00:17:88:6a:bc:12', name: 'Hue Bridge', hostname: 'Philips-hue', oui: 'Signify', network: 'iot', ip: '10.20.0.10', link: wired('coreSwitch', 13, 100), profile: 'iot' },
  { mac: '18:b4:30:aa:01:13', name: 'Nest Thermostat', hostname: 'Nest-Thermostat', oui: 'Nest Labs', network: 'iot', ip: '10.20.0.103', link: wifi('livingAp', 'Home-IoT', 'ng'), profile: 'iot' },
  { mac: '48:a6:b8:77:20:14', name: 'Küche Lautsprecher', hostname: 'Sonos-Kitchen', oui: 'Sonos', network: 'iot', ip: '10.20.0.104', link: wifi('livingAp', 'Home-IoT'), profile: 'speaker' },
  { mac: '48:a6:b8:77:20:15', name: 'Sonos Beam', hostname: 'Sonos-Beam', oui: 'Sonos', network: 'iot', ip: '10.20.0.105', link: wired('flexSwitch', 5, 100), profile: 'speaker' },
  { mac: '50:14:79:3d:4e:16', name: 'Robot Vacuum', hostname: 'roborock-vacuum-a15', oui: 'Roborock', network: 'iot', ip: '10.20.0.106', link: wifi('meshAp', 'Home-IoT', 'ng'), profile: 'iot' },
  { mac: 'fc:65:de:2a:1b:17', oui: 'Amazon', network: 'iot', ip: '10.20.0.107', link: wifi('livingAp', 'Home-IoT', 'ng'), profile: 'speaker' },
  { mac: '68:57:2d:11:0e:18', name: 'Garage Door', hostname: 'myQ-0E18', oui: 'Chamberlain', network: 'iot', ip: '10.20.0.108', link: wifi('meshAp', 'Home-IoT', 'ng'), profile: 'iot' },
  // Guest (5)
  { mac: 'da:a1:19:5e:6f:19', name: '', hostname: 'Marias-iPhone', oui: '', network: 'guest', ip: '10.30.0.23', link: wifi('livingAp', 'Guest WiFi'), profile: 'phone' },
  { mac: 'f2:3c:91:0a:bb:1a', name: '', hostname: 'Galaxy-S23', oui: '', network: 'guest', ip: '10.30.0.24', link: wifi('livingAp', 'Guest WiFi'), profile: 'phone' },
  { mac: '3a:7f:22:c1:d0:1b', name: 'Guest Laptop', hostname: 'DESKTOP-GUEST1', oui: '', network: 'guest', ip: '10.30.0.25', link: wifi('meshAp', 'Guest WiFi', 'ng'), profile: 'laptop' },
  { mac: '9e:41:0b:33:7a:1c', name: '', hostname: 'iPad-von-Jürgen', oui: '', network: 'guest', ip: '10.30.0.26', link: wifi('livingAp', 'Guest WiFi'), profile: 'tablet' },
  { mac: '62:10:c4:8d:5e:1d', name: '', hostname: 'Pixel-7a', oui: '', network: 'guest', ip: '10.30.0.27', link: wifi('meshAp', 'Guest WiFi', 'ng'), profile: 'phone' },
  // Cameras (5)
  { mac: 'e0:63:da:c1:00:1e', name: 'NVR', hostname: 'unifi-nvr', oui: 'Ubiquiti', network: 'cameras', ip: '10.60.0.10', link: wired('coreSwitch', 5), profile: 'camera' },
  { mac: 'e0:63:da:c1:00:1f', name: 'Front Door Cam', hostname: 'G4-Doorbell', oui: 'Ubiquiti', network: 'cameras', ip: '10.60.0.11', link: wired('coreSwitch', 6, 100), profile: 'camera' },
  { mac: 'e0:63:da:c1:00:20', name: 'Driveway Cam', hostname: 'G4-Bullet-Driveway', oui: 'Ubiquiti', network: 'cameras', ip: '10.60.0.12', link: wired('coreSwitch', 7, 100), profile: 'camera' },
  { mac: 'e0:63:da:c1:00:21', name: 'Backyard Cam', hostname: 'G4-Bullet-Backyard', oui: 'Ubiquiti', network: 'cameras', ip: '10.60.0.13', link: wired('officeSwitch', 3, 100), profile: 'camera' },
  { mac: 'ac:cc:8e:44:55:22', name: 'Axis Garage Cam', hostname: 'axis-accc8e445522', oui: 'Axis', network: 'cameras', ip: '10.60.0.14', link: wired('officeSwitch', 4, 100), profile: 'camera' },
  // Servers, the VLAN-only network (3): addresses come from a DHCP server outside the gateway.
  { mac: '00:1b:21:aa:bb:24', name: 'ESXi Host 1', hostname: 'esxi-01', oui: 'Intel', network: 'servers', ip: '172.16.50.11', link: wired('coreSwitch', 10), profile: 'server' },
  { mac: '00:1b:21:aa:bb:25', name: 'ESXi Host 2', hostname: 'esxi-02', oui: 'Intel', network: 'servers', ip: '172.16.50.12', link: wired('coreSwitch', 11), profile: 'server' },
  { mac: '00:e0:4c:68:00:26', name: '', hostname: 'oob-switch-mgmt', oui: 'Realtek', network: 'servers', ip: '172.16.50.2', link: wired('coreSwitch', 12, 100), profile: 'iot' },
  // No network_id, only a VLAN (3): what a fallback-by-VLAN rule has to handle.
  { mac: '00:0d:b9:5a:6b:27', name: '', hostname: 'pfsense-test', oui: 'PC Engines', network: { vlan: 20 }, ip: '10.20.0.201', link: wired('coreSwitch', 14), profile: 'server' },
  { mac: 'b0:a7:b9:0c:1d:28', name: '', hostname: 'tplink-plug-28', oui: 'TP-Link', network: { vlan: 20 }, ip: '10.20.0.202', link: wifi('livingAp', 'Home-IoT', 'ng'), profile: 'iot' },
  { mac: 'e0:63:da:c1:00:29', name: 'Old Camera', hostname: 'UVC-G3-Old', oui: 'Ubiquiti', network: { vlan: 60 }, ip: '10.60.0.99', link: wired('officeSwitch', 6, 100), profile: 'camera' },
  // Remote access (1): a WireGuard client on the gateway's VPN server pool (for "who is 10.40.0.23").
  { mac: '5e:2b:8c:40:00:23', name: "Ana's Laptop (VPN)", hostname: 'ana-remote', oui: '', network: 'vpn', ip: '10.40.0.23', link: { kind: 'vpn' }, profile: 'laptop' },
];

// Where each AP itself is wired, so wireless records can carry sw_mac/sw_port like the fixture does.
const AP_SWITCH_PORT: Record<DemoApKey, { sw: DemoSwitchKey; port: number }> = {
  livingAp: { sw: 'officeSwitch', port: 5 },
  meshAp: { sw: 'officeSwitch', port: 5 },
};

// uplink_depth of each switch, reported by clients as sw_depth.
const SWITCH_DEPTH: Record<DemoSwitchKey, number> = { coreSwitch: 1, officeSwitch: 2, flexSwitch: 2 };

/** Builds the `stat/sta` records. tx = bytes the client sent, rx = bytes it received. */
export function demoClients(rng: Prng): ClientRecord[] {
  return DEMO_CLIENT_SEEDS.map((seed) => buildClient(seed, rng));
}

function buildClient(seed: ClientSeed, rng: Prng): ClientRecord {
  const id = rng.objectId();
  const uptime = rng.int(600, 14 * 86400);
  const firstSeen = DEMO_NOW - rng.int(30, 700) * 86400;
  const network =
    typeof seed.network === 'string'
      ? { network: DEMO_NETWORKS[seed.network].name, network_id: DEMO_NETWORKS[seed.network].id }
      : 'vpn' in seed.network
        ? { network: seed.network.vpn }
        : {};
  const record: ClientRecord = {
    _id: id,
    mac: seed.mac,
    site_id: DEMO_SITE.id,
    ...(seed.name !== undefined ? { name: seed.name } : {}),
    ...(seed.hostname !== undefined ? { hostname: seed.hostname } : {}),
    oui: seed.oui,
    ip: seed.ip,
    is_wired: seed.link.kind === 'wired',
    is_guest: seed.network === 'guest',
    ...network,
    first_seen: firstSeen,
    last_seen: DEMO_NOW - rng.int(0, 30),
    uptime,
    assoc_time: DEMO_NOW - uptime,
    latest_assoc_time: DEMO_NOW - uptime,
    user_id: id,
    usergroup_id: '',
    authorized: true,
    noted: Boolean(seed.name),
    qos_policy_applied: true,
    satisfaction: rng.int(82, 100),
    gw_mac: DEMO_DEVICES.gateway.mac,
  };
  if (typeof seed.network !== 'string' && 'vlan' in seed.network) record.vlan = seed.network.vlan;
  if (seed.link.kind === 'vpn') return { ...record, ...vpnFields(rng) };
  return seed.link.kind === 'wired'
    ? { ...record, ...wiredFields(seed.link, rng) }
    : { ...record, ...wirelessFields(seed.link, rng, typeof seed.network === 'string') };
}

// A VPN client counts as wired (no radio) and has no switch port: the gateway is its only hop.
function vpnFields(rng: Prng): Record<string, unknown> {
  return { is_wired: true, ...wiredCounters(rng, { txMb: 800, rxMb: 4000, txRate: 20000, rxRate: 90000 }) };
}

/**
 * The hyphenated wired counters, drawn in a fixed order (bytes, then rates) so a seed gives the
 * same site: `txMb`/`rxMb` cap the bytes in millions, `txRate`/`rxRate` the rates.
 */
function wiredCounters(
  rng: Prng,
  limits: { txMb: number; rxMb: number; txRate: number; rxRate: number },
): Record<string, number> {
  const tx = rng.int(5, limits.txMb) * 1_000_000;
  const rx = rng.int(20, limits.rxMb) * 1_000_000;
  return {
    'wired-tx_bytes': tx,
    'wired-rx_bytes': rx,
    'wired-tx_packets': Math.round(tx / 900),
    'wired-rx_packets': Math.round(rx / 1200),
    'wired-tx_bytes-r': rng.int(0, limits.txRate),
    'wired-rx_bytes-r': rng.int(0, limits.rxRate),
  };
}

function wiredFields(link: Extract<ClientLink, { kind: 'wired' }>, rng: Prng): Record<string, unknown> {
  // The fixture's wired client has only the hyphenated counters: no tx_bytes/rx_bytes, no vlan.
  return {
    sw_mac: DEMO_DEVICES[link.device].mac,
    sw_port: link.port,
    sw_depth: SWITCH_DEPTH[link.device],
    wired_rate_mbps: link.rate,
    ...wiredCounters(rng, { txMb: 4000, rxMb: 40000, txRate: 40000, rxRate: 250000 }),
  };
}

function wirelessFields(
  link: Extract<ClientLink, { kind: 'wireless' }>,
  rng: Prng,
  hasNetworkId: boolean,
): Record<string, unknown> {
  const ap = DEMO_DEVICES[link.ap];
  const rssi = rng.int(12, 60);
  const tx = rng.int(2, 3000) * 1_000_000;
  const rx = rng.int(10, 30000) * 1_000_000;
  const fiveGhz = link.radio === 'na';
  const uplink = AP_SWITCH_PORT[link.ap];
  return {
    ap_mac: ap.mac,
    // A BSSID is the AP MAC with a per-radio offset in the last octet.
    bssid: `${ap.mac.slice(0, 15)}${fiveGhz ? '2a' : '29'}`,
    essid: link.essid,
    radio: link.radio,
    radio_name: fiveGhz ? 'wifi1' : 'wifi0',
    radio_proto: rng.pick(fiveGhz ? ['ac', 'ax'] : ['n', 'ax']),
    channel: fiveGhz ? 44 : 6,
    rssi,
    signal: rssi - 95,
    noise: -95,
    tx_rate: rng.pick(fiveGhz ? [433300, 866700, 1200900] : [72200, 144400, 286800]),
    rx_rate: rng.pick(fiveGhz ? [390000, 780000, 1080600] : [65000, 130000, 258100]),
    tx_power: fiveGhz ? 40 : 34,
    tx_bytes: tx,
    rx_bytes: rx,
    tx_packets: Math.round(tx / 900),
    rx_packets: Math.round(rx / 1200),
    'tx_bytes-r': rng.int(0, 30000),
    'rx_bytes-r': rng.int(0, 200000),
    is_11r: false,
    powersave_enabled: rng.pick([true, false]),
    sw_mac: DEMO_DEVICES[uplink.sw].mac,
    sw_port: uplink.port,
    sw_depth: -1,
    // Wireless records usually carry vlan 0 (untagged view); records without network_id keep their VLAN.
    ...(hasNetworkId ? { vlan: 0 } : {}),
  };
}
