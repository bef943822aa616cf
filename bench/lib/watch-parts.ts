import type { FleetDigestNotifier } from '../../src/watch/fleet-digest-watch.js';
import type { Incident, WatchNotifier } from '../../src/watch/types.js';

/** The watcher's settings for a bench run: one channel, no flap hold, polls and sweeps at the given pace. */
export function benchWatchConfig(intervalSeconds: number, driftIntervalSeconds: number) {
  return {
    alertChannel: 'C0',
    driftChannel: 'C0',
    flapSeconds: 0,
    alarmsPerMinute: 5,
    digestCron: '0 8 * * *',
    intervalSeconds,
    driftIntervalSeconds,
  };
}

// Deliberately alike: the watcher tests' harness has its own; the bench does not import test code.
/** No change requests: the watcher's reads of them answer empty, so only the controller is measured. */
export const NO_CHANGES = {
  get: async () => undefined,
  list: async () => [],
  count: async () => 0,
  history: async () => undefined,
};

/** A notifier that posts nowhere; `onIncident` hears each new incident. */
export function quietNotifier(
  onIncident: (incident: Incident) => void = () => {},
): WatchNotifier & FleetDigestNotifier {
  return {
    postIncident: async (_channel, incident) => {
      onIncident(incident);
      return { channel: 'C0', ts: String(Date.now()) };
    },
    updateIncident: async () => {},
    postDrift: async () => ({ channel: 'C0', ts: '1' }),
    updateDrift: async () => {},
    postDigest: async () => undefined,
    postAlarmSummary: async () => undefined,
    postFleetDigest: async () => undefined,
  };
}
