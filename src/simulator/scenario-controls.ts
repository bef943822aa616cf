import type { DeviceRecord, SimulatorState, SiteState } from './state.js';

/**
 * What happens to a network that nobody asked the bot for, so that alerts, drift and the
 * digest run on a laptop: a device goes down and comes back, the WAN fails over and back (or goes
 * down), and a configuration object is changed behind the bot's back. Tests call these on the
 * simulator's state; they change only what the controller would then serve.
 */

function siteOf(state: SimulatorState, site: string): SiteState {
  const found = state.site(site);
  if (!found) throw new Error(`the simulator has no site ${site}`);
  return found;
}

/** A device by MAC or exact name. */
export function findDevice(state: SimulatorState, ref: string, site = 'default'): DeviceRecord {
  const devices = siteOf(state, site).devices;
  const found = devices.find((d) => d.mac === ref.toLowerCase() || d.name === ref);
  if (!found) throw new Error(`the simulator has no device ${ref} on ${site}`);
  return found;
}

/** The device stops answering the controller (`state` 0, as a real disconnected device reads). */
export function takeDeviceDown(state: SimulatorState, ref: string, site = 'default'): DeviceRecord {
  const device = findDevice(state, ref, site);
  device.state = 0;
  return device;
}

/** The device is connected again. */
export function bringDeviceBack(state: SimulatorState, ref: string, site = 'default'): DeviceRecord {
  const device = findDevice(state, ref, site);
  device.state = 1;
  return device;
}

function gatewayOf(state: SimulatorState, site: string): DeviceRecord {
  const gateway = siteOf(state, site).devices.find(
    (d) => d.type === 'udm' || d.type === 'ugw' || d.type === 'uxg',
  );
  if (!gateway) throw new Error(`the simulator's site ${site} has no gateway`);
  return gateway;
}

type Wan = { up: boolean; enable: boolean; ifname: string; name: string; type: string };
type Uplink = Record<string, unknown>;

/** The gateway's two WANs as a UDM reports them (`wan1` on eth8, `wan2` on eth9), made on first use. */
function wans(gateway: DeviceRecord): { wan1: Wan; wan2: Wan; uplink: Uplink } {
  gateway.wan1 ??= { up: true, enable: true, ifname: 'eth8', name: 'wan', type: 'wire' };
  gateway.wan2 ??= { up: true, enable: true, ifname: 'eth9', name: 'wan2', type: 'wire' };
  gateway.uplink ??= {};
  return { wan1: gateway.wan1 as Wan, wan2: gateway.wan2 as Wan, uplink: gateway.uplink as Uplink };
}

/**
 * Sets which WANs are up and which one the gateway's uplink runs on (none: the uplink is down and
 * keeps the name it had).
 */
function setWans(
  state: SimulatorState,
  site: string,
  up: { wan1: boolean; wan2: boolean },
  on?: 'wan1' | 'wan2',
): void {
  const links = wans(gatewayOf(state, site));
  links.wan1.up = up.wan1;
  links.wan2.up = up.wan2;
  if (on) links.uplink.name = links[on].ifname;
  links.uplink.up = on !== undefined;
}

/** WAN1 goes down; the gateway runs on WAN2. */
export function failWanOver(state: SimulatorState, site = 'default'): void {
  setWans(state, site, { wan1: false, wan2: true }, 'wan2');
}

/** WAN1 is back and carries the traffic again. */
export function restoreWan(state: SimulatorState, site = 'default'): void {
  setWans(state, site, { wan1: true, wan2: true }, 'wan1');
}

/** Every WAN is down: no internet. */
export function takeWanDown(state: SimulatorState, site = 'default'): void {
  setWans(state, site, { wan1: false, wan2: false });
}

/** The collections a configuration change behind the bot's back can touch. */
export const CONFIG_COLLECTIONS = {
  networks: (s: SiteState) => s.networks as Record<string, unknown>[],
  policies: (s: SiteState) => s.firewallPolicies as Record<string, unknown>[],
  firewall_rules: (s: SiteState) => s.firewallRules as Record<string, unknown>[],
  acl_rules: (s: SiteState) => s.aclRules as unknown as Record<string, unknown>[],
  lists: (s: SiteState) => s.trafficMatchingLists as unknown as Record<string, unknown>[],
  routes: (s: SiteState) => s.trafficRules as Record<string, unknown>[],
  wifi: (s: SiteState) => s.wlans as Record<string, unknown>[],
  zones: (s: SiteState) => s.zones as unknown as Record<string, unknown>[],
} as const;

/**
 * Changes fields of a configuration object as an admin in the controller's UI would, outside the
 * bot (its id `_id`/`id`, or its exact name); returns the record as it is now.
 */
export function changeBehindBot(
  state: SimulatorState,
  kind: keyof typeof CONFIG_COLLECTIONS,
  ref: string,
  fields: Record<string, unknown>,
  site = 'default',
): Record<string, unknown> {
  const records = CONFIG_COLLECTIONS[kind](siteOf(state, site));
  const record = records.find((r) => r._id === ref || r.id === ref || r.name === ref);
  if (!record) throw new Error(`the simulator has no ${kind} object ${ref} on ${site}`);
  Object.assign(record, fields);
  return record;
}
