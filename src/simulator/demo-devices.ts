import { type ClientSeed, DEMO_CLIENT_SEEDS, type DemoSwitchKey } from './demo-clients.js';
import { DEMO_DEVICES, DEMO_NOW, DEMO_SITE, type DemoDeviceKey } from './demo-ids.js';
import type { Prng } from './prng.js';
import type { DeviceRecord } from './state.js';

/** What occupies one switch port. */
interface PortUse {
  speed: number;
  up: boolean;
  poeWatts: number;
  uplink: boolean;
  name?: string;
}

interface SwitchSpec {
  model: string;
  ip: string;
  ports: number;
  /** Ports 1..poePorts deliver PoE. */
  poePorts: number;
  /** Ports from here on are SFP cages. */
  sfpFrom: number;
  uplinkPort: number;
  parent: DemoDeviceKey;
  /** The parent's port this switch is cabled to (every demo switch names it, as its parent's port does). */
  remotePort?: number;
  depth: number;
  /** PoE budget in watts. */
  poeBudget: number;
}

// biome-ignore format: one switch per line reads as a table
const SWITCHES: Record<DemoSwitchKey, SwitchSpec> = {
  coreSwitch: { model: 'US24P250', ip: '192.168.1.2', ports: 26, poePorts: 24, sfpFrom: 25, uplinkPort: 24, parent: 'gateway', remotePort: 1, depth: 1, poeBudget: 250 },
  officeSwitch: { model: 'USL16LP', ip: '192.168.1.3', ports: 16, poePorts: 8, sfpFrom: 17, uplinkPort: 16, parent: 'coreSwitch', remotePort: 23, depth: 2, poeBudget: 45 },
  flexSwitch: { model: 'USMINI', ip: '192.168.1.4', ports: 5, poePorts: 0, sfpFrom: 6, uplinkPort: 1, parent: 'coreSwitch', remotePort: 22, depth: 2, poeBudget: 0 },
};

// Switch ports taken by other devices (the downstream end of each uplink).
const DEVICE_PORTS: { sw: DemoSwitchKey; port: number; use: PortUse }[] = [
  {
    sw: 'coreSwitch',
    port: 23,
    use: { speed: 1000, up: true, poeWatts: 0, uplink: false, name: 'Office Switch' },
  },
  {
    sw: 'coreSwitch',
    port: 22,
    use: { speed: 1000, up: true, poeWatts: 0, uplink: false, name: 'Media Cabinet' },
  },
  // The garage AP is offline: its port is down and draws no power.
  { sw: 'coreSwitch', port: 8, use: { speed: 0, up: false, poeWatts: 0, uplink: false, name: 'Garage AP' } },
  {
    sw: 'officeSwitch',
    port: 5,
    use: { speed: 1000, up: true, poeWatts: 9.5, uplink: false, name: 'Living Room AP' },
  },
];

const FIRMWARE = { gateway: '4.1.13', switch: '7.1.26.15869', ap: '6.6.77.15402' } as const;

/** Builds the `stat/device` records: a UDM Pro, three switches and three APs. */
export function demoDevices(rng: Prng): DeviceRecord[] {
  const clients = DEMO_CLIENT_SEEDS;
  return [
    gateway(rng, clients),
    switchRecord('coreSwitch', rng, clients),
    switchRecord('officeSwitch', rng, clients),
    switchRecord('flexSwitch', rng, clients),
    wiredAp(rng, clients),
    meshAp(rng, clients),
    offlineAp(rng),
  ];
}

function common(key: DemoDeviceKey, rng: Prng, model: string, type: string, ip: string, version: string) {
  const { id, mac, name } = DEMO_DEVICES[key];
  const uptime = rng.int(3, 90) * 86400 + rng.int(0, 86399);
  return {
    _id: id,
    mac,
    name,
    model,
    type,
    ip,
    version,
    adopted: true,
    state: 1,
    site_id: DEMO_SITE.id,
    serial: mac.replaceAll(':', '').toUpperCase(),
    uptime,
    _uptime: uptime,
    last_seen: DEMO_NOW - rng.int(0, 20),
    upgradable: false,
    satisfaction: rng.int(90, 100),
    'system-stats': {
      cpu: `${rng.int(2, 35)}.${rng.int(0, 9)}`,
      mem: `${rng.int(20, 70)}.${rng.int(0, 9)}`,
      uptime: `${uptime}`,
    },
    tx_bytes: rng.int(1, 900) * 1_000_000_000,
    rx_bytes: rng.int(1, 900) * 1_000_000_000,
  };
}

function counts(clients: readonly ClientSeed[], attached: (seed: ClientSeed) => boolean) {
  const mine = clients.filter(attached);
  const guests = mine.filter((seed) => seed.network === 'guest').length;
  return { num_sta: mine.length, 'user-num_sta': mine.length - guests, 'guest-num_sta': guests };
}

function gateway(rng: Prng, clients: readonly ClientSeed[]): DeviceRecord {
  const base = common('gateway', rng, 'UDMPRO', 'udm', '203.0.113.24', FIRMWARE.gateway);
  const ports = new Map<number, PortUse>([
    [1, { speed: 1000, up: true, poeWatts: 0, uplink: false, name: 'Core Switch' }],
    [9, { speed: 1000, up: true, poeWatts: 0, uplink: true, name: 'WAN' }],
  ]);
  const portTable = Array.from({ length: 11 }, (_, i) => {
    const idx = i + 1;
    const name = idx === 9 ? 'WAN' : idx === 10 ? 'SFP+ WAN 2' : idx === 11 ? 'SFP+ LAN' : `Port ${idx}`;
    return portEntry(rng, idx, ports.get(idx), { name, sfp: idx >= 10, poe: false });
  });
  return {
    ...base,
    connect_request_ip: '192.168.1.1',
    config_network: { type: 'dhcp', ip: '203.0.113.24' },
    ...counts(clients, () => true),
    // The gateway's uplink is the WAN: no uplink_mac, which is how the root is recognised.
    uplink: {
      type: 'wire',
      up: true,
      name: 'eth8',
      port_idx: 9,
      media: 'GE',
      speed: 1000,
      full_duplex: true,
      max_speed: 1000,
      ip: '203.0.113.24',
      netmask: '255.255.255.0',
      gateways: ['203.0.113.1'],
      nameservers: ['1.1.1.1', '8.8.8.8'],
      mac: DEMO_DEVICES.gateway.mac,
      latency: rng.int(4, 18),
      uptime: base.uptime,
      rx_bytes: base.rx_bytes,
      tx_bytes: base.tx_bytes,
    },
    port_table: portTable,
  };
}

function switchRecord(key: DemoSwitchKey, rng: Prng, clients: readonly ClientSeed[]): DeviceRecord {
  const spec = SWITCHES[key];
  const base = common(key, rng, spec.model, 'usw', spec.ip, FIRMWARE.switch);
  const parent = DEMO_DEVICES[spec.parent];
  const ports = new Map<number, PortUse>();
  ports.set(spec.uplinkPort, { speed: 1000, up: true, poeWatts: 0, uplink: true, name: 'Uplink' });
  for (const { sw, port, use } of DEVICE_PORTS) if (sw === key) ports.set(port, use);
  for (const seed of clients) {
    if (seed.link.kind !== 'wired' || seed.link.device !== key) continue;
    const poeWatts = seed.profile === 'camera' && seed.link.port <= spec.poePorts ? rng.int(30, 65) / 10 : 0;
    ports.set(seed.link.port, { speed: seed.link.rate, up: true, poeWatts, uplink: false });
  }
  const portTable = Array.from({ length: spec.ports }, (_, i) => {
    const idx = i + 1;
    const sfp = idx >= spec.sfpFrom;
    return portEntry(rng, idx, ports.get(idx), {
      name: sfp ? `SFP ${idx - spec.sfpFrom + 1}` : `Port ${idx}`,
      sfp,
      poe: idx <= spec.poePorts,
    });
  });
  const remote = spec.remotePort === undefined ? {} : { uplink_remote_port: spec.remotePort };
  return {
    ...base,
    gateway_mac: DEMO_DEVICES.gateway.mac,
    ...counts(clients, (seed) => seed.link.kind === 'wired' && seed.link.device === key),
    uplink: {
      type: 'wire',
      up: true,
      name: 'eth0',
      port_idx: spec.uplinkPort,
      media: 'GE',
      speed: 1000,
      full_duplex: true,
      max_speed: 1000,
      ip: spec.ip,
      netmask: '255.255.255.0',
      mac: DEMO_DEVICES[key].mac,
      num_port: spec.ports,
      uplink_mac: parent.mac,
      uplink_device_name: parent.name,
      ...remote,
      rx_bytes: base.rx_bytes,
      tx_bytes: base.tx_bytes,
    },
    last_uplink: { uplink_mac: parent.mac, ...remote },
    uplink_depth: spec.depth,
    total_max_power: spec.poeBudget,
    port_table: portTable,
  };
}

function portEntry(
  rng: Prng,
  idx: number,
  use: PortUse | undefined,
  hw: { name: string; sfp: boolean; poe: boolean },
): Record<string, unknown> {
  const up = use?.up ?? false;
  const watts = use?.poeWatts ?? 0;
  const traffic = up ? rng.int(1, 5000) * 1_000_000 : 0;
  const poe = hw.poe
    ? {
        poe_caps: 7,
        poe_mode: 'auto',
        poe_enable: watts > 0,
        poe_good: watts > 0,
        poe_class: watts > 0 ? 'Class 4' : 'Unknown',
        poe_power: watts.toFixed(2),
        poe_voltage: watts > 0 ? '53.12' : '0.00',
        poe_current: watts > 0 ? ((watts / 53.12) * 1000).toFixed(2) : '0.00',
      }
    : { poe_caps: 0 };
  return {
    port_idx: idx,
    name: use?.name ?? hw.name,
    media: hw.sfp ? 'SFP+' : 'GE',
    enable: true,
    up,
    speed: up ? (use?.speed ?? 0) : 0,
    full_duplex: up,
    is_uplink: use?.uplink ?? false,
    autoneg: true,
    port_poe: hw.poe,
    ...poe,
    op_mode: 'switch',
    stp_state: up ? 'forwarding' : 'disabled',
    rx_bytes: traffic,
    tx_bytes: up ? rng.int(1, 5000) * 1_000_000 : 0,
    // Error counters follow from the traffic (no draws of their own): a few per gigabyte received.
    rx_errors: Math.floor(traffic / 1_000_000_000) * 3,
    tx_errors: 0,
    rx_dropped: 0,
    tx_dropped: 0,
    satisfaction: 100,
  };
}

// Per-radio load (`radio_table_stats`): stations from the seeds, channel use fixed per radio (no
// generator draws, so every other seeded value stays as it was).
function radioStats(clients: readonly ClientSeed[], key: 'livingAp' | 'meshAp') {
  return (['ng', 'na'] as const).map((radio, i) => {
    const on = counts(
      clients,
      (seed) => seed.link.kind === 'wireless' && seed.link.ap === key && seed.link.radio === radio,
    );
    return {
      name: `wifi${i}`,
      radio,
      channel: radio === 'ng' ? 6 : 44,
      tx_power: radio === 'ng' ? 17 : 23,
      state: 'RUN',
      ...on,
      cu_total: Math.min(95, 12 + on.num_sta * 7),
      cu_self_rx: Math.min(40, 3 + on.num_sta * 2),
      cu_self_tx: Math.min(40, 2 + on.num_sta * 2),
      satisfaction: 96 - on.num_sta,
    };
  });
}

function apExtras(rng: Prng, clients: readonly ClientSeed[], key: 'livingAp' | 'meshAp') {
  return {
    ...counts(clients, (seed) => seed.link.kind === 'wireless' && seed.link.ap === key),
    radio_table_stats: radioStats(clients, key),
    radio_table: [
      { name: 'wifi0', radio: 'ng', channel: 6, ht: '20', tx_power_mode: 'auto', min_rssi_enabled: false },
      { name: 'wifi1', radio: 'na', channel: 44, ht: '80', tx_power_mode: 'auto', min_rssi_enabled: false },
    ],
    port_table: [
      portEntry(
        rng,
        1,
        key === 'livingAp' ? { speed: 1000, up: true, poeWatts: 0, uplink: true } : undefined,
        {
          name: 'Main',
          sfp: false,
          poe: false,
        },
      ),
    ],
  };
}

function wiredAp(rng: Prng, clients: readonly ClientSeed[]): DeviceRecord {
  const base = common('livingAp', rng, 'UAP6MP', 'uap', '192.168.1.31', FIRMWARE.ap);
  const parent = DEMO_DEVICES.officeSwitch;
  return {
    ...base,
    gateway_mac: DEMO_DEVICES.gateway.mac,
    ...apExtras(rng, clients, 'livingAp'),
    uplink: {
      type: 'wire',
      up: true,
      name: 'eth0',
      speed: 1000,
      full_duplex: true,
      max_speed: 1000,
      ip: '0.0.0.0',
      netmask: '0.0.0.0',
      mac: DEMO_DEVICES.livingAp.mac,
      num_port: 1,
      uplink_mac: parent.mac,
      uplink_device_name: parent.name,
      uplink_remote_port: 5,
      rx_bytes: base.rx_bytes,
      tx_bytes: base.tx_bytes,
    },
    last_uplink: { uplink_mac: parent.mac, uplink_remote_port: 5 },
  };
}

// No real mesh capture exists: community code reads `uplink.type:"wireless"` with the parent AP in
// `uplink.uplink_mac` and an `rssi`; there is no remote port on a radio link.
function meshAp(rng: Prng, clients: readonly ClientSeed[]): DeviceRecord {
  const base = common('meshAp', rng, 'U7MSH', 'uap', '192.168.1.32', FIRMWARE.ap);
  const parent = DEMO_DEVICES.livingAp;
  const rssi = rng.int(28, 45);
  return {
    ...base,
    // The one device with a firmware update waiting (list_devices' "upgrade available").
    upgradable: true,
    upgrade_to_firmware: '6.7.31.15618',
    gateway_mac: DEMO_DEVICES.gateway.mac,
    ...apExtras(rng, clients, 'meshAp'),
    uplink: {
      type: 'wireless',
      up: true,
      name: 'ath2',
      uplink_mac: parent.mac,
      uplink_device_name: parent.name,
      radio: 'na',
      channel: 44,
      rssi,
      signal: rssi - 95,
      tx_rate: rng.pick([585000, 866700]),
      rx_rate: rng.pick([526500, 780000]),
      rx_bytes: base.rx_bytes,
      tx_bytes: base.tx_bytes,
    },
    last_uplink: { uplink_mac: parent.mac, type: 'wireless' },
  };
}

function offlineAp(rng: Prng): DeviceRecord {
  const base = common('garageAp', rng, 'U7LR', 'uap', '192.168.1.33', FIRMWARE.ap);
  const core = DEMO_DEVICES.coreSwitch;
  // Offline: state 0, no current `uplink`, only the last known one; seen three days ago.
  return {
    ...base,
    state: 0,
    uptime: 0,
    _uptime: 0,
    last_seen: DEMO_NOW - 3 * 86400 - rng.int(0, 3600),
    satisfaction: 0,
    num_sta: 0,
    'user-num_sta': 0,
    'guest-num_sta': 0,
    last_uplink: { uplink_mac: core.mac, uplink_remote_port: 8, port_idx: 1, type: 'wire' },
  };
}
