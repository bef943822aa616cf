/**
 * What App Home shows of each console of a fleet, gathered for one Home build: each console is
 * asked in parallel and for at most `waitMs`, so one down or slow console shows "checking" and
 * never holds the others (or the view) back.
 */
import type { Approvals } from '../../approvals/approvals.js';
import type { ChangeRequest } from '../../approvals/types.js';
import { settle, settledWithin } from '../../lib/settle-within.js';
import type { ConsolePort, ConsoleSummary } from '../../tools/core/context.js';
import type { ConsoleRow } from '../blocks/home-consoles.js';

// The finished changes looked through for each console's last one: one store read per Home build.
const RECENT_LOOKED_AT = 200;

/** What the rows are built from. */
export interface ConsoleRowsDeps {
  consoles: ConsolePort;
  approvals: Pick<Approvals, 'list'>;
  /** The site each console's status is read on (DEFAULT_SITE, or the first its entry lists). */
  site: string;
  /** Unresolved incidents on a console; undefined when nothing watches it. */
  openAlerts?: (console: string) => Promise<number | undefined>;
  waitMs: number;
}

/** The last finished change of each console, from the newest finished changes (a request names its console). */
export function lastChanges(requests: readonly ChangeRequest[]): Map<string, ChangeRequest> {
  const last = new Map<string, ChangeRequest>();
  for (const request of requests) {
    const console = request.args.console;
    if (typeof console === 'string' && !last.has(console)) last.set(console, request);
  }
  return last;
}

async function rowOf(
  entry: ConsoleSummary,
  deps: ConsoleRowsDeps,
  last: Map<string, ChangeRequest>,
): Promise<ConsoleRow> {
  const base: ConsoleRow = { name: entry.name, via: entry.via };
  const lastChange = last.get(entry.name);
  if (lastChange) base.lastChange = lastChange;
  const alerts = deps.openAlerts
    ? await settledWithin(settle(deps.openAlerts(entry.name)), deps.waitMs)
    : undefined;
  if (alerts?.ok && alerts.value !== undefined) base.openAlerts = alerts.value;
  const gateway = deps.consoles.gateway(entry.name);
  const site = entry.sites?.[0] ?? deps.site;
  // The status is read at most every 30 s and `info` kept ten minutes: a Home build rarely costs a request.
  const status = await settledWithin(settle(gateway.status(site)), deps.waitMs);
  if (status?.ok) base.status = status.value;
  if (status?.ok && status.value.reachable) {
    const info = await settledWithin(settle(gateway.console()), deps.waitMs);
    if (info?.ok) base.api = info.value.official ? 'official' : 'classic and v2';
  }
  return base;
}

/** One row per console, in the consoles file's order. */
export async function consoleRows(deps: ConsoleRowsDeps): Promise<ConsoleRow[]> {
  const finished = await deps.approvals
    .list({ state: ['succeeded', 'failed', 'unknown'], withoutSetSteps: true, limit: RECENT_LOOKED_AT })
    .catch(() => []);
  const last = lastChanges(finished);
  const entries = deps.consoles.list();
  return Promise.all(entries.map((entry) => rowOf(entry, deps, last)));
}
