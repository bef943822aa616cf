/**
 * App Home's Consoles section for a bot serving a fleet: one section per console (reachable,
 * version and API generation, open alerts, last change), in place of the one-console Controller
 * section. A single console keeps that section as it was.
 */
import type { types } from '@slack/bolt';
import type { ChangeRequest } from '../../approvals/types.js';
import type { ControllerStatus } from '../../tools/core/define-tool.js';
import { STATE_EMOJI } from './change-history.js';
import { LIMITS } from './limits.js';
import { clip, code, humanize, mrkdwn, slackDate } from './text.js';

/** One console as App Home shows it; undefined parts were not known in time. */
export interface ConsoleRow {
  name: string;
  via: 'local' | 'connector' | 'single';
  /** Undefined: the console did not answer in time to say. */
  status?: ControllerStatus;
  /** `official`, or `classic and v2`; undefined: not read yet. */
  api?: string;
  /** Unresolved incidents of the watcher on it; undefined: not watched in this process. */
  openAlerts?: number;
  /** The last finished change on it; undefined: none recorded. */
  lastChange?: ChangeRequest;
}

/**
 * Consoles shown, each one section: with the header and the rest of Home, a fleet of any size
 * stays within Slack's 100 blocks. The others are named in a line and in `/net list_consoles`.
 */
export const CONSOLES_SHOWN = 12;

const VIA: Record<ConsoleRow['via'], string> = {
  local: 'its own address',
  connector: 'the cloud connector',
  single: 'GATEWAY_URL',
};

function field(title: string, text: string): types.MrkdwnElement {
  return { type: 'mrkdwn', text: clip(`*${title}*\n${text}`, LIMITS.fieldText) };
}

function reachText(status: ControllerStatus | undefined): string {
  if (!status) return ':large_yellow_circle: no answer yet (checking)';
  return status.reachable ? ':large_green_circle: reachable' : ':red_circle: not reachable';
}

function alertsText(count: number | undefined): string {
  if (count === undefined) return 'not watched';
  return count === 0 ? ':large_green_circle: none' : `:red_circle: ${count}`;
}

function lastChangeText(request: ChangeRequest | undefined): string {
  if (!request) return 'none recorded';
  return `${STATE_EMOJI[request.state]} ${mrkdwn(humanize(request.tool))} on ${code(request.site)} · ${slackDate(request.createdAt)} · \`${request.id}\``;
}

function consoleBlock(row: ConsoleRow): types.SectionBlock {
  const version = row.status?.version ? `Network ${mrkdwn(row.status.version)}` : 'version not known yet';
  const api = row.api === undefined ? '' : ` · ${row.api} API`;
  const trouble =
    row.status && !row.status.reachable && row.status.error
      ? `\n:warning: ${mrkdwn(clip(row.status.error, 300))}`
      : '';
  return {
    type: 'section',
    text: {
      type: 'mrkdwn',
      text: clip(`*${mrkdwn(row.name)}* · through ${VIA[row.via]}${trouble}`, LIMITS.sectionText),
    },
    fields: [
      field('Status', reachText(row.status)),
      field('Version', `${version}${api}`),
      field('Open alerts', alertsText(row.openAlerts)),
      field('Last change', lastChangeText(row.lastChange)),
    ],
  };
}

/** Consoles not reachable first (what needs looking at), then in the consoles file's order. */
function ordered(rows: readonly ConsoleRow[]): ConsoleRow[] {
  const down = (row: ConsoleRow) => row.status !== undefined && !row.status.reachable;
  return [...rows.filter(down), ...rows.filter((row) => !down(row))];
}

/** The Consoles part of Home: a header, one section per console (up to CONSOLES_SHOWN), and the rest named. */
export function consolesBlocks(rows: readonly ConsoleRow[]): types.KnownBlock[] {
  const down = rows.filter((row) => row.status !== undefined && !row.status.reachable).length;
  const summary = down === 0 ? '' : ` · ${down} not reachable`;
  const blocks: types.KnownBlock[] = [
    {
      type: 'header',
      text: { type: 'plain_text', text: clip(`Consoles (${rows.length})${summary}`, LIMITS.headerText) },
    },
    ...ordered(rows).slice(0, CONSOLES_SHOWN).map(consoleBlock),
  ];
  const rest = ordered(rows)
    .slice(CONSOLES_SHOWN)
    .map((row) => row.name);
  if (rest.length > 0)
    blocks.push({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: clip(
            `And ${rest.length} more: ${rest.join(', ')}. ${code('/net list_consoles')} lists them all.`,
            LIMITS.contextText,
          ),
        },
      ],
    });
  return blocks;
}
