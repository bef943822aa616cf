export type * from './types.js';
export { type DigestReadOptions, randomHolder, readDigest, Watcher, type WatcherOptions } from './watcher.js';
export { type Alarm, parseAlarm, webhookHandler } from './webhook.js';
