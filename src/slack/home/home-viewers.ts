import type { KeyValueStore } from '../../lib/json-file-store.js';
import type { Logger } from '../../log.js';

const PREFIX = 'home-viewer:';
// A user who has not opened the tab for a week is not refreshed until they open it again.
const FORGET_AFTER_MS = 7 * 86_400_000;
// Writing on every open would rewrite bot data for nothing: once an hour per user is enough.
const WRITE_EVERY_MS = 3_600_000;
// How long the list read from the shared store is reused.
const READ_EVERY_MS = 30_000;

/**
 * Who has opened the App Home tab lately: the users whose view is refreshed when a request they can
 * act on changes (a user who never looks at it gets a fresh view when they open it). Kept in bot
 * data as well as in memory, so with several replicas the one that handles a click also knows who
 * opened Home on another.
 */
export class HomeViewers {
  private readonly seenAt = new Map<string, number>();
  private readonly writtenAt = new Map<string, number>();
  private shared: { at: number; users: Map<string, number> } | undefined;

  constructor(
    private readonly data: KeyValueStore,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Notes that `user` opened the tab (now). */
  async seen(user: string): Promise<void> {
    const at = this.now();
    this.seenAt.set(user, at);
    if (at - (this.writtenAt.get(user) ?? 0) < WRITE_EVERY_MS) return;
    this.writtenAt.set(user, at);
    try {
      await this.data.set(`${PREFIX}${user}`, new Date(at).toISOString());
    } catch (error) {
      this.writtenAt.delete(user);
      this.logger.warn({ err: error }, 'could not note an App Home viewer in the store');
    }
  }

  /** Users who opened the tab in the last week, here or on another replica. */
  async list(): Promise<string[]> {
    const at = this.now();
    const users = new Map(this.seenAt);
    for (const [user, when] of await this.fromStore(at)) {
      if (when > (users.get(user) ?? 0)) users.set(user, when);
    }
    return [...users].filter(([, when]) => at - when < FORGET_AFTER_MS).map(([user]) => user);
  }

  private async fromStore(at: number): Promise<Map<string, number>> {
    if (this.shared && at - this.shared.at < READ_EVERY_MS) return this.shared.users;
    const users = new Map<string, number>();
    try {
      for (const key of await this.data.keys(PREFIX)) {
        const when = Date.parse(String(await this.data.get(key)));
        if (Number.isNaN(when)) continue;
        if (at - when >= FORGET_AFTER_MS) {
          await this.data.delete(key);
          continue;
        }
        users.set(key.slice(PREFIX.length), when);
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'could not read the App Home viewers from the store');
    }
    this.shared = { at, users };
    return users;
  }
}
