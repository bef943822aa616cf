import { describe, expect, it } from 'vitest';
import type { ChangeRequest } from '../../src/approvals/types.js';
import { type HomeModel, homeView } from '../../src/slack/blocks/home.js';
import { viewProblems } from '../../src/slack/blocks/limits.js';
import { buttonsIn } from '../helpers/slack-buttons.js';

const T0 = '2030-01-01T00:00:00.000Z';

function ran(id: string, tool: string, overrides: Partial<ChangeRequest> = {}): ChangeRequest {
  return {
    id,
    tool,
    site: 'default',
    args: { site_id: 'default', network_id: 'IoT', name: 'Things' },
    requester: { userId: 'U0RITA' },
    channel: 'C0OPS',
    preview: { dry_run: true },
    previewHash: 'b'.repeat(64),
    createdAt: T0,
    expiresAt: T0,
    state: 'succeeded',
    approver: { userId: 'U0ALEX' },
    before: { at: T0, objects: { 'network n1': { id: 'n1', name: 'IoT' } } },
    after: { at: T0, objects: { 'network n1': { id: 'n1', name: 'Things' } } },
    verification: { status: 'verified' },
    ...overrides,
  };
}

function model(recent: ChangeRequest[]): HomeModel {
  return {
    user: 'U0ALEX',
    now: Date.parse(T0),
    site: 'default',
    waiting: { requests: [], total: 0, page: 0 },
    mine: { requests: [], total: 0 },
    recent,
    controller: { apiType: 'local', reachable: true, checkedAt: T0 },
    quickActions: [],
    approvers: [],
    links: new Map(),
  } as HomeModel;
}

describe("App Home's recent changes", () => {
  it('offer Revert for a change that can be undone, and none for a restart or a change reverted already', () => {
    const update = ran('cr_aaaaaaaaaaaaaaaaaaaa', 'update_network');
    const restart = ran('cr_bbbbbbbbbbbbbbbbbbbb', 'restart_device', { args: { device_id: 'x' } });
    const undone = ran('cr_cccccccccccccccccccc', 'update_network', {
      revertedBy: 'cr_dddddddddddddddddddd',
    });
    const view = homeView(model([update, restart, undone]));
    const reverts = buttonsIn(view.blocks).filter((b) => b.action_id === 'revert_change');
    expect(reverts.map((b) => b.value)).toEqual([update.id]);
    expect(viewProblems(view)).toEqual([]);
  });
});
