import { DEMO_CLIENT_SEEDS, type TrafficProfile } from './demo-clients.js';
import type { ClientDpi, ClientRecord, DeviceRecord, SiteState } from './state.js';

/** Bytes one client moved in one step: rx = bytes it received, tx = bytes it sent (the simulator's direction). */
export interface ClientTraffic {
  rx: number;
  tx: number;
}

/**
 * One step of traffic on a site. With `clients`, exactly those clients move (by MAC) and every other
 * client's current rate drops to 0, so a test knows every counter; without it, every online client
 * moves at its profile's demo rate.
 */
export interface TrafficStep {
  /** The length of the step; current rates (`*-r` fields) become bytes / seconds. */
  seconds: number;
  clients?: Readonly<Record<string, ClientTraffic>>;
}

// Demo rates in bytes per second received; a client sends a fixed share of that. Deterministic on
// purpose: the same steps give the same counters, so windows computed from them can be checked.
const PROFILE_RATE: Record<TrafficProfile, { rx: number; upload: number }> = {
  tv: { rx: 2_500_000, upload: 0.02 },
  console: { rx: 1_500_000, upload: 0.05 },
  desktop: { rx: 900_000, upload: 0.1 },
  laptop: { rx: 400_000, upload: 0.4 },
  tablet: { rx: 300_000, upload: 0.05 },
  server: { rx: 250_000, upload: 1.5 },
  camera: { rx: 5_000, upload: 40 },
  phone: { rx: 120_000, upload: 0.15 },
  speaker: { rx: 40_000, upload: 0.02 },
  iot: { rx: 500, upload: 1 },
};

const PROFILE_OF = new Map(DEMO_CLIENT_SEEDS.map((seed) => [seed.mac, seed.profile]));

/** What a client moves in `seconds` at its demo rate (a client the demo does not know: a phone's). */
export function demoTraffic(mac: string, seconds: number, index: number): ClientTraffic {
  const rate = PROFILE_RATE[PROFILE_OF.get(mac) ?? 'phone'];
  // A small per-client spread keeps clients of one profile from tying.
  const rx = Math.round(rate.rx * seconds * (1 + (index % 7) / 20));
  return { rx, tx: Math.round(rx * rate.upload) };
}

const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

function addToClient(client: ClientRecord, traffic: ClientTraffic, seconds: number): void {
  // Wired records carry only the hyphenated counters (the fixture's shape); wireless the plain ones.
  const prefix = client.is_wired ? 'wired-' : '';
  client[`${prefix}rx_bytes`] = num(client[`${prefix}rx_bytes`]) + traffic.rx;
  client[`${prefix}tx_bytes`] = num(client[`${prefix}tx_bytes`]) + traffic.tx;
  client[`${prefix}rx_packets`] = num(client[`${prefix}rx_packets`]) + Math.round(traffic.rx / 1200);
  client[`${prefix}tx_packets`] = num(client[`${prefix}tx_packets`]) + Math.round(traffic.tx / 900);
  client[`${prefix}rx_bytes-r`] = Math.round(traffic.rx / seconds);
  client[`${prefix}tx_bytes-r`] = Math.round(traffic.tx / seconds);
}

// The client's traffic goes to its first DPI application (the profile's main one), so site and
// client DPI windows move by the same known amounts.
function addToDpi(dpi: ClientDpi | undefined, traffic: ClientTraffic): void {
  const app = dpi?.by_app[0];
  if (!app) return;
  app.rx_bytes += traffic.rx;
  app.tx_bytes += traffic.tx;
  app.rx_packets += Math.round(traffic.rx / 1300);
  app.tx_packets += Math.round(traffic.tx / 700);
}

// A switch or AP counts the traffic of the clients attached to it directly.
function addToDevice(device: DeviceRecord | undefined, traffic: ClientTraffic): void {
  if (!device) return;
  device.rx_bytes = num(device.rx_bytes) + traffic.tx;
  device.tx_bytes = num(device.tx_bytes) + traffic.rx;
}

/** Advances the site's byte and DPI counters by one step (see TrafficStep). */
export function advanceTraffic(site: SiteState, step: TrafficStep): void {
  if (!(step.seconds > 0)) throw new RangeError('TrafficStep.seconds must be greater than 0');
  const dpiByMac = new Map(site.dpi.clients.map((dpi) => [dpi.mac, dpi]));
  const deviceByMac = new Map(site.devices.map((device) => [device.mac, device]));
  const explicit = step.clients
    ? new Map(Object.entries(step.clients).map(([mac, traffic]) => [mac.toLowerCase(), traffic]))
    : undefined;
  site.clients.forEach((client, index) => {
    const traffic = explicit
      ? (explicit.get(client.mac) ?? { rx: 0, tx: 0 })
      : demoTraffic(client.mac, step.seconds, index);
    addToClient(client, traffic, step.seconds);
    addToDpi(dpiByMac.get(client.mac), traffic);
    const attachedTo = typeof client.ap_mac === 'string' ? client.ap_mac : client.sw_mac;
    addToDevice(typeof attachedTo === 'string' ? deviceByMac.get(attachedTo) : undefined, traffic);
  });
  site.dpi.lastUpdated += Math.round(step.seconds);
}
