/**
 * A dry-run result as text an approver can check value by value, shared by the console and the
 * Slack change request. Nothing is cut: nested objects are expanded with indentation, lists are
 * itemised, every changed field shows its value before and after in full, and long values wrap.
 * Values read as they are sent (`true`, `null`, `""`), and an id the preview names in its `names`
 * map is followed by that name.
 */

/** How the preview is laid out. */
export interface PreviewOptions {
  /** Line width long values wrap at; left out, lines are never wrapped. */
  width?: number;
  /** Starts with `preview (dry run, nothing changed):` [true]; Slack's message has its own title. */
  title?: boolean;
  /** Ends with the warnings as `! …` lines [true]; Slack shows them in blocks of their own. */
  warnings?: boolean;
}

type Row = Record<string, unknown>;
type Names = ReadonlyMap<string, string>;

function isRow(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parts of a preview shown under their own heading, in this order; the rest comes first, as fields. */
const SECTIONS = [
  ['would_create', 'would create:'],
  ['would_update', 'would update:'],
  ['changes', 'changes:'],
  ['would_delete', 'would delete:'],
  ['would_run', 'would run with:'],
  ['would_send_first', 'would send first:'],
  ['would_send', 'would send:'],
  // A create or update that also places the object (ACL rules, firewall policies) sends this last.
  ['would_reorder', 'then would reorder:'],
] as const;

/** The keys that hold what a write sends, in the order it sends them. */
const REQUEST_KEYS = [
  'would_create',
  'would_update',
  'would_send_first',
  'would_send',
  'would_run',
  'would_reorder',
];

const NOT_FIELDS = new Set<string>(['dry_run', 'warnings', 'names', ...SECTIONS.map(([key]) => key)]);

// Below this many columns for a value, continuation lines start further left instead.
const MIN_WRAP_COLUMNS = 24;

/** The ids the preview names (`names: {id: name}`), so each id can be shown with its name. */
function namesOf(preview: Row): Names {
  const names = new Map<string, string>();
  if (isRow(preview.names)) {
    for (const [id, name] of Object.entries(preview.names)) {
      if (typeof name === 'string' && name !== '' && name !== id) names.set(id, name);
    }
  }
  return names;
}

/**
 * Empty text, surrounding blanks and control characters (a name could carry terminal escapes)
 * would be invisible or act on the terminal; such a string is shown in JSON quotes and escapes.
 */
function stringText(text: string): string {
  return text === '' || text !== text.trim() || /\p{Cc}/u.test(text) ? JSON.stringify(text) : text;
}

function isInline(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  if (isRow(value)) return Object.values(value).every((field) => field === undefined);
  return true;
}

/** A value that fits on its key's line: a scalar as sent, with the name of an id, or `[]` / `{}`. */
function inlineText(value: unknown, names: Names): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') {
    const name = names.get(value);
    return name === undefined ? stringText(value) : `${stringText(value)} (${stringText(name)})`;
  }
  if (Array.isArray(value)) return '[]';
  if (isRow(value)) return '{}';
  return String(value);
}

/** Splits a word longer than `room` into pieces that fit; only such a word is ever broken. */
function pieces(word: string, room: number): string[] {
  if (word.length <= room) return [word];
  const out: string[] = [];
  for (let i = 0; i < word.length; i += room) out.push(word.slice(i, i + room));
  return out;
}

/**
 * `prefix` then `text`, wrapped at spaces to `width`; continuation lines start under the text
 * (or, when that leaves too little room, a little right of the prefix's indentation).
 */
function wrap(prefix: string, text: string, width: number | undefined): string[] {
  if (width === undefined || !Number.isFinite(width) || prefix.length + text.length <= width) {
    return [`${prefix}${text}`];
  }
  const indent = prefix.length - prefix.trimStart().length;
  const hang = width - prefix.length >= MIN_WRAP_COLUMNS ? prefix.length : indent + 4;
  const room = Math.max(MIN_WRAP_COLUMNS, width - hang);
  const lines: string[] = [];
  let line = prefix;
  let hasWord = false;
  for (const word of text.split(' ').flatMap((w) => pieces(w, room))) {
    const tooLong = line.length + (hasWord ? 1 : 0) + word.length > width;
    if (tooLong && (hasWord || lines.length === 0)) {
      // A prefix that leaves no room for the first word stands alone on its line.
      lines.push(line.trimEnd());
      line = ' '.repeat(hang);
      hasWord = false;
    }
    line = hasWord ? `${line} ${word}` : `${line}${word}`;
    hasWord = true;
  }
  lines.push(line);
  return lines;
}

interface Layout {
  names: Names;
  width: number | undefined;
}

/** The lines of a list or an object nested at `indent`: list items as `- `, fields as `key: value`. */
function blockLines(value: unknown, indent: number, layout: Layout): string[] {
  const pad = ' '.repeat(indent);
  if (Array.isArray(value)) {
    return value.flatMap((item) => {
      if (isInline(item)) return wrap(`${pad}- `, inlineText(item, layout.names), layout.width);
      // The item's own lines start two columns in; its first line takes the dash.
      const [first = '', ...rest] = blockLines(item, indent + 2, layout);
      return [`${pad}- ${first.slice(indent + 2)}`, ...rest];
    });
  }
  if (isRow(value)) {
    // A field holding undefined is not sent (JSON leaves it out), so it is not shown either.
    return Object.entries(value)
      .filter(([, field]) => field !== undefined)
      .flatMap(([key, field]) => fieldLines(key, field, indent, layout));
  }
  return wrap(pad, inlineText(value, layout.names), layout.width);
}

function fieldLines(key: string, value: unknown, indent: number, layout: Layout): string[] {
  const prefix = `${' '.repeat(indent)}${/\p{Cc}/u.test(key) ? JSON.stringify(key) : key}:`;
  if (isInline(value)) return wrap(`${prefix} `, inlineText(value, layout.names), layout.width);
  return [prefix, ...blockLines(value, indent + 2, layout)];
}

/** A normalised field change from any of the shapes tools use for a diff. */
interface Change {
  field: string;
  from: unknown;
  to: unknown;
}

const OLD_KEYS = ['old', 'from', 'before', 'current'] as const;
const NEW_KEYS = ['new', 'to', 'after', 'proposed'] as const;

function pairOf(value: unknown, allowTuple: boolean): { from: unknown; to: unknown } | undefined {
  if (allowTuple && Array.isArray(value) && value.length === 2) return { from: value[0], to: value[1] };
  if (!isRow(value)) return undefined;
  const oldKey = OLD_KEYS.find((k) => k in value);
  const newKey = NEW_KEYS.find((k) => k in value);
  if (oldKey === undefined || newKey === undefined) return undefined;
  return { from: value[oldKey], to: value[newKey] };
}

/**
 * Reads `changes` as `[{field, old, new}]` (or from/to, before/after) or as `{field: {old, new}}`
 * or `{field: [old, new]}`; the spec leaves update dry-run shapes open, so each tool may differ.
 * The tuple form is only read under `changes`: in `would_update` a two-item array is a new value.
 */
function changesOf(value: unknown, allowTuple: boolean): Change[] | undefined {
  if (Array.isArray(value)) {
    const out: Change[] = [];
    for (const entry of value) {
      const pair = pairOf(entry, false);
      if (!isRow(entry) || !pair || typeof entry.field !== 'string') return undefined;
      out.push({ field: entry.field, ...pair });
    }
    return out;
  }
  if (isRow(value)) {
    const out: Change[] = [];
    for (const [field, entry] of Object.entries(value)) {
      const pair = pairOf(entry, allowTuple);
      if (!pair) return undefined;
      out.push({ field, ...pair });
    }
    return out;
  }
  return undefined;
}

/** `field: before → after` when both fit one line, else both sides in full under `before:` and `after:`. */
function changeLines(changes: readonly Change[], layout: Layout): string[] {
  if (changes.length === 0) return ['  (no changes)'];
  return changes.flatMap((change) => {
    if (isInline(change.from) && isInline(change.to)) {
      const line = `  ${change.field}: ${inlineText(change.from, layout.names)} → ${inlineText(change.to, layout.names)}`;
      if (layout.width === undefined || line.length <= layout.width) return [line];
    }
    return [
      `  ${change.field}:`,
      ...fieldLines('before', change.from, 4, layout),
      ...fieldLines('after', change.to, 4, layout),
    ];
  });
}

/** A section's body: an object's fields, a list's items, or one value, indented by two. */
function sectionLines(value: unknown, layout: Layout): string[] {
  if (isRow(value) && Object.keys(value).length === 0) return ['  (nothing)'];
  if (Array.isArray(value) && value.length === 0) return ['  (none)'];
  return blockLines(value, 2, layout);
}

/** A dry-run result as text: its subject, what it creates, changes, deletes and sends, then warnings. */
export function renderPreview(preview: Row, options: PreviewOptions = {}): string {
  const layout: Layout = { names: namesOf(preview), width: options.width };
  const lines = options.title === false ? [] : ['preview (dry run, nothing changed):'];
  // `would_run` (a write that cannot preview itself) is titled with its tool, so `tool` is not repeated.
  const runsTool =
    preview.would_run !== undefined && typeof preview.tool === 'string' ? preview.tool : undefined;
  for (const [key, value] of Object.entries(preview)) {
    if (value === undefined || NOT_FIELDS.has(key) || (runsTool !== undefined && key === 'tool')) continue;
    lines.push(...fieldLines(key, value, 0, layout));
  }
  for (const [key, heading] of SECTIONS) {
    const value = preview[key];
    if (value === undefined) continue;
    const title = key === 'would_run' && runsTool !== undefined ? `would run ${runsTool} with:` : heading;
    if (value === null) {
      lines.push(`${title} nothing`);
      continue;
    }
    const diff =
      key === 'changes' || key === 'would_update' ? changesOf(value, key === 'changes') : undefined;
    lines.push(title, ...(diff ? changeLines(diff, layout) : sectionLines(value, layout)));
  }
  const warnings = options.warnings === false ? undefined : preview.warnings;
  const warningList = Array.isArray(warnings) ? warnings : warnings === undefined ? [] : [warnings];
  for (const warning of warningList) {
    lines.push(
      ...wrap('! ', typeof warning === 'string' ? warning : inlineText(warning, layout.names), options.width),
    );
  }
  return lines.join('\n');
}

/**
 * What a write would send, taken from its preview (`would_create`, `would_send_first`,
 * `would_send`…): the body a front end attaches when the preview is too long to show in place.
 */
export function previewRequest(preview: Row): Row {
  return Object.fromEntries(
    REQUEST_KEYS.filter((key) => preview[key] !== undefined).map((key) => [key, preview[key]]),
  );
}
