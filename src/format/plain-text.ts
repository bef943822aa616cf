import { splitUnreadable, unreadableLine } from '../lib/unreadable-records.js';
import { renderPreview } from './preview-text.js';
import {
  columnRoles,
  fitColumns,
  isIdColumn,
  isLookupColumn,
  type LayoutColumn,
  layoutLines,
  truncate,
  wrapWords,
} from './table-layout.js';

/** Layout limits for plain-text output (terminal, or a Slack code block). */
export interface RenderOptions {
  /**
   * Total line width a table may take; unset means unbounded (output piped to a file or a
   * program). A wider table leaves out its ids, cuts long text, then wraps lookups (table-layout.ts).
   */
  width?: number;
  /** Longest cell of a text column before it is cut with `…`; lookups and ids are never cut. */
  maxCell?: number;
  /** Rows shown per table before the rest is summarised. */
  maxRows?: number;
  /**
   * Columns (and `key: value` keys) the tool declares as what its lookups are about, beyond those
   * recognised by key or value (see `isLookupColumn`): never cut, like names and addresses.
   */
  identifiers?: readonly string[];
  /** Ids (ids, UUIDs, MACs) are shown even when the width is short (`--ids`, Slack's `ids`). */
  ids?: boolean;
  /** How the reader asks for the ids a short width left out, for the count line [`--ids`]. */
  idsHint?: string;
  /** The column that moves onto its own line under each row when the table does not fit. */
  detail?: string;
  /** The column a row is about (never cut, wrapped or left out); by default its name. */
  key?: string;
}

const DEFAULTS = { maxRows: 40, idsHint: '--ids' };

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

const isSet = ([, v]: [string, unknown]) => v !== null && v !== undefined;

/**
 * Short text for a value inside a cell or a `key: value` line: a list as its items, an object as
 * `key=value` pairs, and what is nested deeper in braces and brackets (`body={cmd: block-sta,
 * mac: 62:10:c4:8d:5e:1d}`), so every value is shown, never only its size.
 */
function compact(value: unknown, depth = 0): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') return oneLine(value);
  if (typeof value === 'number')
    return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(2)));
  if (typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return depth === 0 ? '(none)' : '[]';
    const items = value.map((v) => compact(v, depth + 1));
    return depth === 0 ? items.join(', ') : `[${items.join(', ')}]`;
  }
  if (isPlainObject(value)) {
    // Unset criteria say nothing and would push the set ones (a destination address) off the line.
    const set = Object.entries(value).filter(isSet);
    if (depth > 0) return `{${set.map(([k, v]) => `${k}: ${compact(v, depth + 1)}`).join(', ')}}`;
    if (Object.keys(value).length === 0) return '{}';
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
 * Whether a column is never cut: it holds ids (ids, UUIDs, MACs: whole when shown, left out
 * when the width is short) or what a lookup is about (names, addresses, places, times, the
 * columns a tool declares, and values that carry an address inside: `client 00:11:32:8a:bc:04`).
 */
export function isIdentifierColumn(
  key: string,
  values: readonly unknown[],
  declared: readonly string[] = [],
): boolean {
  return isIdColumn(key, values) || isLookupColumn(key, values, declared, compact);
}

/** The closing line of a table: how many rows, how many shown, and how to show the ids left out. */
function countLine(total: number, shown: number, hidden: readonly string[], idsHint: string): string {
  const parts = [total === 1 ? '1 row' : `${total} rows`];
  if (shown < total) parts[0] = `${total} rows, first ${shown} shown; --json shows all`;
  if (hidden.length > 0) parts.push(`${idsHint} shows ${hidden.join(', ')}`);
  return `(${parts.join('; ')})`;
}

/**
 * An aligned table: columns are the union of keys in order of first appearance, numbers are
 * right-aligned, and a `(N rows)` line closes it. It fits `width` (table-layout.ts): ids are
 * left out first, long text is cut, lookups wrap; the key column, names, addresses, places and
 * times are never cut.
 */
export function renderTable(rows: readonly Row[], options: RenderOptions = {}): string {
  const width = options.width ?? Number.POSITIVE_INFINITY;
  const maxCell = options.maxCell ?? Number.POSITIVE_INFINITY;
  const maxRows = options.maxRows ?? DEFAULTS.maxRows;
  if (rows.length === 0) return '(0 rows)';
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      if (!seen.has(key)) {
        seen.add(key);
        keys.push(key);
      }
    }
  }
  const shown = rows.slice(0, maxRows);
  const roles = columnRoles(
    keys.map((header) => ({ header, values: shown.map((row) => row[header]) })),
    {
      declared: options.identifiers ?? [],
      showIds: options.ids === true,
      text: compact,
      ...(options.key !== undefined ? { key: options.key } : {}),
    },
  );
  const columns: LayoutColumn[] = keys.map((header, c) => {
    const role = roles[c] ?? 'text';
    return {
      header,
      role,
      numeric: isNumericColumn(header, shown),
      cells: shown.map((row) => {
        const text = cellText(header, row[header]);
        return role === 'text' ? truncate(text, maxCell) : text;
      }),
    };
  });
  const layout = fitColumns(columns, width, options.detail);
  const lines = layoutLines(layout, width);
  const count = countLine(rows.length, shown.length, layout.hidden, options.idsHint ?? DEFAULTS.idsHint);
  lines.push(...wrapWords(count, Number.isFinite(width) ? width : count.length));
  return lines.join('\n');
}

/** Turns `ports: {"1": {...}, "2": {...}}` into rows with the key as the first column. */
function keyedRows(field: string, value: Record<string, Row>): Row[] {
  const keyColumn = field.endsWith('s') && field.length > 1 ? field.slice(0, -1) : 'key';
  return Object.entries(value).map(([key, row]) => ({ [keyColumn]: key, ...row }));
}

/** A warnings field with nothing in it: a `warnings: (none)` line would only be noise. */
function isEmptyWarnings(key: string, field: unknown): boolean {
  if (!/(^|_)warnings$/i.test(key)) return false;
  return field === null || field === undefined || (Array.isArray(field) && field.length === 0);
}

/** A list of several texts (a change set's steps, warnings): one item a line when they do not fit one. */
function isTextList(field: unknown): field is string[] {
  return Array.isArray(field) && field.length > 1 && field.every((item) => typeof item === 'string');
}

/** Each item on its own line, two spaces in, wrapped at its spaces (never cut) four spaces in. */
function listLines(items: readonly string[], lineMax: number): string[] {
  return items.flatMap((item) => {
    const [first = '', ...rest] = wrapWords(oneLine(item), Math.max(1, lineMax - 2));
    const more = rest.length > 0 ? wrapWords(rest.join(' '), Math.max(1, lineMax - 4)) : [];
    return [`  ${first}`, ...more.map((l) => `    ${l}`)];
  });
}

/**
 * `key: value` lines for an object's scalars, then each list of objects as its own titled table.
 * A line fits the width (unbounded when unset): cut, or when it holds a name, an address or an id,
 * wrapped at its spaces.
 */
export function renderObject(value: Row, options: RenderOptions = {}): string {
  const lineMax = options.width ?? Number.POSITIVE_INFINITY;
  const lines: string[] = [];
  const tables: string[] = [];
  for (const [key, field] of Object.entries(value)) {
    if (isEmptyWarnings(key, field)) continue;
    if (isTable(field)) {
      tables.push(`${key}:\n${renderTable(field, options)}`);
    } else if (isKeyedTable(field)) {
      tables.push(`${key}:\n${renderTable(keyedRows(key, field), options)}`);
    } else {
      const line = `${key}: ${cellText(key, field)}`;
      if (line.length > lineMax && isTextList(field)) lines.push(`${key}:`, ...listLines(field, lineMax));
      else if (!isIdentifierColumn(key, [field], options.identifiers)) lines.push(truncate(line, lineMax));
      else if (line.length <= lineMax) lines.push(line);
      else {
        // Never cut, so wrapped at its spaces, continued two spaces in.
        const [first = '', ...rest] = wrapWords(line, lineMax);
        lines.push(first, ...wrapWords(rest.join(' '), Math.max(1, lineMax - 2)).map((l) => `  ${l}`));
      }
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
