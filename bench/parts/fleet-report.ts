/** The fleet part's rows of the budget table and its own table (bench/lib/report.ts prints them). */
import type { BudgetRow } from '../lib/report.js';
import type { FleetLookupFigure, FleetRow } from './fleet.js';

const fmt = (n: number | undefined, digits = 0) =>
  n === undefined || !Number.isFinite(n)
    ? '–'
    : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const times = (n: number) => `${fmt(n, 2)}×`;

/** The lookup within 1.5× of its slowest console, at most 1 MiB a console, the cloud within its one budget. */
export function fleetBudgetRows(f: FleetRow): BudgetRow[] {
  const rows: BudgetRow[] = [];
  // A read across the fleet: within 1.5× of its slowest console's own, every console answering.
  const acrossRow = (what: string, floor: string, l: FleetLookupFigure): BudgetRow => ({
    measure: `${what} across ${l.consoles} simulated consoles × ${l.sites} sites, 40–240 ms an answer, cold read cache`,
    now: `${fmt(l.fleetMs)} ms (${l.answered}/${l.consoles} answered)`,
    floor: `${fmt(l.slowestSingleMs)} ms (${floor})`,
    ratio: times(l.ratio),
    budget: '≤ 1.5×',
    met: l.ratio <= 1.5 && l.answered === l.consoles,
  });
  rows.push(acrossRow('fleet lookup (`where Apple TV`)', "the slowest console's own lookup", f.lookup));
  if (f.status)
    rows.push(
      acrossRow(
        "what is down (`down`: every site's devices, alerts, last change)",
        "the slowest console's own `down`",
        f.status,
      ),
    );
  const m = f.memory;
  if (m)
    rows.push({
      measure: `idle memory per configured console, ${m.consoles} consoles against 1 (RSS after a lookup across all, caches emptied; configured only)`,
      now: `${fmt(m.usedRssPerConsoleMiB, 2)} / ${fmt(m.configuredRssPerConsoleMiB, 2)} MiB a console`,
      floor: `heap + external ${fmt(m.usedHeapPerConsoleMiB, 2)} / ${fmt(m.configuredHeapPerConsoleMiB, 2)} MiB a console`,
      ratio: '—',
      budget: '≤ 1 MiB a console, both',
      met: m.usedRssPerConsoleMiB <= 1 && m.configuredRssPerConsoleMiB <= 1,
    });
  const b = f.budget;
  if (b)
    rows.push({
      measure: `cloud requests (Site Manager and connector) of ${b.replicas} replicas sharing one budget of ${fmt(b.requestsPerMinute)} a minute in PostgreSQL, 8 readers each, ${b.seconds} s`,
      now: `${fmt(b.received)} received (${fmt(b.perMinute)} a minute); ${fmt(b.refused)} refused by the budget; ${fmt(b.cloud429)} answered 429`,
      floor: `${fmt(b.ceiling)} (the budget's most in ${b.seconds} s)`,
      ratio: times(b.received / Math.max(1, b.ceiling)),
      budget: '≤ the budget, no 429',
      met: b.received <= b.ceiling && b.cloud429 === 0,
    });
  return rows;
}
