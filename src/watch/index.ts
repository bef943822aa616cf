export { type DigestReadOptions, readDigest } from './digest-watch.js';
export {
  type DigestScope,
  digestScopeOf,
  type FleetDigest,
  type FleetDigestLine,
  type FleetReading,
  readFleetDigest,
  type SiteDigestOutcome,
  summarizeFleet,
  summarizeScope,
} from './fleet-digest.js';
export { channelDigestKey, FLEET_DIGEST_KEY, type FleetDigestNotifier } from './fleet-digest-watch.js';
export { FleetWatcher, type FleetWatcherOptions, staggerOffset, type WatchedSite } from './fleet-watch.js';
export type * from './types.js';
export { randomHolder, Watcher, type WatcherOptions } from './watcher.js';
export { type Alarm, parseAlarm, webhookHandler } from './webhook.js';
