import bundled from '../../data/dpi-catalogue.json' with { type: 'json' };
import type { DpiAppRow, DpiCategoryRow } from '../../records/dpi-record.js';

/** The spec's `time_range` values: windows of the bot's samples (the controller itself keeps none). */
export const TIME_RANGES = ['1h', '6h', '12h', '24h', '7d', '30d'] as const;

/** Said by a DPI result that could not apply its window: the counters are the controller's totals. */
export const COUNTERS_NOTE =
  'DPI counters are cumulative since the controller last reset them; the controller keeps no time ' +
  'window, and time_range is applied only from the samples the bot takes while it runs';

/** Said by a windowed DPI result. */
export const WINDOW_NOTE =
  "Bytes moved within the covered span, from the bot's samples of the controller's cumulative DPI counters";

/** Window totals keyed `<cat>:<app>` as stats rows, so the catalogue names them like the controller's. */
export function rowsOfTotals(totals: ReadonlyMap<string, { rx: number; tx: number }>): DpiAppRow[] {
  const id = (part: string | undefined) =>
    part === undefined || part === 'undefined' ? undefined : /^\d+$/.test(part) ? Number(part) : part;
  return [...totals]
    .filter(([, { rx, tx }]) => rx + tx > 0)
    .map(([key, { rx, tx }]) => {
      const [cat, app] = key.split(':');
      return { cat: id(cat), app: id(app), rx_bytes: Math.round(rx), tx_bytes: Math.round(tx) };
    });
}

/** Said instead of an empty list that would look like zero traffic. */
export const NO_DATA = 'no DPI data (is traffic identification on?)';

/** Application and category names: the controller's catalogue over the bundled one. */
export class DpiNames {
  constructor(
    private readonly categories: ReadonlyMap<number, string>,
    private readonly applications: ReadonlyMap<number, string>,
  ) {}

  /** With the controller's own names laid over these (ids it does not know keep the bundled name). */
  withOverrides(categories: Iterable<[number, string]>, applications: Iterable<[number, string]>): DpiNames {
    return new DpiNames(
      new Map([...this.categories, ...categories]),
      new Map([...this.applications, ...applications]),
    );
  }

  /** The name of a catalogue key (`cat << 16 | app`), or undefined when the catalogue has none. */
  byKey(key: number): string | undefined {
    return this.applications.get(key);
  }

  /** The name of a category id, or undefined when the catalogue has none. */
  categoryName(id: number): string | undefined {
    return this.categories.get(id);
  }

  category(cat: number | string | undefined): string {
    if (typeof cat === 'string' && !/^\d+$/.test(cat)) return cat;
    const id = cat === undefined ? undefined : Number(cat);
    return (id === undefined ? undefined : this.categories.get(id)) ?? `Unknown category ${cat ?? '?'}`;
  }

  application(cat: number | string | undefined, app: number | string | undefined): string {
    if (typeof app === 'string' && !/^\d+$/.test(app)) return app;
    if (cat === undefined || app === undefined) return 'Unknown';
    const id = applicationKey(Number(cat), Number(app));
    return this.applications.get(id) ?? `Unknown application ${cat}:${Number(app) & 0xffff}`;
  }
}

/**
 * The catalogue key of an application: `cat << 16 | app`, where `app` (what stat rows carry) is
 * unique only within its category (SMTP = cat 5, app 1 → 327681; app 1 alone is MSN). An `app`
 * that already carries its category in the high bits is taken as it is.
 */
export function applicationKey(cat: number, app: number): number {
  if (app > 0xffff && Math.floor(app / 65536) === cat) return app;
  return cat * 65536 + app;
}

/**
 * The catalogue key of an Integration `dpi/applications` entry. Its `id` is the compound key;
 * should a controller send the in-category id with a separate `categoryId`, the two are combined.
 */
export function catalogueKey(entry: { id: number; categoryId?: number | undefined }): number {
  const category = entry.categoryId;
  if (category === undefined || category === 0 || entry.id > 0xffff) return entry.id;
  return applicationKey(category, entry.id);
}

function entries(table: Record<string, string>): [number, string][] {
  return Object.entries(table).map(([id, name]) => [Number(id), name]);
}

/** The names bundled with the bot (usg-dpi 1.442.0, via unpoller). */
export const BUNDLED_NAMES = new DpiNames(
  new Map(entries(bundled.categories)),
  new Map(entries(bundled.applications)),
);

/**
 * Shares of a total in percent with two decimals, summing to exactly 100 (largest remainder:
 * rounding each share alone can leave the sum at 99.99 or 100.01). All zero when the total is.
 */
export function shares(values: readonly number[]): number[] {
  const total = values.reduce((sum, v) => sum + v, 0);
  if (total <= 0) return values.map(() => 0);
  const exact = values.map((v) => (v * 10_000) / total);
  const hundredths = exact.map(Math.floor);
  let left = 10_000 - hundredths.reduce((sum, v) => sum + v, 0);
  const byRemainder = exact.map((v, i) => ({ i, rest: v - Math.floor(v) })).sort((a, b) => b.rest - a.rest);
  for (const { i } of byRemainder) {
    if (left <= 0) break;
    hundredths[i] = (hundredths[i] ?? 0) + 1;
    left -= 1;
  }
  return hundredths.map((h) => h / 100);
}

/** The spec's application entry (2.7), with its share of the total. */
export interface DpiApplication {
  application: string;
  category: string;
  tx_bytes: number;
  rx_bytes: number;
  total_bytes: number;
  percentage: number;
}

/** The spec's category entry (2.7), with its share of the total. */
export interface DpiCategory {
  category: string;
  total_bytes: number;
  application_count: number;
  percentage: number;
}

const byBytes =
  <T extends { total_bytes: number }>(name: (t: T) => string) =>
  (a: T, b: T) =>
    b.total_bytes - a.total_bytes || name(a).localeCompare(name(b));

function withShares<R extends { total_bytes: number }>(rows: R[]): (R & { percentage: number })[] {
  const percent = shares(rows.map((r) => r.total_bytes));
  return rows.map((row, i) => ({ ...row, percentage: percent[i] ?? 0 }));
}

/** `by_app` rows as application entries, highest bandwidth first; rows of the same app are summed. */
export function applicationsOf(rows: readonly DpiAppRow[], names: DpiNames): DpiApplication[] {
  const merged = new Map<string, Omit<DpiApplication, 'percentage'>>();
  for (const row of rows) {
    const key = `${row.cat}:${row.app}`;
    const entry = merged.get(key) ?? {
      application: names.application(row.cat, row.app),
      category: names.category(row.cat),
      tx_bytes: 0,
      rx_bytes: 0,
      total_bytes: 0,
    };
    entry.tx_bytes += row.tx_bytes ?? 0;
    entry.rx_bytes += row.rx_bytes ?? 0;
    entry.total_bytes = entry.tx_bytes + entry.rx_bytes;
    merged.set(key, entry);
  }
  const sorted = [...merged.values()].sort(byBytes((a) => a.application));
  return withShares(sorted);
}

/**
 * Category entries, highest bandwidth first: totals from the controller's `by_cat` rows (from
 * `by_app` when it sent none), application counts from `by_app`.
 */
export function categoriesOf(
  catRows: readonly DpiCategoryRow[],
  appRows: readonly DpiAppRow[],
  names: DpiNames,
): DpiCategory[] {
  const appsPerCategory = new Map<string, Set<string>>();
  for (const row of appRows) {
    const apps = appsPerCategory.get(String(row.cat)) ?? new Set<string>();
    apps.add(String(row.app));
    appsPerCategory.set(String(row.cat), apps);
  }
  const source: { cat: DpiAppRow['cat']; bytes: number; apps?: number }[] =
    catRows.length > 0
      ? catRows.map((r) => ({
          cat: r.cat,
          bytes: (r.tx_bytes ?? 0) + (r.rx_bytes ?? 0),
          apps: r.apps?.length,
        }))
      : appRows.map((r) => ({ cat: r.cat, bytes: (r.tx_bytes ?? 0) + (r.rx_bytes ?? 0) }));
  const merged = new Map<string, Omit<DpiCategory, 'percentage'>>();
  for (const row of source) {
    const key = String(row.cat);
    const entry = merged.get(key) ?? {
      category: names.category(row.cat),
      total_bytes: 0,
      application_count: appsPerCategory.get(key)?.size ?? row.apps ?? 0,
    };
    entry.total_bytes += row.bytes;
    merged.set(key, entry);
  }
  return withShares([...merged.values()].sort(byBytes((c) => c.category)));
}

/** Epoch seconds as ISO 8601; null when absent. */
export function isoOf(epochSeconds: number | undefined): string | null {
  return epochSeconds === undefined ? null : new Date(epochSeconds * 1000).toISOString();
}
