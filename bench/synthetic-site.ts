import { createPrng, type Prng } from '../src/simulator/prng.js';

/**
 * Synthetic UniFi sites for the benchmark and the big-site tests: `stat/device` and `stat/sta`
 * records shaped like the real ones (see test/fixtures/unifi/classic), in a realistic tree:
 * a gateway, aggregation switches on it, access switches on those, APs on the access switches,
 * a few mesh APs on wired APs, about 2 % of devices offline (only `last_uplink`), some uplinks
 * without `uplink_remote_port`, and clients spread over the APs (Wi-Fi) and switch ports (wired).
 * Seeded: the same options always give byte-identical records.
 */
export interface SyntheticSiteOptions {
  devices: number;
  clients: number;
  seed?: number;
}

/** The raw records, as the controller's `data` arrays would carry them. */
export interface SyntheticSite {
  devices: Record<string, unknown>[];
  clients: Record<string, unknown>[];
}

interface Planned {
  mac: string;
  name: string;
  type: 'udm' | 'usw' | 'uap';
  model: string;
  parent: Planned | undefined;
  /** Port on the parent; undefined for mesh links and for the gateway. */
  parentPort: number | undefined;
  ports: number;
  nextPort: number;
  online: boolean;
  mesh: boolean;
  /** Whether the record reports `uplink_remote_port` (real switches often do not). */
  reportsRemotePort: boolean;
  depth: number;
  index: number;
}

// Awkward names on purpose, so big exports exercise escaping too.
const NAME_SPICE = ['', '', '', '', ' & Co', ' "West"', ' <lab>', ' Küche', ' ☕'];
const AP_MODELS = ['U6LR', 'U6PRO', 'UAP6MP', 'U7PRO', 'UAL6'];
const SWITCH_MODELS: Record<number, string> = { 24: 'US24P250', 48: 'US48P500' };
const OUIS = ['Apple', 'Samsung', 'Intel', 'Google', 'Espressif', 'Dell', 'HP', 'Sonos', 'Amazon', ''];

function macOf(prefix: number, index: number): string {
  const bytes = [0x02, prefix, (index >> 24) & 0xff, (index >> 16) & 0xff, (index >> 8) & 0xff, index & 0xff];
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join(':');
}

function shuffle<T>(items: T[], rng: Prng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    const a = items[i];
    const b = items[j];
    if (a === undefined || b === undefined) continue;
    items[i] = b;
    items[j] = a;
  }
  return items;
}

function portTable(
  rng: Prng,
  device: Planned,
  used: Map<number, { speed: number; uplink: boolean; name?: string }>,
) {
  return Array.from({ length: device.ports }, (_, i) => {
    const idx = i + 1;
    const use = used.get(idx);
    const up = use !== undefined && device.online;
    const traffic = up ? rng.int(1, 5000) * 1_000_000 : 0;
    return {
      // Deliberately alike: a port as stat/device carries it; the synthetic site builds its own ports apart from the demo devices.
      port_idx: idx,
      name: use?.name ?? `Port ${idx}`,
      media: 'GE',
      enable: true,
      up,
      speed: up ? (use?.speed ?? 1000) : 0,
      full_duplex: up,
      is_uplink: use?.uplink ?? false,
      autoneg: true,
      port_poe: idx <= device.ports - 2,
      poe_caps: 7,
      poe_mode: 'auto',
      poe_enable: up,
      poe_power: up ? '4.20' : '0.00',
      op_mode: 'switch',
      stp_state: up ? 'forwarding' : 'disabled',
      rx_bytes: traffic,
      tx_bytes: up ? rng.int(1, 5000) * 1_000_000 : 0,
      rx_packets: Math.round(traffic / 900),
      tx_packets: Math.round(traffic / 1100),
      satisfaction: 100,
      portconf_id: '66aa00000000000000000001',
    };
  });
}

/** Builds one synthetic site; devices and clients come out in shuffled order, as order must not matter. */
export function syntheticSite(options: SyntheticSiteOptions): SyntheticSite {
  const rng = createPrng(options.seed ?? 42);
  const total = Math.max(1, options.devices);
  const switchCount = total > 1 ? Math.max(1, Math.round((total - 1) * 0.3)) : 0;
  const aggregationCount = switchCount > 0 ? Math.max(1, Math.ceil(switchCount / 20)) : 0;
  const apCount = total - 1 - switchCount;

  const planned: Planned[] = [];
  const plan = (
    type: Planned['type'],
    name: string,
    model: string,
    parent: Planned | undefined,
    ports: number,
  ): Planned => {
    const index = planned.length;
    const device: Planned = {
      mac: macOf(type === 'udm' ? 0x10 : type === 'usw' ? 0x20 : 0x30, index),
      name: `${name}${rng.pick(NAME_SPICE)}`,
      type,
      model,
      parent,
      parentPort: undefined,
      ports,
      nextPort: 1,
      online: true,
      mesh: false,
      reportsRemotePort: true,
      depth: parent ? parent.depth + 1 : 0,
      index,
    };
    if (parent && parent.nextPort <= parent.ports) {
      device.parentPort = parent.nextPort;
      parent.nextPort += 1;
    }
    planned.push(device);
    return device;
  };

  const gateway = plan('udm', 'Gateway', 'UDMPRO', undefined, 11);
  const aggregation: Planned[] = [];
  for (let i = 0; i < aggregationCount; i++)
    aggregation.push(plan('usw', `Aggregation ${i + 1}`, 'USAGGPRO', gateway, 48));
  const access: Planned[] = [];
  for (let i = 0; i < switchCount - aggregationCount; i++) {
    const parent = aggregation[i % aggregation.length] ?? gateway;
    const ports = rng.next() < 0.3 ? 48 : 24;
    access.push(plan('usw', `Access Switch ${i + 1}`, SWITCH_MODELS[ports] ?? 'US24P250', parent, ports));
  }
  const wiredParents = access.length > 0 ? access : aggregation.length > 0 ? aggregation : [gateway];
  const aps: Planned[] = [];
  const wiredAps: Planned[] = [];
  for (let i = 0; i < apCount; i++) {
    // About 5 % of APs are mesh APs hanging off a wired AP over the air.
    if (wiredAps.length > 0 && rng.next() < 0.05) {
      const ap = plan('uap', `Mesh AP ${i + 1}`, 'U7MSH', rng.pick(wiredAps), 1);
      ap.mesh = true;
      aps.push(ap);
      continue;
    }
    // Fill switches in turn, moving on when one has no free port left.
    let parent = wiredParents[i % wiredParents.length] ?? gateway;
    for (let tries = 0; tries < wiredParents.length && parent.nextPort > parent.ports - 2; tries++) {
      parent = wiredParents[(i + tries + 1) % wiredParents.length] ?? gateway;
    }
    const ap = plan('uap', `AP ${i + 1}`, rng.pick(AP_MODELS), parent, 2);
    aps.push(ap);
    wiredAps.push(ap);
  }
  for (const device of planned) {
    if (device !== gateway && rng.next() < 0.02) device.online = false;
    if (device.type === 'usw' && rng.next() < 0.1) device.reportsRemotePort = false;
  }

  // Clients: 70 % Wi-Fi on online APs, the rest on free switch ports (several per port when full).
  const onlineAps = aps.filter((ap) => ap.online);
  const clientSwitches = [...access, ...aggregation].filter((sw) => sw.online);
  const clients: Record<string, unknown>[] = [];
  const wiredOn = new Map<Planned, Map<number, number>>();
  let serial = 0;
  // Cheap unique ids: the generator's cost must stay small next to what is measured.
  const objectId = () => `66aa${(serial++).toString(16).padStart(20, '0')}`;
  for (let i = 0; i < options.clients; i++) {
    const mac = macOf(0x40 + (i % 0x3f), i);
    const wireless = onlineAps.length > 0 && (clientSwitches.length === 0 || rng.next() < 0.7);
    const named = rng.next() < 0.6;
    const name = named ? `Client ${i + 1}${rng.pick(NAME_SPICE)}` : '';
    const ip = `10.${(i >> 16) & 0xff}.${(i >> 8) & 0xff}.${i & 0xff}`;
    const common = {
      _id: objectId(),
      mac,
      site_id: '66aa00000000000000000000',
      name,
      hostname: `host-${i.toString(36)}`,
      oui: rng.pick(OUIS),
      ip,
      is_wired: !wireless,
      is_guest: rng.next() < 0.1,
      network: 'Default',
      network_id: '66aa00000000000000000002',
      first_seen: 1_700_000_000 + rng.int(0, 9_000_000),
      last_seen: 1_767_225_600 - rng.int(0, 30),
      uptime: rng.int(600, 1_000_000),
      assoc_time: 1_767_000_000,
      latest_assoc_time: 1_767_000_000,
      user_id: objectId(),
      usergroup_id: '',
      authorized: true,
      noted: named,
      qos_policy_applied: true,
      satisfaction: rng.int(80, 100),
      gw_mac: gateway.mac,
    };
    if (wireless) {
      const ap = onlineAps[i % onlineAps.length] ?? gateway;
      const rssi = rng.int(12, 60);
      const radio = {
        ap_mac: ap.mac,
        bssid: ap.mac,
        essid: rng.pick(['Corp', 'Guest', 'IoT']),
        radio: 'na',
        radio_name: 'wifi1',
        radio_proto: 'ax',
        channel: 44,
        rssi,
        signal: rssi - 95,
        noise: -95,
        tx_rate: 866_700,
        rx_rate: 780_000,
        tx_power: 40,
        tx_bytes: rng.int(1, 3000) * 1_000_000,
        rx_bytes: rng.int(1, 30000) * 1_000_000,
        tx_packets: rng.int(1, 1_000_000),
        rx_packets: rng.int(1, 10_000_000),
        'tx_bytes-r': rng.int(0, 30000),
        'rx_bytes-r': rng.int(0, 200000),
        is_11r: false,
        powersave_enabled: false,
        sw_mac: ap.parent?.mac,
        sw_port: ap.parentPort,
        sw_depth: -1,
        vlan: 0,
      };
      clients.push(Object.assign(common, radio));
      continue;
    }
    const sw = clientSwitches[i % clientSwitches.length] ?? gateway;
    const port = sw.nextPort <= sw.ports - 2 ? sw.nextPort++ : rng.int(1, sw.ports - 2);
    const perPort = wiredOn.get(sw) ?? new Map<number, number>();
    perPort.set(port, (perPort.get(port) ?? 0) + 1);
    wiredOn.set(sw, perPort);
    const wire = {
      sw_mac: sw.mac,
      sw_port: port,
      sw_depth: sw.depth,
      wired_rate_mbps: rng.pick([100, 1000, 1000]),
      'wired-tx_bytes': rng.int(5, 4000) * 1_000_000,
      'wired-rx_bytes': rng.int(20, 40000) * 1_000_000,
      'wired-tx_packets': rng.int(1, 1_000_000),
      'wired-rx_packets': rng.int(1, 10_000_000),
      'wired-tx_bytes-r': rng.int(0, 40000),
      'wired-rx_bytes-r': rng.int(0, 250000),
    };
    clients.push(Object.assign(common, wire));
  }

  const children = new Map<Planned, Planned[]>();
  for (const d of planned) {
    if (!d.parent) continue;
    const list = children.get(d.parent) ?? [];
    list.push(d);
    children.set(d.parent, list);
  }
  const devices = planned.map((device) => {
    const used = new Map<number, { speed: number; uplink: boolean; name?: string }>();
    for (const child of children.get(device) ?? []) {
      if (child.parentPort !== undefined)
        used.set(child.parentPort, { speed: 1000, uplink: false, name: child.name });
    }
    for (const port of wiredOn.get(device)?.keys() ?? []) used.set(port, { speed: 1000, uplink: false });
    const uplinkPort = device.type === 'usw' ? device.ports : 1;
    if (device.parent && !device.mesh) used.set(uplinkPort, { speed: 1000, uplink: true, name: 'Uplink' });
    const uptime = rng.int(3, 90) * 86400;
    const record: Record<string, unknown> = {
      _id: objectId(),
      mac: device.mac,
      name: device.name,
      model: device.model,
      type: device.type,
      ip: `10.255.${(device.index >> 8) & 0xff}.${device.index & 0xff}`,
      version: device.type === 'uap' ? '6.6.77.15402' : '7.1.26.15869',
      adopted: true,
      state: device.online ? 1 : 0,
      site_id: '66aa00000000000000000000',
      serial: device.mac.replaceAll(':', '').toUpperCase(),
      uptime: device.online ? uptime : 0,
      last_seen: 1_767_225_600 - (device.online ? rng.int(0, 20) : 259_200),
      upgradable: false,
      satisfaction: device.online ? rng.int(90, 100) : 0,
      'system-stats': { cpu: `${rng.int(2, 35)}.0`, mem: `${rng.int(20, 70)}.0`, uptime: `${uptime}` },
      tx_bytes: rng.int(1, 900) * 1_000_000_000,
      rx_bytes: rng.int(1, 900) * 1_000_000_000,
      num_sta: 0,
    };
    if (device.type === 'uap') {
      record.radio_table = [
        { name: 'wifi0', radio: 'ng', channel: 6, ht: '20', tx_power_mode: 'auto', min_rssi_enabled: false },
        { name: 'wifi1', radio: 'na', channel: 44, ht: '80', tx_power_mode: 'auto', min_rssi_enabled: false },
      ];
    }
    record.port_table = portTable(rng, device, used);
    const parent = device.parent;
    if (!parent) {
      record.uplink = { type: 'wire', up: true, name: 'eth8', port_idx: 9, speed: 1000, full_duplex: true };
      return record;
    }
    const remote =
      device.reportsRemotePort && device.parentPort !== undefined && !device.mesh
        ? { uplink_remote_port: device.parentPort }
        : {};
    const last = device.mesh
      ? { uplink_mac: parent.mac, type: 'wireless' }
      : { uplink_mac: parent.mac, ...remote, port_idx: uplinkPort, type: 'wire' };
    record.last_uplink = last;
    if (device.online) {
      record.uplink_depth = device.depth;
      record.uplink = device.mesh
        ? { type: 'wireless', up: true, name: 'ath2', uplink_mac: parent.mac, rssi: rng.int(20, 45) }
        : {
            type: 'wire',
            up: true,
            name: 'eth0',
            port_idx: uplinkPort,
            speed: 1000,
            full_duplex: true,
            max_speed: 1000,
            uplink_mac: parent.mac,
            uplink_device_name: parent.name,
            ...remote,
          };
    }
    return record;
  });
  return { devices: shuffle(devices, rng), clients: shuffle(clients, rng) };
}
