import type { webApi } from '@slack/bolt';
import type { Approvals } from '../../approvals/approvals.js';
import type { ChangeRequest } from '../../approvals/types.js';
import type { PendingRevert } from '../../changes/timers.js';
import { settle, settledWithin } from '../../lib/settle-within.js';
import type { Logger } from '../../log.js';
import type { ControllerStatus } from '../../tools/core/define-tool.js';
import {
  type HomeModel,
  homeView,
  MINE_SHOWN,
  type QuickAction,
  RECENT_SHOWN,
  WAITING_PAGE_SIZE,
} from '../blocks/home.js';
import type { ConsoleRow } from '../blocks/home-consoles.js';
import type { HomeViewers } from './home-viewers.js';
import type { Permalinks } from './permalinks.js';

/** What the Home service is built from (see createAppHome). */
export interface HomeServiceOptions {
  client: webApi.WebClient;
  approvals: Approvals;
  viewers: HomeViewers;
  permalinks: Permalinks;
  logger: Logger;
  /** DEFAULT_SITE. */
  site: string;
  /** APPROVERS as configured. */
  approvers: string[];
  controllerStatus: (site: string) => Promise<ControllerStatus>;
  /** Names of the site's offline devices (App Home's Controller section); unset: not shown. */
  offlineDevices?: (site: string) => Promise<string[]>;
  /** Temporary and keep-or-revert changes still waiting for their deadline; unset: not shown. */
  pendingReverts?: () => Promise<PendingRevert[]>;
  quickActions: () => Promise<QuickAction[]>;
  /** A fleet's consoles, one row each (each bounded in time by itself); unset: one console. */
  consoleRows?: () => Promise<ConsoleRow[]>;
  /** The channel a quick-action form offers first for its preview (the only WRITE_CHANNELS entry). */
  formChannel?: string;
  now?: () => number;
  /** Changes within this window are gathered into one refresh per user [1500 ms]. */
  debounceMs?: number;
  /**
   * Least time between two views.publish calls [700 ms, ~85 a minute]: the method is Tier 4
   * (100+ a minute per workspace), and every publish of every user counts against it.
   */
  publishIntervalMs?: number;
}

// A refresh after a change reaches at most this many users; the others see it when they open Home.
const MAX_REFRESHED = 50;
// How long a Home build waits for the controller's status before showing "checking".
const STATUS_WAIT_MS = 2500;

/**
 * Publishes App Home views: at once when a user opens the tab or clicks on it, and, debounced and
 * rate-limited, for the users concerned when a request they can act on changes. Publishing is
 * best effort: a failure is logged and never reaches the approval that caused it.
 */
export class HomeService {
  private readonly now: () => number;
  private readonly pages = new Map<string, number>();
  // Users to publish for: urgent ones (they are looking) before background refreshes.
  private readonly urgent = new Map<string, string | undefined>();
  private readonly background = new Set<string>();
  private readonly dirty = new Set<string>();
  private debounce: NodeJS.Timeout | undefined;
  private pumping: Promise<void> | undefined;
  private lastPublish = 0;
  private stopped = false;

  constructor(private readonly options: HomeServiceOptions) {
    this.now = options.now ?? Date.now;
  }

  /** `app_home_opened`: note the viewer and publish their Home now. */
  async opened(user: string): Promise<void> {
    await this.options.viewers.seen(user);
    await this.publishSoon(user);
  }

  /** Publishes `user`'s Home now (the Refresh button). */
  async refresh(user: string): Promise<void> {
    await this.publishSoon(user);
  }

  /** Thread links of requests (for the history answers too); a request without one gets undefined. */
  async linksOf(requests: readonly ChangeRequest[]): Promise<(request: ChangeRequest) => string | undefined> {
    const links = await this.options.permalinks.of(requests.flatMap((r) => (r.message ? [r.message] : [])));
    return (request) =>
      request.message ? links.get(`${request.message.channel}/${request.message.ts}`) : undefined;
  }

  /** The channel quick-action forms offer first, if one is configured. */
  get formChannel(): string | undefined {
    return this.options.formChannel;
  }

  /** Shows `page` of "Waiting for you" to `user`. */
  async showPage(user: string, page: number): Promise<void> {
    this.pages.set(user, Math.max(0, Math.floor(page)));
    await this.publishSoon(user);
  }

  /** Tells `user`, who clicked on their Home, what the click led to: a line at the top of a fresh view. */
  async notify(user: string, text: string): Promise<void> {
    await this.publishSoon(user, text);
  }

  /** A request changed (approvals' listener): refresh the Home of viewers who can act on it. */
  changed(request: ChangeRequest): void {
    if (this.stopped) return;
    void settle(this.concerned(request)).then((outcome) => {
      if (!outcome.ok) {
        this.options.logger.warn(
          { err: outcome.error, id: request.id },
          'could not tell whose App Home to refresh',
        );
        return;
      }
      for (const user of outcome.value) this.dirty.add(user);
      if (this.dirty.size === 0 || this.stopped) return;
      this.debounce ??= setTimeout(() => {
        this.debounce = undefined;
        for (const user of [...this.dirty].slice(0, MAX_REFRESHED)) this.background.add(user);
        this.dirty.clear();
        this.pump();
      }, this.options.debounceMs ?? 1500);
      this.debounce.unref();
    });
  }

  /** The Home view of one user, as it would be published now. */
  async view(user: string, notice?: string) {
    return homeView(await this.model(user, notice));
  }

  /** Stops refreshing; publishes already running finish. */
  stop(): void {
    this.stopped = true;
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = undefined;
    this.background.clear();
    this.urgent.clear();
  }

  /** Viewers who requested it or may approve it. */
  private async concerned(request: ChangeRequest): Promise<string[]> {
    const viewers = await this.options.viewers.list();
    const concerned: string[] = [];
    for (const user of viewers) {
      if (user === request.requester.userId) {
        concerned.push(user);
        continue;
      }
      const mayApprove = await this.options.approvals.policy.approvableBy({ userId: user });
      if (mayApprove(request)) concerned.push(user);
    }
    return concerned;
  }

  private publishSoon(user: string, notice?: string): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.urgent.set(user, notice);
    this.background.delete(user);
    return this.pump();
  }

  /** Publishes queued views one at a time, urgent first, spaced by the publish interval. */
  private pump(): Promise<void> {
    this.pumping ??= this.drain().finally(() => {
      this.pumping = undefined;
      // Queued while the last round was finishing: start another.
      if (!this.stopped && (this.urgent.size > 0 || this.background.size > 0)) void this.pump();
    });
    return this.pumping;
  }

  private async drain(): Promise<void> {
    for (;;) {
      const next = this.next();
      if (!next || this.stopped) return;
      const wait = this.lastPublish + (this.options.publishIntervalMs ?? 700) - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      this.lastPublish = Date.now();
      await this.publish(next.user, next.notice);
    }
  }

  private next(): { user: string; notice?: string } | undefined {
    for (const [user, notice] of this.urgent) {
      this.urgent.delete(user);
      return notice === undefined ? { user } : { user, notice };
    }
    for (const user of this.background) {
      this.background.delete(user);
      return { user };
    }
    return undefined;
  }

  private async publish(user: string, notice?: string): Promise<void> {
    try {
      const view = await this.view(user, notice);
      await this.options.client.views.publish({ user_id: user, view });
    } catch (error) {
      this.options.logger.warn({ err: error, user }, 'could not publish App Home');
    }
  }

  /**
   * The viewer's page of "Waiting for you": pending requests they may approve, soonest to expire
   * first (one overdue but not yet swept is no longer waiting for anyone). The store
   * counts them and reads one page, so the cost does not grow with the number pending.
   */
  private async waitingPage(user: string, now: number): Promise<HomeModel['waiting']> {
    const { approvals } = this.options;
    const approvable = await approvals.policy.approvableFilter({ userId: user });
    if (!approvable) return { requests: [], total: 0, page: 0 };
    const query = { liveAt: now, notRequestedBy: approvable.notRequestedBy };
    const total = await approvals.countPending(query);
    const pages = Math.max(1, Math.ceil(total / WAITING_PAGE_SIZE));
    const page = Math.min(this.pages.get(user) ?? 0, pages - 1);
    const requests = await approvals.pendingByExpiry({
      ...query,
      limit: WAITING_PAGE_SIZE,
      offset: page * WAITING_PAGE_SIZE,
    });
    return { requests, total, page };
  }

  private async model(user: string, notice?: string): Promise<HomeModel> {
    const { approvals, site } = this.options;
    const now = this.now();
    const status = settledWithin(settle(this.options.controllerStatus(site)), STATUS_WAIT_MS);
    const offline = this.options.offlineDevices
      ? settledWithin(settle(this.options.offlineDevices(site)), STATUS_WAIT_MS)
      : Promise.resolve(undefined);
    const timed = this.options.pendingReverts
      ? settledWithin(settle(this.options.pendingReverts()), STATUS_WAIT_MS)
      : Promise.resolve(undefined);
    // A change set is one item; the requests that ran its steps are shown (and counted)
    // through it.
    const rows = this.options.consoleRows?.().catch(() => undefined);
    const [waiting, mine, mineTotal, recent, mayApprove, quickActions, scheduled] = await Promise.all([
      this.waitingPage(user, now),
      approvals.list({ requester: user, withoutSetSteps: true, limit: MINE_SHOWN }),
      approvals.count({ requester: user, withoutSetSteps: true }),
      approvals.list({
        state: ['succeeded', 'failed', 'unknown'],
        site,
        withoutSetSteps: true,
        limit: RECENT_SHOWN,
      }),
      approvals.policy.approvableBy({ userId: user }),
      this.options.quickActions().catch(() => []),
      // Changes waiting for their window, for those who may approve them.
      approvals.scheduledChanges(),
    ]);
    // Break-glass changes still owing their review: shown to everyone until a reviewer clears them.
    const reviews = await approvals.openReviews(now).catch(() => []);
    const shown = waiting.requests.filter((r) => r.setOf === undefined);
    const messages = [...shown, ...mine, ...recent].flatMap((r) => (r.message ? [r.message] : []));
    const links = await this.options.permalinks.of(messages);
    const controller = await status;
    const down = await offline;
    const reverts = await timed;
    const consoles = await rows;
    return {
      user,
      now,
      site,
      ...(notice ? { notice } : {}),
      waiting: { ...waiting, requests: shown },
      mine: { requests: mine, total: mineTotal },
      recent,
      ...(controller?.ok ? { controller: controller.value } : {}),
      ...(consoles !== undefined ? { consoles } : {}),
      ...(down?.ok ? { offlineDevices: down.value } : {}),
      ...(reverts?.ok ? { pendingReverts: reverts.value } : {}),
      scheduled: scheduled.filter((r) => mayApprove(r) || r.requester.userId === user),
      ...(reviews.length > 0 ? { reviews } : {}),
      quickActions,
      approvers: this.options.approvers,
      links,
    };
  }
}
