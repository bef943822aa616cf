import { describe, expect, it } from 'vitest';
import type { ChangeRequest, ChangeState } from '../../src/approvals/types.js';
import { type HomeModel, homeView, WAITING_PAGE_SIZE } from '../../src/slack/blocks/home.js';
import { LIMITS, viewProblems } from '../../src/slack/blocks/limits.js';

const NOW = Date.parse('2030-01-01T12:00:00.000Z');

let counter = 0;
function request(options: Partial<ChangeRequest> & { argLength?: number } = {}): ChangeRequest {
  counter += 1;
  const { argLength = 20, ...rest } = options;
  const id = `cr_${String(counter).padStart(20, 'a')}`;
  return {
    id,
    tool: 'create_network',
    site: 'default',
    args: {
      site_id: 'default',
      name: `Lab <${counter}> & ${'x'.repeat(argLength)}`,
      vlan_id: 100 + (counter % 3000),
      subnet: '10.70.0.0/24',
    },
    requester: { userId: 'U0RITA', name: 'rita' },
    channel: 'C0OPS',
    preview: { dry_run: true },
    previewHash: 'b'.repeat(64),
    createdAt: new Date(NOW - (counter % 600) * 1000).toISOString(),
    expiresAt: new Date(NOW + 900_000 - (counter % 600) * 1000).toISOString(),
    state: 'pending',
    message: { channel: 'C0OPS', ts: `1700000${counter}.000100` },
    ...rest,
  };
}

function model(overrides: Partial<HomeModel> = {}): HomeModel {
  return {
    user: 'U0ALEX',
    now: NOW,
    site: 'default',
    waiting: { requests: [], total: 0, page: 0 },
    mine: { requests: [], total: 0 },
    recent: [],
    controller: {
      apiType: 'local',
      kind: 'unifi-os',
      reachable: true,
      version: '10.1.68',
      lastReadAt: new Date(NOW - 5000).toISOString(),
      checkedAt: new Date(NOW).toISOString(),
    },
    quickActions: [
      { tool: 'create_network', label: 'Create network' },
      { tool: 'create_firewall_policy', label: 'Create firewall policy' },
      { tool: 'create_acl_rule', label: 'Create ACL rule' },
    ],
    approvers: ['S0NETOPS', 'U0ALEX'],
    links: new Map(),
    ...overrides,
  };
}

type Block = {
  type: string;
  block_id?: string;
  text?: { text: string };
  elements?: Record<string, unknown>[];
  fields?: { text: string }[];
};
const blocksOf = (view: { blocks: unknown[] }) => view.blocks as Block[];
const textOf = (view: { blocks: unknown[] }) => JSON.stringify(view.blocks);
const buttons = (view: { blocks: unknown[] }) =>
  blocksOf(view)
    .filter((b) => b.type === 'actions')
    .flatMap((b) => (b.elements ?? []) as { action_id: string; value: string; confirm?: unknown }[]);

/** A model as the Home service builds it for `page` of 200 waiting requests, with the other lists full. */
function crowded(page: number): HomeModel {
  const waiting = Array.from({ length: 200 }, () => request({ argLength: 400 }));
  const states: ChangeState[] = ['succeeded', 'failed', 'unknown'];
  return model({
    notice: `:no_entry: ${'a very long refusal '.repeat(300)}`,
    waiting: {
      requests: waiting.slice(page * WAITING_PAGE_SIZE, (page + 1) * WAITING_PAGE_SIZE),
      total: waiting.length,
      page,
    },
    mine: { requests: Array.from({ length: 10 }, () => request({ argLength: 1500 })), total: 200 },
    recent: Array.from({ length: 20 }, (_, i) =>
      request({
        argLength: 1500,
        state: states[i % 3] ?? 'succeeded',
        approver: { userId: 'U0ALEX' },
        decidedAt: new Date(NOW - i * 60_000).toISOString(),
      }),
    ),
    controller: {
      apiType: 'local',
      reachable: false,
      error: 'x'.repeat(5000),
      checkedAt: new Date(NOW).toISOString(),
    },
  });
}

describe('App Home view builder', () => {
  it('stays within the Block Kit limits of a Home view with 200 pending requests, on every page', () => {
    for (const page of [0, 1, 10, 19]) {
      const view = homeView(crowded(page));

      expect(viewProblems(view), `page ${page}`).toEqual([]);
      expect(view.blocks.length).toBeLessThanOrEqual(LIMITS.viewBlocks);
      expect(view.type).toBe('home');
    }
  });

  it('pages "Waiting for you" by ten and says how many wait in all', () => {
    const first = homeView(crowded(0));
    const last = homeView(crowded(19));

    expect(textOf(first)).toContain('Waiting for you (200)');
    expect(textOf(first)).toContain('Showing 1–10 of 200');
    expect(buttons(first).filter((b) => b.action_id === 'approve')).toHaveLength(10);
    expect(buttons(first).map((b) => b.action_id)).toContain('home_page_next');
    expect(buttons(first).map((b) => b.action_id)).not.toContain('home_page_prev');
    expect(textOf(last)).toContain('Showing 191–200 of 200');
    expect(buttons(last).find((b) => b.action_id === 'home_page_prev')?.value).toBe('18');
    expect(buttons(last).map((b) => b.action_id)).not.toContain('home_page_next');
    expect(textOf(first)).toContain('190 more: `/net changes user=me`');
  });

  it("gives each waiting request the channel buttons' action ids with the request id, a confirm when destructive", () => {
    const plain = request();
    const destructive = request({
      tool: 'delete_network',
      args: { site_id: 'default', network_id: 'Guest' },
    });
    const view = homeView(model({ waiting: { requests: [plain, destructive], total: 2, page: 0 } }));

    const decide = buttons(view).filter((b) => ['approve', 'cancel'].includes(b.action_id));

    expect(decide.map((b) => [b.action_id, b.value])).toEqual([
      ['approve', plain.id],
      ['cancel', plain.id],
      ['approve', destructive.id],
      ['cancel', destructive.id],
    ]);
    expect(decide[0]?.confirm).toBeUndefined();
    expect(decide[2]?.confirm).toBeDefined();
    expect(viewProblems(view)).toEqual([]);
  });

  it('shows summary, requester, channel, thread link, age and time left of a waiting request, escaped', () => {
    const waiting = request({
      createdAt: new Date(NOW - 5 * 60_000).toISOString(),
      expiresAt: new Date(NOW + 10 * 60_000).toISOString(),
    });
    const link = 'https://example.slack.com/archives/C0OPS/p1';
    const view = homeView(
      model({
        waiting: { requests: [waiting], total: 1, page: 0 },
        links: new Map([[`C0OPS/${waiting.message?.ts}`, link]]),
      }),
    );
    const item =
      blocksOf(view).find((b) => b.type === 'section' && b.text?.text.includes(waiting.id))?.text?.text ?? '';

    expect(item).toContain('*Create network* on `default`');
    expect(item).toContain('10 min left');
    expect(item).toContain('asked 5 min ago');
    expect(item).toContain('by <@U0RITA> in <#C0OPS>');
    expect(item).toContain(`<${link}|thread>`);
    expect(item).toContain('name=Lab &lt;');
    expect(item).not.toContain('Lab <');
  });

  it('lists own requests, recent changes with who asked and approved, the controller, approvers and quick actions', () => {
    const mine = request({ state: 'pending' });
    const done = request({
      state: 'succeeded',
      approver: { userId: 'U0ALEX' },
      decidedAt: new Date(NOW).toISOString(),
    });
    const view = homeView(model({ mine: { requests: [mine], total: 1 }, recent: [done] }));
    const text = textOf(view);

    expect(text).toContain('Your requests (1)');
    expect(text).toContain('pending, ');
    expect(text).toContain('Recent changes on default');
    expect(text).toMatch(/succeeded · .*asked by <@U0RITA>, approved by <@U0ALEX>/);
    expect(text).toContain(':large_green_circle: reachable');
    expect(text).toContain('UniFi OS console · Network 10.1.68');
    expect(text).toContain('<!subteam^S0NETOPS>, <@U0ALEX>');
    expect(
      buttons(view)
        .filter((b) => b.action_id.startsWith('home_form:'))
        .map((b) => b.value),
    ).toEqual(['create_network', 'create_firewall_policy', 'create_acl_rule']);
  });

  it('says plainly when nothing waits, when the controller is down or unknown, and when APPROVERS is unset', () => {
    const down = homeView(crowded(0));
    const empty = homeView(model({ approvers: [], controller: undefined }));

    expect(textOf(down)).toContain(':red_circle: not reachable');
    expect(textOf(down)).toContain('none since the bot started');
    expect(textOf(empty)).toContain('Nothing waits for your approval.');
    expect(textOf(empty)).toContain('no answer yet (checking)');
    expect(textOf(empty)).toContain('anyone but the requester (APPROVERS is not set)');
    expect(viewProblems(empty)).toEqual([]);
  });
});
