import type { types } from '@slack/bolt';
import { type ChangesPage, eventDetail, requestSummary } from '../../approvals/history.js';
import type { ChangeRequest, ChangeState } from '../../approvals/types.js';
import { stepLines } from '../../changes/change-set.js';
import { beforeAfterRows } from '../../changes/describe.js';
import { renderObject } from '../../format/plain-text.js';
import { renderPreview } from '../../format/preview-text.js';
import type { RequestHistory } from '../../store/types.js';
import { LIMITS } from './limits.js';
import { codeSections, type SlackMessage } from './read-result.js';
import { revertBlocks, verificationBlocks } from './revert.js';
import { actorText, channelMention, clip, code, humanize, link, mrkdwn, slackDate } from './text.js';

/** One emoji per state, shared by the history answers and App Home. */
export const STATE_EMOJI: Record<ChangeState, string> = {
  pending: ':hourglass_flowing_sand:',
  approved: ':gear:',
  executing: ':gear:',
  succeeded: ':white_check_mark:',
  failed: ':x:',
  cancelled: ':no_entry_sign:',
  expired: ':hourglass:',
  superseded: ':twisted_rightwards_arrows:',
  unknown: ':grey_question:',
  scheduled: ':calendar:',
};

/** Where a request's thread is: its permalink when known, else nothing (the channel is shown). */
export type LinkOf = (request: ChangeRequest) => string | undefined;

/** `<url|text>` with the text escaped; just the text without a URL. */
export const linked = link;

/** The change a request makes, in one clipped line of escaped text. */
export function summaryText(request: ChangeRequest, max = 200): string {
  return mrkdwn(clip(requestSummary(request).slice(request.tool.length + 1) || '(no arguments)', max));
}

const BY_LINE_MAX = 600;

/** A request as one section: state, id, what, who, when, and a link to its thread. */
export function requestLine(request: ChangeRequest, link: string | undefined): string {
  const what = `${STATE_EMOJI[request.state]} *${mrkdwn(humanize(request.tool))}* on ${code(request.site)} · ${request.state}`;
  const decided = request.approver
    ? ` · approved by ${actorText(request.approver)}`
    : request.cancelledBy
      ? ` · cancelled by ${actorText(request.cancelledBy)}`
      : '';
  const where = request.message
    ? ` · ${linked('thread', link)}`
    : request.channel
      ? ` · ${channelMention(request.channel)}`
      : '';
  const who = clip(
    `by ${actorText(request.requester)}${decided} · ${slackDate(request.createdAt)}${where} · \`${request.id}\``,
    BY_LINE_MAX,
  );
  return `${what}\n> ${summaryText(request, 300)}\n${who}`;
}

/** `/net changes …`: one page of requests, newest first, one section each. */
export function changesMessage(page: ChangesPage, linkOf: LinkOf = () => undefined): SlackMessage {
  const what = page.criteria.length > 0 ? ` (${mrkdwn(page.criteria.join(', '))})` : '';
  if (page.total === 0) {
    const text = `No change requests${what}.`;
    return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
  }
  const heading = `*${page.total} change request(s)*${what}, newest first · page ${page.page} of ${page.pages}`;
  const blocks: types.KnownBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text: heading } }];
  for (const request of page.requests) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: requestLine(request, linkOf(request)) } });
  }
  const hints = [`${code('/net change <id>')} shows one in full`];
  if (page.page < page.pages) hints.unshift(`next page: \`/net changes … page=${page.page + 1}\``);
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: hints.join(' · ') }] });
  return { text: `${page.total} change request(s), page ${page.page} of ${page.pages}`, blocks };
}

// Budgets of one message (50 blocks, ~12,000 characters): the journal and the head first, then
// the result, and the preview gets what is left.
const JOURNAL_LINE_MAX = 400;
const JOURNAL_CHARS = 4000;
const RESULT_BUDGET = { blocks: 4, chars: 2500 };
const PREVIEW_WIDTH = 90;

/** The journal as lines within its budget; a long history keeps its newest entries (where it ended). */
function journalSections(found: RequestHistory): types.KnownBlock[] {
  const lines: string[] = [];
  let size = 0;
  for (const event of [...found.events].reverse()) {
    const line = clip(
      `\`#${event.seq}\` ${slackDate(event.at)} *${event.type}* by ${actorText(event.actor)}: ${mrkdwn(eventDetail(event))}`,
      JOURNAL_LINE_MAX,
    );
    if (size + line.length + 1 > JOURNAL_CHARS) break;
    lines.unshift(line);
    size += line.length + 1;
  }
  const blocks: types.KnownBlock[] = [];
  const left = found.events.length - lines.length;
  if (left > 0) {
    blocks.push({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `${left} earlier entr${left === 1 ? 'y' : 'ies'} not shown (the console's \`change <id>\` lists all)`,
        },
      ],
    });
  }
  let chunk: string[] = [];
  let chunkSize = 0;
  for (const line of lines) {
    if (chunk.length > 0 && chunkSize + line.length + 1 > LIMITS.sectionText) {
      blocks.push({ type: 'section', text: { type: 'mrkdwn', text: chunk.join('\n') } });
      chunk = [];
      chunkSize = 0;
    }
    chunk.push(line);
    chunkSize += line.length + 1;
  }
  if (chunk.length > 0) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: chunk.join('\n') } });
  return blocks;
}

/** `/net change <id>`: the request in full: who and when, the preview, every journal entry, the outcome. */
export function changeDetailMessage(found: RequestHistory, link?: string): SlackMessage {
  const { request } = found;
  const fields: types.MrkdwnElement[] = [
    { type: 'mrkdwn', text: `*Tool*\n\`${request.tool}\`` },
    { type: 'mrkdwn', text: `*Site*\n${code(request.site)}` },
    { type: 'mrkdwn', text: `*Requested by*\n${actorText(request.requester)}` },
    { type: 'mrkdwn', text: `*Created*\n${slackDate(request.createdAt)}` },
    { type: 'mrkdwn', text: `*State*\n${STATE_EMOJI[request.state]} ${request.state}` },
    { type: 'mrkdwn', text: `*Preview hash*\n\`${request.previewHash.slice(0, 8)}\`` },
  ];
  if (request.approver)
    fields.push({ type: 'mrkdwn', text: `*Approved by*\n${actorText(request.approver)}` });
  if (request.cancelledBy)
    fields.push({ type: 'mrkdwn', text: `*Cancelled by*\n${actorText(request.cancelledBy)}` });
  if (request.channel || request.message) {
    const channel = request.message?.channel ?? request.channel;
    fields.push({
      type: 'mrkdwn',
      text: `*Posted in*\n${channelMention(channel ?? '')}${request.message ? ` · ${linked('thread', link)}` : ''}`,
    });
  }
  const blocks: types.KnownBlock[] = [
    {
      type: 'header',
      text: {
        type: 'plain_text',
        text: clip(`${humanize(request.tool)}: ${request.state}`, LIMITS.headerText),
      },
    },
    { type: 'context', elements: [{ type: 'mrkdwn', text: `Change request \`${request.id}\`` }] },
    { type: 'section', fields: fields.slice(0, LIMITS.sectionFields) },
  ];
  const journal = journalSections(found);
  const outcome = outcomeBlocks(request);
  const used = [...blocks, ...journal, ...outcome].reduce((n, b) => n + JSON.stringify(b).length, 0);
  const previewText =
    typeof request.preview === 'object' && request.preview !== null && !Array.isArray(request.preview)
      ? renderPreview(request.preview as Record<string, unknown>, { width: PREVIEW_WIDTH, title: false })
      : JSON.stringify(request.preview);
  const preview = codeSections(previewText, {
    blocks: LIMITS.messageBlocks - blocks.length - journal.length - outcome.length - 3,
    chars: Math.max(500, LIMITS.messageBlockChars - used - 200),
  });
  blocks.push({ type: 'section', text: { type: 'mrkdwn', text: '*Preview*' } }, ...preview.blocks);
  if (preview.omittedLines > 0) {
    blocks.push({
      type: 'context',
      elements: [
        { type: 'mrkdwn', text: `… ${preview.omittedLines} more line(s) of the preview not shown here` },
      ],
    });
  }
  blocks.push({
    type: 'section',
    text: { type: 'mrkdwn', text: `*Journal* (${found.events.length} entries)` },
  });
  blocks.push(...journal, ...outcome);
  return {
    text: `Change request ${request.id}: ${request.tool} on ${request.site}, ${request.state}`,
    blocks,
  };
}

/** A set's steps, each with what became of it, in a code block. */
function stepBlocks(request: ChangeRequest): types.KnownBlock[] {
  if (!request.set) return [];
  return [
    { type: 'section', text: { type: 'mrkdwn', text: `*Steps* (on_failure=${request.set.onFailure})` } },
    ...codeSections(stepLines(request.set).join('\n'), { blocks: 3, chars: 6000 }).blocks,
  ];
}

function outcomeBlocks(request: ChangeRequest): types.KnownBlock[] {
  const steps = stepBlocks(request);
  if (request.error) {
    return [
      ...steps,
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: clip(
            `*Error* ${code(request.error.code)}: ${mrkdwn(request.error.message)}${request.error.controllerCode ? ` ${code(request.error.controllerCode)}` : ''}`,
            2900,
          ),
        },
      },
    ];
  }
  if (request.state !== 'succeeded') return steps;
  const images = imageBlocks(request);
  const rendered =
    typeof request.result === 'object' && request.result !== null && !Array.isArray(request.result)
      ? renderObject(request.result as Record<string, unknown>, { width: PREVIEW_WIDTH })
      : JSON.stringify(request.result ?? null);
  return [
    ...steps,
    { type: 'section', text: { type: 'mrkdwn', text: '*Result*' } },
    ...codeSections(rendered, RESULT_BUDGET).blocks,
    ...verificationBlocks(request),
    ...images,
    ...revertBlocks(request, 'revert-detail'),
  ];
}

/** The fields the change changed, before and after, as a small table. */
function imageBlocks(request: ChangeRequest): types.KnownBlock[] {
  const rows = beforeAfterRows(request);
  if (rows.length === 0) return [];
  const text = rows.map((r) => `${r.field}: ${r.before} → ${r.after}`).join('\n');
  return [
    { type: 'section', text: { type: 'mrkdwn', text: '*Before → after*' } },
    ...codeSections(text, { blocks: 2, chars: 2500 }).blocks,
  ];
}
