import { describe, expect, it } from 'vitest';
import { DEMO_DEVICES, DEMO_NETWORKS, SimulatorState, startSimulator } from '../../src/simulator/index.js';
import { useSimulator } from '../helpers/shared-simulator.js';
import { api, classicData } from './support.js';

describe('demo site generator', () => {
  it('gives byte-identical state for the same seed', () => {
    const a = JSON.stringify(new SimulatorState(42));
    const b = JSON.stringify(new SimulatorState(42));

    expect(a).toBe(b);
  });

  it('varies counters, not identities, with the seed', () => {
    const a = new SimulatorState(1).site('default');
    const b = new SimulatorState(2).site('default');

    expect(a?.clients.map((c) => c.mac)).toEqual(b?.clients.map((c) => c.mac));
    expect(JSON.stringify(a?.clients)).not.toBe(JSON.stringify(b?.clients));
  });

  it('serves the same state JSON from two simulators started with one seed at one start time', async () => {
    const startedAt = Date.UTC(2026, 5, 1, 8);
    const [one, two] = await Promise.all([
      startSimulator({ seed: 7, startedAt }),
      startSimulator({ seed: 7, startedAt }),
    ]);
    try {
      const [devicesOne, devicesTwo] = await Promise.all([
        api(one, 'GET', '/api/s/default/stat/device'),
        api(two, 'GET', '/api/s/default/stat/device'),
      ]);
      expect(devicesOne.text).toBe(devicesTwo.text);
      expect(JSON.stringify(one.state)).toBe(JSON.stringify(two.state));
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});

describe('demo site composition', () => {
  const sim = useSimulator();

  it('has the seven networks with their VLANs, the WAN quirks and the WireGuard client pool', async () => {
    const networks = classicData(await api(sim, 'GET', '/api/s/default/rest/networkconf'));

    const byName = new Map(networks.map((n) => [n.name, n]));
    expect([...byName.keys()]).toEqual([
      'WAN',
      'Default',
      'IoT',
      'Guest',
      'Cameras',
      'Servers',
      'WireGuard VPN',
    ]);
    expect(byName.get('WAN')).toMatchObject({ purpose: 'wan', wan_vlan: '', vlan: '' });
    expect(byName.get('Default')).toMatchObject({
      vlan_enabled: false,
      ip_subnet: '192.168.1.1/24',
      dhcpd_enabled: true,
    });
    expect(byName.get('Default')).not.toHaveProperty('vlan');
    expect(byName.get('IoT')).toMatchObject({ vlan: 20, dhcpd_leasetime: '3600' });
    expect(byName.get('Guest')).toMatchObject({ vlan: 30, purpose: 'guest' });
    expect(byName.get('Cameras')).toMatchObject({
      vlan: 60,
      dhcpd_dns_1: '9.9.9.9',
      dhcpd_dns_enabled: true,
    });
    expect(byName.get('IoT')).not.toHaveProperty('dhcpd_dns_1');
    expect(byName.get('Servers')).toMatchObject({ purpose: 'vlan-only', vlan: 50 });
    expect(byName.get('Servers')).not.toHaveProperty('ip_subnet');
    expect(byName.get('Servers')).not.toHaveProperty('dhcpd_enabled');
    // The VPN client's 10.40.0.23 comes from this pool, so the pool is a subnet of the site.
    expect(byName.get('WireGuard VPN')).toMatchObject({
      _id: DEMO_NETWORKS.vpn.id,
      purpose: 'remote-user-vpn',
      vpn_type: 'wireguard-server',
      ip_subnet: '10.40.0.1/24',
    });
    expect(byName.get('WireGuard VPN')).not.toHaveProperty('vlan');
  });

  it('dates the demo from its own start, and a reset keeps those dates', () => {
    const start = sim.state.startedAt;
    const clients = sim.state.site('default')?.clients ?? [];

    expect(clients.every((c) => c.assoc_time === start - Number(c.uptime))).toBe(true);
    expect(clients.every((c) => Number(c.last_seen) <= start && Number(c.last_seen) >= start - 30)).toBe(
      true,
    );
    const before = JSON.stringify(sim.state.site('default')?.clients);
    sim.reset();
    expect(JSON.stringify(sim.state.site('default')?.clients)).toBe(before);
  });

  it('has a gateway, three switches (depth 1 and 2) and three APs', async () => {
    const devices = classicData(await api(sim, 'GET', '/api/s/default/stat/device'));

    expect(devices).toHaveLength(7);
    expect(devices.filter((d) => d.type === 'usw').map((d) => d.uplink_depth)).toEqual([1, 2, 2]);
    expect(devices.filter((d) => d.type === 'uap')).toHaveLength(3);
    const gateway = devices.find((d) => d.mac === DEMO_DEVICES.gateway.mac);
    expect(gateway).toMatchObject({ type: 'udm', model: 'UDMPRO', state: 1 });
    expect(gateway?.uplink).not.toHaveProperty('uplink_mac');
  });

  it('has a mesh AP on a wireless uplink and an offline AP with only last_uplink', () => {
    const devices = sim.state.site('default')?.devices ?? [];

    const mesh = devices.find((d) => d.mac === DEMO_DEVICES.meshAp.mac);
    expect(mesh?.uplink).toMatchObject({ type: 'wireless', uplink_mac: DEMO_DEVICES.livingAp.mac });
    expect(mesh?.uplink).not.toHaveProperty('uplink_remote_port');
    const offline = devices.find((d) => d.mac === DEMO_DEVICES.garageAp.mac);
    expect(offline?.state).toBe(0);
    expect(offline).not.toHaveProperty('uplink');
    expect(offline?.last_uplink).toMatchObject({
      uplink_mac: DEMO_DEVICES.coreSwitch.mac,
      uplink_remote_port: 8,
    });
    const office = devices.find((d) => d.mac === DEMO_DEVICES.officeSwitch.mac);
    // Core Switch's port 23 is where the Office Switch is cabled, and its uplink says so.
    expect(office?.uplink).toMatchObject({ uplink_mac: DEMO_DEVICES.coreSwitch.mac, uplink_remote_port: 23 });
  });

  it('has 41 clients spread over the networks, three without network_id, one on the VPN pool', async () => {
    const clients = classicData(await api(sim, 'GET', '/api/s/default/stat/sta'));

    const count = (id: string) => clients.filter((c) => c.network_id === id).length;
    expect(clients).toHaveLength(41);
    expect(count(DEMO_NETWORKS.defaultLan.id)).toBe(15);
    expect(count(DEMO_NETWORKS.iot.id)).toBe(9);
    expect(count(DEMO_NETWORKS.guest.id)).toBe(5);
    expect(count(DEMO_NETWORKS.cameras.id)).toBe(5);
    expect(count(DEMO_NETWORKS.servers.id)).toBe(3);
    expect(count(DEMO_NETWORKS.vpn.id)).toBe(1);
    const orphans = clients.filter((c) => c.network_id === undefined);
    expect(orphans.map((c) => c.vlan)).toEqual([20, 20, 60]);
    const vpnClient = clients.find((c) => c.network_id === DEMO_NETWORKS.vpn.id);
    expect(vpnClient).toMatchObject({ ip: '10.40.0.23', network: 'WireGuard VPN', is_wired: true });
    expect(vpnClient).not.toHaveProperty('sw_mac');
  });

  it('shapes wired and wireless clients like the real records', () => {
    const clients = sim.state.site('default')?.clients ?? [];

    // The VPN client counts as wired but hangs off no switch port.
    const wired = clients.filter((c) => c.is_wired && c.sw_mac !== undefined);
    const wireless = clients.filter((c) => !c.is_wired);
    expect(
      wired.every((c) => 'wired-tx_bytes' in c && !('tx_bytes' in c) && typeof c.sw_port === 'number'),
    ).toBe(true);
    expect(wireless.every((c) => typeof c.ap_mac === 'string' && typeof c.tx_bytes === 'number')).toBe(true);
    expect(clients.some((c) => c.name === '' && typeof c.hostname === 'string')).toBe(true);
    expect(clients.some((c) => !('name' in c) && !('hostname' in c))).toBe(true);
    expect(clients.map((c) => c.name)).toEqual(
      expect.arrayContaining(["Zoë's iPhone", "Tom & Jerry's iPad", 'Living Room "Big" TV']),
    );
  });

  it('keeps per-client DPI totals within the site totals', async () => {
    const site = classicData(
      await api(sim, 'POST', '/api/s/default/stat/sitedpi', { body: { type: 'by_app' } }),
    );
    const perClient = classicData(
      await api(sim, 'POST', '/api/s/default/stat/stadpi', { body: { type: 'by_app' } }),
    );

    const siteApps = (site[0]?.by_app ?? []) as { app: number; cat: number; rx_bytes: number }[];
    const clientApps = perClient.flatMap((c) => c.by_app as { app: number; cat: number; rx_bytes: number }[]);
    expect(siteApps.length).toBeGreaterThanOrEqual(10);
    expect(siteApps.length).toBeLessThanOrEqual(20);
    for (const app of siteApps) {
      const sum = clientApps
        .filter((c) => c.app === app.app && c.cat === app.cat)
        .reduce((n, c) => n + c.rx_bytes, 0);
      expect(sum).toBeLessThanOrEqual(app.rx_bytes);
    }
  });
});
