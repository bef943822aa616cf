import { splitUnreadable, unreadableLine } from '../lib/unreadable-records.js';
import { renderPreview } from './preview-text.js';

/** Layout limits for plain-text output (terminal, or a Slack code block). */
export interface RenderOptions {
  /**
   * Total line width a table may take; unset means unbounded (output piped to a file or a
   * program). Wider tables shrink their descriptive columns, never an identifier column.
   */
  width?: number;
  /** Longest cell of a descriptive column before it is cut with `…`; identifiers are never cut. */
  maxCell?: number;
  /** Rows shown per table before the rest is summarised. */
  maxRows?: number;
  /**
   * Columns (and `key: value` keys) the tool declares as identifiers a reader copies, beyond those
   * recognised by key or value (see `isIdentifierColumn`): never cut, like ids, names and addresses.
   */
  identifiers?: readonly string[];
}

const DEFAULTS: Required<Omit<RenderOptions, 'identifiers'>> = { width: 120, maxCell: 40, maxRows: 40 };
const MIN_COLUMN = 6;
const GAP = '  ';

type Row = Record<string, unknown>;

function isPlainObject(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTable(value: unknown): value is Row[] {
  return Array.isArray(value) && value.length > 0 && value.every(isPlainObject);
}

/** A record whose every value is an object, such as get_port_mappings' `ports` keyed by port index. */
function isKeyedTable(value: unknown): value is Record<string, Row> {
  if (!isPlainObject(value)) return false;
  const values = Object.values(value);
  return values.length > 0 && values.every(isPlainObject);
}

/**
 * Controller data is shown as is, so names could carry terminal escape sequences; control
 * characters become spaces and runs of whitespace collapse, which also keeps rows on one line.
 */
function oneLine(text: string): string {
  return text
    .replace(/\p{Cc}/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 1) return '…'.slice(0, max);
  return `${text.slice(0, max - 1)}…`;
}

const BYTE_UNITS = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'];

/** Byte counters run to eleven digits; a unit reads faster. `--json` keeps the exact number. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || Math.abs(bytes) < 1000) return `${bytes} B`;
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1000 && unit < BYTE_UNITS.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(value >= 100 ? 0 : 1)} ${BYTE_UNITS[unit]}`;
}

function isByteField(key: string): boolean {
  return /bytes$/i.test(key);
}

/** Short text for a nested value inside a cell or a `key: value` line; deeper levels only say their size. */
function compact(value: unknown, depth = 0): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') return oneLine(value);
  if (typeof value === 'number')
    return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(2)));
  if (typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return depth === 0 ? '(none)' : '[]';
    if (value.some((v) => typeof v === 'object' && v !== null)) return `[${value.length} items]`;
    const items = value.map((v) => compact(v, depth + 1));
    return depth === 0 ? items.join(', ') : `[${items.join(',')}]`;
  }
  if (isPlainObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    if (depth > 0) return `{${entries.length} fields}`;
    // Unset criteria say nothing and would push the set ones (a destination address) off the line.
    const set = entries.filter(([, v]) => v !== null && v !== undefined);
    if (set.length === 0) return '-';
    return set.map(([k, v]) => `${k}=${compact(v, depth + 1)}`).join(' ');
  }
  return oneLine(String(value));
}

/** A scalar for display under `key`: yes/no, `-` for nothing, units for byte counters. */
export function cellText(key: string, value: unknown): string {
  if (typeof value === 'number' && isByteField(key)) return formatBytes(value);
  return compact(value);
}

function isNumericColumn(key: string, rows: readonly Row[]): boolean {
  const present = rows.map((r) => r[key]).filter((v) => v !== null && v !== undefined);
  return present.length > 0 && present.every((v) => typeof v === 'number');
}

/**
 * Whether a column holds identifiers a reader copies (ids, names, MACs, addresses, subnets): the
 * tool declares it (`declared`), its key says so (`id`, `_id`, `*_id`, `name`, `*_name`, `mac`,
 * `ip`, `macAddress`…), every value it holds has the shape of one, or a value carries one inside
 * (`client 00:11:32:8a:bc:04`, `Internal: 192.168.1.20`). Such a column is never cut.
 */
export function isIdentifierColumn(
  key: string,
  values: readonly unknown[],
  declared: readonly string[] = [],
): boolean {
  if (declared.includes(key)) return true;
  const snake = key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
  if (/(^|_)(ids?|macs?|names?|ips?|address(es)?|subnets?|hostname|mac_address|ip_address)$/.test(snake)) {
    return true;
  }
  const present = values.filter((v) => v !== null && v !== undefined && v !== '');
  if (present.length === 0) return false;
  if (present.every((v) => typeof v === 'string' && looksLikeIdentifier(v))) return true;
  return present.some((v) => carriesIdentifier(compact(v)));
}

const IDENTIFIER_SHAPES = [
  /^[0-9a-f]{24}$/i,
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  /^[0-9a-f]{2}([:-][0-9a-f]{2}){5}$/i,
  /^\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?$/,
  /^[0-9a-f]*:[0-9a-f:]*:[0-9a-f]*(\/\d{1,3})?$/i,
];

/** A MAC, an IPv4 address or subnet, or a UUID inside longer text. */
const EMBEDDED_IDENTIFIER =
  /(^|[^0-9a-f:.])([0-9a-f]{2}(:[0-9a-f]{2}){5}|\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})($|[^0-9a-f:.])/i;

function looksLikeIdentifier(text: string): boolean {
  return IDENTIFIER_SHAPES.some((shape) => shape.test(text));
}

function carriesIdentifier(text: string): boolean {
  return EMBEDDED_IDENTIFIER.test(text);
}

/** Takes one character from the widest column that can still give above its floor; false if none can. */
function shrinkOne(widths: number[], floors: readonly number[]): boolean {
  let widest = -1;
  for (let i = 0; i < widths.length; i += 1) {
    const w = widths[i] ?? 0;
    if (w > (floors[i] ?? 0) && (widest === -1 || w > (widths[widest] ?? 0))) widest = i;
  }
  if (widest === -1) return false;
  widths[widest] = (widths[widest] ?? 0) - 1;
  return true;
}

const lineWidth = (widths: readonly number[]) =>
  widths.reduce((sum, w) => sum + w, 0) + GAP.length * (widths.length - 1);

/** A header's words: split after each `_`, so `total_tx_bytes` may stand on three lines. */
function headerWords(key: string): string[] {
  return key.split(/(?<=_)/);
}

/** The narrowest a header gets without cutting a word. */
function headerFloor(key: string): number {
  return Math.max(...headerWords(key).map((word) => word.length));
}

/** A header on as many lines as `width` needs, broken only after `_`; never cut. */
function wrapHeader(key: string, width: number): string[] {
  if (key.length <= width) return [key];
  const lines: string[] = [];
  let current = '';
  for (const word of headerWords(key)) {
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
 * Narrows descriptive columns (the widest first) until a row fits `total`, never below a few
 * characters or the widest word of their header (which then wraps after `_`): a header is never
 * cut, nor is an identifier column. Undefined when even that does not fit: the caller shows one
 * record per row instead.
 */
function fitWidths(
  natural: readonly number[],
  headers: readonly string[],
  identifier: readonly boolean[],
  total: number,
): number[] | undefined {
  const out = [...natural];
  const floors = natural.map((w, c) =>
    identifier[c] ? w : Math.min(w, Math.max(headerFloor(headers[c] ?? ''), MIN_COLUMN)),
  );
  while (lineWidth(out) > total) {
    if (!shrinkOne(out, floors)) break;
  }
  return lineWidth(out) <= total ? out : undefined;
}

/** The closing line of a table or a record list. */
function countLine(total: number, shown: number): string {
  if (shown < total) return `(${total} rows, first ${shown} shown; --json shows all)`;
  return total === 1 ? '(1 row)' : `(${total} rows)`;
}

/**
 * A table too wide for its width, one `key: value` block per row: identifiers stay whole, other
 * values are cut to the width.
 */
function recordView(
  columns: readonly string[],
  cells: readonly string[][],
  identifier: readonly boolean[],
  width: number,
): string[] {
  const keyWidth = Math.max(...columns.map((c) => c.length));
  const valueWidth = Math.max(width - keyWidth - 2, MIN_COLUMN);
  return cells.map((row) =>
    columns
      .map((key, c) => {
        const value = row[c] ?? '';
        return `${`${key}:`.padEnd(keyWidth + 1)} ${identifier[c] ? value : truncate(value, valueWidth)}`.trimEnd();
      })
      .join('\n'),
  );
}

/**
 * An aligned table: columns are the union of keys in order of first appearance, numbers are
 * right-aligned, and a `(N rows)` line closes it. It fits `width` by narrowing descriptive
 * columns; identifier columns (ids, names, MACs, addresses) are never cut, and when the table
 * cannot fit without cutting one, each row is shown as its own `key: value` block instead.
 */
export function renderTable(rows: readonly Row[], options: RenderOptions = {}): string {
  const width = options.width ?? Number.POSITIVE_INFINITY;
  const maxCell = options.maxCell ?? Number.POSITIVE_INFINITY;
  const maxRows = options.maxRows ?? DEFAULTS.maxRows;
  if (rows.length === 0) return '(0 rows)';
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      if (!seen.has(key)) {
        seen.add(key);
        columns.push(key);
      }
    }
  }
  const shown = rows.slice(0, maxRows);
  const identifier = columns.map((key) =>
    isIdentifierColumn(
      key,
      shown.map((row) => row[key]),
      options.identifiers,
    ),
  );
  const cells = shown.map((row) =>
    columns.map((key, c) => {
      const text = cellText(key, row[key]);
      return identifier[c] ? text : truncate(text, maxCell);
    }),
  );
  const data = columns.map((_, c) => Math.max(1, ...cells.map((row) => (row[c] ?? '').length)));
  const natural = columns.map((key, c) => Math.max(key.length, data[c] ?? 0));
  const widths = fitWidths(natural, columns, identifier, width);
  if (widths === undefined) {
    const records = recordView(columns, cells, identifier, width);
    return [...records, countLine(rows.length, shown.length)].join('\n\n');
  }
  const numeric = columns.map((key) => isNumericColumn(key, shown));
  const line = (values: readonly string[], header: boolean) =>
    values
      .map((value, c) => {
        const w = widths[c] ?? 0;
        const text = truncate(value, w);
        return numeric[c] && !header ? text.padStart(w) : text.padEnd(w);
      })
      .join(GAP)
      .trimEnd();
  const headers = columns.map((key, c) => wrapHeader(key, widths[c] ?? key.length));
  const headerLines = Array.from({ length: Math.max(...headers.map((h) => h.length)) }, (_, i) =>
    line(
      headers.map((h) => h[i] ?? ''),
      true,
    ),
  );
  const out = [...headerLines, ...cells.map((row) => line(row, false))];
  out.push(countLine(rows.length, shown.length));
  return out.join('\n');
}

/** Turns `ports: {"1": {...}, "2": {...}}` into rows with the key as the first column. */
function keyedRows(field: string, value: Record<string, Row>): Row[] {
  const keyColumn = field.endsWith('s') && field.length > 1 ? field.slice(0, -1) : 'key';
  return Object.entries(value).map(([key, row]) => ({ [keyColumn]: key, ...row }));
}

/**
 * `key: value` lines for an object's scalars, then each list of objects as its own titled table.
 * A line fits the width (unbounded when unset) unless it holds an identifier, which stays whole.
 */
export function renderObject(value: Row, options: RenderOptions = {}): string {
  const lineMax = options.width ?? Number.POSITIVE_INFINITY;
  const lines: string[] = [];
  const tables: string[] = [];
  for (const [key, field] of Object.entries(value)) {
    if (isTable(field)) {
      tables.push(`${key}:\n${renderTable(field, options)}`);
    } else if (isKeyedTable(field)) {
      tables.push(`${key}:\n${renderTable(keyedRows(key, field), options)}`);
    } else {
      const line = `${key}: ${cellText(key, field)}`;
      lines.push(isIdentifierColumn(key, [field], options.identifiers) ? line : truncate(line, lineMax));
    }
  }
  return [lines.join('\n'), ...tables].filter((part) => part !== '').join('\n\n');
}

/** Whether a tool result is a dry-run preview rather than the outcome of a change. */
export function isPreview(result: unknown): result is Row {
  return isPlainObject(result) && result.dry_run === true;
}

/**
 * Whether a preview found nothing to change (`nothing_to_change: true`, e.g. an update to the
 * values a network already has): a front end says so and asks no one to approve it.
 */
export function isNoOpPreview(result: unknown): boolean {
  return isPreview(result) && result.nothing_to_change === true;
}

/** Turns any tool result into terminal text: previews, tables, `key: value` objects, or a string as is. */
export function render(result: unknown, options: RenderOptions = {}): string {
  if (typeof result === 'string') return result;
  const { result: answer, unreadable } = splitUnreadable(result);
  if (unreadable > 0) {
    const shown = Array.isArray(answer) ? answer.length : undefined;
    return `${render(answer, options)}\n${unreadableLine(unreadable, shown)}`;
  }
  if (result === undefined || result === null) return 'done.';
  if (isPreview(result)) return renderPreview(result, options);
  if (Array.isArray(result)) {
    if (result.length === 0) return '(0 rows)';
    if (isTable(result)) return renderTable(result, options);
    return result.map((item) => compact(item)).join('\n');
  }
  if (isPlainObject(result)) {
    const text = renderObject(result, options);
    return text === '' ? '(empty)' : text;
  }
  return compact(result);
}
