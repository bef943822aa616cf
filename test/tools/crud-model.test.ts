import { describe, expect, it } from 'vitest';
import { applyDelete, applyUpdate, fieldChanges } from '../../src/tools/crud-model.js';

describe('fieldChanges', () => {
  it('compares arrays by value and reports an absent field as null', () => {
    expect(
      fieldChanges({ items: ['a', 'b'], name: 'x' }, { items: ['a', 'b'], name: 'y', description: 'd' }),
    ).toEqual({ name: { from: 'x', to: 'y' }, description: { from: null, to: 'd' } });
  });
});

describe('applyUpdate and applyDelete', () => {
  const never = () => Promise.reject(new Error('must not be sent'));

  it('sends nothing on a dry run or when nothing changes', async () => {
    const plan = {
      subject: { id: '1' },
      changes: {},
      body: { a: 1 },
      warnings: [],
      send: never,
      result: () => ({}),
    };

    expect(await applyUpdate({ ...plan, dryRun: true })).toEqual({
      dry_run: true,
      id: '1',
      changes: {},
      warnings: [],
      would_send: { a: 1 },
    });
    expect(await applyUpdate({ ...plan, dryRun: false })).toEqual({
      success: true,
      id: '1',
      changes: {},
      warnings: [],
    });
  });

  it('deletes only when not a dry run', async () => {
    const sent: string[] = [];
    const plan = {
      preview: { id: '1' },
      warnings: ['w'],
      idField: 'deleted_thing_id',
      id: '1',
      send: async () => sent.push('DELETE'),
    };

    expect(await applyDelete({ ...plan, dryRun: true })).toEqual({
      dry_run: true,
      would_delete: { id: '1' },
      warnings: ['w'],
    });
    expect(sent).toEqual([]);
    expect(await applyDelete({ ...plan, dryRun: undefined })).toEqual({
      success: true,
      deleted_thing_id: '1',
    });
    expect(sent).toEqual(['DELETE']);
  });
});
