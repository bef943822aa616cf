import { renderPreview } from './preview-text.js';

/** Layout limits for plain-text output (terminal, or a Slack code block). */
export interface RenderOptions {
  /** Total line width a table may take; wider tables shrink their widest columns. */
  width?: number;
  /** Longest cell before it is cut with `…`. */
  maxCell?: number;
  /** Rows shown per table before the rest is summarised. */
  maxRows?: number;
}

const DEFAULTS: Required<RenderOptions> = { width: 120, maxCell: 40, maxRows: 40 };
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
    return entries.map(([k, v]) => `${k}=${compact(v, depth + 1)}`).join(' ');
  }
  return oneLine(String(value));
}

/** A scalar for display under `key`: yes/no, `-` for nothing, units for byte counters. */
function cellText(key: string, value: unknown): string {
  if (typeof value === 'number' && isByteField(key)) return formatBytes(value);
  return compact(value);
}

function isNumericColumn(key: string, rows: readonly Row[]): boolean {
  const present = rows.map((r) => r[key]).filter((v) => v !== null && v !== undefined);
  return present.length > 0 && present.every((v) => typeof v === 'number');
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

/**
 * Narrows columns until a row fits `total`. Headers wider than their data give way first (a cut
 * header still reads, a cut id does not); only then are the widest data columns cut.
 */
function fitWidths(natural: readonly number[], data: readonly number[], total: number): number[] {
  const out = [...natural];
  const lineWidth = () => out.reduce((sum, w) => sum + w, 0) + GAP.length * (out.length - 1);
  const dataFloors = data.map((w) => Math.max(w, MIN_COLUMN));
  const minimumFloors = out.map(() => MIN_COLUMN);
  for (const floors of [dataFloors, minimumFloors]) {
    while (lineWidth() > total) {
      if (!shrinkOne(out, floors)) break;
    }
  }
  return out;
}

/**
 * An aligned table: columns are the union of keys in order of first appearance, numbers are
 * right-aligned, long cells are cut, and a `(N rows)` line closes it.
 */
export function renderTable(rows: readonly Row[], options: RenderOptions = {}): string {
  const { width, maxCell, maxRows } = { ...DEFAULTS, ...options };
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
  const cells = shown.map((row) => columns.map((key) => truncate(cellText(key, row[key]), maxCell)));
  const data = columns.map((_, c) => Math.max(1, ...cells.map((row) => (row[c] ?? '').length)));
  const natural = columns.map((key, c) => Math.max(truncate(key, maxCell).length, data[c] ?? 0));
  const widths = fitWidths(natural, data, width);
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
  const out = [line(columns, true), ...cells.map((row) => line(row, false))];
  const count = rows.length === 1 ? '(1 row)' : `(${rows.length} rows)`;
  out.push(
    shown.length < rows.length
      ? `(${rows.length} rows, first ${shown.length} shown; --json shows all)`
      : count,
  );
  return out.join('\n');
}

/** Turns `ports: {"1": {...}, "2": {...}}` into rows with the key as the first column. */
function keyedRows(field: string, value: Record<string, Row>): Row[] {
  const keyColumn = field.endsWith('s') && field.length > 1 ? field.slice(0, -1) : 'key';
  return Object.entries(value).map(([key, row]) => ({ [keyColumn]: key, ...row }));
}

/** `key: value` lines for an object's scalars, then each list of objects as its own titled table. */
export function renderObject(value: Row, options: RenderOptions = {}): string {
  const { maxCell, width } = { ...DEFAULTS, ...options };
  const lines: string[] = [];
  const tables: string[] = [];
  // A `key: value` line may run longer than a cell but still has to fit the terminal.
  const lineMax = Math.max(maxCell, width);
  for (const [key, field] of Object.entries(value)) {
    if (isTable(field)) {
      tables.push(`${key}:\n${renderTable(field, options)}`);
    } else if (isKeyedTable(field)) {
      tables.push(`${key}:\n${renderTable(keyedRows(key, field), options)}`);
    } else {
      lines.push(truncate(`${key}: ${cellText(key, field)}`, lineMax));
    }
  }
  return [lines.join('\n'), ...tables].filter((part) => part !== '').join('\n\n');
}

/** Whether a tool result is a dry-run preview rather than the outcome of a change. */
export function isPreview(result: unknown): result is Row {
  return isPlainObject(result) && result.dry_run === true;
}

/** Turns any tool result into terminal text: previews, tables, `key: value` objects, or a string as is. */
export function render(result: unknown, options: RenderOptions = {}): string {
  if (typeof result === 'string') return result;
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
