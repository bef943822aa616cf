import { describe, expect, it } from 'vitest';
import { settle, settledWithin } from '../../src/lib/settle-within.js';

const resolveAfter = <T>(ms: number, value: T) =>
  new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('settle and settledWithin', () => {
  it('turns a resolution and a rejection into values', async () => {
    expect(await settle(Promise.resolve(4))).toEqual({ ok: true, value: 4 });
    const error = new Error('no');
    expect(await settle(Promise.reject(error))).toEqual({ ok: false, error });
  });

  it('gives the outcome when it comes in time, and undefined when it does not, without losing it', async () => {
    expect(await settledWithin(settle(resolveAfter(5, 'fast')), 1000)).toEqual({ ok: true, value: 'fast' });
    const slow = settle(resolveAfter(80, 'slow'));
    expect(await settledWithin(slow, 10)).toBeUndefined();
    expect(await slow).toEqual({ ok: true, value: 'slow' });
  });
});
