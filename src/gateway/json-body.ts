import { isAscii, isUtf8 } from 'node:buffer';

/**
 * A controller answer's bytes turned into its text and its JSON, exactly as
 * `decodeJson(contentType, body.toString('utf8'))` would, but cheaper on large answers.
 *
 * Why not simply `toString('utf8')`: on `stat/sta` of 50,000 clients (44 MB) the UTF-8 decode cost
 * more than the `JSON.parse` itself as soon as one name is not ASCII (`Küche`, `☕`): V8 leaves its
 * fast path for the whole body and builds a two-byte string twice the size (docs/performance.md,
 * "Bandwidth at 50,000 clients"). Here:
 * - an ASCII body (checked with SIMD, a few ms) is decoded as Latin-1, which for ASCII is the
 *   same text, on the fast path;
 * - a JSON body that is valid UTF-8 and holds no `\u` escape is decoded as Latin-1 too, parsed, and
 *   then every string (value or key) holding a byte over 0x7F is re-decoded as UTF-8. This is exact:
 *   without `\u` escapes every such character of a parsed string came from the body's raw bytes, and
 *   a string's raw bytes are whole UTF-8 sequences (quotes and escapes are ASCII), so re-reading its
 *   Latin-1 code units as UTF-8 gives what decoding the whole body first would have given. Anything
 *   else (a body that is not valid UTF-8, has a `\u` escape, a BOM, or does not parse) takes the
 *   plain path: decode as UTF-8, then parse. Object key order is kept;
 * - the text of a parsed JSON answer is decoded only when someone reads it (error pages and empty
 *   bodies, which is what the pipeline reads `text` for, never take the Latin-1 path).
 * Nothing returned refers to `body`: the transport reuses that memory for its next answer.
 * test/gateway/json-body.test.ts holds the result equal to the plain decode on generated bodies.
 */
export interface DecodedBody {
  /** The body as UTF-8 text (decoded on first read when the JSON was parsed without it). */
  readonly text: string;
  /** The parsed JSON; undefined when the body is empty or not JSON (an HTML error page). */
  json: unknown;
}

/** Decodes a JSON body; HTML and other non-JSON bodies (a UniFi OS 401 or 502 page) give undefined. */
export function decodeJson(contentType: string, text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const looksJson = trimmed.startsWith('{') || trimmed.startsWith('[');
  // Some controllers omit the type or send text/plain; an HTML page never parses as JSON here.
  const maybeJson =
    /\bjson\b/i.test(contentType) || ((contentType === '' || /^text\/plain/i.test(contentType)) && looksJson);
  if (!maybeJson) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}

const ESCAPE = Buffer.from('\\u');
// Below this, the plain decode is as fast and simpler to reason about.
const LATIN1_FROM_BYTES = 64 * 1024;

/** The text and JSON of a body, as the plain UTF-8 decode gives them (see DecodedBody). */
export function decodeBody(body: Buffer, contentType: string): DecodedBody {
  if (body.length === 0) return { text: '', json: undefined };
  if (body.length >= LATIN1_FROM_BYTES) {
    // ASCII is the same text in Latin-1, and Latin-1 is V8's cheapest decode.
    if (isAscii(body)) {
      const text = body.toString('latin1');
      return { text, json: decodeJson(contentType, text) };
    }
    if (isUtf8(body) && body.indexOf(ESCAPE) === -1 && !prototypeIsEnumerable()) {
      const latin1 = body.toString('latin1');
      const json = decodeJson(contentType, latin1);
      if (json !== undefined) return lazyText(latin1, repairUtf8(json));
    }
  }
  const text = body.toString('utf8');
  return { text, json: decodeJson(contentType, text) };
}

// The text comes from the Latin-1 string (its code units are the body's bytes), never from the
// buffer, which the transport reuses for the next answer once this one is decoded.
function lazyText(latin1: string, json: unknown): DecodedBody {
  let text: string | undefined;
  return {
    get text() {
      text ??= utf8Of(latin1);
      return text;
    },
    json,
  };
}

// The repair walks objects with for…in (the cheapest walk); an enumerable property someone put on
// Object.prototype would be walked too, so then the plain path is taken instead.
function prototypeIsEnumerable(): boolean {
  for (const _ in {}) return true;
  return false;
}

const HIGH = /[\x80-\xff]/;
const utf8Of = (latin1: string) => Buffer.from(latin1, 'latin1').toString('utf8');

/** Re-decodes as UTF-8 every string of a Latin-1 parse holding a byte over 0x7F, in place. */
function repairUtf8(json: unknown): unknown {
  if (typeof json === 'string') return HIGH.test(json) ? utf8Of(json) : json;
  if (typeof json !== 'object' || json === null) return json;
  // Keys repeat (the same 60 per client record): each distinct one is tested once.
  const asciiKeys = new Set<string>();
  const walk = (node: object): void => {
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i += 1) {
        const value: unknown = node[i];
        if (typeof value === 'string') {
          if (HIGH.test(value)) node[i] = utf8Of(value);
        } else if (typeof value === 'object' && value !== null) walk(value);
      }
      return;
    }
    const record = node as Record<string, unknown>;
    let rekey = false;
    for (const key in record) {
      if (!asciiKeys.has(key)) {
        if (HIGH.test(key)) rekey = true;
        else asciiKeys.add(key);
      }
      const value = record[key];
      if (typeof value === 'string') {
        if (HIGH.test(value)) record[key] = utf8Of(value);
      } else if (typeof value === 'object' && value !== null) walk(value);
    }
    if (rekey) renameKeys(record);
  };
  walk(json);
  return json;
}

/** Re-decodes the non-ASCII keys of one object, keeping the order of its keys. */
function renameKeys(record: Record<string, unknown>): void {
  const keys = Object.keys(record);
  const first = keys.findIndex((key) => HIGH.test(key));
  const tail = keys.slice(first);
  const values = tail.map((key) => record[key]);
  for (const key of tail) delete record[key];
  tail.forEach((key, i) => {
    // defineProperty, as JSON.parse does: a `__proto__` key stays an own property.
    Object.defineProperty(record, HIGH.test(key) ? utf8Of(key) : key, {
      value: values[i],
      writable: true,
      enumerable: true,
      configurable: true,
    });
  });
}
