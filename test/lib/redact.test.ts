import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { REDACTED, redactSecrets } from '../../src/lib/redact.js';
import { isMaskedValue, isSecretField } from '../../src/lib/secret-fields.js';
import { scrubSecrets, setConfiguredSecrets } from '../../src/lib/secret-text.js';

/*
 * redactSecrets copies on write instead of copying every result whole. These hold it
 * equal to the copying rendering it replaced, and hold that the input is never changed.
 */

/** The copying redaction as it was: a fresh copy of every object and array. */
function referenceRedact(value: unknown): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  if (Array.isArray(value)) return value.map(referenceRedact);
  if (value !== null && typeof value === 'object') {
    const withJson = value as { toJSON?: () => unknown };
    if (typeof withJson.toJSON === 'function') return referenceRedact(withJson.toJSON());
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = isSecretField(key) && isMaskedValue(item) ? REDACTED : referenceRedact(item);
    }
    return out;
  }
  return value;
}

const CONFIGURED = 'controller-api-key-1234';
const WIREGUARD = 'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=';

// Field names and strings weighted towards what redaction is about.
const key = fc.oneof(
  fc.constantFrom('name', 'x_passphrase', 'password', 'token', 'api_key', 'note', 'mac', 'enabled'),
  fc.string({ maxLength: 8 }),
);
const text = fc.oneof(
  fc.constantFrom('plain', CONFIGURED, `pre ${CONFIGURED} post`, WIREGUARD, 'xoxb-12-ab', '', 'a=b'),
  fc.string({ maxLength: 12 }),
);
const leaf = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.date());
const tree = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(key, tie('node'), { maxKeys: 5 }),
  ),
})).node;

describe('redactSecrets', () => {
  afterEach(() => setConfiguredSecrets([]));

  it('gives what the copying redaction gave, and leaves its input as it was', () => {
    setConfiguredSecrets([CONFIGURED]);
    fc.assert(
      fc.property(tree, (value) => {
        const before = structuredClone(value);
        expect(redactSecrets(value)).toEqual(referenceRedact(value));
        expect(value).toEqual(before);
      }),
      { numRuns: 300 },
    );
  });

  it('returns a result with nothing to mask as it is, without copying it', () => {
    const topology = { nodes: [{ name: 'AP Lobby', mac: 'aa:bb:cc:dd:ee:ff', state: 1 }], total: 1 };

    expect(redactSecrets(topology)).toBe(topology);
  });

  it('copies only the path to what it masks, and never changes the original', () => {
    setConfiguredSecrets([CONFIGURED]);
    const clean = { name: 'Core' };
    const value = { devices: [clean, { name: `key ${CONFIGURED}`, x_passphrase: 'hunter22' }] };

    const out = redactSecrets(value) as typeof value;

    expect(out).not.toBe(value);
    expect(out.devices[0]).toBe(clean);
    expect(out.devices[1]).toEqual({ name: 'key [redacted]', x_passphrase: REDACTED });
    expect(value.devices[1]).toEqual({ name: `key ${CONFIGURED}`, x_passphrase: 'hunter22' });
  });

  it('still copies class instances as their own fields', () => {
    class Reading {
      constructor(readonly rate: number) {}
    }
    const reading = new Reading(5);

    const out = redactSecrets(reading);

    expect(out).not.toBe(reading);
    expect(out).toEqual({ rate: 5 });
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});

describe('scrubSecrets and WireGuard keys', () => {
  // The expression the scan replaced, from the rules: 43 base64 characters (the last one's low
  // bits zero) and one `=`, no base64 character before, no base64 character or `=` after.
  const KEY = /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=(?![A-Za-z0-9+/=])/g;
  const base64Char = fc.constantFrom(...'ABCEQgw08+/az9');
  const key = fc
    .tuple(fc.array(base64Char, { minLength: 42, maxLength: 42 }), fc.constantFrom(...'AEIMQUYcgkosw048'))
    .map(([body, last]) => `${body.join('')}${last}=`);
  const piece = fc.oneof(
    key,
    fc.constantFrom('=', '==', ' ', '"', 'key="', 'x', 'B', '\n'),
    fc.array(base64Char, { maxLength: 50 }).map((c) => c.join('')),
  );

  it('masks exactly what the expression it replaced masked', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = `=${pieces.join('')}`;
        expect(scrubSecrets(text)).toBe(text.replace(KEY, REDACTED));
      }),
      { numRuns: 2000 },
    );
  });

  it('masks a key at the very start and at the very end of the text', () => {
    const wg = 'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=';

    expect(scrubSecrets(`${wg} and ${wg}`)).toBe(`${REDACTED} and ${REDACTED}`);
    expect(scrubSecrets(`x${wg}`)).toBe(`x${wg}`);
    expect(scrubSecrets(`${wg}=`)).toBe(`${wg}=`);
  });
});
