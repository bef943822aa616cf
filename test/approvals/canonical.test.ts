import { describe, expect, it } from 'vitest';
import { canonicalJson, diffPreviews, previewHash, sha256Hex } from '../../src/approvals/canonical.js';
import { capForJournal, redactSecrets } from '../../src/approvals/redact.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth, keeps array order, and drops undefined like JSON', () => {
    const value = { b: 1, a: { d: [3, { z: 1, y: undefined }], c: 'x' }, e: undefined };

    expect(canonicalJson(value)).toBe('{"a":{"c":"x","d":[3,{"z":1}]},"b":1}');
  });

  it('gives equal text for equal data built in a different order', () => {
    expect(canonicalJson({ x: 1, y: [1, 2] })).toBe(canonicalJson({ y: [1, 2], x: 1 }));
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });
});

describe('previewHash', () => {
  it('is the SHA-256 of the canonical preview without its warnings', () => {
    const preview = { dry_run: true, changes: { vlan: { from: 30, to: 31 } }, warnings: ['3 clients'] };

    expect(previewHash(preview)).toBe(sha256Hex('{"changes":{"vlan":{"from":30,"to":31}},"dry_run":true}'));
    expect(previewHash({ ...preview, warnings: ['9 clients'] })).toBe(previewHash(preview));
    expect(previewHash({ ...preview, changes: { vlan: { from: 32, to: 31 } } })).not.toBe(
      previewHash(preview),
    );
  });
});

describe('diffPreviews', () => {
  it('lists changed, added and removed paths with old → new, ignoring warnings', () => {
    const before = {
      changes: { vlan: { from: 30, to: 31 } },
      would_send: { name: 'Guest', dns: ['1.1.1.1'] },
    };
    const after = {
      changes: { vlan: { from: 32, to: 31 } },
      would_send: { name: 'Guests', dns: ['1.1.1.1', '9.9.9.9'], 'odd.key': true },
      warnings: ['changed'],
    };

    expect(diffPreviews(before, after)).toEqual([
      'changes.vlan.from: 30 → 32',
      'would_send.dns[1]: (none) → "9.9.9.9"',
      'would_send.name: "Guest" → "Guests"',
      'would_send["odd.key"]: (none) → true',
    ]);
    expect(diffPreviews(before, { ...before, warnings: ['x'] })).toEqual([]);
  });

  it('shortens long values and caps a long list with a count', () => {
    const before = Object.fromEntries(
      Array.from({ length: 25 }, (_, i) => [`k${String(i).padStart(2, '0')}`, i]),
    );
    const after = Object.fromEntries(Object.keys(before).map((k) => [k, 'x'.repeat(100)]));

    const lines = diffPreviews(before, after);

    expect(lines).toHaveLength(21);
    expect(lines[0]).toBe(`k00: 0 → "${'x'.repeat(58)}…`);
    expect(lines[20]).toBe('… and 5 more');
  });
});

describe('redactSecrets', () => {
  it('masks secret-named fields at any depth and scrubs token-shaped text', () => {
    const value = {
      name: 'Guest',
      x_passphrase: 'correct horse',
      nested: [{ wan_password: 'hunter2', apiKey: 'k', note: 'token xoxb-123-abc here' }],
      x_empty: '',
    };

    expect(redactSecrets(value)).toEqual({
      name: 'Guest',
      x_passphrase: '[redacted]',
      nested: [{ wan_password: '[redacted]', apiKey: '[redacted]', note: 'token xox?-[redacted] here' }],
      x_empty: '',
    });
  });
});

describe('capForJournal', () => {
  it('keeps small values as they are and caps large ones with a note', () => {
    const small = { success: true };
    const large = { rows: Array.from({ length: 5000 }, (_, i) => ({ i, name: `row-${i}` })) };

    const capped = capForJournal(large) as { truncated: boolean; note: string; head: string };

    expect(capForJournal(small)).toBe(small);
    expect(capped.truncated).toBe(true);
    expect(capped.note).toMatch(/^result of \d+ characters is larger than 64000; its first 4000 are kept$/);
    expect(capped.head).toBe(canonicalJson(large).slice(0, 4000));
  });
});
