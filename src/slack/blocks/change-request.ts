import type { types } from '@slack/bolt';
import type { ChangeRequest } from '../../approvals/types.js';
import { renderObject } from '../../format/plain-text.js';
import { codeSections, type SlackMessage } from './read-result.js';
import { clip, escapeMrkdwn, humanize, mention, slackDate } from './text.js';

/** action_ids of the preview's buttons (public contract: DESIGN §3). */
export const APPROVE_ACTION = 'approve';
export const CANCEL_ACTION = 'cancel';

type Row = Record<string, unknown>;
const isRow = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A change a reviewer must think twice about: it removes something or cuts clients off. */
export function isDestructive(request: ChangeRequest): boolean {
  if (/^(delete|unassign)_/.test(request.tool)) return true;
  const warnings =
    isRow(request.preview) && Array.isArray(request.preview.warnings) ? request.preview.warnings : [];
  return warnings.some((w) => typeof w === 'string' && /irreversible|lose connectivity/i.test(w));
}

function shown(value: unknown): string {
  if (value === null || value === undefined) return '–';
  if (typeof value === 'string') return value === '' ? '""' : value;
  return JSON.stringify(value);
}

/** The preview as readable lines: what is created, changed field by field, or deleted. */
function changeText(preview: unknown): string {
  if (!isRow(preview)) return shown(preview);
  const parts: string[] = [];
  const { would_create, changes, would_delete, warnings: _w, dry_run: _d, would_send: _s, ...rest } = preview;
  if (isRow(would_create)) parts.push(`creates:\n${renderObject(would_create, { width: 90 })}`);
  if (isRow(changes)) {
    const lines = Object.entries(changes).map(([field, change]) =>
      isRow(change) && ('from' in change || 'to' in change)
        ? `  ${field}: ${shown(change.from)} → ${shown(change.to)}`
        : `  ${field}: ${shown(change)}`,
    );
    parts.push(lines.length > 0 ? `changes:\n${lines.join('\n')}` : 'changes: none (already as asked)');
  }
  if (isRow(would_delete)) parts.push(`deletes:\n${renderObject(would_delete, { width: 90 })}`);
  const others = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  if (Object.keys(others).length > 0) parts.push(renderObject(others, { width: 90 }));
  return parts.join('\n\n');
}

function warningsOf(preview: unknown): string[] {
  if (!isRow(preview) || !Array.isArray(preview.warnings)) return [];
  return preview.warnings.filter((w): w is string => typeof w === 'string');
}

function statusLine(request: ChangeRequest): string {
  const by = request.approver ? ` · approved by ${mention(request.approver.userId)}` : '';
  const when = request.decidedAt ? ` · ${slackDate(request.decidedAt)}` : '';
  switch (request.state) {
    case 'pending':
      return `:hourglass_flowing_sand: *Waiting for approval* · expires ${slackDate(request.expiresAt)}`;
    case 'approved':
    case 'executing':
      return `:gear: *Running*${by}`;
    case 'succeeded':
      return `:white_check_mark: *Done*${by}${when}`;
    case 'failed':
      return `:x: *Failed*${by}${when}\n> ${escapeMrkdwn(clip(request.error?.message ?? 'unknown error', 500))}`;
    case 'cancelled':
      return `:no_entry_sign: *Cancelled*${request.cancelledBy ? ` by ${mention(request.cancelledBy.userId)}` : ''}${when} · not run`;
    case 'expired':
      return ':hourglass: *Expired, not run*';
    case 'superseded':
      return ':twisted_rightwards_arrows: *Superseded, not run*: a newer preview replaces this one.';
    case 'unknown':
      return ':grey_question: *Outcome unknown*: the bot stopped while this ran. Verify on the controller before retrying.';
  }
}

/** The change-request message: summary, exact change, warnings, status, and buttons while pending. */
export function changeRequestMessage(request: ChangeRequest, note?: string): SlackMessage {
  const blocks: types.KnownBlock[] = [
    {
      type: 'header',
      text: { type: 'plain_text', text: clip(`Change request: ${humanize(request.tool)}`, 150) },
    },
    {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: `*Tool*\n\`${request.tool}\`` },
        { type: 'mrkdwn', text: `*Site*\n\`${escapeMrkdwn(request.site)}\`` },
        { type: 'mrkdwn', text: `*Requested by*\n${mention(request.requester.userId)}` },
        { type: 'mrkdwn', text: `*Preview hash*\n\`${request.previewHash.slice(0, 8)}\`` },
      ],
    },
  ];
  blocks.push(...codeSections(changeText(request.preview), { blocks: 8, chars: 6000 }).blocks);
  const warnings = warningsOf(request.preview);
  if (warnings.length > 0) {
    blocks.push({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: clip(warnings.map((w) => `:warning: ${escapeMrkdwn(w)}`).join('\n'), 2900),
      },
    });
  }
  if (note) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: clip(note, 2900) } });
  blocks.push({ type: 'section', text: { type: 'mrkdwn', text: statusLine(request) } });
  if (request.state === 'pending') {
    const approve: types.Button = {
      type: 'button',
      action_id: APPROVE_ACTION,
      style: 'primary',
      text: { type: 'plain_text', text: 'Approve' },
      value: request.id,
    };
    if (isDestructive(request)) {
      approve.confirm = {
        title: { type: 'plain_text', text: 'Run this change?' },
        text: {
          type: 'mrkdwn',
          text: clip(
            `${humanize(request.tool)} on \`${escapeMrkdwn(request.site)}\` cannot be undone. ${warnings[1] ?? ''}`,
            300,
          ),
        },
        confirm: { type: 'plain_text', text: 'Approve and run' },
        deny: { type: 'plain_text', text: 'Back' },
        style: 'danger',
      };
    }
    blocks.push({
      type: 'actions',
      block_id: `decide-${request.id}`,
      elements: [
        approve,
        {
          type: 'button',
          action_id: CANCEL_ACTION,
          text: { type: 'plain_text', text: 'Cancel' },
          value: request.id,
        },
      ],
    });
    blocks.push({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: 'Approve runs this exact change once (the preview is checked again first). Expired or superseded requests never run.',
        },
      ],
    });
  }
  const text = `${humanize(request.tool)} on ${request.site} requested by ${request.requester.userId}: ${request.state}`;
  return { text, blocks };
}

/** The tool's result, posted in the preview's thread after it ran. */
export function resultThreadMessage(request: ChangeRequest): SlackMessage {
  const body = request.state === 'failed' ? { error: request.error } : request.result;
  const rendered = isRow(body) ? renderObject(body, { width: 90 }) : shown(body);
  const heading =
    request.state === 'failed'
      ? `:x: ${humanize(request.tool)} failed: ${escapeMrkdwn(request.error?.message ?? '')}`
      : `:white_check_mark: ${humanize(request.tool)} done.`;
  return {
    text: clip(heading, 3000),
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: clip(heading, 2900) } },
      ...codeSections(rendered, { blocks: 10, chars: 8000 }).blocks,
    ],
  };
}

/** One line for AUDIT_CHANNEL per executed or failed change. */
export function auditLine(request: ChangeRequest): string {
  const outcome =
    request.state === 'failed' ? `FAILED (${request.error?.code ?? 'error'})` : request.state.toUpperCase();
  const approver = request.approver ? mention(request.approver.userId) : 'nobody';
  return `${outcome}: \`${request.tool}\` on \`${escapeMrkdwn(request.site)}\` requested by ${mention(request.requester.userId)}, approved by ${approver} (preview \`${request.previewHash.slice(0, 8)}\`, request \`${request.id}\`)`;
}
