import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GatewayRejectedError, GatewayUnavailableError } from '../../src/errors.js';
import {
  parseEach,
  replacementBody,
  sameJson,
  withStateLeft,
} from '../../src/tools/firewall-common-model.js';

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
