import type { types } from '@slack/bolt';
import type { AlarmSummary, Incident } from '../../watch/types.js';
import type { SlackMessage } from './read-result.js';
import { clipMrkdwn, mrkdwn } from './text.js';

/** The Acknowledge button of an incident message; its value is the incident id. */
export const ACK_INCIDENT_ACTION = 'ack_incident';

/** `02:14` in the configured time zone (TZ), else the process's. */
export function clock(at: number, timeZone?: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    ...(timeZone ? { timeZone } : {}),
  }).format(new Date(at));
}

/** Where it happened, for a context line: `site default`, or in a fleet `console berlin · site default`. */
export function placeContext(where: { site: string; console?: string }): string {
  const site = `site ${mrkdwn(where.site)}`;
  return where.console === undefined ? site : `console ${mrkdwn(where.console)} · ${site}`;
}

/** The same, after a message's fallback text in a fleet (` (console berlin, site default)`); nothing otherwise. */
export function placeSuffix(where: { site: string; console?: string }): string {
  return where.console === undefined ? '' : ` (console ${mrkdwn(where.console)}, site ${mrkdwn(where.site)})`;
}

/** `17 min`, `2 h 5 min`, `40 s`. */
export function duration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

const WHAT: Record<Incident['kind'], string> = {
  device_offline: 'offline',
  wan_down: 'down',
  wan_failover: 'failed over',
  uplink_changed: 'uplink changed',
  poe_stopped: 'stopped delivering PoE power',
  alarm: 'alarm',
};

/** The incident in one line: "Garage AP offline since 02:14 … back at 02:31, 17 min". */
export function incidentLine(incident: Incident, timeZone?: string): string {
  const subject = `*${mrkdwn(incident.subject)}*`;
  const since = clock(incident.startedAt, timeZone);
  if (incident.event) {
    const what = incident.kind === 'alarm' ? 'UniFi alarm' : WHAT[incident.kind];
    return `${subject} ${what} at ${since}${incident.detail ? `: ${mrkdwn(incident.detail)}` : ''}`;
  }
  const detail = incident.detail ? ` (${mrkdwn(incident.detail)})` : '';
  const flaps =
    incident.flaps > 0 ? `, flapping: back and ${WHAT[incident.kind]} again ${incident.flaps}×` : '';
  if (incident.resolvedAt === undefined)
    return `:red_circle: ${subject} ${WHAT[incident.kind]} since ${since}${detail}${flaps}`;
  const back = incident.kind === 'wan_failover' ? 'back on the primary WAN' : 'back';
  return `:large_green_circle: ${subject} ${WHAT[incident.kind]} since ${since}${detail} … ${back} at ${clock(incident.resolvedAt, timeZone)}, ${duration(incident.resolvedAt - incident.startedAt)}${flaps}`;
}

/** The incident message: its line, who acknowledged it, and the Acknowledge button until someone does. */
export function incidentMessage(
  incident: Incident,
  options: { timeZone?: string; mention?: string } = {},
): SlackMessage {
  const line = incidentLine(incident, options.timeZone);
  const mention = options.mention ? `<!subteam^${options.mention}> ` : '';
  const blocks: types.KnownBlock[] = [
    { type: 'section', text: { type: 'mrkdwn', text: clipMrkdwn(`${mention}${line}`, 2900) } },
  ];
  const context = [
    placeContext(incident),
    incident.source === 'webhook' ? 'from Alarm Manager' : 'seen by the bot',
  ];
  if (incident.acknowledgedBy)
    context.push(
      `acknowledged by <@${incident.acknowledgedBy.userId}>${incident.acknowledgedAt ? ` at ${clock(incident.acknowledgedAt, options.timeZone)}` : ''}`,
    );
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: context.join(' · ') }] });
  if (!incident.acknowledgedBy && !(incident.event && incident.kind !== 'alarm')) {
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          action_id: ACK_INCIDENT_ACTION,
          text: { type: 'plain_text', text: 'Acknowledge' },
          value: incident.id,
        },
      ],
    });
  }
  return { text: clipMrkdwn(`${mention}${line}${placeSuffix(incident)}`, 3000), blocks };
}

/**
 * The one message for the Alarm Manager alarms of a minute that were not posted one by one: how
 * many, of which kinds, on which devices, the first few. It mentions nobody: the burst's first
 * alarm did.
 */
export function alarmSummaryMessage(
  summary: AlarmSummary,
  options: { timeZone?: string } = {},
): SlackMessage {
  const counted = (list: AlarmSummary['kinds']) =>
    list.map((entry) => `${mrkdwn(entry.name)} (${entry.count})`).join(', ');
  const alarms = summary.count === 1 ? 'alarm' : 'alarms';
  const head = `:rotating_light: *${summary.count} more UniFi ${alarms}* from ${clock(summary.from, options.timeZone)} to ${clock(summary.to, options.timeZone)}, not posted one by one (${summary.posted} were)`;
  const lines = [
    head,
    `Kinds: ${counted(summary.kinds)}`,
    `Devices: ${counted(summary.devices)}`,
    `First: ${summary.first.map((a) => `*${mrkdwn(a.subject)}*${a.name && a.name !== a.subject ? ` ${mrkdwn(a.name)}` : ''}`).join(', ')}`,
  ];
  const text = clipMrkdwn(lines.join('\n'), 2900);
  return {
    text: clipMrkdwn(`${head}${placeSuffix(summary)}`, 3000),
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text } },
      {
        type: 'context',
        elements: [{ type: 'mrkdwn', text: `${placeContext(summary)} · from Alarm Manager` }],
      },
    ],
  };
}
