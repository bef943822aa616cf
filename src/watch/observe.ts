import { z } from 'zod';
import type { IncidentKind } from './types.js';

/**
 * A device as the poller reads it from `stat/device`: leniently, only what the incidents need.
 * Unknown fields pass, odd values become undefined (one odd record never fails the poll).
 */
const loose = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);
const wanSchema = z.looseObject({
  up: loose(z.boolean()),
  ifname: loose(z.string()),
  name: loose(z.string()),
  enable: loose(z.boolean()),
});
export const watchedDeviceSchema = z.looseObject({
  mac: z.string().min(1),
  name: loose(z.string()),
  model: loose(z.string()),
  type: loose(z.string()),
  state: loose(z.coerce.number()),
  uplink: loose(
    z.looseObject({
      up: loose(z.boolean()),
      name: loose(z.string()),
      uplink_mac: loose(z.string()),
      uplink_remote_port: loose(z.coerce.number()),
      uplink_device_name: loose(z.string()),
    }),
  ),
  wan1: loose(wanSchema),
  wan2: loose(wanSchema),
  port_table: loose(
    z.array(
      z.looseObject({
        port_idx: loose(z.coerce.number()),
        name: loose(z.string()),
        up: loose(z.boolean()),
        poe_enable: loose(z.boolean()),
        poe_good: loose(z.boolean()),
        poe_power: loose(z.coerce.number()),
      }),
    ),
  ),
});
export type WatchedDevice = z.infer<typeof watchedDeviceSchema>;

/** A trouble seen in one poll; the tracker turns conditions that persist into one incident. */
export interface Condition {
  key: string;
  kind: IncidentKind;
  subject: string;
  mac?: string;
  detail?: string;
  /** A one-off event (uplink change): it never "resolves", it is reported once. */
  event?: boolean;
}

/** What the previous poll saw that the next one compares against (kept in the store). */
export interface ObservedState {
  /** Device MAC → its uplink in words (`<mac>#<port>`), for uplink changes. */
  uplinks: Record<string, string>;
  /** `<mac>#<port>` of PoE ports seen delivering power, kept while they stop (the condition). */
  powered: string[];
  /** Device MAC → name, for the digest's "offline now". */
  names: Record<string, string>;
  offline: string[];
}

export const EMPTY_OBSERVED: ObservedState = { uplinks: {}, powered: [], names: {}, offline: [] };

// 0 = disconnected, 6 = heartbeat missed: the controller has lost the device.
const OFFLINE_STATES = new Set([0, 6]);

const nameOf = (device: WatchedDevice) => device.name ?? device.model ?? device.mac;

/** The conditions in one `stat/device` answer, and the state the next poll compares against. */
export function observeDevices(
  devices: readonly WatchedDevice[],
  previous: ObservedState,
): { conditions: Condition[]; state: ObservedState } {
  const conditions: Condition[] = [];
  const names: Record<string, string> = {};
  for (const d of devices) names[d.mac.toLowerCase()] = nameOf(d);
  const uplinks: Record<string, string> = {};
  const powered = new Set<string>();
  const offline: string[] = [];
  for (const device of devices) {
    const mac = device.mac.toLowerCase();
    const name = nameOf(device);
    if (device.state !== undefined && OFFLINE_STATES.has(device.state)) {
      offline.push(mac);
      conditions.push({ key: `device_offline:${mac}`, kind: 'device_offline', subject: name, mac });
      // An offline device tells nothing about its uplink or ports: keep what was known.
      if (previous.uplinks[mac]) uplinks[mac] = previous.uplinks[mac];
      for (const port of previous.powered) if (port.startsWith(`${mac}#`)) powered.add(port);
      continue;
    }
    conditions.push(...wanConditions(device, name));
    const uplinkMac = device.uplink?.uplink_mac?.toLowerCase();
    if (uplinkMac) {
      const now = `${uplinkMac}#${device.uplink?.uplink_remote_port ?? '?'}`;
      uplinks[mac] = now;
      const before = previous.uplinks[mac];
      if (before && before !== now) {
        const words = (value: string) => {
          const [upMac, port] = value.split('#');
          const parent = (upMac && names[upMac]) ?? upMac;
          return port && port !== '?' ? `${parent} port ${port}` : `${parent}`;
        };
        conditions.push({
          key: `uplink_changed:${mac}`,
          kind: 'uplink_changed',
          subject: name,
          mac,
          detail: `uplink moved from ${words(before)} to ${words(now)}`,
          event: true,
        });
      }
    }
    for (const port of device.port_table ?? []) {
      if (port.port_idx === undefined) continue;
      const id = `${mac}#${port.port_idx}`;
      if (port.poe_enable !== true) continue;
      const delivering = port.poe_good === true || (port.poe_power ?? 0) > 0;
      if (delivering) {
        powered.add(id);
      } else if (previous.powered.includes(id)) {
        powered.add(id);
        conditions.push({
          key: `poe_stopped:${id}`,
          kind: 'poe_stopped',
          subject: `${name} port ${port.port_idx}${port.name ? ` (${port.name})` : ''}`,
          mac,
          detail: 'PoE enabled but no power delivered',
        });
      }
    }
  }
  return { conditions, state: { uplinks, powered: [...powered], names, offline } };
}

/** WAN trouble from the gateway's `wan1`/`wan2` and `uplink` (the active WAN). */
function wanConditions(device: WatchedDevice, name: string): Condition[] {
  const wans = (['wan1', 'wan2'] as const).flatMap((key) => {
    const wan = device[key];
    return wan && wan.enable !== false ? [{ key, ...wan }] : [];
  });
  if (wans.length === 0) return [];
  const mac = device.mac.toLowerCase();
  const active = device.uplink?.name;
  const anyUp = wans.some((w) => w.up === true) && device.uplink?.up !== false;
  if (!anyUp) {
    return [
      { key: `wan_down:${mac}`, kind: 'wan_down', subject: `${name} WAN`, mac, detail: 'no WAN is up' },
    ];
  }
  const primary = wans[0];
  const onBackup =
    primary !== undefined &&
    (primary.up === false ||
      (active !== undefined && primary.ifname !== undefined && active !== primary.ifname));
  if (!onBackup) return [];
  const backup = wans.find((w) => w !== primary && w.up === true);
  return [
    {
      key: `wan_failover:${mac}`,
      kind: 'wan_failover',
      subject: `${name} WAN`,
      mac,
      detail: `failed over to ${backup?.key.toUpperCase() ?? 'the backup WAN'}${primary?.up === false ? ` (${primary.key.toUpperCase()} down)` : ''}`,
    },
  ];
}
