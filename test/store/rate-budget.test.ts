import { describe, expect, it } from 'vitest';
import { budgetKey, CloudBudget } from '../../src/fleet/rate-budget.js';
import { usePostgresReplicas } from '../helpers/postgres.js';

const { db, open } = usePostgresReplicas();

describe('the cloud rate budget shared in PostgreSQL', () => {
  it('two store clients taking at once never get more tokens together than the one bucket holds', async () => {
    const [a, b] = [await open(), await open()];
    const key = budgetKey('cloud-secret');
    const spec = { burst: 5, perSecond: 10 };
    const started = Date.now();
    const takes = await Promise.all(
      Array.from({ length: 120 }, (_, i) => (i % 2 === 0 ? a : b).rateBudget().take(key, spec, 0)),
    );
    const elapsedS = (Date.now() - started) / 1000;
    const granted = takes.filter((take) => take.granted).length;
    expect(granted).toBeGreaterThanOrEqual(spec.burst);
    expect(granted).toBeLessThanOrEqual(Math.floor(spec.burst + elapsedS * spec.perSecond));
    // Both clients were served from the same row, and a refusal says when the next token comes.
    const refused = takes.find((take) => !take.granted);
    expect(refused).toMatchObject({ granted: false });
    if (refused && !refused.granted) expect(refused.nextInMs).toBeLessThanOrEqual(100 + 1);
    const rows = await db.query('SELECT key_hash FROM netops_rate_budgets');
    expect(rows.rows).toEqual([{ key_hash: key }]);
  });

  it('queues requests that may wait: each replica’s reservations interleave, one token apart', async () => {
    const [a, b] = [await open(), await open()];
    const key = budgetKey('queued');
    const spec = { burst: 1, perSecond: 20 };
    const takes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).rateBudget().take(key, spec, 10_000)),
    );
    expect(takes.every((take) => take.granted)).toBe(true);
    const waits = takes.map((take) => (take.granted ? take.waitMs : Number.NaN)).sort((x, y) => x - y);
    // 40 tokens at 20 a second from a bucket of one: the last is about two seconds ahead (less
    // whatever refilled while the statements ran).
    expect(waits[0]).toBe(0);
    expect(waits.at(-1)).toBeGreaterThan(1500);
    expect(waits.at(-1)).toBeLessThanOrEqual(1950 + 1);
  });

  it('the guard of every gateway through the cloud takes from the shared row, never storing the key', async () => {
    const [a, b] = [await open(), await open()];
    const guards = [a, b].map((store) => new CloudBudget('cloud-secret', 30, store.rateBudget()));
    const read = { method: 'GET', url: 'https://api.ui.com/v1/hosts', timeoutMs: 2 };
    // 30 a minute: a burst of three for both replicas together.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => guards[i % 2]?.admit(read)),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
    const rejected = outcomes.find((o) => o.status === 'rejected');
    expect(rejected?.status === 'rejected' && String(rejected.reason)).toContain('shared by every replica');
    const stored = await db.query('SELECT * FROM netops_rate_budgets');
    expect(JSON.stringify(stored.rows)).not.toContain('cloud-secret');
  });
});
