import { describe, expect, it } from 'vitest';
import { ResourceNotFoundError, ValidationError } from '../../../src/errors.js';
import { rejection, useTestBot } from '../../helpers/tool-test.js';

const bot = useTestBot();

interface ClientList {
  filter: string;
  total: number;
  next_offset: number | null;
  clients: { name: string; ip: string; mac: string; network: string; where: string; rate: string }[];
}

const list = async (args: Record<string, unknown> = {}) =>
  (await bot.run('list_clients', args)) as ClientList;

describe('list_clients', () => {
  it('answers "who is on IoT" with the IoT clients by name, VLAN and where they are, busiest first', async () => {
    const answer = await list({ network_id: 'iot', limit: 50 });
    expect(answer.filter).toBe('network IoT (VLAN 20)');
    // Nine with the IoT network_id and two known only by VLAN 20.
    expect(answer.total).toBe(11);
    expect(answer.clients.map((c) => c.name)).toEqual(
      expect.arrayContaining(['Hue Bridge', 'Kitchen Plug', 'pfsense-test', 'tplink-plug-28']),
    );
    expect(answer.clients.every((c) => c.network === 'IoT/20')).toBe(true);
    expect(answer.clients.find((c) => c.name === 'Hue Bridge')?.where).toBe('Core Switch #13');
    expect(answer.clients.find((c) => c.name === 'Kitchen Plug')?.where).toMatch(
      /^Garden Mesh AP · Home-IoT · 2\.4 GHz · -\d+ dBm$/,
    );
  });

  it('sorts by current rate, highest first', async () => {
    const site = bot.site();
    const hue = site.clients.find((c) => c.name === 'Hue Bridge');
    if (!hue) throw new Error('no Hue Bridge');
    hue['wired-rx_bytes-r'] = 50_000_000;
    const answer = await list({ limit: 2 });
    expect(answer.clients[0]).toMatchObject({
      name: 'Hue Bridge',
      rate: expect.stringMatching(/^400\.0M\//),
    });
  });

  it('filters by switch or AP, by connection and by search', async () => {
    const flex = await list({ device_id: 'Media Cabinet Flex' });
    expect(flex.clients.map((c) => c.name).sort()).toEqual([
      'Apple TV',
      'Living Room "Big" TV',
      'PlayStation 5',
      'Sonos Beam',
    ]);
    const vpn = await list({ connection: 'vpn' });
    expect(vpn.clients.map((c) => c.name)).toEqual(["Ana's Laptop (VPN)"]);
    const guests = await list({ connection: 'guest' });
    expect(guests.total).toBe(5);
    const wired = await list({ connection: 'wired', limit: 500 });
    expect(wired.clients.some((c) => c.name === "Ana's Laptop (VPN)")).toBe(false);
    const search = await list({ search: 'esxi' });
    expect(search.clients.map((c) => c.name).sort()).toEqual(['ESXi Host 1', 'ESXi Host 2']);
  });

  it('pages with limit and offset and says where the next page starts', async () => {
    const first = await list({ limit: 15 });
    const second = await list({ limit: 15, offset: 15 });
    const third = await list({ limit: 15, offset: 30 });
    expect([first.next_offset, second.next_offset, third.next_offset]).toEqual([15, 30, null]);
    const names = [...first.clients, ...second.clients, ...third.clients].map((c) => c.mac);
    expect(new Set(names).size).toBe(41);
  });

  it('refuses an unknown network or device with the candidates, reading nothing else', async () => {
    const network = await rejection(list({ network_id: 'Lab' }));
    expect(network).toBeInstanceOf(ResourceNotFoundError);
    const device = await rejection(list({ device_id: 'switch' }));
    expect(device).toBeInstanceOf(ResourceNotFoundError);
    expect(device.message).toContain('Core Switch, Office Switch');
    const bad = await rejection(list({ connection: 'cable' }));
    expect(bad).toBeInstanceOf(ValidationError);
    expect(bad.message).toContain('connection: must be one of wired, wireless, vpn, guest');
  });
});

describe('get_client', () => {
  // Deliberately alike: each get_client question checks the fields its answer must show.
  it('"who is 10.40.0.23": the VPN client, by name, coming in through the gateway', async () => {
    const client = (await bot.run('get_client', { client: '10.40.0.23' })) as Record<string, unknown>;
    expect(client).toMatchObject({
      name: "Ana's Laptop (VPN)",
      connection: 'vpn',
      connected_to: 'VPN via Dream Machine Pro',
      network: 'WireGuard VPN',
      blocked: false,
      guest_authorization: 'not a guest',
    });
  });

  it('"where is Galaxy-S23": AP, SSID, band, signal, experience, guest authorization, top applications', async () => {
    const client = (await bot.run('get_client', { client: 'galaxy-s23' })) as Record<string, unknown>;
    expect(client).toMatchObject({
      name: 'Galaxy-S23',
      ip: '10.30.0.24',
      network: 'Guest',
      vlan: 30,
      connection: 'wireless',
      switch_or_ap: 'Living Room AP',
      ssid: 'Guest WiFi',
      band: '5 GHz',
      ip_assignment: 'leased',
      guest: true,
      guest_authorization: 'authorized',
    });
    expect(client.signal_dbm).toEqual(expect.any(Number));
    expect(client.experience_percent).toEqual(expect.any(Number));
    expect((client.top_applications as unknown[]).length).toBeGreaterThan(0);
  });

  it('says a fixed address and an unauthorized guest as such', async () => {
    const maria = bot.site().clients.find((c) => c.hostname === 'Marias-iPhone');
    if (!maria) throw new Error('no Maria');
    maria.authorized = false;
    maria.use_fixedip = true;
    maria.fixed_ip = '10.30.0.23';
    const client = (await bot.run('get_client', { client: 'DA-A1-19-5E-6F-19' })) as Record<string, unknown>;
    expect(client).toMatchObject({
      guest_authorization: 'not authorized',
      ip_assignment: 'fixed (DHCP reservation 10.30.0.23)',
    });
  });
});

describe('list_devices and get_device', () => {
  it('"what is offline": names the offline device with its last-seen time', async () => {
    const answer = (await bot.run('list_devices', { state: 'offline' })) as {
      offline: string[];
      devices: Record<string, unknown>[];
    };
    expect(answer.offline).toEqual(['Garage AP']);
    expect(answer.devices).toEqual([
      expect.objectContaining({
        name: 'Garage AP',
        state: 'offline',
        uptime: null,
        last_seen: expect.any(String),
      }),
    ]);
  });

  it('lists all devices offline first, with clients and the waiting upgrade', async () => {
    const answer = (await bot.run('list_devices', {})) as {
      total: number;
      devices: Record<string, unknown>[];
    };
    expect(answer.total).toBe(7);
    expect(answer.devices[0]).toMatchObject({ name: 'Garage AP' });
    expect(answer.devices.find((d) => d.name === 'Garden Mesh AP')).toMatchObject({
      upgrade: '6.7.31.15618',
      state: 'online',
    });
    expect(answer.devices.find((d) => d.name === 'Core Switch')).toMatchObject({ clients: 11 });
    const upgrading = (await bot.run('list_devices', { state: 'upgrading' })) as { total: number };
    expect(upgrading.total).toBe(0);
  });

  it('shows a switch port by port, with what is on each by name, PoE draw and errors', async () => {
    const core = (await bot.run('get_device', { device_id: '74-AC-B9-1C-20-11' })) as {
      uplink: string;
      ports: { port: number; connected: string; poe_watts: number | null; speed: string | null }[];
    };
    expect(core.uplink).toBe('Dream Machine Pro port 1 at 1 Gbps');
    const port = (n: number) => core.ports.find((p) => p.port === n);
    expect(port(13)).toMatchObject({ connected: 'Hue Bridge', speed: '100 Mbps' });
    expect(port(8)).toMatchObject({ connected: 'Garage AP' });
    expect(port(22)).toMatchObject({ connected: 'Media Cabinet Flex' });
    expect(port(5)?.poe_watts).toBeGreaterThan(0);
  });

  it('shows an AP with its radios and their load, and a mesh uplink by name', async () => {
    const mesh = (await bot.run('get_device', { device_id: 'garden mesh ap' })) as {
      uplink: string;
      radios: { band: string; clients: number; channel_use_percent: number }[];
    };
    expect(mesh.uplink).toMatch(/^wireless mesh from Living Room AP/);
    expect(mesh.radios.map((r) => r.band)).toEqual(['2.4 GHz', '5 GHz']);
    expect(mesh.radios.reduce((n, r) => n + r.clients, 0)).toBe(7);
  });

  it('refuses an unknown device naming the devices', async () => {
    const error = await rejection(bot.run('get_device', { device_id: 'Attic AP' }));
    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect(error.message).toContain('did you mean');
  });
});
