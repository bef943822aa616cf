/**
 * How a table fits a width. Each column has a role:
 *
 * - key: what a row is (its name, else a short column that is neither an id nor a count): never
 *   cut, wrapped or left out;
 * - lookup: what a lookup is about (names, addresses, places, times, and the columns a tool
 *   declares): never cut; wrapped at spaces when the width is short;
 * - id: opaque ids and MACs: left out first when the width is short (the count line says which
 *   and how to show them), whole when shown;
 * - text: the rest: long values are cut with `…`, never below a readable floor.
 *
 * A table that does not fit gives way in this order: a `detail` column moves onto its own line
 * under each row, ids are left out, long text is cut to its floor, lookups wrap at spaces (where
 * that adds the fewest lines), text is cut further, and last the least important columns (the
 * rightmost, lookups before text) move, whole, onto lines of their own under each row (so does a
 * lookup that would wrap onto more than three lines). No word is broken, and the key column never
 * gives way, so only a key wider than the width makes a line longer than it.
 */

export type ColumnRole = 'key' | 'lookup' | 'id' | 'text';

/** One column as the layout sees it: its header, role, and each row's cell as one line of text. */
export interface LayoutColumn {
  header: string;
  role: ColumnRole;
  numeric: boolean;
  cells: string[];
}

/**
 * What `fitColumns` decided: the columns in the table and their widths, the ids left out, and the
 * columns shown under each row instead.
 */
export interface TableLayout {
  columns: LayoutColumn[];
  widths: number[];
  hidden: string[];
  details: LayoutColumn[];
}

const GAP = '  ';
/** The narrowest a column gets, whatever its role (a header word may ask for more). */
const MIN_COLUMN = 6;
/** Text shorter than this is never cut; longer text keeps at least this much before its `…`. */
const CUT_FLOOR = 16;
/** The most lines a wrapped lookup may take in its column; deeper, it moves under its row. */
const MAX_WRAP = 3;

const ID_KEY = /(^|_)(ids?|uuids?|macs?|mac_address(es)?)$/;
const LOOKUP_KEY =
  /(^|_)(names?|hostnames?|ips?|address(es)?|subnets?|where|location|site|network|device|ssid|at|time|date|created|updated|since|until|when|seen|expires?|by|schedule|window|uptime|duration|due)$/;
const KEY_NAME = /(^|_)(name|hostname|label|title)$/;

const ID_SHAPES = [
  /^[0-9a-f]{24}$/i,
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  /^[0-9a-f]{2}([:-][0-9a-f]{2}){5}$/i,
];
const LOOKUP_SHAPES = [
  /^\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?$/,
  /^[0-9a-f]*:[0-9a-f:]*:[0-9a-f]*(\/\d{1,3})?$/i,
  /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z?)?$/,
];

/** A MAC, an IPv4 address or subnet, or a UUID inside longer text. */
const EMBEDDED_IDENTIFIER =
  /(^|[^0-9a-f:.])([0-9a-f]{2}(:[0-9a-f]{2}){5}|\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})($|[^0-9a-f:.])/i;

const snakeCase = (key: string) => key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

const present = (values: readonly unknown[]) =>
  values.filter((v) => v !== null && v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0));

/** A value made only of opaque ids (an id, a MAC, or a list of them). */
function isIdValue(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0 && value.every(isIdValue);
  return typeof value === 'string' && ID_SHAPES.some((shape) => shape.test(value));
}

/**
 * Whether a column holds opaque ids (ids, UUIDs, MACs): every value has the shape of one, or its
 * key says so (`id`, `*_id`, `*_ids`, `mac`) and no value is a number (`vlan_id` is a VLAN).
 */
export function isIdColumn(key: string, values: readonly unknown[]): boolean {
  const shown = present(values);
  if (ID_KEY.test(snakeCase(key))) return !shown.some((v) => typeof v === 'number');
  return shown.length > 0 && shown.every(isIdValue);
}

/**
 * Whether a column is what a lookup is about, never cut: the tool declares it, its key names a
 * name, address, place or time, every value has the shape of an address or a time, or a value
 * carries an address or id inside longer text (`client 00:11:32:8a:bc:04`). `text` is how a value
 * is shown.
 */
export function isLookupColumn(
  key: string,
  values: readonly unknown[],
  declared: readonly string[],
  text: (value: unknown) => string,
): boolean {
  if (declared.includes(key) || LOOKUP_KEY.test(snakeCase(key))) return true;
  const shown = present(values);
  if (shown.length === 0) return false;
  if (shown.every((v) => typeof v === 'string' && LOOKUP_SHAPES.some((shape) => shape.test(v)))) return true;
  return shown.some((v) => EMBEDDED_IDENTIFIER.test(text(v)));
}

/** A key column's cells are never cut, so a column of long prose is not made one. */
const KEY_MAX = 24;

/**
 * The role of each column: ids (unless `showIds`), lookups, text; then the key, which is the
 * column named `key` when given, else the first name-like column, else the first short column
 * that is neither an id nor a count (a voucher's `code`), else the first lookup, else the first
 * column (a port, an id).
 */
export function columnRoles(
  columns: readonly { header: string; values: readonly unknown[] }[],
  options: { declared: readonly string[]; showIds: boolean; key?: string; text: (value: unknown) => string },
): ColumnRole[] {
  const roles: ColumnRole[] = columns.map(({ header, values }) => {
    if (options.declared.includes(header)) return 'lookup';
    if (isIdColumn(header, values)) return options.showIds ? 'lookup' : 'id';
    return isLookupColumn(header, values, options.declared, options.text) ? 'lookup' : 'text';
  });
  const ids = columns.map(({ header, values }) => isIdColumn(header, values));
  // A count or a rank says how much, not which row: it is not made the key.
  const counts = (values: readonly unknown[]) => !present(values).some((v) => typeof v !== 'number');
  const short = (values: readonly unknown[]) =>
    !counts(values) && values.every((v) => options.text(v).length <= KEY_MAX);
  const candidates = [
    columns.findIndex((c) => c.header === options.key),
    columns.findIndex((c, i) => !ids[i] && KEY_NAME.test(snakeCase(c.header))),
    columns.findIndex((c, i) => !ids[i] && short(c.values)),
    roles.findIndex((role, i) => role === 'lookup' && !ids[i]),
  ];
  const key = candidates.find((i) => i >= 0) ?? 0;
  if (columns.length > 0) roles[key] = 'key';
  return roles;
}

/** A header's words: split after each `_`, so `total_tx_bytes` may stand on three lines. */
function headerWords(header: string): string[] {
  return header.split(/(?<=_)/);
}

function greedyHeader(header: string, width: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of headerWords(header)) {
    if (current !== '' && current.length + word.length > width) {
      lines.push(current);
      current = '';
    }
    current += word;
  }
  lines.push(current);
  return lines;
}

/**
 * A header on as few lines as `width` allows, broken only after `_` and evenly (`rx_bytes_` over
 * `per_s`, not `rx_bytes_per_` over `s`); never cut.
 */
export function wrapHeader(header: string, width: number): string[] {
  if (header.length <= width) return [header];
  const lines = greedyHeader(header, width).length;
  for (let narrower = 1; narrower < width; narrower += 1) {
    const even = greedyHeader(header, narrower);
    if (even.length <= lines && even.every((line) => line.length <= narrower)) return even;
  }
  return greedyHeader(header, width);
}

/** Text on lines of at most `width`, broken at spaces; only a word longer than the width is split. */
export function wrapWords(text: string, width: number): string[] {
  if (text.length <= width) return [text];
  const lines: string[] = [];
  let line = '';
  for (const long of text.split(' ')) {
    const pieces: string[] = [];
    for (let i = 0; i < long.length; i += width) pieces.push(long.slice(i, i + width));
    for (const word of pieces.length > 0 ? pieces : ['']) {
      if (line !== '' && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else {
        line = line === '' ? word : `${line} ${word}`;
      }
    }
  }
  lines.push(line);
  return lines.filter((l, i) => l !== '' || i === 0);
}

export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 1) return '…'.slice(0, max);
  return `${text.slice(0, max - 1)}…`;
}

const lineWidth = (widths: readonly number[]) =>
  widths.reduce((sum, w) => sum + w, 0) + GAP.length * Math.max(0, widths.length - 1);

const dataWidth = (column: LayoutColumn) => Math.max(1, ...column.cells.map((cell) => cell.length));

const naturalWidth = (column: LayoutColumn) => Math.max(column.header.length, dataWidth(column));

const headerFloor = (column: LayoutColumn) => Math.max(...headerWords(column.header).map((w) => w.length));

/** The narrowest a column gets without cutting a header word, and never below a few characters. */
const hardFloor = (column: LayoutColumn) =>
  Math.min(naturalWidth(column), Math.max(headerFloor(column), MIN_COLUMN));

const floorsSeen = new WeakMap<LayoutColumn, number>();

/** The narrowest a lookup wraps to without splitting a word. */
function wordFloor(column: LayoutColumn): number {
  let floor = floorsSeen.get(column);
  if (floor === undefined) {
    floor = hardFloor(column);
    for (const cell of column.cells) for (const word of cell.split(' ')) floor = Math.max(floor, word.length);
    floorsSeen.set(column, floor);
  }
  return floor;
}

/** The narrowest long text is cut to before anything wraps (a long header wraps after `_` first). */
const textFloor = (column: LayoutColumn) =>
  Math.max(hardFloor(column), Math.min(dataWidth(column), CUT_FLOOR));

/** Narrows the widest of `which` columns, one character at a time, down to their floors. */
function shrinkWidest(
  widths: number[],
  columns: readonly LayoutColumn[],
  which: (column: LayoutColumn) => boolean,
  floor: (column: LayoutColumn) => number,
  total: number,
): void {
  while (lineWidth(widths) > total) {
    let widest = -1;
    columns.forEach((column, i) => {
      const w = widths[i] ?? 0;
      if (which(column) && w > floor(column) && (widest === -1 || w > (widths[widest] ?? 0))) widest = i;
    });
    if (widest === -1) return;
    widths[widest] = (widths[widest] ?? 0) - 1;
  }
}

/** The most lines a cell of `column` takes at `width`. */
const wrapDepth = (column: LayoutColumn, width: number) =>
  column.role === 'lookup' ? Math.max(1, ...cellLines(column, width)) : 1;

/** A column whose header wraps needs no more room than its widest header line and cell. */
function tightened(column: LayoutColumn | undefined, width: number): number {
  if (!column || column.header.length <= width) return width;
  const header = Math.max(...wrapHeader(column.header, width).map((line) => line.length));
  return Math.min(width, Math.max(header, dataWidth(column)));
}

// Fitting tries a column at many widths, and again after another column moves under the rows.
const linesSeen = new WeakMap<LayoutColumn, Map<number, number[]>>();

/** How many lines each row's cell of `column` takes at `width` (a lookup wraps; the rest is cut). */
function cellLines(column: LayoutColumn, width: number): number[] {
  const seen = linesSeen.get(column) ?? new Map<number, number[]>();
  linesSeen.set(column, seen);
  let lines = seen.get(width);
  if (lines === undefined) {
    lines = column.cells.map((cell) =>
      column.role === 'lookup' && cell.length > width ? wrapWords(cell, Math.max(1, width)).length : 1,
    );
    seen.set(width, lines);
  }
  return lines;
}

/**
 * Wraps lookups at spaces, one character at a time, down to their longest word: each time the
 * one whose narrowing adds the fewest lines to the table (a row already two lines high takes a
 * second line in another cell for free), the widest of those first.
 */
function wrapLookups(widths: number[], columns: readonly LayoutColumn[], total: number): void {
  const lines = columns.map((column, c) => cellLines(column, widths[c] ?? 0));
  const rows = Math.max(0, ...columns.map((column) => column.cells.length));
  while (lineWidth(widths) > total) {
    // Per row, the tallest cell and the tallest of the others, so each trial costs one pass.
    const first = new Array<number>(rows).fill(1);
    const second = new Array<number>(rows).fill(1);
    const tallest = new Array<number>(rows).fill(-1);
    lines.forEach((column, c) => {
      for (let r = 0; r < rows; r += 1) {
        const n = column[r] ?? 1;
        if (n > (first[r] ?? 1)) {
          second[r] = first[r] ?? 1;
          first[r] = n;
          tallest[r] = c;
        } else if (n > (second[r] ?? 1)) second[r] = n;
      }
    });
    const added = (c: number, trial: readonly number[]) => {
      let sum = 0;
      for (let r = 0; r < rows; r += 1) {
        const others = tallest[r] === c ? (second[r] ?? 1) : (first[r] ?? 1);
        sum += Math.max(trial[r] ?? 1, others) - (first[r] ?? 1);
      }
      return sum;
    };
    const candidates = columns
      .map((column, c) => ({ column, c, w: widths[c] ?? 0 }))
      .filter(({ column, w }) => column.role === 'lookup' && w > wordFloor(column))
      .sort((a, b) => b.w - a.w);
    let best: { c: number; cost: number; trial: number[] } | undefined;
    for (const { column, c, w } of candidates) {
      const trial = cellLines(column, w - 1);
      const cost = added(c, trial);
      if (best === undefined || cost < best.cost) best = { c, cost, trial };
      // Nothing is cheaper than a step that adds no line.
      if (cost === 0) break;
    }
    if (best === undefined) return;
    widths[best.c] = (widths[best.c] ?? 0) - 1;
    lines[best.c] = best.trial;
  }
}

/**
 * Narrows `columns` toward `total`: long text is cut, lookups wrap at spaces (adding as few lines
 * as they can), then text is cut further.
 */
function narrowed(columns: readonly LayoutColumn[], total: number): number[] {
  const widths = columns.map(naturalWidth);
  const isText = (c: LayoutColumn) => c.role === 'text' || c.role === 'id';
  shrinkWidest(widths, columns, isText, textFloor, total);
  wrapLookups(widths, columns, total);
  shrinkWidest(widths, columns, isText, hardFloor, total);
  return widths;
}

/**
 * The columns shown and their widths within `total` (unbounded: every column at its natural
 * width), the ids left out, and the columns shown under each row instead: the `detail` column,
 * then (when wrapping and cutting are not enough) the least important ones, rightmost first,
 * lookups before text, so that no word is ever broken.
 */
export function fitColumns(all: readonly LayoutColumn[], total: number, detail?: string): TableLayout {
  const natural = all.map(naturalWidth);
  if (!Number.isFinite(total) || lineWidth(natural) <= total) {
    return { columns: [...all], widths: natural, hidden: [], details: [] };
  }
  const details = all.filter((c) => c.header === detail && c.role !== 'key');
  let columns = all.filter((c) => !details.includes(c));
  const ids = columns.filter((c) => c.role === 'id');
  const hidden = lineWidth(columns.map(naturalWidth)) > total ? ids.map((c) => c.header) : [];
  if (hidden.length > 0) columns = columns.filter((c) => c.role !== 'id');
  for (;;) {
    const widths = narrowed(columns, total);
    const under = [...columns].reverse();
    // A lookup that would stand on more lines than a glance takes in reads better on one of its own.
    const deep = under.find(
      (c) => c.role === 'lookup' && wrapDepth(c, widths[columns.indexOf(c)] ?? 0) > MAX_WRAP,
    );
    const next =
      deep ??
      (lineWidth(widths) <= total
        ? undefined
        : (under.find((c) => c.role === 'lookup') ??
          under.find((c) => c.role === 'text' || c.role === 'id')));
    if (next === undefined) {
      const shown = all.filter((c) => details.includes(c));
      return { columns, widths: widths.map((w, i) => tightened(columns[i], w)), hidden, details: shown };
    }
    details.push(next);
    columns = columns.filter((c) => c !== next);
  }
}

/** A line under a row: two spaces in, continued four spaces in, within `total`. */
function hanging(text: string, total: number): string[] {
  if (!Number.isFinite(total) || text.length + 2 <= total) return [`  ${text}`];
  const [first = '', ...rest] = wrapWords(text, Math.max(MIN_COLUMN, total - 2));
  const more = wrapWords(rest.join(' '), Math.max(MIN_COLUMN, total - 4));
  return [`  ${first}`, ...(rest.length > 0 ? more.map((line) => `    ${line}`) : [])];
}

/** The lines of a laid-out table: headers (wrapped after `_`), then each row, lookups wrapped. */
export function layoutLines(layout: TableLayout, total: number): string[] {
  const { columns, widths } = layout;
  const line = (values: readonly string[], row: boolean) =>
    values
      .map((value, c) => {
        const w = widths[c] ?? 0;
        return columns[c]?.numeric && row && value !== '' ? value.padStart(w) : value.padEnd(w);
      })
      .join(GAP)
      .trimEnd();
  const block = (cells: readonly string[][], row: boolean) =>
    Array.from({ length: Math.max(1, ...cells.map((c) => c.length)) }, (_, i) =>
      line(
        cells.map((c) => c[i] ?? ''),
        row,
      ),
    );
  const out = block(
    columns.map((column, c) => wrapHeader(column.header, widths[c] ?? column.header.length)),
    false,
  );
  const rows = Math.max(0, ...columns.map((column) => column.cells.length));
  for (let r = 0; r < rows; r += 1) {
    const cells = columns.map((column, c) => {
      const text = column.cells[r] ?? '';
      const w = widths[c] ?? text.length;
      if (column.role === 'key' || text.length <= w) return [text];
      return column.role === 'lookup' ? wrapWords(text, w) : [truncate(text, w)];
    });
    out.push(...block(cells, true));
    for (const detail of layout.details) {
      const text = detail.cells[r] ?? '';
      if (text === '' || text === '-') continue;
      out.push(...hanging(`${detail.header}: ${text}`, total));
    }
  }
  return out;
}
