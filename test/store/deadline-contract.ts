import { describe, expect, it } from 'vitest';
import type { DeadlineStore } from '../../src/store/deadlines.js';

/** Two stores on the same data (two processes on one DATA_DIR, two replicas on one database). */
export interface DeadlineHarness {
  fresh(): Promise<{ a: DeadlineStore; b: DeadlineStore; reopen(): Promise<DeadlineStore> }>;
}

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const at = (s: number) => T0 + s * 1000;

/** The behaviour every deadline store must have: the same tests run on files and on PostgreSQL. */
export function describeDeadlineContract(name: string, harness: DeadlineHarness): void {
  describe(`deadline store contract: ${name}`, () => {
    it('schedules one deadline per change and kind, and lists them soonest first', async () => {
      const { a, b } = await harness.fresh();
      const late = await a.schedule({ kind: 'temporary', changeId: 'cr_late', dueAt: at(300), at: at(0) });
      const soon = await a.schedule({
        kind: 'keep_or_revert',
        changeId: 'cr_soon',
        dueAt: at(30),
        at: at(0),
      });
      const again = await b.schedule({ kind: 'temporary', changeId: 'cr_late', dueAt: at(999), at: at(1) });

      expect(again.id).toBe(late.id);
      expect(again.dueAt).toBe(new Date(at(300)).toISOString());
      expect((await b.list()).map((d) => d.id)).toEqual([soon.id, late.id]);
      expect(await b.get(soon.id)).toMatchObject({
        kind: 'keep_or_revert',
        changeId: 'cr_soon',
        state: 'scheduled',
        createdAt: new Date(at(0)).toISOString(),
      });
      expect((await a.list({ changeId: 'cr_late' })).map((d) => d.id)).toEqual([late.id]);
    });

    it('claims only what is due, once: a second look finds nothing', async () => {
      const { a, b } = await harness.fresh();
      const due = await a.schedule({ kind: 'temporary', changeId: 'cr_due', dueAt: at(10), at: at(0) });
      await a.schedule({ kind: 'temporary', changeId: 'cr_later', dueAt: at(100), at: at(0) });

      const claimed = await a.claimDue(at(10), 'replica_a');
      const second = await b.claimDue(at(20), 'replica_b');

      expect(claimed.map((d) => d.id)).toEqual([due.id]);
      expect(claimed[0]).toMatchObject({ state: 'claimed', claimedBy: 'replica_a' });
      expect(second).toEqual([]);
    });

    it('gives each due deadline to exactly one of many concurrent claimers on two stores', async () => {
      const { a, b } = await harness.fresh();
      const ids: string[] = [];
      for (let n = 0; n < 12; n++) {
        ids.push((await a.schedule({ kind: 'temporary', changeId: `cr_${n}`, dueAt: at(n), at: at(0) })).id);
      }

      const rounds = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? a : b).claimDue(at(60), `replica_${i}`)),
      );

      const all = rounds.flat().map((d) => d.id);
      expect(all.sort()).toEqual([...ids].sort());
      expect(new Set(all).size).toBe(ids.length);
    });

    it('keeps (cancels) only before the deadline and only while scheduled', async () => {
      const { a, b } = await harness.fresh();
      const kept = await a.schedule({ kind: 'keep_or_revert', changeId: 'cr_k', dueAt: at(60), at: at(0) });
      const late = await a.schedule({ kind: 'keep_or_revert', changeId: 'cr_l', dueAt: at(60), at: at(0) });

      expect(await b.cancel(kept.id, at(59), 'U0ALEX')).toMatchObject({
        state: 'cancelled',
        finishedBy: 'U0ALEX',
      });
      expect(await b.cancel(late.id, at(60), 'U0ALEX')).toBeUndefined();
      expect(await a.claimDue(at(61), 'replica_a')).toMatchObject([{ id: late.id }]);
      expect(await b.cancel(late.id, at(10), 'U0ALEX')).toBeUndefined();
      expect(await a.cancel(kept.id, at(1), 'U0SAM')).toBeUndefined();
    });

    it('claims one deadline early (Revert now) once, and finishes only a claimed one', async () => {
      const { a, b } = await harness.fresh();
      const d = await a.schedule({ kind: 'temporary', changeId: 'cr_now', dueAt: at(3600), at: at(0) });

      expect(await b.finish(d.id, 'fired', at(1))).toBeUndefined();
      const [one, two] = await Promise.all([
        a.claim(d.id, at(2), 'replica_a'),
        b.claim(d.id, at(2), 'replica_b'),
      ]);
      expect([one, two].filter(Boolean)).toHaveLength(1);
      expect(await a.finish(d.id, 'failed', at(3), 'the controller refused the revert')).toMatchObject({
        state: 'failed',
        note: 'the controller refused the revert',
      });
      expect(await b.finish(d.id, 'fired', at(4))).toBeUndefined();
      expect(await a.claimDue(at(99_999), 'replica_a')).toEqual([]);
    });

    it('keeps deadlines across a restart: one that fell due while nothing ran is claimed at the next look', async () => {
      const { a, reopen } = await harness.fresh();
      const d = await a.schedule({ kind: 'keep_or_revert', changeId: 'cr_down', dueAt: at(30), at: at(0) });

      const restarted = await reopen();

      expect(await restarted.claimDue(at(600), 'replica_new')).toMatchObject([
        { id: d.id, state: 'claimed' },
      ]);
    });
  });
}
