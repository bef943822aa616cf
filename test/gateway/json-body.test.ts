import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBody, decodeJson } from '../../src/gateway/json-body.js';

/** What the transport did before: decode the whole body as UTF-8, then parse. */
function plain(body: Buffer, contentType: string): { text: string; json: unknown } {
  const text = body.toString('utf8');
  return { text, json: decodeJson(contentType, text) };
}

/** Same values and the same key order everywhere (JSON.stringify walks keys in order). */
function expectSame(body: Buffer, contentType = 'application/json; charset=utf-8'): void {
  const want = plain(body, contentType);
  const got = decodeBody(body, contentType);
  expect(JSON.stringify(got.json)).toBe(JSON.stringify(want.json));
  expect(got.json).toEqual(want.json);
  expect(got.text).toBe(want.text);
}

// Strings as controllers send them: names with accents, emoji, CJK, JSON escapes, a no-break space.
const piece = fc.constantFrom(
  'Küche',
  '☕ Café',
  '会议室',
  '🎮',
  'a"b',
  'back\\slash',
  'line\nbreak',
  'tab\t',
  '\u00a0',
  'ä',
  'plain',
  'é',
  '',
  '\u2028',
);
const text = fc.array(piece, { maxLength: 4 }).map((parts) => parts.join(''));
const record = fc.dictionary(
  fc.oneof(fc.constantFrom('name', 'hostname', 'mac', 'Straße', '名前', '__proto__'), text),
  fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(text, { maxLength: 3 })),
  { maxKeys: 6 },
);

/** A body over the size where the Latin-1 decode is taken, holding `records` and some padding. */
function bodyOf(records: unknown[], pad = 70_000): Buffer {
  return Buffer.from(JSON.stringify({ meta: { rc: 'ok' }, data: records, pad: 'x'.repeat(pad) }));
}

describe('decodeBody: the same text and JSON as decoding the whole body as UTF-8', () => {
  it('on generated bodies of non-ASCII names, keys and escapes (values, key order, text)', () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 20 }), (records) => {
        expectSame(bodyOf(records));
      }),
      { numRuns: 100 },
    );
  });

  it('repairs non-ASCII values and keys, keeping key order and a __proto__ key as an own key', () => {
    const body = Buffer.from(
      `{"data":[{"a":1,"Küche":"☕","z":"ä","__proto__":"p","end":["名前",{"Straße":"x"}]}],"pad":"${'x'.repeat(70_000)}"}`,
    );
    const got = decodeBody(body, 'application/json').json as { data: Record<string, unknown>[] };
    const first = got.data[0] ?? {};
    expect(Object.keys(first)).toEqual(['a', 'Küche', 'z', '__proto__', 'end']);
    expect(first.Küche).toBe('☕');
    expect(Object.getPrototypeOf(first)).toBe(Object.prototype);
    expect(Object.hasOwn(first, '__proto__')).toBe(true);
    expectSame(body);
  });

  it('takes the plain decode for \\u escapes, invalid UTF-8, a BOM, trailing no-break space, a top-level string', () => {
    const pad = 'x'.repeat(70_000);
    expectSame(Buffer.from(`{"a":"\\u00fc and raw ü","pad":"${pad}"}`));
    expectSame(
      Buffer.concat([
        Buffer.from(`{"a":"bad `),
        Buffer.from([0xc3, 0x28, 0xff]),
        Buffer.from(`","pad":"${pad}"}`),
      ]),
    );
    expectSame(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`{"a":"ü","pad":"${pad}"}`)]));
    expectSame(Buffer.from(`{"a":"ü","pad":"${pad}"}\u00a0`));
    expectSame(Buffer.from(`"Küche ${pad}"`));
    expectSame(Buffer.from(`{"cut":"ü${pad}`));
  });

  it('reads pages, plain text and empty bodies as before (no JSON, the text as sent)', () => {
    const page = Buffer.from(`<html><body>Zugriff verweigert: ${'ü'.repeat(40_000)}</body></html>`);
    expect(decodeBody(page, 'text/html').json).toBeUndefined();
    expectSame(page, 'text/html');
    expectSame(Buffer.from(`[${'1,'.repeat(40_000)}2]`), '');
    expectSame(Buffer.from(`{"ascii":"${'x'.repeat(70_000)}"}`));
    expectSame(Buffer.from('{"small":"ü"}'));
    expect(decodeBody(Buffer.alloc(0), 'application/json')).toEqual({ text: '', json: undefined });
  });
});
