/**
 * What is down across every console: each console's sites read at once (one stat/device each),
 * with the watcher's open alerts and the last finished change the bot made there. Sites with
 * something wrong come first; a console that does not answer within the read budget is named as
 * unreachable, never waited for.
 */
import { z } from 'zod';
import { siteId } from '../core/arg-types.js';
import type { ConsoleSummary, ToolContext } from '../core/context.js';
import { defineTool } from '../core/define-tool.js';
import { readSiteHealth, type SiteHealth } from '../devices/site-health.js';
import { consoleArg, consolesOf, FLEET_CONCURRENCY, labelArg, sitesOf } from './consoles-of.js';
import { fanOut } from './fan-out.js';

/** A finished change as the fleet status names it. */
export interface RecentChange {
  id: string;
  tool: string;
  state: string;
  /** When it finished (ISO 8601). */
  at: string;
  /** The console it ran on; unset with one console. */
  console?: string;
  site: string;
}

/**
 * What the bot itself keeps about a site: the watcher's open incidents and the finished changes.
 * `app.ts` puts it in the ToolContext as `siteRecords`; a process without the bot's store has none.
 */
export interface SiteRecordsPort {
  /** Unresolved incidents the watcher keeps for `site` of `console`; undefined when nothing watches it. */
  openAlerts(console: string, site: string): Promise<number | undefined>;
  /** The newest finished changes, newest first. */
  recentChanges(): Promise<readonly RecentChange[]>;
}

type StatusContext = ToolContext & { siteRecords?: SiteRecordsPort };

/** Names shown per problem before the rest is counted: an answer fits a screen at 50 consoles. */
const NAMES_SHOWN = 3;

interface SiteReading {
  site: string;
  health: SiteHealth;
  alerts: number | undefined;
}

function named(names: readonly string[]): string {
  const shown = names.slice(0, NAMES_SHOWN).join(', ');
  return names.length > NAMES_SHOWN ? `${shown} +${names.length - NAMES_SHOWN} more` : shown;
}

/** What is wrong at a site, in words; empty when nothing is. */
function problemsOf(reading: SiteReading): string[] {
  const { health, alerts } = reading;
  if (health.error !== undefined) return [`not reachable: ${health.error}`];
  return [
    ...(health.wanDown.length > 0 ? [`WAN down: ${named(health.wanDown)}`] : []),
    ...(health.offline.length > 0
      ? [`${health.offline.length} of ${health.devices ?? '?'} devices offline: ${named(health.offline)}`]
      : []),
    ...(alerts ? [`${alerts} open alert${alerts === 1 ? '' : 's'}`] : []),
  ];
}

function lastChangeText(change: RecentChange | undefined): string | null {
  return change ? `${change.tool} ${change.state} ${change.at.replace(/:\d{2}(\.\d+)?Z$/, 'Z')}` : null;
}

/** Rank of a site in the answer: unreachable, then WAN down, then devices offline, then alerts, then healthy. */
function rank(reading: SiteReading): number {
  if (reading.health.error !== undefined) return 0;
  if (reading.health.wanDown.length > 0) return 1;
  if (reading.health.offline.length > 0) return 2;
  return reading.alerts ? 3 : 4;
}

const fleetStatus = defineTool({
  name: 'get_fleet_status',
  description:
    'What is down across every console and site: unreachable consoles, WAN links down, devices offline and open alerts, with the last change the bot made there; troubled sites first',
  access: 'read',
  example: '',
  identifierColumns: ['problem'],
  args: z.object({ site_id: siteId, console: consoleArg, label: labelArg }),
  async run({ site_id, console, label }, context) {
    const { port, consoles } = consolesOf(context, console, label);
    const records = (context as StatusContext).siteRecords;
    const recent = records ? await records.recentChanges().catch(() => []) : [];
    const answers = await fanOut(
      consoles,
      (entry) =>
        Promise.all(
          sitesOf(entry, site_id).map(async (site): Promise<SiteReading> => {
            const [health, alerts] = await Promise.all([
              readSiteHealth(port.gateway(entry.name), site),
              records?.openAlerts(entry.name, site).catch(() => undefined),
            ]);
            return { site, health, alerts };
          }),
        ),
      { timeoutMs: port.readBudgetMs, concurrency: FLEET_CONCURRENCY },
    );
    const rows: { entry: ConsoleSummary; reading: SiteReading; order: number }[] = [];
    for (const answer of answers) {
      const readings: SiteReading[] =
        'error' in answer
          ? sitesOf(answer.key, site_id).map((site) => ({
              site,
              health: { offline: [], wanDown: [], error: answer.error },
              alerts: undefined,
            }))
          : answer.value;
      for (const reading of readings) rows.push({ entry: answer.key, reading, order: rows.length });
    }
    rows.sort((a, b) => rank(a.reading) - rank(b.reading) || a.order - b.order);
    const lastAt = (entry: ConsoleSummary, site: string) =>
      recent.find((change) => (!port.fleet || change.console === entry.name) && change.site === site);
    const troubled = rows.filter((row) => rank(row.reading) < 4);
    const healthy = rows.filter((row) => rank(row.reading) === 4);
    const where = (entry: ConsoleSummary, site: string) => (port.fleet ? `${entry.name}/${site}` : site);
    return {
      consoles_asked: consoles.length,
      sites_asked: rows.length,
      unreachable: rows.filter((row) => row.reading.health.error !== undefined).length,
      troubled: troubled.length,
      sites: troubled.map(({ entry, reading }) => ({
        ...(port.fleet ? { console: entry.name } : {}),
        site: reading.site,
        problem: problemsOf(reading).join('; '),
        last_change: lastChangeText(lastAt(entry, reading.site)),
      })),
      healthy:
        healthy.length === 0
          ? 'none'
          : `${healthy.length} site${healthy.length === 1 ? '' : 's'}: ${named(healthy.map(({ entry, reading }) => where(entry, reading.site)))}`,
    };
  },
});

/** What is down across the fleet. */
export const fleetStatusTools = [fleetStatus];
