import { describe, expect, it } from 'vitest';
import type { PendingRevert } from '../../src/changes/timers.js';
import type { ChangeRequest } from '../../src/model/change-request.js';
import {
  keepPromptMessage,
  pendingRevertBlocks,
  timerEventMessage,
} from '../../src/slack/blocks/keep-prompt.js';

const deadline = (kind: 'keep_or_revert' | 'temporary', changeId: string) => ({
  id: `dl_${changeId}`,
  kind,
  changeId,
  dueAt: '2030-01-01T00:05:00.000Z',
  createdAt: '2030-01-01T00:00:00.000Z',
  state: 'scheduled' as const,
});
const change = (id: string) => ({ id, tool: 'update_firewall_rule', site: 'default' }) as ChangeRequest;

const buttons = (blocks: unknown[]) =>
  blocks.flatMap((b) => ((b as { elements?: unknown[] }).elements ?? []) as Record<string, unknown>[]);

describe('keep prompt and pending-revert blocks', () => {
  it('the Keep prompt says the time left and carries a Keep button whose value is the change id', () => {
    const pending: PendingRevert = {
      deadline: deadline('keep_or_revert', 'cr_k'),
      change: change('cr_k'),
      msLeft: 250_000,
    };

    const message = keepPromptMessage(pending);

    expect(message.text).toContain('in 4m 10s');
    expect(message.text).toContain('Update firewall rule');
    expect(buttons(message.blocks)).toEqual([
      expect.objectContaining({ action_id: 'keep_change', value: 'cr_k', style: 'primary' }),
    ]);
  });

  it('App Home lists each pending revert with its time left: Keep only for keep-or-revert, Revert now for both', () => {
    const blocks = pendingRevertBlocks([
      { deadline: deadline('keep_or_revert', 'cr_k'), change: change('cr_k'), msLeft: 30_000 },
      { deadline: deadline('temporary', 'cr_t'), change: change('cr_t'), msLeft: 7_200_000 },
    ]);

    expect(blocks[0]).toMatchObject({
      type: 'header',
      text: { text: 'Temporary and pending-revert changes' },
    });
    expect(JSON.stringify(blocks)).toContain('30s left');
    expect(JSON.stringify(blocks)).toContain('2h left');
    expect(buttons(blocks).map((b) => `${b.action_id}:${b.value}`)).toEqual([
      'keep_change:cr_k',
      'revert_now:cr_k',
      'revert_now:cr_t',
    ]);
    expect(buttons(blocks).find((b) => b.action_id === 'revert_now')?.confirm).toBeDefined();
    expect(pendingRevertBlocks([])).toEqual([]);
  });

  it('a timer event is escaped once for Slack', () => {
    const message = timerEventMessage({
      kind: 'revert_failed',
      deadline: deadline('temporary', 'cr_f'),
      text: 'change cr_f could NOT be reverted: <!channel> & more',
    });
    expect(message.text).toContain('&lt;!channel&gt; &amp; more');
    expect(message.text).not.toContain('<!channel>');
  });
});
