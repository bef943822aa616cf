import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GatewayRejectedError, GatewayUnavailableError } from '../../../src/errors.js';
// Deliberately alike: named imports of the module under test, one a line as Biome wraps them; the names differ.
import {
  applyCreate,
  applyDelete,
  applyUpdate,
  fieldChanges,
  namesIn,
  parseEach,
  replacementBody,
  sameJson,
  withStateLeft,
} from '../../../src/tools/core/crud-model.js';

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

    // Nothing differs: the preview says so (no approval is asked) and shows nothing to send.
    expect(await applyUpdate({ ...plan, dryRun: true })).toEqual({
      dry_run: true,
      nothing_to_change: true,
      id: '1',
      changes: {},
      warnings: [],
    });
    expect(await applyUpdate({ ...plan, dryRun: true, changes: { a: { from: 0, to: 1 } } })).toMatchObject({
      dry_run: true,
      would_send: { a: 1 },
    });
    expect(
      await applyUpdate({ ...plan, dryRun: true, changes: { a: { from: 0, to: 1 } } }),
    ).not.toHaveProperty('nothing_to_change');
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

describe('names in previews', () => {
  const known: Record<string, string> = { n1: 'IoT', n2: 'Guest', z1: 'Internal' };
  const nameOf = (id: string) => known[id];

  it('namesIn names every known id anywhere in a value, and nothing else', () => {
    expect(namesIn({ a: 'n1', b: [{ c: 'n2' }, 'x'], d: 3, e: null }, nameOf)).toEqual({
      n1: 'IoT',
      n2: 'Guest',
    });
    expect(namesIn({ a: 'x' }, nameOf)).toEqual({});
  });

  it('adds names to a create or update preview only, and only when there are some', async () => {
    const never = () => Promise.reject(new Error('must not be sent'));
    const create = { payload: { target: 'n1' }, warnings: [], nameOf, send: never, result: () => ({}) };
    const update = {
      subject: { zone_id: 'z1' },
      changes: { networkIds: { from: ['n1'], to: ['n1', 'n2'] } },
      body: { networkIds: ['n1', 'n2'] },
      warnings: [],
      nameOf,
      send: async () => ({}),
      result: () => ({}),
    };

    expect(await applyCreate({ ...create, dryRun: true })).toEqual({
      dry_run: true,
      would_create: { target: 'n1' },
      names: { n1: 'IoT' },
      warnings: [],
    });
    expect(await applyCreate({ ...create, payload: { target: 'x' }, dryRun: true })).not.toHaveProperty(
      'names',
    );
    expect(await applyUpdate({ ...update, dryRun: true })).toMatchObject({
      names: { z1: 'Internal', n1: 'IoT', n2: 'Guest' },
    });
    expect(await applyUpdate({ ...update, dryRun: false })).not.toHaveProperty('names');
  });
});

describe('sameJson', () => {
  it('compares values deeply, ignoring key order', () => {
    expect(sameJson({ a: [1, { b: 2 }], c: null }, { c: null, a: [1, { b: 2 }] })).toBe(true);
    expect(sameJson({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameJson([], {})).toBe(false);
  });
});

describe('replacementBody', () => {
  it('keeps stored fields as they are, drops read-only ones, and applies the changes', () => {
    const stored = { _id: 'x', site_id: 's', attr_no_delete: true, rule_index: '20001', name: 'a' };
    expect(replacementBody(stored, /^(_id|site_id|attr_.*)$/, { name: 'b' })).toEqual({
      rule_index: '20001',
      name: 'b',
    });
  });
});

describe('withStateLeft', () => {
  it('adds what earlier steps did, keeping the class and the controller code', () => {
    const error = withStateLeft(new GatewayRejectedError('api.x', 'refused'), ['A done'], 'step B');
    expect(error).toBeInstanceOf(GatewayRejectedError);
    expect((error as GatewayRejectedError).controllerCode).toBe('api.x');
    expect((error as Error).message).toBe('refused. State left: A done (not undone); step B did not happen');
  });

  it('says the outcome is unknown after a timeout, and leaves a first-step failure alone', () => {
    const timeout = withStateLeft(new GatewayUnavailableError('timed out'), ['A done'], 'step B');
    expect((timeout as Error).message).toBe(
      'timed out. State left: A done (not undone); whether step B reached the controller is unknown',
    );
    expect((withStateLeft(new GatewayRejectedError('c', 'm'), [], 'B') as Error).message).toBe('m');
  });
});

describe('parseEach', () => {
  it('pairs raw records with their parse and leaves out what the schema cannot read', () => {
    const pairs = parseEach([{ n: '1' }, { n: 'x' }], z.object({ n: z.string().regex(/^\d$/) }));
    expect(pairs).toEqual([{ raw: { n: '1' }, record: { n: '1' } }]);
  });
});
