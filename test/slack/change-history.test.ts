import { describe, expect, it } from 'vitest';
import type { ChangesPage } from '../../src/approvals/history.js';
import type { ChangeRequest } from '../../src/approvals/types.js';
import { changeDetailMessage, changesMessage } from '../../src/slack/blocks/change-history.js';
import { messageProblems } from '../../src/slack/blocks/limits.js';
import type { JournalEvent } from '../../src/store/journal-format.js';

const T0 = '2030-01-01T00:00:00.000Z';

function request(i: number, overrides: Partial<ChangeRequest> = {}): ChangeRequest {
  return {
    id: `cr_${String(i).padStart(20, 'h')}`,
    tool: 'update_network',
    site: 'default',
    args: { site_id: 'default', network_id: `<Net ${i}> & co`, name: 'n'.repeat(3000) },
    requester: { userId: 'U0RITA' },
    channel: 'C0OPS',
    preview: {
      dry_run: true,
      changes: Object.fromEntries(
        Array.from({ length: 400 }, (_, k) => [`field_${k}`, { old: 'a'.repeat(60), new: 'b'.repeat(60) }]),
      ),
      warnings: ['w'.repeat(500)],
    },
    previewHash: 'c'.repeat(64),
    createdAt: T0,
    expiresAt: T0,
    state: 'succeeded',
    approver: { userId: 'U0ALEX' },
    message: { channel: 'C0OPS', ts: `1.${i}` },
    result: {
      success: true,
      network: Object.fromEntries(Array.from({ length: 300 }, (_, k) => [`k${k}`, 'v'.repeat(80)])),
    },
    ...overrides,
  };
}

describe('history answers in Slack', () => {
  it('shows an automatic revert by the timer that caused it, and the network by name', () => {
    const timer = { userId: 'system:timer', name: 'timer: revert_after 10m' };
    const id = '105d70c6-d0c6-464b-b972-ce7509dddcfb';
    const revert = request(1, {
      args: { site_id: 'default', network_id: id, vlan_id: 20 },
      preview: { dry_run: true, network_id: id, name: 'IoT', changes: { vlan: { from: 24, to: 20 } } },
      requester: timer,
      approver: timer,
      revertOf: 'cr_original',
    });
    const page: ChangesPage = { requests: [revert], total: 1, page: 1, pages: 1, criteria: [] };

    const text = JSON.stringify(changesMessage(page).blocks);

    expect(text).toContain('network_id=IoT vlan_id=20');
    expect(text).not.toContain(id);
    expect(text).toContain('by timer: revert_after 10m · approved by timer: revert_after 10m');
    expect(text).not.toContain('system:');
  });

  it('keeps a full page of long requests within one message, escaped, with thread links', () => {
    const page: ChangesPage = {
      requests: Array.from({ length: 20 }, (_, i) => request(i)),
      total: 95,
      page: 2,
      pages: 5,
      criteria: ['state=succeeded', 'user=U0RITA'],
    };

    const message = changesMessage(page, (r) => `https://example.slack.com/archives/C0OPS/p${r.id}`);
    const text = JSON.stringify(message.blocks);

    expect(messageProblems(message)).toEqual([]);
    expect(text).toContain(
      '*95 change request(s)* (state=succeeded, user=U0RITA), newest first · page 2 of 5',
    );
    expect(text).toContain('next page: `/net changes … page=3`');
    expect(text).toContain('&lt;Net 0&gt; &amp; co');
    expect(text).toContain('|thread>');
    expect(text).not.toContain('<Net');
  });

  it('shows one request with its preview, journal and result within one message, however long', () => {
    const r = request(1);
    const events = Array.from(
      { length: 60 },
      (_, i) =>
        ({
          seq: i + 1,
          at: T0,
          prev: '0'.repeat(64),
          type: 'superseded',
          id: r.id,
          actor: { userId: 'U0ALEX' },
          supersededBy: 'cr_x',
          differences: ['d'.repeat(300)],
        }) as JournalEvent,
    );
    events.push({
      seq: 61,
      at: T0,
      prev: '0'.repeat(64),
      type: 'succeeded',
      id: r.id,
      actor: { userId: 'U0ALEX' },
      result: {},
    });

    const message = changeDetailMessage(
      { request: r, events },
      'https://example.slack.com/archives/C0OPS/p11',
    );
    const text = JSON.stringify(message.blocks);

    expect(messageProblems(message)).toEqual([]);
    expect(text).toContain('*Preview*');
    expect(text).toContain('more line(s) of the preview not shown here');
    expect(text).toContain('`#61`');
    expect(text).toContain('*succeeded* by <@U0ALEX>');
    expect(text).toContain('*Result*');
    expect(text).toContain('*Journal* (61 entries)');
    expect(text).toMatch(/\d+ earlier entries not shown/);
  });

  it('shows the error of a failed request instead of a result', () => {
    const failed = request(2, {
      state: 'failed',
      result: undefined,
      error: { code: 'gateway_rejected', message: 'VLAN <in use>' },
    });

    const message = changeDetailMessage({ request: failed, events: [] });

    expect(messageProblems(message)).toEqual([]);
    expect(JSON.stringify(message.blocks)).toContain('*Error* `gateway_rejected`: VLAN &lt;in use&gt;');
    expect(JSON.stringify(message.blocks)).not.toContain('*Result*');
  });
});
