import { describe, expect, it } from 'vitest';
import {
  FLEET_LIMITS,
  FLEET_SHARED_CLIENT_NAMES,
  fleetSiteName,
  fleetSites,
} from '../../src/simulator/fleet-seed.js';

describe('fleetSites: seeded data across consoles', () => {
  // The data alone, without servers: the size the brief asks to start (50 consoles × 2 sites).
  const seats = Array.from({ length: 50 }, (_, index) =>
    fleetSites({ index, name: `c${index}`, sites: 2 })(7, 'zone-based', 1_767_225_600),
  );
  const sites = seats.flat();

  it('gives every device and client a MAC, id and UUID of its own across the fleet', () => {
    const macs = sites.flatMap((s) => [...s.devices.map((d) => d.mac), ...s.clients.map((c) => c.mac)]);
    const ids = sites.flatMap((s) => [
      s._id,
      ...s.networks.map((n) => n._id),
      ...s.devices.map((d) => d._id),
    ]);
    const uuids = sites.flatMap((s) => [s.uuid, ...s.zones.map((z) => z.id)]);

    expect(new Set(macs).size).toBe(macs.length);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(uuids).size).toBe(uuids.length);
  });

  it('keeps a client’s references to its own site’s devices and networks', () => {
    for (const site of sites) {
      const deviceMacs = new Set(site.devices.map((d) => d.mac));
      const networkIds = new Set(site.networks.map((n) => n._id));
      for (const client of site.clients) {
        if (typeof client.ap_mac === 'string') expect(deviceMacs.has(client.ap_mac)).toBe(true);
        if (typeof client.sw_mac === 'string') expect(deviceMacs.has(client.sw_mac)).toBe(true);
        if (client.network_id !== undefined) expect(networkIds.has(client.network_id)).toBe(true);
      }
      for (const network of site.networks) expect(network.site_id).toBe(site._id);
    }
  });

  it('shares what real fleets share: an IoT network on every site, and a few client names on exactly two consoles', () => {
    expect(sites.every((s) => s.networks.some((n) => n.name === 'IoT'))).toBe(true);
    const consolesWith = (name: string) =>
      seats.filter((s) => s.some((site) => site.clients.some((c) => c.name === name))).length;
    for (const name of FLEET_SHARED_CLIENT_NAMES) expect(consolesWith(name)).toBe(2);
    expect(consolesWith('Gaming PC')).toBe(0);
    expect(consolesWith('C7 Gaming PC')).toBe(1);
  });
});

describe('fleetSiteName', () => {
  it('names the first site of every console "default" and every other site distinctly, up to the limits', () => {
    const names: string[] = [];
    for (let index = 0; index < FLEET_LIMITS.consoles; index += 1)
      for (let site = 1; site < FLEET_LIMITS.sites; site += 1) names.push(fleetSiteName(index, site));

    expect(fleetSiteName(12, 0)).toBe('default');
    expect(names.every((name) => /^[a-z0-9]{8}$/.test(name))).toBe(true);
    expect(new Set(names).size).toBe(names.length);
  });

  it('refuses a seat beyond the limits rather than reuse an identity', () => {
    expect(() => fleetSites({ index: FLEET_LIMITS.consoles, name: 'x', sites: 1 })).toThrow(RangeError);
    expect(() => fleetSites({ index: 0, name: 'x', sites: FLEET_LIMITS.sites + 1 })).toThrow(RangeError);
  });
});
