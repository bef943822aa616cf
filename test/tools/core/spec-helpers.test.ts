import { describe, expect, it } from 'vitest';
import { updatedFields } from '../../../src/tools/core/spec-helpers.js';

describe('updatedFields', () => {
  const preview = { changes: { name: { from: 'IoT', to: 'Things' } } };

  it('expects the fields the result changed, to their new values', () => {
    const result = { changes: { vlan: { from: 10, to: 20 }, note: 'no to' } };
    expect(updatedFields({}, preview, result)).toEqual({ kind: 'fields', fields: { vlan: 20 } });
  });

  it('falls back to the preview when the result names no changes', () => {
    expect(updatedFields({}, preview, { ok: true })).toEqual({ kind: 'fields', fields: { name: 'Things' } });
  });

  it('expects nothing when neither names changes', () => {
    expect(updatedFields({}, undefined, undefined)).toBeUndefined();
  });
});
