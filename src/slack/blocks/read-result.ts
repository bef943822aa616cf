import type { types } from '@slack/bolt';
import { formatBytes, isPreview, renderObject, renderTable } from '../../format/plain-text.js';
import { renderPreview } from '../../format/preview-text.js';
import { splitUnreadable, unreadableLine } from '../../lib/unreadable-records.js';
import { LIMITS } from './limits.js';
import { clipMrkdwn, code, humanize, mrkdwn, mrkdwnSection, mrkdwnText } from './text.js';

/** A message for `chat.postMessage` or `respond`: fallback text plus blocks. */
export interface SlackMessage {
  text: string;
  blocks: types.KnownBlock[];
}

type Row = Record<string, unknown>;

const isRow = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);
const isTable = (v: unknown): v is Row[] => Array.isArray(v) && v.length > 0 && v.every(isRow);
const isScalar = (v: unknown) =>
  v === null || ['string', 'number', 'boolean', 'undefined'].includes(typeof v);

// Code blocks render in a fixed-width font on every client; 100 columns fit a desktop window.
export const SLACK_TABLE_WIDTH = 100;
const TABLE_WIDTH = SLACK_TABLE_WIDTH;

/** How a read's tables are laid out: the tool's own lookup columns, and whether ids were asked for. */
export interface ReadView {
  identifiers?: readonly string[];
  /** `/net … ids`: id columns are shown even when the width is short. */
  ids?: boolean;
}

/** How a reader asks Slack for the ids a table left out. */
const IDS_HINT = '/net … ids';
const FENCE = '```';

/** Splits text into code-block sections within Slack's per-section and per-message budgets. */
export function codeSections(
  text: string,
  budget: { blocks: number; chars: number },
): { blocks: types.SectionBlock[]; omittedLines: number } {
  const lines = mrkdwn(text).split('\n');
  const limit = LIMITS.sectionText - FENCE.length * 2 - 2;
  const blocks: types.SectionBlock[] = [];
  let chunk: string[] = [];
  let size = 0;
  let used = 0;
  let index = 0;
  const flush = () => {
    if (chunk.length === 0) return;
    blocks.push({
      type: 'section',
      text: mrkdwnText(`${FENCE}\n${chunk.join('\n')}\n${FENCE}`),
    });
    used += size;
    chunk = [];
    size = 0;
  };
  for (; index < lines.length; index += 1) {
    const line = clipMrkdwn(lines[index] ?? '', limit);
    if (size + line.length + 1 > limit) flush();
    if (blocks.length >= budget.blocks || used + size + line.length + 1 > budget.chars) break;
    chunk.push(line);
    size += line.length + 1;
  }
  if (blocks.length < budget.blocks) flush();
  return { blocks, omittedLines: lines.length - index };
}

function fieldText(key: string, value: unknown): string {
  const shown =
    value === null || value === undefined
      ? '–'
      : typeof value === 'boolean'
        ? value
          ? 'yes'
          : 'no'
        : typeof value === 'number' && /bytes$/.test(key)
          ? formatBytes(value)
          : String(value);
  return clipMrkdwn(`*${mrkdwn(key)}*\n${mrkdwn(shown)}`, LIMITS.fieldText);
}

/** Scalars of an object as section fields, ten per section. */
function fieldSections(row: Row): types.SectionBlock[] {
  const entries = Object.entries(row).filter(([, v]) => isScalar(v));
  const sections: types.SectionBlock[] = [];
  for (let i = 0; i < entries.length; i += LIMITS.sectionFields) {
    sections.push({
      type: 'section',
      fields: entries.slice(i, i + LIMITS.sectionFields).map(([k, v]) => mrkdwnText(fieldText(k, v))),
    });
  }
  return sections;
}

const context = (text: string): types.ContextBlock => ({
  type: 'context',
  elements: [mrkdwnText(clipMrkdwn(text, LIMITS.sectionText))],
});

/** The action id of the "More" button under a paged read (list_clients, list_devices…). */
export const READ_MORE_ACTION = 'read_more';

/** What the "More" button carries: the read to run again, at the next page. */
export interface ReadMoreRequest {
  tool: string;
  args: Record<string, unknown>;
  /** The page asked for the ids (`/net … ids`), and so does the next. */
  ids?: boolean;
}

/**
 * The "More" button of a paged answer: a result that says `next_offset` (a number) gets one that
 * runs the same read from there. Undefined when there is no next page, or when the arguments do
 * not fit in a button (2,000 characters): the context line then says how to page by hand.
 */
function moreButton(result: unknown, more: ReadMoreRequest | undefined): types.ActionsBlock | undefined {
  if (!more || !isRow(result) || typeof result.next_offset !== 'number') return undefined;
  const value = JSON.stringify({
    tool: more.tool,
    args: { ...more.args, offset: result.next_offset },
    ...(more.ids ? { ids: true } : {}),
  });
  if (value.length > LIMITS.buttonValue) return undefined;
  const total = typeof result.total === 'number' ? ` of ${result.total}` : '';
  return {
    type: 'actions',
    elements: [
      {
        type: 'button',
        action_id: READ_MORE_ACTION,
        text: { type: 'plain_text', text: `More (from ${result.next_offset + 1}${total})` },
        value,
      },
    ],
  };
}

/**
 * A read tool's answer: tables as aligned code blocks within Slack's width (ids left out first,
 * names, places and addresses whole), objects as fields, always within Slack's limits; what does
 * not fit is cut with a line saying how much more there is and how to page. With `more` (the
 * arguments it ran with), a paged result gets a "More" button for the next page.
 */
export function readResultMessage(
  tool: string,
  site: string,
  answer: unknown,
  more?: ReadMoreRequest,
  view: ReadView = {},
): SlackMessage {
  const layout = {
    width: TABLE_WIDTH,
    maxRows: 1000,
    idsHint: IDS_HINT,
    ...(view.identifiers ? { identifiers: view.identifiers } : {}),
    ...(view.ids ? { ids: true } : {}),
  };
  const { result, unreadable } = splitUnreadable(answer);
  const title = `*${mrkdwn(humanize(tool))}* · site ${code(site)}`;
  const blocks: types.KnownBlock[] = [context(title)];
  let chars = title.length;
  // Room kept for the closing context lines: "… more lines" and, when any, the unreadable records.
  const closing = unreadable > 0 ? 2 : 1;
  const budget = () => ({
    blocks: LIMITS.messageBlocks - blocks.length - closing,
    chars: LIMITS.messageBlockChars - chars - 300,
  });
  let omitted = 0;
  const addText = (text: string) => {
    const { blocks: sections, omittedLines } = codeSections(text, budget());
    blocks.push(...sections);
    chars += sections.reduce((n, s) => n + (s.text?.text.length ?? 0), 0);
    omitted += omittedLines;
  };

  let summary: string;
  if (typeof result === 'string') {
    summary = `${humanize(tool)}: ${result.length} characters`;
    addText(result);
  } else if (isTable(result)) {
    summary = `${humanize(tool)}: ${result.length} row(s)`;
    addText(renderTable(result, layout));
  } else if (Array.isArray(result) && result.length === 0) {
    summary = `${humanize(tool)}: nothing found`;
    blocks.push(mrkdwnSection('_Nothing found._'));
  } else if (isPreview(result)) {
    // A dry run asked for with dry_run=true: the same full preview as a change request shows.
    summary = `${humanize(tool)} on ${site}: preview, nothing changed`;
    addText(renderPreview(result, { width: TABLE_WIDTH }));
  } else if (isRow(result)) {
    summary = `${humanize(tool)} on ${site}`;
    for (const section of fieldSections(result)) {
      if (blocks.length >= LIMITS.messageBlocks - 1 - closing) break;
      blocks.push(section);
      chars += (section.fields ?? []).reduce((n, f) => n + f.text.length, 0);
    }
    const nested = Object.fromEntries(Object.entries(result).filter(([, v]) => !isScalar(v)));
    if (Object.keys(nested).length > 0) addText(renderObject(nested, layout));
  } else {
    summary = `${humanize(tool)}: ${String(result)}`;
    blocks.push(mrkdwnSection(mrkdwn(String(result)), 2900));
  }
  if (unreadable > 0) {
    const line = unreadableLine(unreadable, Array.isArray(result) ? result.length : undefined);
    summary = `${summary}; ${unreadableLine(unreadable)}`;
    blocks.push(context(line));
  }
  if (omitted > 0) {
    blocks.push(
      context(
        `… ${omitted} more line(s) not shown. Narrow it with \`limit=\`/\`offset=\` or a filter, or run it in the console with \`--json\`.`,
      ),
    );
  }
  const button = moreButton(result, more);
  if (button && blocks.length < LIMITS.messageBlocks) blocks.push(button);
  // The fallback text is mrkdwn too (notifications, old clients): escaped like the blocks.
  return { text: clipMrkdwn(mrkdwn(summary), 3000), blocks };
}
