import type { types } from '@slack/bolt';
import type { FleetDigest, FleetDigestLine } from '../../watch/fleet-digest.js';
import type { SlackMessage } from './read-result.js';
import { clipMrkdwn, mrkdwn, plainText } from './text.js';

/** Site lines shown before the rest are counted: troubled first, so the cut drops the calmest. */
const MAX_LINES = 40;
/** Lines per section, kept well under its 3000 characters. */
const LINES_PER_SECTION = 20;

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** The day the digest closes, in TZ: `Mon 7 Dec 2026`. */
export function fleetDigestDay(digest: Pick<FleetDigest, 'to' | 'timeZone'>): string {
  return new Intl.DateTimeFormat('en-GB', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    ...(digest.timeZone ? { timeZone: digest.timeZone } : {}),
  })
    .format(new Date(digest.to))
    .replace(',', '');
}

/** What the digest covers: `Fleet digest`, or `Fleet digest · customer=acme` for a bound channel's. */
export function fleetDigestTitle(digest: Pick<FleetDigest, 'covers'>): string {
  return digest.covers === undefined ? 'Fleet digest' : `Fleet digest · ${digest.covers}`;
}

/** The fleet's totals in one line. */
export function fleetCountsText(d: FleetDigest): string {
  return [
    plural(d.consoles, 'console'),
    plural(d.sites, 'site'),
    plural(d.changes, 'change'),
    `${plural(d.incidents, 'incident')}${d.open > 0 ? ` (${d.open} open)` : ''}`,
    `${d.drift} drift`,
    `${d.offline} offline now`,
    plural(d.pending, 'pending approval'),
    ...(d.overdueReviews > 0 ? [`${plural(d.overdueReviews, 'break-glass review')} overdue`] : []),
    ...(d.unreadable > 0 ? [`${plural(d.unreadable, 'site')} unreadable`] : []),
  ].join(' · ');
}

/** One site's line in words: `3 changes, 2 incidents (1 open), 1 offline`; zero counts are left out. */
export function fleetLineCounts(line: FleetDigestLine): string {
  if (line.unreadable !== undefined) return `could not be read: ${line.unreadable}`;
  const parts = [
    line.changes > 0 ? `${line.changes} change${line.changes === 1 ? '' : 's'}` : '',
    line.incidents > 0
      ? `${line.incidents} incident${line.incidents === 1 ? '' : 's'}${line.open > 0 ? ` (${line.open} open)` : ''}`
      : '',
    line.drift > 0 ? `${line.drift} drift` : '',
    line.offline > 0 ? `${line.offline} offline` : '',
    line.pending > 0 ? `${line.pending} pending` : '',
  ];
  return parts.filter(Boolean).join(', ');
}

function lineText(line: FleetDigestLine): string {
  const mark =
    line.unreadable !== undefined ? ':warning: ' : line.open > 0 || line.offline > 0 ? ':red_circle: ' : '';
  return `${mark}*${mrkdwn(line.console)} · ${mrkdwn(line.site)}*: ${mrkdwn(fleetLineCounts(line))}`;
}

/**
 * The fleet's one daily digest: the day and the totals, one line per site with anything (the
 * troubled first), and the quiet sites counted in one line. No chart: one per site would be fifty.
 */
export function fleetDigestMessage(digest: FleetDigest): SlackMessage {
  const shown = digest.lines.slice(0, MAX_LINES).map(lineText);
  const rest = digest.lines.length - shown.length;
  if (rest > 0) shown.push(`_… and ${plural(rest, 'more site')} not shown: \`get_digest\` lists every one_`);
  // Deliberately alike: a digest message opens with a header and the time context, one site's or the fleet's.
  const blocks: types.KnownBlock[] = [
    // What it covers comes from the consoles file's labels: plain in the header, escaped in `text`.
    { type: 'header', text: plainText(`${fleetDigestTitle(digest)}: ${fleetDigestDay(digest)}`, 150) },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `${fleetCountsText(digest)} · the last 24 hours, to ${new Date(digest.to).toISOString().slice(0, 16).replace('T', ' ')} UTC`,
        },
      ],
    },
  ];
  for (let at = 0; at < shown.length; at += LINES_PER_SECTION)
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: clipMrkdwn(shown.slice(at, at + LINES_PER_SECTION).join('\n'), 2900) },
    });
  blocks.push({
    type: 'context',
    elements: [
      {
        type: 'mrkdwn',
        text:
          digest.quiet === 0
            ? 'no quiet sites'
            : `${plural(digest.quiet, 'quiet site')}: no changes, incidents, drift, devices offline or pending approvals`,
      },
    ],
  });
  return {
    text: `${mrkdwn(fleetDigestTitle(digest))} for ${fleetDigestDay(digest)}: ${fleetCountsText(digest)}`,
    blocks,
  };
}
