import type { types } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import type { ChangeRequest, ChangeState } from '../../src/approvals/types.js';
import { renderPreview } from '../../src/format/preview-text.js';
import {
  auditLine,
  changeRequestMessage,
  previewAttachment,
  resultThreadMessage,
} from '../../src/slack/blocks/change-request.js';
import { messageProblems } from '../../src/slack/blocks/limits.js';

function request(preview: Record<string, unknown>, state: ChangeState = 'pending'): ChangeRequest {
  return {
    id: 'cr_aaaaaaaaaaaaaaaaaaaa',
    tool: 'create_traffic_matching_list',
    site: 'default',
    args: {},
    requester: { userId: 'U1' },
    preview,
    previewHash: 'f'.repeat(64),
    createdAt: '2025-01-01T00:00:00.000Z',
    expiresAt: '2025-01-01T00:15:00.000Z',
    state,
    ...(state === 'pending' ? {} : { approver: { userId: 'U2' }, decidedAt: '2025-01-01T00:05:00.000Z' }),
  };
}

/** A port list whose preview runs to about `items` × 45 characters. */
function portList(items: number) {
  const ports = Array.from({ length: items }, (_, i) => ({ type: 'PORT_NUMBER', value: 20_000 + i }));
  return { dry_run: true, would_create: { type: 'PORTS', name: 'Many', items: ports }, warnings: [] };
}

const sectionTexts = (blocks: types.KnownBlock[]) =>
  blocks.flatMap((b) => (b.type === 'section' && b.text ? [b.text.text] : []));
/** The lines of the preview the message shows, fences removed. */
const codeLines = (blocks: types.KnownBlock[]) =>
  sectionTexts(blocks)
    .filter((t) => t.startsWith('```'))
    .flatMap((t) => t.slice(4, -4).split('\n'));
const fullLines = (preview: Record<string, unknown>) =>
  renderPreview(preview, { width: 90, title: false, warnings: false }).split('\n');

describe('changeRequestMessage: the preview', () => {
  it('splits a preview longer than one section across several, showing every line, with no file', () => {
    const preview = portList(150);
    const message = changeRequestMessage(request(preview));

    expect(fullLines(preview).join('\n').length).toBeGreaterThan(3000);
    expect(sectionTexts(message.blocks).filter((t) => t.startsWith('```')).length).toBeGreaterThan(1);
    expect(codeLines(message.blocks)).toEqual(fullLines(preview));
    expect(previewAttachment(request(preview))).toBeUndefined();
    expect(JSON.stringify(message.blocks)).not.toContain('Full request attached');
    expect(messageProblems(message)).toEqual([]);
  });

  it('shows whole lines up to the budget, says the full request is attached, and names both files', () => {
    const preview = portList(600);
    const message = changeRequestMessage(request(preview));
    const shown = codeLines(message.blocks);

    expect(messageProblems(message)).toEqual([]);
    expect(shown.length).toBeGreaterThan(100);
    expect(shown).toEqual(fullLines(preview).slice(0, shown.length));
    const notice = JSON.stringify(message.blocks);
    expect(notice).toContain('Full request attached');
    expect(notice).toContain(`the last ${fullLines(preview).length - shown.length} line(s)`);
    expect(notice).toContain('preview-cr_aaaaaaaaaaaaaaaaaaaa.txt');
    expect(notice).toContain('request-cr_aaaaaaaaaaaaaaaaaaaa.json');
  });

  it('shows the same lines in every later state of the message, so the attachment stays right', () => {
    const preview = portList(600);
    const pending = codeLines(changeRequestMessage(request(preview)).blocks);

    for (const state of ['succeeded', 'failed', 'expired', 'cancelled'] as const) {
      const later = changeRequestMessage(request(preview, state), 'A note of the bot\n'.repeat(50));
      expect(codeLines(later.blocks)).toEqual(pending);
      expect(messageProblems(later)).toEqual([]);
    }
  });

  it('shows warnings once, in blocks of their own, split rather than cut when they are long', () => {
    const long = Array.from({ length: 30 }, (_, i) => `warning ${i}: ${'details '.repeat(20)}`.trim());
    const message = changeRequestMessage(
      request({ dry_run: true, would_delete: { id: 'x' }, warnings: long }),
    );
    const warningTexts = sectionTexts(message.blocks).filter((t) => t.startsWith(':warning:'));

    expect(warningTexts.length).toBeGreaterThan(1);
    expect(warningTexts.join('\n').split('\n')).toEqual(long.map((w) => `:warning: ${w}`));
    expect(codeLines(message.blocks).join('\n')).not.toContain('warning 0');
    expect(messageProblems(message)).toEqual([]);
  });
});

describe('previewAttachment', () => {
  it('holds the whole preview and the exact request body when the message cannot', () => {
    const preview = portList(600);
    const attachment = previewAttachment(request(preview));

    expect(attachment?.files.map((f) => f.filename)).toEqual([
      'preview-cr_aaaaaaaaaaaaaaaaaaaa.txt',
      'request-cr_aaaaaaaaaaaaaaaaaaaa.json',
    ]);
    const [text, json] = attachment?.files.map((f) => f.content) ?? [];
    expect(text).toBe(`${renderPreview(preview)}\n`);
    expect(JSON.parse(json ?? '')).toEqual({ would_create: preview.would_create });
  });
});

describe('a failed change', () => {
  it("shows the controller's code beside its sentence, in the message, the thread and the audit line", () => {
    const failed: ChangeRequest = {
      ...request({ dry_run: true, would_create: { name: 'Lab' } }, 'failed'),
      error: {
        code: 'gateway_rejected',
        message: 'VLAN 30 is already used by another network',
        controllerCode: 'api.err.VlanUsed',
      },
    };

    const status = sectionTexts(changeRequestMessage(failed).blocks).join('\n');
    const thread = resultThreadMessage(failed).text;

    expect(status).toContain('VLAN 30 is already used by another network (api.err.VlanUsed)');
    expect(thread).toContain('VLAN 30 is already used by another network (api.err.VlanUsed)');
    expect(auditLine(failed)).toMatch(/^FAILED \(api\.err\.VlanUsed\)/);
  });
});

describe('a change set', () => {
  it('carries the confirm dialog on Approve when any step deletes', () => {
    const approveOf = (message: ReturnType<typeof changeRequestMessage>) =>
      message.blocks
        .flatMap((b) => (b.type === 'actions' ? (b as types.ActionsBlock).elements : []))
        .find((e) => 'action_id' in e && e.action_id === 'approve') as { confirm?: unknown } | undefined;
    const set = (tool: string): ChangeRequest => ({
      ...request({ dry_run: true, steps: [] }),
      tool: 'change_set',
      set: {
        onFailure: 'rollback',
        steps: [
          { tool: 'create_network', args: {} },
          { tool, args: {} },
        ],
      },
    });
    expect(approveOf(changeRequestMessage(set('delete_network')))?.confirm).toBeDefined();
    expect(approveOf(changeRequestMessage(set('update_network')))?.confirm).toBeUndefined();
  });
});
