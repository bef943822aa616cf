/**
 * The sites of one fleet console: the demo site, copied once per site and re-keyed so that every
 * console and every site has its own ids, UUIDs, MACs, device names and client names, while what
 * real fleets share stays shared: the network names (every site has "IoT"), the subnets, the SSIDs,
 * the client hostnames, and a few client names that recur on two consoles.
 */
import { createDemoSites } from './demo-site.js';
import type { SiteBuilder, SiteState } from './state.js';

/** Where a console sits in the fleet (0-based) and how many sites it has. */
export interface FleetSeat {
  /** 0-based position in the fleet; decides every re-keyed identity. */
  index: number;
  /** The console's name (a slug): its sites' descriptions and its device names start with it. */
  name: string;
  sites: number;
}

/** Most consoles and sites per console a fleet can re-key without two sharing an identity. */
export const FLEET_LIMITS = { consoles: 4096, sites: 16 } as const;

/**
 * Client names kept as they are on the first two consoles' first sites (and prefixed elsewhere):
 * the same name on two customers' networks, which a fleet-wide search must tell apart.
 */
export const FLEET_SHARED_CLIENT_NAMES: readonly string[] = ['Synology NAS', 'Apple TV', 'Front Door Cam'];

/** "berlin-2" → "Berlin-2": the console's name as its sites and devices show it. */
export function consoleLabel(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/**
 * The classic short name of site `site` on the console at `index`: `default` for the first (every
 * console has one), else eight base-36 characters as UniFi makes them, distinct across the fleet.
 */
export function fleetSiteName(index: number, site: number): string {
  if (site === 0) return 'default';
  let value = (index * FLEET_LIMITS.sites + site) * 2_654_435_761;
  let name = '';
  for (let i = 0; i < 8; i += 1) {
    name += 'abcdefghijklmnopqrstuvwxyz0123456789'.charAt(value % 36);
    value = Math.floor(value / 36) + 7 * (i + 1);
  }
  return name;
}

/** The description of site `site` on console `name`: "Berlin HQ", "Berlin Site 2"… */
export function fleetSiteDesc(name: string, site: number): string {
  return site === 0 ? `${consoleLabel(name)} HQ` : `${consoleLabel(name)} Site ${site + 1}`;
}

const hex = (value: number, width: number) => value.toString(16).padStart(width, '0');

// Each rewrite replaces a fixed slice of the identity with the seat's tag: two demo identities that
// differ outside the slice stay different, and the same identity differs between seats.
function rekey(text: string, index: number, site: number): string {
  const tag = hex(index * FLEET_LIMITS.sites + site + 1, 6);
  const octet4 = index & 0xff;
  const octet5 = ((site & 0x0f) << 4) | ((index >> 8) & 0x0f);
  const mac = (octets: string[]) =>
    octets.map((octet, i) => {
      const value = Number.parseInt(octet, 16);
      return hex(i === 3 ? value ^ octet4 : i === 4 ? value ^ octet5 : value, 2);
    });
  return (
    text
      // Classic ObjectIds (24 hex): the middle six digits.
      .replace(/"([0-9a-f]{12})[0-9a-f]{6}([0-9a-f]{6})"/g, `"$1${tag}$2"`)
      // Integration UUIDs: the first six digits of the last group.
      .replace(/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-)[0-9a-f]{6}([0-9a-f]{6})/g, `$1${tag}$2`)
      // MACs, with colons, and bare upper-case as the Integration device ids carry them.
      .replace(/\b([0-9a-f]{2}(?::[0-9a-f]{2}){5})\b/g, (found) => mac(found.split(':')).join(':'))
      .replace(/"([0-9A-F]{12})"/g, (_found, bare: string) => {
        const octets = bare.match(/../g) ?? [];
        return `"${mac(octets).join('').toUpperCase()}"`;
      })
  );
}

function renamed(site: SiteState, seat: FleetSeat, siteIndex: number): SiteState {
  const label = siteIndex === 0 ? consoleLabel(seat.name) : `${consoleLabel(seat.name)}-${siteIndex + 1}`;
  const names = new Map<string, string>();
  for (const device of site.devices)
    if (device.name !== undefined) names.set(device.name, `${label} ${device.name}`);
  const keepShared = seat.index < 2 && siteIndex === 0;
  for (const client of site.clients) {
    if (client.name === undefined || client.name === '') continue;
    if (keepShared && FLEET_SHARED_CLIENT_NAMES.includes(client.name)) continue;
    names.set(client.name, `${label} ${client.name}`);
  }
  let text = JSON.stringify(site);
  // Whole string values only: a network called "Default" is not the device "Default …".
  for (const [from, to] of names) text = text.split(JSON.stringify(from)).join(JSON.stringify(to));
  const copy = JSON.parse(rekey(text, seat.index, siteIndex)) as SiteState;
  copy.name = fleetSiteName(seat.index, siteIndex);
  copy.desc = fleetSiteDesc(seat.name, siteIndex);
  return copy;
}

/** A SiteBuilder for the console at `seat`: its sites, each re-keyed (deterministic, for reset()). */
export function fleetSites(seat: FleetSeat): SiteBuilder {
  if (seat.index < 0 || seat.index >= FLEET_LIMITS.consoles)
    throw new RangeError(`a fleet has at most ${FLEET_LIMITS.consoles} consoles`);
  if (seat.sites < 1 || seat.sites > FLEET_LIMITS.sites)
    throw new RangeError(`a fleet console has 1 to ${FLEET_LIMITS.sites} sites`);
  return (seed, firewall, startedAt) => {
    const [demo] = createDemoSites(seed, firewall, startedAt);
    if (demo === undefined) throw new Error('the demo has no site');
    return Array.from({ length: seat.sites }, (_, site) => renamed(demo, seat, site));
  };
}
