import { DEMO_CLIENT_SEEDS, type TrafficProfile } from './demo-clients.js';
import { DEMO_NOW } from './demo-ids.js';
import type { Prng } from './prng.js';
import type { ClientDpi, DpiAppCounters, SiteDpi } from './state.js';

/** A demo application: its compound catalogue id (`cat<<16 | app`), typical volume and upload share. */
interface DemoApp {
  id: number;
  /** Typical bytes received per client, before seeded jitter. */
  volume: number;
  /** Bytes sent as a share of bytes received. */
  upload: number;
}

// Real ids from src/data/dpi-catalogue.json (usg-dpi 1.442.0 via unpoller).
const APPS = {
  netflix: { id: 262276, volume: 9e9, upload: 0.02 },
  youtube: { id: 262256, volume: 5e9, upload: 0.03 },
  spotify: { id: 262274, volume: 4e8, upload: 0.04 },
  twitch: { id: 262163, volume: 2e9, upload: 0.03 },
  primeVideo: { id: 262337, volume: 3e9, upload: 0.02 },
  zoom: { id: 1114174, volume: 1.2e9, upload: 0.8 },
  webex: { id: 1114124, volume: 4e8, upload: 0.7 },
  office365: { id: 1114366, volume: 6e8, upload: 0.35 },
  facebook: { id: 1572867, volume: 3e8, upload: 0.12 },
  instagram: { id: 1573022, volume: 9e8, upload: 0.08 },
  reddit: { id: 1573013, volume: 2e8, upload: 0.05 },
  whatsapp: { id: 41, volume: 1e8, upload: 0.6 },
  windowsUpdate: { id: 917513, volume: 2e9, upload: 0.01 },
  appleUpdate: { id: 917536, volume: 1.5e9, upload: 0.01 },
  icloud: { id: 196758, volume: 7e8, upload: 1.4 },
  dropbox: { id: 196692, volume: 9e8, upload: 1.8 },
  steam: { id: 524399, volume: 6e9, upload: 0.01 },
  playstation: { id: 524430, volume: 4e9, upload: 0.05 },
} satisfies Record<string, DemoApp>;

const PROFILE_APPS: Record<TrafficProfile, DemoApp[]> = {
  phone: [APPS.instagram, APPS.whatsapp, APPS.facebook, APPS.spotify, APPS.youtube, APPS.icloud],
  laptop: [
    APPS.zoom,
    APPS.office365,
    APPS.webex,
    APPS.youtube,
    APPS.windowsUpdate,
    APPS.dropbox,
    APPS.reddit,
  ],
  tablet: [APPS.youtube, APPS.netflix, APPS.instagram, APPS.appleUpdate],
  desktop: [APPS.steam, APPS.twitch, APPS.windowsUpdate, APPS.youtube, APPS.reddit],
  tv: [APPS.netflix, APPS.youtube, APPS.primeVideo],
  console: [APPS.playstation, APPS.twitch, APPS.netflix],
  speaker: [APPS.spotify],
  server: [APPS.dropbox, APPS.windowsUpdate],
  iot: [],
  camera: [],
};

/** Splits a compound id into the `{cat, app}` pair sitedpi reports. */
export function splitAppId(id: number): { cat: number; app: number } {
  return { cat: id >>> 16, app: id & 0xffff };
}

function counters(rng: Prng, app: DemoApp, scale: number): DpiAppCounters {
  const rx = Math.round(app.volume * scale * (0.25 + rng.next()));
  const tx = Math.round(rx * app.upload * (0.7 + rng.next() * 0.6));
  return {
    ...splitAppId(app.id),
    rx_bytes: rx,
    tx_bytes: tx,
    rx_packets: Math.round(rx / 1300),
    tx_packets: Math.round(tx / 700) + 1,
  };
}

/** Seeded DPI counters: per client by profile, plus traffic of departed clients on a few apps. */
export function demoDpi(rng: Prng): SiteDpi {
  const clients: ClientDpi[] = DEMO_CLIENT_SEEDS.filter((seed) => PROFILE_APPS[seed.profile].length > 0).map(
    (seed) => ({
      mac: seed.mac,
      by_app: PROFILE_APPS[seed.profile]
        // Not every client used every app of its profile.
        .filter((_, index) => index === 0 || rng.next() < 0.75)
        .map((app) => counters(rng, app, seed.network === 'guest' ? 0.2 : 1)),
    }),
  );
  const unattributed = [APPS.netflix, APPS.youtube, APPS.zoom, APPS.windowsUpdate].map((app) =>
    counters(rng, app, 0.15),
  );
  return { empty: false, lastUpdated: DEMO_NOW - 60, clients, unattributed };
}
