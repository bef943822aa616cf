import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/errors.js';
import { fanOut } from '../../../src/tools/fleet/fan-out.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('fanOut', () => {
  it('keeps at most `concurrency` questions in flight, and answers in the order asked', async () => {
    let inFlight = 0;
    let most = 0;
    const keys = Array.from({ length: 12 }, (_, i) => i);
    const results = await fanOut(
      keys,
      async (key) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await sleep(5 + (key % 3) * 5);
        inFlight -= 1;
        return key * 2;
      },
      { timeoutMs: 1000, concurrency: 3 },
    );
    expect(most).toBe(3);
    expect(results).toEqual(keys.map((key) => ({ key, value: key * 2 })));
  });

  it('names a slow key after its timeout, and a failed one with its error, without holding the rest', async () => {
    const started = Date.now();
    const results = await fanOut(
      ['fast', 'slow', 'broken'],
      async (key) => {
        if (key === 'slow') await sleep(5000);
        if (key === 'broken') throw new ValidationError([{ field: 'console', rule: 'is down' }]);
        return 'ok';
      },
      { timeoutMs: 100 },
    );
    expect(Date.now() - started).toBeLessThan(1000);
    expect(results).toEqual([
      { key: 'fast', value: 'ok' },
      { key: 'slow', error: 'no answer within 100 ms' },
      { key: 'broken', error: 'console: is down' },
    ]);
  });

  it('answers an empty list at once', async () => {
    expect(await fanOut([], async () => 1, { timeoutMs: 10 })).toEqual([]);
  });
});
