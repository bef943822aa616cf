import type { types } from '@slack/bolt';
import { isMcpRequester } from '../../approvals/mcp-requester.js';
import type { ChangeRequest } from '../../approvals/types.js';
import { stepLines } from '../../changes/change-set.js';
import { renderObject } from '../../format/plain-text.js';
import { previewRequest, renderPreview } from '../../format/preview-text.js';
import { LIMITS } from './limits.js';
import { codeSections, type SlackMessage } from './read-result.js';
import { revertBlocks, timingBlocks, verificationBlocks } from './revert.js';
import { haltedRolloutBlocks } from './rollout.js';
import {
  actorText,
  clipMrkdwn,
  code,
  humanize,
  mention,
  mrkdwn,
  mrkdwnSection,
  mrkdwnText,
  plain,
  plainText,
  requesterText,
  slackDate,
} from './text.js';

/** action_ids of the preview's buttons (public contract: DESIGN §3). */
export const APPROVE_ACTION = 'approve';
export const CANCEL_ACTION = 'cancel';

type Row = Record<string, unknown>;
const isRow = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A change a reviewer must think twice about: it removes something or cuts clients off. */
export function isDestructive(request: ChangeRequest): boolean {
  if (/^(delete|unassign)_/.test(request.tool)) return true;
  // A set is destructive when any of its steps is.
  if (request.set?.steps.some((step) => /^(delete|unassign)_/.test(step.tool))) return true;
  const warnings =
    isRow(request.preview) && Array.isArray(request.preview.warnings) ? request.preview.warnings : [];
  return warnings.some((w) => typeof w === 'string' && /irreversible|lose connectivity/i.test(w));
}

function shown(value: unknown): string {
  if (value === null || value === undefined) return '–';
  if (typeof value === 'string') return value === '' ? '""' : value;
  return JSON.stringify(value);
}

// Code blocks render in a fixed-width font; 90 columns fit beside the message gutter.
const PREVIEW_WIDTH = 90;
// A note is the bot's own summary (drift, supersession); it is kept to this size.
const NOTE_MAX = 2000;
// The most each of the risk and approvals sections shows.
const GUARDRAIL_MAX = 1500;
// Block text besides the preview, its warnings and the note: header, fields, status, the
// buttons' context line, the attachment line, and the fences of the code blocks.
const OTHER_CHARS = 2000;
// Blocks besides the preview and its warnings: header, fields, attachment line, note, status, actions, context.
const OTHER_BLOCKS = 7;
// What a request with an assessment reserves for its risk and approvals sections; fixed
// at proposal, so every later edit of the message still shows the same preview lines.
const guardrailReserve = (request: ChangeRequest) =>
  request.assessment ? { blocks: 2, chars: 2 * GUARDRAIL_MAX } : { blocks: 0, chars: 0 };

function warningsOf(preview: unknown): string[] {
  if (!isRow(preview) || !Array.isArray(preview.warnings)) return [];
  return preview.warnings.filter((w): w is string => typeof w === 'string');
}

/** The warnings, one line each, in as many sections as their length needs. */
function warningSections(warnings: readonly string[]): types.SectionBlock[] {
  const sections: types.SectionBlock[] = [];
  let lines: string[] = [];
  let size = 0;
  const flush = () => {
    if (lines.length > 0) sections.push(mrkdwnSection(lines.join('\n')));
    lines = [];
    size = 0;
  };
  for (const warning of warnings) {
    const line = clipMrkdwn(`:warning: ${mrkdwn(warning)}`, LIMITS.sectionText);
    if (size + line.length + 1 > LIMITS.sectionText) flush();
    lines.push(line);
    size += line.length + 1;
  }
  flush();
  return sections;
}

/**
 * The preview as code blocks within what one message may hold. The budget depends only on the
 * request, so every later edit of the message (approved, done, expired) shows the same lines, and
 * whether the preview also goes out as a file is decided once.
 */
function previewLayout(request: ChangeRequest) {
  const warnings = warningSections(warningsOf(request.preview));
  const warningChars = warnings.reduce((n, w) => n + (w.text?.text.length ?? 0), 0);
  const text = isRow(request.preview)
    ? renderPreview(request.preview, { width: PREVIEW_WIDTH, title: false, warnings: false })
    : shown(request.preview);
  const { blocks, omittedLines } = codeSections(text, {
    blocks: LIMITS.messageBlocks - OTHER_BLOCKS - guardrailReserve(request).blocks - warnings.length,
    chars: LIMITS.messageBlockChars - OTHER_CHARS - guardrailReserve(request).chars - NOTE_MAX - warningChars,
  });
  return { blocks, omittedLines, warnings };
}

const previewFile = (request: ChangeRequest) => `preview-${request.id}.txt`;
const requestFile = (request: ChangeRequest) => `request-${request.id}.json`;

/** A file to upload into the preview's thread. */
export interface PreviewFile {
  filename: string;
  title: string;
  content: string;
}

/**
 * The files a preview too long for its message needs: the whole preview as text, and the exact
 * request body as JSON; undefined when the message shows all of it.
 */
export function previewAttachment(
  request: ChangeRequest,
): { comment: string; files: PreviewFile[] } | undefined {
  if (previewLayout(request).omittedLines === 0) return undefined;
  const preview = isRow(request.preview) ? request.preview : { preview: request.preview };
  return {
    comment: `Full preview and request body of ${mrkdwn(humanize(request.tool))} on ${code(request.site)} (request ${code(request.id)}).`,
    files: [
      {
        filename: previewFile(request),
        title: plain(`Preview of ${request.tool} (${request.id})`),
        content: `${renderPreview(preview)}\n`,
      },
      {
        filename: requestFile(request),
        title: plain(`Request body of ${request.tool} (${request.id})`),
        content: `${JSON.stringify(previewRequest(preview), null, 2)}\n`,
      },
    ],
  };
}

/** A failed request's error as one line: its sentence, and the controller's code when it refused. */
function errorLine(request: ChangeRequest): string {
  const error = request.error;
  if (!error) return 'unknown error';
  return error.controllerCode ? `${error.message} (${error.controllerCode})` : error.message;
}

/**
 * The risk with its reasons, and the self-lockout warning in bold; undefined for a
 * request proposed before the guardrails (it has no assessment).
 */
function riskSection(request: ChangeRequest): types.SectionBlock | undefined {
  const a = request.assessment;
  if (!a) return undefined;
  const icon =
    a.risk === 'high'
      ? ':red_circle:'
      : a.risk === 'medium'
        ? ':large_orange_circle:'
        : ':large_green_circle:';
  const lines = [`${icon} *Risk: ${a.risk}*: ${mrkdwn(a.reasons.join('; '))}`];
  if (a.selfLockout) lines.unshift(`:rotating_light: *${mrkdwn(a.selfLockout).replace(/\*/g, '')}*`);
  if (a.rules.length > 0) lines.push(`Policy rules: ${a.rules.map((r) => code(r)).join(', ')}`);
  const glass = request.breakGlass;
  if (glass) {
    const review = glass.reviewedBy
      ? `reviewed by ${actorText(glass.reviewedBy)}`
      : `review by ${glass.reviewers.map((id) => (id.startsWith('S') ? `<!subteam^${id}>` : mention(id))).join(', ')} due ${slackDate(glass.reviewDueAt)}`;
    lines.unshift(
      `:rotating_light: *Break-glass* by ${requesterText(request.requester)}: ${mrkdwn(glass.reason)} · ${review}`,
    );
  }
  if (a.window && !a.window.open && request.state === 'pending') {
    lines.push(
      `:calendar: Runs only in window ${code(a.window.name)}: approved now, it is scheduled for ${a.window.nextOpening ? slackDate(a.window.nextOpening) : 'its next opening'}.`,
    );
  }
  return mrkdwnSection(lines.join('\n'), GUARDRAIL_MAX);
}

/**
 * "0 of 1 approvals", who approved, who may still approve: on every assessed request, as the
 * console's and MCP's previews say it, and kept on the message after it is decided.
 */
function approvalsSection(request: ChangeRequest): types.SectionBlock | undefined {
  const a = request.assessment;
  const given = request.approvedBy ?? [];
  // Shown for every assessed request: who must approve is part of what an approver reads.
  if (!a) return undefined;
  const decided = request.state !== 'pending' && request.approver ? [request.approver] : [];
  const all = [...given, ...decided.filter((d) => !given.some((g) => g.userId === d.userId))];
  const count = `*${Math.min(all.length, a.approvals)} of ${a.approvals} approval${a.approvals === 1 ? '' : 's'}*`;
  const parts = [`:busts_in_silhouette: ${count}`];
  if (all.length > 0) parts.push(`approved by ${all.map((x) => actorText(x)).join(', ')}`);
  if (request.state === 'pending') {
    const done = new Set(all.map((x) => x.userId));
    const still = a.approvers
      ? a.approvers
          .filter((id) => !done.has(id))
          .map((id) =>
            id.startsWith('oncall:')
              ? `whoever is on call in ${code(id.slice('oncall:'.length))}`
              : id.startsWith('S')
                ? `<!subteam^${id}>`
                : mention(id),
          )
      : undefined;
    parts.push(
      still
        ? `may still approve: ${still.join(', ') || 'nobody left on the list'}`
        : `may still approve: anyone allowed to approve except ${requesterText(request.requester)}${all.length > 0 ? ' and those who approved' : ''}`,
    );
  }
  return mrkdwnSection(parts.join(' · '), GUARDRAIL_MAX);
}

/** What a change that ran still needs people to hear (its automatic revert could not be scheduled). */
function succeededWarning(request: ChangeRequest): string {
  return request.error ? `\n> :warning: ${clipMrkdwn(mrkdwn(request.error.message), 500)}` : '';
}

function statusLine(request: ChangeRequest): string {
  const by = request.approver ? ` · approved by ${actorText(request.approver)}` : '';
  const when = request.decidedAt ? ` · ${slackDate(request.decidedAt)}` : '';
  switch (request.state) {
    case 'pending':
      return `:hourglass_flowing_sand: *Waiting for approval* · expires ${slackDate(request.expiresAt)}`;
    case 'approved':
    case 'executing':
      return `:gear: *Running…*${by}`;
    case 'succeeded':
      return `:white_check_mark: *Done*${by}${when}${succeededWarning(request)}`;
    case 'failed':
      // Not run: the write was provably never sent; "Failed" would say it was tried.
      return `${request.notRun ? ':no_entry_sign: *Not run*' : ':x: *Failed*'}${by}${when}\n> ${clipMrkdwn(mrkdwn(request.notRun ? errorLine(request).replace(/^not run[,:] /, '') : errorLine(request)), 500)}`;
    case 'cancelled':
      return `:no_entry_sign: *Cancelled*${request.cancelledBy ? ` by ${actorText(request.cancelledBy)}` : ''}${when} · not run`;
    case 'expired':
      return ':hourglass: *Expired, not run*';
    case 'superseded':
      return ':twisted_rightwards_arrows: *Superseded, not run*: a newer preview replaces this one.';
    case 'unknown':
      return (
        ':grey_question: *Outcome unknown*: the bot stopped while this change was running, so it may or may not have reached the controller. ' +
        'Check the current state on the controller (a `/net` lookup shows it) before requesting the change again; it is never re-run by itself.'
      );
    case 'scheduled':
      return `:calendar: *Scheduled* for ${request.scheduledFor ? slackDate(request.scheduledFor) : 'the next opening of its window'}${request.assessment?.window ? ` (window ${code(request.assessment.window.name)})` : ''}${by}: it runs then, after a fresh check of the target and the policy; if the target changed meanwhile it does not run.`;
  }
}

/** The change-request message: summary, exact change, warnings, status, and buttons while pending. */
export function changeRequestMessage(request: ChangeRequest, note?: string): SlackMessage {
  const blocks: types.KnownBlock[] = [
    {
      type: 'header',
      text: plainText(`Change request: ${humanize(request.tool)}`, 150),
    },
    {
      type: 'section',
      fields: [
        mrkdwnText(`*Tool*\n${code(request.tool)}`),
        mrkdwnText(`*Site*\n${clipMrkdwn(code(request.site), LIMITS.fieldText - 10)}`),
        mrkdwnText(`*Requested by*\n${requesterText(request.requester)}`),
        mrkdwnText(`*Preview hash*\n${code(request.previewHash.slice(0, 8))}`),
      ],
    },
  ];
  const risk = riskSection(request);
  if (risk) blocks.push(risk);
  const layout = previewLayout(request);
  blocks.push(...layout.blocks);
  if (layout.omittedLines > 0) {
    blocks.push({
      type: 'context',
      elements: [
        mrkdwnText(
          `:paperclip: *Full request attached* in this thread: the last ${layout.omittedLines} line(s) of this preview do not fit in a message. ` +
            `${code(previewFile(request))} holds the whole preview and ${code(requestFile(request))} the exact request body.`,
        ),
      ],
    });
  }
  blocks.push(...layout.warnings);
  blocks.push(...timingBlocks(request));
  if (note) blocks.push(mrkdwnSection(note, NOTE_MAX));
  const approvals = approvalsSection(request);
  if (approvals) blocks.push(approvals);
  blocks.push(mrkdwnSection(statusLine(request)));
  if (request.state === 'scheduled') {
    // Until its window opens a scheduled change can still be cancelled (App Home also offers Run now).
    blocks.push({
      type: 'actions',
      block_id: `scheduled-${request.id}`,
      elements: [{ type: 'button', action_id: CANCEL_ACTION, text: plainText('Cancel'), value: request.id }],
    });
  }
  if (request.state === 'pending') {
    blocks.push(
      decisionActions(request, `decide-${request.id}`, mrkdwn(warningsOf(request.preview)[1] ?? '')),
    );
    blocks.push({
      type: 'context',
      elements: [
        mrkdwnText(
          'Approve runs this exact change once (the preview is checked again first). Expired or superseded requests never run.',
        ),
      ],
    });
  }
  const text = mrkdwn(
    `${humanize(request.tool)} on ${request.site} requested by ${isMcpRequester(request.requester) ? (request.requester.name ?? request.requester.userId) : request.requester.userId}: ${request.notRun ? 'not run' : request.state}`,
  );
  return { text: clipMrkdwn(text, 3000), blocks };
}

/** The tool's result, posted in the preview's thread after it ran. */
export function resultThreadMessage(request: ChangeRequest): SlackMessage {
  // A set's result lists each step with what became of it (done, reverted, failed, not run).
  const steps = request.set ? { steps: stepLines(request.set) } : {};
  const body = request.state === 'failed' ? { error: request.error, ...steps } : request.result;
  const rendered = isRow(body) ? renderObject(body, { width: 90 }) : shown(body);
  const heading =
    request.state === 'failed'
      ? request.notRun
        ? `:no_entry_sign: ${mrkdwn(humanize(request.tool))} not run: ${mrkdwn(errorLine(request).replace(/^not run[,:] /, ''))}`
        : `:x: ${mrkdwn(humanize(request.tool))} failed: ${mrkdwn(errorLine(request))}`
      : `:white_check_mark: ${mrkdwn(humanize(request.tool))} done.${succeededWarning(request)}`;
  return {
    text: clipMrkdwn(heading, 3000),
    blocks: [
      mrkdwnSection(heading, 2900),
      ...codeSections(rendered, { blocks: 10, chars: 8000 }).blocks,
      // What the controller holds now, and the way back.
      ...verificationBlocks(request),
      ...revertBlocks(request, 'revert-result'),
      // A halted rollout asks: continue, revert the done sites, or stop.
      ...haltedRolloutBlocks(request),
    ],
  };
}

/**
 * One line for AUDIT_CHANNEL per executed or failed change; with `anchor`, the journal's position
 * just after its outcome was recorded, so `audit:verify --anchor` finds a tail cut behind it.
 */
export function auditLine(request: ChangeRequest, anchor?: { count: number; head: string }): string {
  const outcome =
    request.state === 'failed'
      ? `${request.notRun ? 'NOT RUN' : 'FAILED'} (${mrkdwn(request.error?.controllerCode ?? request.error?.code ?? 'error')})`
      : request.state.toUpperCase();
  const approver = request.approver ? actorText(request.approver) : 'nobody';
  return `${outcome}: ${code(request.tool)} on ${code(request.site)} requested by ${requesterText(request.requester)}, approved by ${approver} (preview ${code(request.previewHash.slice(0, 8))}, request ${code(request.id)})${anchor ? `; journal anchor ${code(`${anchor.count}:${anchor.head}`)}` : ''}`;
}

const SHOWN_HASH_SEPARATOR = '.h';
const SHOWN_HASH = /\.h([0-9a-f]{64})$/;

/**
 * The preview hash carried by the block_id of a clicked actions block (see decisionActions), or
 * undefined for a block without one (a message posted before the hash was carried).
 */
export function shownPreviewHash(blockId: string | undefined): string | undefined {
  return blockId === undefined ? undefined : SHOWN_HASH.exec(blockId)?.[1];
}

/**
 * Approve and Cancel for one pending request, on its channel message and on App Home alike. A
 * change that cannot be undone asks before it runs; `detail` (composed mrkdwn) follows that warning.
 */
export function decisionActions(request: ChangeRequest, blockId: string, detail: string): types.ActionsBlock {
  const approve: types.Button = {
    type: 'button',
    action_id: APPROVE_ACTION,
    style: 'primary',
    text: plainText('Approve'),
    value: request.id,
  };
  if (isDestructive(request)) {
    approve.confirm = {
      title: plainText('Run this change?'),
      text: mrkdwnText(
        clipMrkdwn(
          `${mrkdwn(humanize(request.tool))} on ${code(request.site)} cannot be undone. ${detail}`,
          LIMITS.confirmText,
        ),
      ),
      confirm: plainText('Approve and run'),
      deny: plainText('Back'),
      style: 'danger',
    };
  }
  return {
    type: 'actions',
    // The hash of the preview this block is shown with: Slack sends block_id back with the click,
    // so an approval runs only the change the approver saw (the button value stays the bare id).
    block_id: `${blockId}${SHOWN_HASH_SEPARATOR}${request.previewHash}`,
    elements: [
      approve,
      { type: 'button', action_id: CANCEL_ACTION, text: plainText('Cancel'), value: request.id },
    ],
  };
}
