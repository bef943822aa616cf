import { describe, expect, it } from 'vitest';
import { isHostIn, parseCidr, parseIpv4 } from '../../src/lib/ip.js';
import type { PortMappings, Topology } from '../../src/topology/types.js';
import { useTestBot } from '../helpers/tool-test.js';

/*
 * The demo site is what people try the bot on: every answer about one client, port or device has
 * to tell the same story, whichever tool gives it. Each client's network, switch port or AP and
 * device are read through `who` (get_client, list_clients), `top` (top_clients), get_device, the
 * topology and the port map, and compared with each other and with the stored records.
 */

interface WhoAnswer {
  name: string;
  connected_since: string | null;
  mac: string;
  ip: string | null;
  network: string | null;
  vlan: number | null;
  connection: 'wired' | 'wireless' | 'vpn';
  switch_or_ap: string | null;
  port: number | null;
}
interface ClientRow {
  mac: string;
  network: string | null;
  where: string;
}
interface TopAnswer {
  clients: { mac: string; network: string | null; name: string }[];
  total_clients: number;
}
interface DeviceAnswer {
  name: string;
  state: string;
  last_seen: string | null;
  mac: string;
  clients: number;
  uplink: string;
  ports: { port: number; connected: string }[];
}

const VERSIONS = ['9.0', '10.1'] as const;
/** A start time the test fixes; the demo's timestamps are relative to it. */
const STARTED_AT = Date.UTC(2026, 11, 7, 9, 30);
const START = STARTED_AT / 1000;

describe.each(VERSIONS)('the demo site agrees with itself across tools on %s', (apiVersion) => {
  const bot = useTestBot({ simulator: { apiVersion, startedAt: STARTED_AT } });

  /** Every answer, read once per test: the site is reset before each. */
  async function readAll() {
    const site = bot.site();
    const who = new Map<string, WhoAnswer>();
    for (const client of site.clients) {
      const mac = String(client.mac);
      who.set(mac, (await bot.run('get_client', { client: mac })) as WhoAnswer);
    }
    const rows = (await bot.run('list_clients', { limit: 100 })) as { clients?: ClientRow[] } | ClientRow[];
    const list = Array.isArray(rows) ? rows : (rows.clients ?? []);
    const top = (await bot.run('top_clients', { limit: 100 })) as TopAnswer;
    const topology = (await bot.run('get_network_topology', {})) as Topology;
    const devices = new Map<string, DeviceAnswer>();
    const ports = new Map<string, PortMappings>();
    for (const device of site.devices) {
      const mac = String(device.mac);
      devices.set(mac, (await bot.run('get_device', { device_id: mac })) as DeviceAnswer);
      ports.set(mac, (await bot.run('get_port_mappings', { device_id: mac })) as PortMappings);
    }
    const deviceByName = new Map([...devices.values()].map((d) => [d.name, d]));
    return { site, who, list, top, topology, devices, deviceByName, ports };
  }

  it('places every client on the network its address is in, and names it so in who, clients and top', async () => {
    const { site, who, list, top } = await readAll();
    const subnets = site.networks.flatMap((n) => {
      const cidr =
        typeof n.ip_subnet === 'string' && n.purpose !== 'wan' ? parseCidr(n.ip_subnet) : undefined;
      return cidr ? [{ name: String(n.name), cidr }] : [];
    });
    const vlanOnly = site.networks.filter((n) => n.purpose === 'vlan-only').map((n) => String(n.name));

    expect(who.size).toBe(41);
    for (const [mac, answer] of who) {
      const ip = answer.ip !== null ? parseIpv4(answer.ip) : undefined;
      expect(ip, mac).toBeDefined();
      const holding = subnets.filter((s) => ip !== undefined && isHostIn(s.cidr, ip)).map((s) => s.name);
      // A client of a VLAN-only network has its address from a DHCP server outside the gateway.
      const expected = holding.length > 0 ? holding : vlanOnly;
      expect(holding.length, `${answer.name}: ${answer.ip} is in at most one subnet`).toBeLessThanOrEqual(1);
      expect(expected, `${answer.name} (${answer.ip})`).toContain(answer.network);
    }

    const listed = new Map(list.map((r) => [r.mac, r]));
    expect(listed.size).toBe(41);
    for (const [mac, answer] of who) {
      const row = listed.get(mac);
      // The list shows `name/VLAN` (IoT/20), or the name alone for a network without a VLAN.
      const shown = answer.vlan !== null ? `${answer.network}/${answer.vlan}` : answer.network;
      expect(row?.network, `list_clients ${answer.name}`).toBe(shown);
    }

    expect(top.clients.length).toBe(top.total_clients);
    expect(top.clients.length).toBeGreaterThan(30);
    for (const row of top.clients) {
      expect(row.network, `top_clients ${row.name}`).toBe(who.get(row.mac)?.network);
      expect(row.network, `top_clients ${row.name}`).not.toBeNull();
    }
    // The VPN client is on the WireGuard server's pool, in every answer.
    const vpn = [...who.values()].find((a) => a.connection === 'vpn');
    expect(vpn).toMatchObject({ ip: '10.40.0.23', network: 'WireGuard VPN', port: null });
  });

  it('puts every wired client on the same switch port in who, the topology, the port map and get_device', async () => {
    const { who, topology, devices, deviceByName, ports } = await readAll();
    const byTarget = new Map(topology.connections.map((c) => [c.target_node_id, c]));
    const wired = [...who.values()].filter((a) => a.connection === 'wired');

    expect(wired).toHaveLength(20);
    for (const answer of wired) {
      const device = answer.switch_or_ap !== null ? deviceByName.get(answer.switch_or_ap) : undefined;
      expect(device, `${answer.name} is on a known switch`).toBeDefined();
      expect(answer.port, answer.name).not.toBeNull();
      if (!device || answer.port === null) continue;
      expect(byTarget.get(answer.mac), `topology of ${answer.name}`).toMatchObject({
        source_node_id: device.mac,
        source_port: answer.port,
        connection_type: 'wired',
      });
      expect(
        ports.get(device.mac)?.ports[answer.port]?.connected_nodes,
        `port map of ${answer.name}`,
      ).toContain(answer.mac);
      const row = devices.get(device.mac)?.ports.find((p) => p.port === answer.port);
      expect(row?.connected.split(', '), `get_device ${device.name} port ${answer.port}`).toContain(
        answer.name,
      );
    }
  });

  it('hangs every wireless client off the same AP in who, the topology and the port map, and counts it on the AP', async () => {
    const { who, topology, devices, deviceByName, ports } = await readAll();
    const byTarget = new Map(topology.connections.map((c) => [c.target_node_id, c]));
    const wireless = [...who.values()].filter((a) => a.connection === 'wireless');
    const perAp = new Map<string, number>();

    expect(wireless).toHaveLength(20);
    for (const answer of wireless) {
      const ap = answer.switch_or_ap !== null ? deviceByName.get(answer.switch_or_ap) : undefined;
      expect(ap, `${answer.name} is on a known AP`).toBeDefined();
      if (!ap) continue;
      perAp.set(ap.mac, (perAp.get(ap.mac) ?? 0) + 1);
      expect(byTarget.get(answer.mac), `topology of ${answer.name}`).toMatchObject({
        source_node_id: ap.mac,
        connection_type: 'wireless',
        source_port: null,
      });
      const unmapped = ports.get(ap.mac)?.unmapped.flatMap((e) => e.connected_nodes) ?? [];
      expect(unmapped, `port map of ${ap.name}`).toContain(answer.mac);
    }
    for (const [mac, count] of perAp) expect(devices.get(mac)?.clients, devices.get(mac)?.name).toBe(count);
  });

  it('gives every device uplink the same parent and port in get_device, the topology and both port maps', async () => {
    const { site, topology, devices, ports } = await readAll();
    const nodes = new Map(topology.nodes.map((n) => [n.node_id, n]));
    const byTarget = new Map(topology.connections.map((c) => [c.target_node_id, c]));

    for (const record of site.devices) {
      const mac = String(record.mac);
      const link = (record.uplink ?? record.last_uplink) as
        | { uplink_mac?: string; uplink_remote_port?: number; port_idx?: number; type?: string }
        | undefined;
      if (!link?.uplink_mac) continue;
      const child = devices.get(mac);
      const parent = devices.get(link.uplink_mac);
      expect(parent, `${child?.name}'s parent`).toBeDefined();
      if (!child || !parent) continue;
      expect(nodes.get(mac)?.uplink_device_id, child.name).toBe(parent.mac);
      expect(child.uplink, child.name).toContain(parent.name);
      if (link.type === 'wireless') {
        expect(byTarget.get(mac), child.name).toMatchObject({
          source_node_id: parent.mac,
          source_port: null,
        });
        continue;
      }
      // A wired device names the parent's port it is cabled to, and that port names it back.
      const port = link.uplink_remote_port;
      expect(port, `${child.name} names its parent's port`).toBeTypeOf('number');
      if (port === undefined) continue;
      expect(nodes.get(mac)?.uplink_port, child.name).toBe(port);
      expect(byTarget.get(mac), child.name).toMatchObject({ source_node_id: parent.mac, source_port: port });
      expect(child.uplink, child.name).toContain(`${parent.name} port ${port}`);
      expect(ports.get(parent.mac)?.ports[port]?.connected_nodes, `${parent.name} port ${port}`).toContain(
        mac,
      );
      expect(ports.get(parent.mac)?.unmapped.flatMap((e) => e.connected_nodes)).not.toContain(mac);
      const row = parent.ports.find((p) => p.port === port);
      expect(row?.connected.split(', '), `get_device ${parent.name} port ${port}`).toContain(child.name);
      // The child's own uplink port names its parent too.
      if (link.port_idx !== undefined) {
        expect(
          ports.get(mac)?.ports[link.port_idx]?.connected_to,
          `${child.name} port ${link.port_idx}`,
        ).toBe(parent.mac);
      }
    }
  });

  it('shows the VPN client on no switch port and the gateway as where it comes in', async () => {
    const { who, topology, ports, devices } = await readAll();
    const vpn = [...who.values()].filter((a) => a.connection === 'vpn');
    const gateway = [...devices.values()].find((d) => d.uplink.startsWith('WAN'));

    expect(vpn).toHaveLength(1);
    expect(vpn[0]?.switch_or_ap).toBe(gateway?.name);
    const mac = vpn[0]?.mac ?? '';
    for (const map of ports.values()) {
      const on = Object.values(map.ports).flatMap((p) => p.connected_nodes);
      expect(on, map.name).not.toContain(mac);
    }
    const link = topology.connections.find((c) => c.target_node_id === mac);
    expect(link?.source_port ?? null).toBeNull();
  });

  it('dates every connection and sighting from the simulator’s start: connected_since, uptime and last_seen agree', async () => {
    const { site, who, devices } = await readAll();

    for (const record of site.clients) {
      const answer = who.get(String(record.mac));
      const uptime = Number(record.uptime);
      expect(record.assoc_time, answer?.name).toBe(START - uptime);
      expect(record.latest_assoc_time, answer?.name).toBe(START - uptime);
      expect(Date.parse(answer?.connected_since ?? ''), answer?.name).toBe((START - uptime) * 1000);
      expect(Number(record.last_seen), answer?.name).toBeGreaterThanOrEqual(START - 30);
      expect(Number(record.last_seen), answer?.name).toBeLessThanOrEqual(START);
      expect(Number(record.first_seen), answer?.name).toBeLessThanOrEqual(START - uptime);
    }
    for (const record of site.devices) {
      const answer = devices.get(String(record.mac));
      const seen = Number(record.last_seen);
      // An online device was heard from seconds before the start; the offline AP days before.
      if (answer?.state === 'online') {
        expect(seen, answer.name).toBeGreaterThanOrEqual(START - 20);
        expect(seen, answer.name).toBeLessThanOrEqual(START);
      } else {
        expect(seen, answer?.name).toBeLessThan(START - 3 * 86400 + 1);
        expect(seen, answer?.name).toBeGreaterThan(START - 4 * 86400);
      }
      expect(answer?.last_seen, answer?.name).toBe(
        new Date(seen * 1000).toISOString().slice(0, 16).replace('T', ' '),
      );
    }
  });
});
