import { describe, expect, it } from 'vitest';
import { RateBudgetSpentError, StoreUnavailableError } from '../../src/errors.js';
import { bucketOf, budgetKey, CloudBudget, LocalBudget, takeFrom } from '../../src/fleet/rate-budget.js';
import type { Logger } from '../../src/log.js';

const READ = { method: 'GET', url: 'https://api.ui.com/v1/hosts', timeoutMs: 8000 };

describe('the cloud rate budget', () => {
  it('lets no rolling minute see more requests than the budget, however they are spread', () => {
    const spec = bucketOf(600);
    let state: { tokens: number; at: number } | undefined;
    const sent: number[] = [];
    // One request offered every 10 ms for three minutes, none willing to wait.
    for (let now = 0; now < 180_000; now += 10) {
      const step = takeFrom(state, spec, now, 0);
      state = step.state;
      if (step.take.granted) sent.push(now);
    }
    let worst = 0;
    for (let i = 0, j = 0; i < sent.length; i += 1) {
      while ((sent[i] ?? 0) - (sent[j] ?? 0) >= 60_000) j += 1;
      worst = Math.max(worst, i - j + 1);
    }
    expect(worst).toBeLessThanOrEqual(600);
    // …and uses most of it: the budget is not a floor nobody reaches.
    expect(sent.length).toBeGreaterThan(3 * 540);
  });

  it('reserves a token ahead for a request that may wait, and none for one that may not wait that long', async () => {
    let now = 0;
    const local = new LocalBudget(() => now);
    const spec = { burst: 2, perSecond: 1 };
    expect(await local.take('k', spec, 0)).toEqual({ granted: true, waitMs: 0 });
    expect(await local.take('k', spec, 0)).toEqual({ granted: true, waitMs: 0 });
    expect(await local.take('k', spec, 500)).toEqual({ granted: false, nextInMs: 1000 });
    expect(await local.take('k', spec, 1500)).toEqual({ granted: true, waitMs: 1000 });
    // The next one queues behind the reservation.
    expect(await local.take('k', spec, 1500)).toEqual({ granted: false, nextInMs: 2000 });
    now = 2000;
    expect(await local.take('k', spec, 0)).toEqual({ granted: true, waitMs: 0 });
    // Another key has its own bucket.
    expect(await local.take('other', spec, 0)).toEqual({ granted: true, waitMs: 0 });
  });

  it('refuses with a RateBudgetSpentError saying when the next token comes, and waits out a reservation', async () => {
    const waits: number[] = [];
    let now = 0;
    const budget = new CloudBudget('cloud-secret', 20, new LocalBudget(() => now), async (ms) => {
      waits.push(ms);
    });
    // 20 a minute: a burst of 2, then one every 3.33 s.
    await budget.admit(READ);
    await budget.admit(READ);
    await budget.admit(READ);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeCloseTo(3333, -1);
    const refused = await budget.admit({ ...READ, timeoutMs: 2000 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RateBudgetSpentError);
    expect((refused as RateBudgetSpentError).code).toBe('rate_limited');
    expect((refused as Error).message).toBe(
      "the bot's budget of cloud requests for this API key is spent (20 a minute, shared by every replica); the next request can go in 6.7 s",
    );
    expect((refused as RateBudgetSpentError).retryAfterSeconds).toBe(7);
    expect((refused as Error).message).not.toContain('cloud-secret');
    now = 60_000;
    await expect(budget.admit(READ)).resolves.toBeTypeOf('function');
  });

  it('keeps to this process’s bucket when the shared table cannot be reached', async () => {
    const failures: unknown[] = [];
    const down = { take: async () => Promise.reject(new StoreUnavailableError('database gone')) };
    const budget = new CloudBudget('k', 10, down, async () => undefined);
    budget.onSharedFailure = (error) => failures.push(error);
    await budget.admit({ ...READ, timeoutMs: 1 });
    await expect(budget.admit({ ...READ, timeoutMs: 1 })).rejects.toBeInstanceOf(RateBudgetSpentError);
    expect(failures).toHaveLength(2);
  });

  it('says once a minute, on the log, that the shared table failed', async () => {
    const lines: string[] = [];
    let now = 0;
    const logger = { warn: (_: unknown, message: string) => lines.push(message) } as unknown as Logger;
    const down = { take: async () => Promise.reject(new StoreUnavailableError('database gone')) };
    const budget = new CloudBudget('k', 600, down, async () => undefined).logTo(logger, () => now);
    await budget.admit(READ);
    await budget.admit(READ);
    expect(lines).toEqual([
      'the shared cloud rate budget cannot be read; this replica keeps to its own bucket meanwhile',
    ]);
    now = 60_000;
    await budget.admit(READ);
    expect(lines).toHaveLength(2);
  });

  it('keys the bucket by a hash, never the key itself', () => {
    const key = budgetKey('cloud-secret');
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(key).not.toContain('secret');
    expect(budgetKey('cloud-secret')).toBe(key);
    expect(budgetKey('another')).not.toBe(key);
  });
});
