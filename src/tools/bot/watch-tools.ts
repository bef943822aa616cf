import { z } from 'zod';
import { NotSupportedError } from '../../errors.js';
import type { FleetDigest } from '../../model/fleet-digest.js';
import { siteId } from '../core/arg-types.js';
import { defineTool, type ToolContext } from '../core/define-tool.js';
import { consoleArg, consolesOf } from '../fleet/consoles-of.js';

// Deliberately alike: mirrors watch/types.ts Digest so tools/ imports no layer above it.
/**
 * The day as the watcher keeps it (src/watch/types.ts `Digest` has this shape). Declared here so
 * tools/ imports no layer above it; times are ms since the epoch.
 */
export interface DigestReading {
  site: string;
  from: number;
  to: number;
  changes: readonly {
    id: string;
    tool: string;
    requester: string;
    approver?: string;
    state: string;
    at: string;
  }[];
  drift: readonly {
    kind: string;
    objectName: string;
    change: string;
    noticedAt: number;
    accepted: boolean;
  }[];
  incidents: readonly { subject: string; kind: string; startedAt: number; resolvedAt?: number }[];
  offlineNow: readonly string[];
  topClients: readonly { name: string; bytes: number }[];
  topApps: readonly { name: string; bytes: number }[];
  pendingApprovals: readonly { id: string; tool: string; requester: string }[];
  /** Break-glass changes past their review deadline, unreviewed: raised every day until reviewed. */
  overdueReviews?: readonly { id: string; tool: string; requester: string; reason: string; dueAt: string }[];
  notes: readonly string[];
}

/** What get_digest needs (`app.ts` puts it in the ToolContext as `digests`, over the store). */
export interface DigestPort {
  /** `console`: the fleet's console the call runs on (unset: the one console, or a fleet's first). */
  read(site: string, console?: string): Promise<DigestReading>;
  /** The fleet digest, every console's watched sites in one (a fleet's app only). */
  readFleet?(): Promise<FleetDigest>;
}

/** The ToolContext with the digest port (absent where no store-backed app was built). */
type DigestContext = ToolContext & { digests?: DigestPort };

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** "17 min", "2 h 5 min", "40 s": how long an incident lasted. */
export function durationText(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}

/** The digest in the tools' snake_case, with times as ISO 8601 (UTC) and durations in words. */
export function digestAnswer(d: DigestReading) {
  return {
    site: d.site,
    from: iso(d.from),
    to: iso(d.to),
    changes: d.changes.map((c) => ({
      change_id: c.id,
      tool: c.tool,
      requester: c.requester,
      approver: c.approver ?? null,
      state: c.state,
      at: Number.isNaN(Date.parse(c.at)) ? c.at : iso(Date.parse(c.at)),
    })),
    drift: d.drift.map((x) => ({
      object_name: x.objectName,
      kind: x.kind,
      change: x.change,
      noticed_at: iso(x.noticedAt),
      accepted: x.accepted,
    })),
    incidents: d.incidents.map((i) => ({
      subject: i.subject,
      kind: i.kind,
      started_at: iso(i.startedAt),
      resolved_at: i.resolvedAt === undefined ? null : iso(i.resolvedAt),
      duration: i.resolvedAt === undefined ? 'still open' : durationText(i.resolvedAt - i.startedAt),
    })),
    offline_now: [...d.offlineNow],
    top_clients: d.topClients.map((c) => ({ name: c.name, bytes: c.bytes })),
    top_applications: d.topApps.map((a) => ({ name: a.name, bytes: a.bytes })),
    pending_approvals: d.pendingApprovals.map((p) => ({
      change_id: p.id,
      tool: p.tool,
      requester: p.requester,
    })),
    ...(d.overdueReviews
      ? {
          break_glass_reviews_overdue: d.overdueReviews.map((r) => ({
            change_id: r.id,
            tool: r.tool,
            requester: r.requester,
            reason: r.reason,
            due_at: r.dueAt,
          })),
        }
      : {}),
    notes: [...d.notes],
  };
}

/** The fleet digest in the tools' snake_case: the totals, then one row per site with anything. */
export function fleetDigestAnswer(d: FleetDigest) {
  return {
    from: iso(d.from),
    to: iso(d.to),
    consoles: d.consoles,
    sites_watched: d.sites,
    changes: d.changes,
    incidents: d.incidents,
    open_incidents: d.open,
    drift: d.drift,
    offline_now: d.offline,
    pending_approvals: d.pending,
    break_glass_reviews_overdue: d.overdueReviews,
    unreadable_sites: d.unreadable,
    sites: d.lines.map((line) => ({
      console: line.console,
      site: line.site,
      changes: line.changes,
      incidents: line.incidents,
      open: line.open,
      drift: line.drift,
      offline: line.offline,
      pending: line.pending,
      problem: line.unreadable === undefined ? null : `could not be read: ${line.unreadable}`,
    })),
    quiet_sites: d.quiet,
  };
}

/**
 * The daily digest, read now: what `/net digest` posts and DIGEST_CRON sends, for the
 * console and MCP clients, which cannot receive the Slack message. Incidents and drift are what the
 * watcher recorded in the store (a console on the bot's DATA_DIR or DATABASE_URL sees the bot's);
 * the chart is posted in Slack only. In a fleet, `console=` asks for that console's site digest;
 * without it the answer is the fleet digest, every console's watched sites summed up.
 */
// Deliberately alike: defineTool declarations share their shape; this one's console filter is the fleet's, like list_consoles'.
export const getDigest = defineTool({
  name: 'get_digest',
  description:
    'The daily digest now: changes of the last 24 h, drift, incidents and durations, devices offline, top clients and applications, pending approvals',
  access: 'read',
  example: '',
  // `console` declared here, not taken by the registry: a fleet's call without it is the fleet digest.
  args: z.object({ site_id: siteId, console: consoleArg }),
  async run({ site_id, console }, context) {
    const digests = (context as DigestContext).digests;
    if (!digests)
      throw new NotSupportedError('get_digest needs the bot’s store, which this process has not opened');
    const { port } = consolesOf(context, console);
    if (!port.fleet) return digestAnswer(await digests.read(site_id));
    if (console === undefined && digests.readFleet) return fleetDigestAnswer(await digests.readFleet());
    const named = console ?? port.list()[0]?.name;
    return { ...(named ? { console: named } : {}), ...digestAnswer(await digests.read(site_id, named)) };
  },
});

export const watchTools = [getDigest];
