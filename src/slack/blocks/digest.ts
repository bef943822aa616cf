import type { types } from '@slack/bolt';
import type { Digest } from '../../watch/types.js';
import { clock, duration } from './alerts.js';
import type { SlackMessage } from './read-result.js';
import { clip, clipMrkdwn, code, mrkdwn } from './text.js';

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

function section(title: string, lines: string[], empty: string): types.KnownBlock {
  const body =
    lines.length > 0
      ? lines.slice(0, 15).join('\n') + (lines.length > 15 ? `\n… and ${lines.length - 15} more` : '')
      : `_${empty}_`;
  return { type: 'section', text: { type: 'mrkdwn', text: clipMrkdwn(`*${title}*\n${body}`, 2900) } };
}

/** The daily digest: changes, drift, incidents, devices offline, top traffic, pending approvals. */
export function digestMessage(digest: Digest): SlackMessage {
  const tz = digest.timeZone;
  const at = (ms: number) => clock(ms, tz);
  const blocks: types.KnownBlock[] = [
    {
      type: 'header',
      text: { type: 'plain_text', text: clip(`Network digest: ${digestPlace(digest)}`, 150) },
    },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `the last 24 hours, to ${new Date(digest.to).toISOString().slice(0, 16).replace('T', ' ')} UTC`,
        },
      ],
    },
    section(
      `Changes (${digest.changes.length})`,
      digest.changes.map(
        (c) =>
          `${code(c.tool)} by ${mrkdwn(c.requester)}${c.approver ? `, approved by ${mrkdwn(c.approver)}` : ''}: ${mrkdwn(c.state)}`,
      ),
      'no changes through the bot',
    ),
    section(
      `Drift (${digest.drift.length})`,
      digest.drift.map(
        (d) =>
          `${mrkdwn(d.objectName)} (${d.kind.replace('_', ' ')}) ${d.change} at ${at(d.noticedAt)}${d.accepted ? ', accepted' : ''}`,
      ),
      'no changes outside the bot',
    ),
    section(
      `Incidents (${digest.incidents.length})`,
      digest.incidents.map(
        (i) =>
          `${mrkdwn(i.subject)} ${i.kind.replace('_', ' ')} at ${at(i.startedAt)}` +
          (i.resolvedAt === undefined
            ? ', still open'
            : i.resolvedAt > i.startedAt
              ? `, ${duration(i.resolvedAt - i.startedAt)}`
              : ''),
      ),
      'no incidents',
    ),
    section(
      'Offline now',
      digest.offlineNow.map((name) => mrkdwn(name)),
      'every device is online',
    ),
    section(
      'Top clients (24 h)',
      digest.topClients.map((c, n) => `${n + 1}. ${mrkdwn(c.name)}: ${mb(c.bytes)}`),
      'no samples yet',
    ),
    section(
      'Top applications',
      digest.topApps.map((a, n) => `${n + 1}. ${mrkdwn(a.name)}: ${mb(a.bytes)}`),
      'no DPI data',
    ),
    ...(digest.overdueReviews
      ? [
          section(
            `:rotating_light: Break-glass reviews overdue (${digest.overdueReviews.length})`,
            digest.overdueReviews.map(
              (r) =>
                `${code(r.tool)} by ${mrkdwn(r.requester)}: ${mrkdwn(r.reason)} (${code(r.id)}, due ${r.dueAt})`,
            ),
            'none',
          ),
        ]
      : []),
    section(
      `Pending approvals (${digest.pendingApprovals.length})`,
      digest.pendingApprovals.map((p) => `${code(p.tool)} by ${mrkdwn(p.requester)} (${code(p.id)})`),
      'none',
    ),
  ];
  if (digest.notes.length > 0)
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: clipMrkdwn(digest.notes.map(mrkdwn).join(' · '), 2900) }],
    });
  return {
    text: `Network digest for ${digestPlace(digest)}: ${digest.changes.length} changes, ${digest.drift.length} drift, ${digest.incidents.length} incidents, ${digest.offlineNow.length} offline now`,
    blocks,
  };
}

/** The digest's site, behind its console in a fleet (`berlin / default`). */
function digestPlace(digest: Digest): string {
  return digest.console === undefined ? digest.site : `${digest.console} / ${digest.site}`;
}
