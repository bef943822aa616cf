/**
 * The fleet's daily digest: every watched site of every console read as its own digest
 * (`readDigest`), then summed up in a few lines, so fifty consoles make one message instead of fifty.
 * A channel bound in the consoles file gets the same sum over what it is bound to, from the same reading.
 */
import type { Logger } from '../log.js';
import type { ChangeRequest } from '../model/change-request.js';
import type { FleetDigest, FleetDigestLine } from '../model/fleet-digest.js';
import type { ChangeReader, KeyValueStore } from '../store/types.js';
import type { ToolContext } from '../tools/core/define-tool.js';
import type { ToolRegistry } from '../tools/core/registry.js';
import { fanOut } from '../tools/fleet/fan-out.js';
import { overdueReviewsAt } from './digest.js';
import { readDigest } from './digest-watch.js';
import type { Digest } from './types.js';
import { DAY } from './watch-state.js';

export type { FleetDigest, FleetDigestLine };

/** One site as it was read: its digest, or why it could not be read. */
export type SiteDigestOutcome =
  | { console: string; site: string; digest: Digest }
  | { console: string; site: string; error: string };

/** What the summary counts besides the sites: the bot's change requests, read once for the fleet. */
export interface FleetChanges {
  /** Decided or made in the last 24 hours (not pending). */
  recent: readonly Pick<ChangeRequest, 'site' | 'args'>[];
  pending: readonly Pick<ChangeRequest, 'site' | 'args'>[];
  overdueReviews: number;
}

/** The console a change was made on (`console=` of a fleet's call); '' when it names none. */
const consoleOf = (request: Pick<ChangeRequest, 'args'>) =>
  typeof request.args.console === 'string' ? request.args.console : '';

/** Where a change was made: its console and site. */
const placeOf = (request: Pick<ChangeRequest, 'site' | 'args'>) => `${consoleOf(request)}/${request.site}`;

function countBy(requests: readonly Pick<ChangeRequest, 'site' | 'args'>[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of requests) counts.set(placeOf(request), (counts.get(placeOf(request)) ?? 0) + 1);
  return counts;
}

/** How troubled a line is: unreadable, then open incidents, then devices offline, then the rest. */
function rank(line: FleetDigestLine): number {
  if (line.unreadable !== undefined) return 0;
  if (line.open > 0) return 1;
  if (line.offline > 0) return 2;
  return 3;
}

const hasNews = (line: FleetDigestLine) =>
  line.unreadable !== undefined ||
  line.changes + line.incidents + line.drift + line.offline + line.pending > 0;

/** The fleet digest from each site's outcome (in the file's order) and the bot's changes. Pure. */
export function summarizeFleet(
  outcomes: readonly SiteDigestOutcome[],
  changes: FleetChanges,
  window: { at: number; timeZone?: string },
): FleetDigest {
  const recentAt = countBy(changes.recent);
  const pendingAt = countBy(changes.pending);
  const all = outcomes.map((outcome, order): FleetDigestLine & { order: number } => {
    const place = `${outcome.console}/${outcome.site}`;
    const base = {
      console: outcome.console,
      site: outcome.site,
      changes: recentAt.get(place) ?? 0,
      pending: pendingAt.get(place) ?? 0,
      order,
    };
    if ('error' in outcome)
      return { ...base, incidents: 0, open: 0, drift: 0, offline: 0, unreadable: outcome.error };
    const { digest } = outcome;
    return {
      ...base,
      incidents: digest.incidents.length,
      open: digest.incidents.filter((incident) => incident.resolvedAt === undefined).length,
      drift: digest.drift.length,
      offline: digest.offlineNow.length,
      ...(digest.unreachable !== undefined ? { unreadable: digest.unreachable } : {}),
    };
  });
  const sum = (pick: (line: FleetDigestLine) => number) => all.reduce((total, line) => total + pick(line), 0);
  const lines = all
    .filter(hasNews)
    .sort((a, b) => rank(a) - rank(b) || a.order - b.order)
    .map(({ order: _order, ...line }) => line);
  return {
    from: window.at - DAY,
    to: window.at,
    ...(window.timeZone ? { timeZone: window.timeZone } : {}),
    consoles: new Set(outcomes.map((outcome) => outcome.console)).size,
    sites: outcomes.length,
    changes: changes.recent.length,
    incidents: sum((line) => line.incidents),
    open: sum((line) => line.open),
    drift: sum((line) => line.drift),
    offline: sum((line) => line.offline),
    pending: changes.pending.length,
    overdueReviews: changes.overdueReviews,
    unreadable: all.filter((line) => line.unreadable !== undefined).length,
    lines,
    quiet: all.length - lines.length,
  };
}

/** A watched site of a fleet, with the site its console's watcher polls. */
export interface FleetSite {
  console: string;
  site: string;
}

/** Where the fleet digest is read from: the store the watchers share, and the tools per console. */
export interface FleetDigestReadOptions {
  sites: readonly FleetSite[];
  data: KeyValueStore;
  changes: ChangeReader;
  registry: ToolRegistry;
  context: ToolContext;
  logger: Logger;
  /** How long one console may take for all its sites (the fleet's read budget). */
  timeoutMs: number;
  concurrency?: number;
  timeZone?: string;
}

/** Every watched site of the fleet as read for one due time, and the bot's changes: what each digest is summed from. */
export interface FleetReading {
  outcomes: readonly SiteDigestOutcome[];
  changes: FleetChanges;
  window: { at: number; timeZone?: string };
}

/**
 * What a bound channel's digest covers: the consoles the channel reaches, or one console's site
 * (`ChannelScope` of the consoles file), and how its header names it.
 */
export interface DigestScope {
  consoles: readonly string[];
  site?: string | undefined;
  /** `customer=acme` for a label, the console's name, or `berlin · default` for a console's site. */
  covers: string;
}

/** The scope of a channel bound in the consoles file (`ConsolePort.channel`). */
export function digestScopeOf(bound: {
  consoles: readonly string[];
  site: string | undefined;
  labels?: Readonly<Record<string, string>> | undefined;
}): DigestScope {
  const named = bound.consoles[0] ?? 'no console';
  const covers = bound.labels
    ? Object.entries(bound.labels)
        .map(([key, value]) => `${key}=${value}`)
        .join(', ')
    : `${named}${bound.site !== undefined ? ` · ${bound.site}` : ''}`;
  return { consoles: bound.consoles, site: bound.site, covers };
}

/**
 * The digest of what a channel is bound to, from the fleet's one reading (no site is read again):
 * its sites, and the changes made on them. Overdue break-glass reviews are the approvers' and
 * are left to the whole fleet's digest. Pure.
 */
export function summarizeScope(reading: FleetReading, scope: DigestScope): FleetDigest {
  const consoles = new Set(scope.consoles);
  const within = (console: string, site: string) =>
    consoles.has(console) && (scope.site === undefined || site === scope.site);
  const made = (request: Pick<ChangeRequest, 'site' | 'args'>) => within(consoleOf(request), request.site);
  return {
    covers: scope.covers,
    ...summarizeFleet(
      reading.outcomes.filter((outcome) => within(outcome.console, outcome.site)),
      {
        recent: reading.changes.recent.filter(made),
        pending: reading.changes.pending.filter(made),
        overdueReviews: 0,
      },
      reading.window,
    ),
  };
}

/** The digest of a scope from the fleet's reading; without a scope, the whole fleet's. Pure. */
export function digestOfReading(reading: FleetReading, scope?: DigestScope): FleetDigest {
  return scope
    ? summarizeScope(reading, scope)
    : summarizeFleet(reading.outcomes, reading.changes, reading.window);
}

/** The whole fleet's digest of the day before `at`. Reads only. */
export async function readFleetDigest(o: FleetDigestReadOptions, at: number): Promise<FleetDigest> {
  return digestOfReading(await readFleetSites(o, at));
}

/**
 * Every watched site of the fleet for the day before `at`. Each console's sites are read side by
 * side and the consoles `concurrency` at a time, each given `timeoutMs`: a console that is down
 * costs its timeout once, and its sites are named unreadable. Reads only.
 */
export async function readFleetSites(o: FleetDigestReadOptions, at: number): Promise<FleetReading> {
  // Every site's digest lists the bot's changes: asked of the store once, not once per site.
  const changes = sameAnswers(o.changes);
  const byConsole = new Map<string, string[]>();
  for (const { console, site } of o.sites) byConsole.set(console, [...(byConsole.get(console) ?? []), site]);
  const [answers, recent, pending, overdue] = await Promise.all([
    fanOut(
      [...byConsole.keys()],
      (console) =>
        Promise.all(
          (byConsole.get(console) ?? []).map((site) =>
            readDigest(
              {
                site,
                watchedSite: site,
                console,
                data: o.data,
                changes,
                registry: o.registry,
                context: o.context,
                logger: o.logger,
                ...(o.timeZone ? { timeZone: o.timeZone } : {}),
              },
              at,
            ),
          ),
        ),
      { timeoutMs: o.timeoutMs, ...(o.concurrency ? { concurrency: o.concurrency } : {}) },
    ),
    changes.list({ since: new Date(at - DAY).toISOString() }),
    changes.list({ state: 'pending' }),
    overdueReviewsAt(o.context.store, changes, at),
  ]);
  const outcomes = answers.flatMap((answer): SiteDigestOutcome[] => {
    const sites = byConsole.get(answer.key) ?? [];
    return 'error' in answer
      ? sites.map((site) => ({ console: answer.key, site, error: answer.error }))
      : answer.value.map((digest, index) => ({ console: answer.key, site: sites[index] ?? '', digest }));
  });
  return {
    outcomes,
    changes: {
      recent: recent.filter((request) => request.state !== 'pending'),
      pending,
      overdueReviews: overdue.length,
    },
    window: { at, ...(o.timeZone ? { timeZone: o.timeZone } : {}) },
  };
}

/** A change reader that asks the store each distinct question once (the fleet's sites ask alike). */
function sameAnswers(changes: ChangeReader): ChangeReader {
  const lists = new Map<string, ReturnType<ChangeReader['list']>>();
  const gets = new Map<string, ReturnType<ChangeReader['get']>>();
  return {
    count: changes.count.bind(changes),
    history: changes.history.bind(changes),
    list(query) {
      const key = JSON.stringify(query ?? {});
      const known = lists.get(key) ?? changes.list(query);
      lists.set(key, known);
      return known;
    },
    get(id) {
      const known = gets.get(id) ?? changes.get(id);
      gets.set(id, known);
      return known;
    },
  };
}
