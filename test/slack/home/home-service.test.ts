import type { webApi } from '@slack/bolt';
import { describe, expect, it, vi } from 'vitest';
import type { Approvals } from '../../../src/approvals/approvals.js';
import type { ChangeRequest } from '../../../src/approvals/types.js';
import { MemoryStore } from '../../../src/lib/json-file-store.js';
import { silentLogger } from '../../../src/log.js';
import { viewProblems } from '../../../src/slack/blocks/limits.js';
import { HomeService } from '../../../src/slack/home/home.js';
import { HomeViewers } from '../../../src/slack/home/home-viewers.js';
import { Permalinks } from '../../../src/slack/home/permalinks.js';
import { sampleRequest } from '../../store/contract.js';

/**
 * Approvals as the Home service reads them: one list of requests, everyone may approve others'
 * requests. `read` counts the pending requests handed to Home (a page, not all of them).
 */
type Filter = { state?: unknown; requester?: string; withoutSetSteps?: boolean };

/** The store's filter, as far as the home reads it. */
const matching = (r: ChangeRequest, filter: Filter) =>
  (filter.state === undefined ||
    filter.state === r.state ||
    (Array.isArray(filter.state) && filter.state.includes(r.state))) &&
  (filter.requester === undefined || r.requester.userId === filter.requester) &&
  (filter.withoutSetSteps !== true || r.setOf === undefined);

function approvalsWith(requests: ChangeRequest[], read = { pending: 0 }): Approvals {
  type Pending = { liveAt: number; notRequestedBy?: readonly string[]; limit?: number; offset?: number };
  const waiting = (filter: Pending) =>
    requests
      .filter(
        (r) =>
          r.state === 'pending' &&
          Date.parse(r.expiresAt) > filter.liveAt &&
          !(filter.notRequestedBy ?? []).includes(r.requester.userId),
      )
      .sort((a, b) => Date.parse(a.expiresAt) - Date.parse(b.expiresAt) || (a.id < b.id ? -1 : 1));
  const fake = {
    list: async (filter: Filter = {}) => {
      const found = requests.filter((r) => matching(r, filter));
      if (filter.state === 'pending') read.pending += found.length;
      return found;
    },
    count: async (filter: Filter = {}) => requests.filter((r) => matching(r, filter)).length,
    pendingByExpiry: async (filter: Pending) => {
      const offset = filter.offset ?? 0;
      const page = waiting(filter).slice(
        offset,
        filter.limit === undefined ? undefined : offset + filter.limit,
      );
      read.pending += page.length;
      return page;
    },
    countPending: async (filter: Pending) => waiting(filter).length,
    scheduledChanges: async () => requests.filter((r) => r.state === 'scheduled'),
    openReviews: async () => [],
    policy: {
      approvableBy: async (user: { userId: string }) => (r: ChangeRequest) =>
        r.requester.userId !== user.userId,
      approvableFilter: async (user: { userId: string }) => ({ notRequestedBy: [user.userId] }),
    },
  };
  return fake as unknown as Approvals;
}

/** A Web API client that records views.publish and fails while `failing` is set. */
function client() {
  const published: { user_id: string; view: { blocks: unknown[] } }[] = [];
  const state = { failing: false };
  const fake = {
    views: {
      publish: async (args: { user_id: string; view: { blocks: unknown[] } }) => {
        if (state.failing) throw new Error('ratelimited');
        published.push(args);
        return { ok: true };
      },
    },
    chat: { getPermalink: async () => ({ ok: true, permalink: 'https://t.slack.com/archives/C1/p1' }) },
  };
  return { published, state, client: fake as unknown as webApi.WebClient };
}

function service(
  requests: ChangeRequest[],
  slack: ReturnType<typeof client>,
  options: { interval?: number; read?: { pending: number } } = {},
) {
  const logger = silentLogger();
  return new HomeService({
    client: slack.client,
    approvals: approvalsWith(requests, options.read),
    viewers: new HomeViewers(new MemoryStore(), logger),
    permalinks: new Permalinks(slack.client, logger),
    logger,
    site: 'default',
    approvers: [],
    controllerStatus: async () => ({
      apiType: 'local',
      reachable: true,
      checkedAt: new Date().toISOString(),
    }),
    quickActions: async () => [],
    debounceMs: 10,
    publishIntervalMs: options.interval ?? 0,
  });
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 300 && !check(); i += 1) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
};

describe('HomeService', () => {
  it('keeps publishing after a change that concerned nobody', async () => {
    const slack = client();
    const home = service([], slack);

    home.changed(sampleRequest());
    await new Promise((r) => setTimeout(r, 50));
    await home.opened('U0ALEX');
    await until(() => slack.published.length === 1);
    await home.refresh('U0ALEX');

    await until(() => slack.published.length === 2);
    expect(slack.published.map((p) => p.user_id)).toEqual(['U0ALEX', 'U0ALEX']);
    home.stop();
  });

  it('refreshes each concerned viewer once for a burst of changes, spaced by the interval', async () => {
    // A fake clock: the spacing is checked against the interval, not against how fast this machine is.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const slack = client();
      const pending = sampleRequest({ requester: { userId: 'U0RITA', name: 'rita' } });
      const home = service([pending], slack, { interval: 30 });
      const opening = Promise.all([home.opened('U0ALEX'), home.opened('U0RITA')]);
      await vi.advanceTimersByTimeAsync(100);
      await opening;
      const opened = slack.published.length;

      for (let i = 0; i < 10; i += 1) home.changed(pending);
      await vi.advanceTimersByTimeAsync(10 + 29);
      const withinOneInterval = slack.published.length - opened;
      await vi.advanceTimersByTimeAsync(200);

      expect(opened).toBe(2);
      expect(withinOneInterval).toBe(1);
      expect(
        slack.published
          .slice(2)
          .map((p) => p.user_id)
          .sort(),
      ).toEqual(['U0ALEX', 'U0RITA']);
      expect(JSON.stringify(slack.published[3]?.view.blocks)).toContain(pending.id);
      for (const p of slack.published) expect(viewProblems(p.view)).toEqual([]);
      home.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('refreshes at most 50 users for one change', async () => {
    const slack = client();
    const pending = sampleRequest();
    const home = service([pending], slack);
    const viewers = Array.from({ length: 60 }, (_, i) => `U0V${String(i).padStart(2, '0')}`);
    for (const user of viewers) await home.opened(user);
    await until(() => slack.published.length === 60);

    home.changed(pending);
    await until(() => slack.published.length >= 110);
    await new Promise((r) => setTimeout(r, 100));

    expect(slack.published.length - 60).toBe(50);
    home.stop();
  });

  it('reads one page of the pending requests, not all of them, and pages them by expiry', async () => {
    const now = Date.now();
    // 1,000 pending, expiring in shuffled order; every tenth is the viewer's own (not waiting for them).
    const requests = Array.from({ length: 1000 }, (_, i) => ({
      ...sampleRequest({
        id: `cr_home${String(i).padStart(4, '0')}`,
        requester: i % 10 === 0 ? { userId: 'U0ALEX', name: 'alex' } : { userId: 'U0RITA', name: 'rita' },
      }),
      // Shuffled, and pairs share an expiry (then the id decides).
      expiresAt: new Date(now + 3_600_000 + ((i * 7919) % 500) * 1000).toISOString(),
    }));
    // Two already overdue but not yet swept: waiting for nobody.
    for (const [id, ago] of [
      ['cr_overdue1', 1000],
      ['cr_overdue2', 5],
    ] as const)
      requests.push({ ...sampleRequest({ id }), expiresAt: new Date(now - ago).toISOString() });
    const read = { pending: 0 };
    const home = service(requests, client(), { read });
    const expected = requests
      .filter((r) => r.requester.userId !== 'U0ALEX' && Date.parse(r.expiresAt) > now)
      .sort((a, b) => Date.parse(a.expiresAt) - Date.parse(b.expiresAt) || (a.id < b.id ? -1 : 1));

    const first = JSON.stringify((await home.view('U0ALEX')).blocks);
    expect(first).toContain('Waiting for you (900)');
    expect(first).toContain('Showing 1–10 of 900, soonest to expire first.');
    for (const r of expected.slice(0, 10)) expect(first).toContain(r.id);
    expect(first).not.toContain(expected[10]?.id);
    expect(read.pending).toBeLessThanOrEqual(10);

    await home.showPage('U0ALEX', 89);
    read.pending = 0;
    const last = JSON.stringify((await home.view('U0ALEX')).blocks);
    expect(last).toContain('Showing 891–900 of 900');
    for (const r of expected.slice(890)) expect(last).toContain(r.id);
    expect(read.pending).toBeLessThanOrEqual(10);
    home.stop();
  });

  it('goes on publishing after a publish failed', async () => {
    const slack = client();
    const home = service([], slack);
    slack.state.failing = true;
    await home.opened('U0ALEX');
    await new Promise((r) => setTimeout(r, 30));
    slack.state.failing = false;

    await home.refresh('U0ALEX');
    await until(() => slack.published.length === 1);
    home.stop();
  });

  it('shows a change set as one item: the requests that ran its steps are not listed beside it', async () => {
    const slack = client();
    const rita = { userId: 'U0RITA', name: 'rita' };
    const set: ChangeRequest = {
      ...sampleRequest({ id: 'cr_setsetsetsetsetsetset2', tool: 'change_set', requester: rita }),
      state: 'succeeded',
      set: {
        onFailure: 'rollback',
        steps: [{ tool: 'create_network', args: {}, status: 'done', changeId: 'cr_stepstepstepstepstep2' }],
      },
    };
    const step: ChangeRequest = {
      ...sampleRequest({ id: 'cr_stepstepstepstepstep2', requester: rita }),
      state: 'succeeded',
      setOf: set.id,
      setStep: 1,
    };
    const home = service([set, step], slack);
    await home.opened('U0RITA');
    await until(() => slack.published.length === 1);
    const shown = JSON.stringify(slack.published[0]?.view.blocks);
    expect(shown).toContain(set.id);
    expect(shown).not.toContain(step.id);
    // Counted as one request too: the step is not one of Rita's requests of her own.
    expect(shown).toContain('Your requests (1)');
    home.stop();
  });
});
