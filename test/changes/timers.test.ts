import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ChangeTimers,
  type RevertPort,
  type RevertReason,
  type TimerEvent,
} from '../../src/changes/timers.js';
import { ConflictError, NotAuthorizedError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import type { ChangeRequest } from '../../src/model/change-request.js';
import { FileDeadlineStore } from '../../src/store/file/deadline-file.js';
import { succeededChange } from '../helpers/timed-change.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const T0 = Date.parse('2030-01-01T00:00:00.000Z');

function change(id: string, extra: Record<string, unknown>): ChangeRequest {
  return succeededChange(
    T0,
    { id, tool: 'update_firewall_rule', args: { rule_id: 'r1', enabled: false } },
    extra,
  );
}

/** A world of timers: one DATA_DIR, a clock, a fake revert port that counts its calls. */
function world(options: { revertFails?: boolean; reachable?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'netops-timers-'));
  dirs.push(dir);
  const clock = { now: T0 };
  const changes = new Map<string, ChangeRequest>();
  const reverts: { changeId: string; reason: RevertReason }[] = [];
  const events: TimerEvent[] = [];
  const revert: RevertPort = {
    async revertAutomatically(input) {
      reverts.push(input);
      if (options.revertFails) {
        return { kind: 'failed', error: { code: 'gateway_rejected', message: 'the controller refused it' } };
      }
      return { kind: 'succeeded', request: change(`cr_revert_${reverts.length}`, {}) };
    },
  };
  const listeners = new Set<(r: ChangeRequest) => void>();
  const timers = (replicaId = 'replica_a') =>
    new ChangeTimers({
      deadlines: new FileDeadlineStore(dir),
      revert,
      getChange: async (id) => changes.get(id),
      replicaId,
      logger: silentLogger(),
      onChange: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      gate: {
        mayKeep: async (_request, user) =>
          user.userId === 'U0ALEX'
            ? { ok: true }
            : { ok: false, reason: 'only members of APPROVERS may approve' },
        mayRevertNow: async (_request, user) =>
          user.userId === 'U0ALEX'
            ? { ok: true }
            : { ok: false, reason: 'only members of APPROVERS may approve' },
      },
      notifier: { report: async (event) => void events.push(event) },
      probe: async () => options.reachable ?? true,
      now: () => clock.now,
      tickMs: 3_600_000,
      probeAfterMs: 5_000,
      probeBeforeMs: 10_000,
    });
  const succeed = (request: ChangeRequest) => {
    changes.set(request.id, request);
    for (const listener of listeners) listener(request);
  };
  return { dir, clock, changes, reverts, events, timers, succeed };
}

describe('keep-or-revert and temporary changes', () => {
  it('reverts a revert_after change nobody kept, once, and reports it', async () => {
    const w = world();
    const timers = w.timers();
    const scheduled = await timers.noticeChange(change('cr_one', { revertAfterSeconds: 30 }));
    expect(scheduled).toMatchObject({ kind: 'keep_or_revert', state: 'scheduled' });

    // Deliberately alike: the deadline edge: one tick before it nothing happens, at it the revert runs once.
    w.clock.now = T0 + 29_000;
    await timers.tick();
    expect(w.reverts).toEqual([]);
    w.clock.now = T0 + 30_000;
    await timers.tick();
    await timers.tick();

    expect(w.reverts).toEqual([{ changeId: 'cr_one', reason: 'keep_timeout' }]);
    expect(w.events.map((e) => e.kind)).toEqual(['scheduled', 'reverted']);
    expect(w.events[1]?.text).toContain('reverted automatically: nobody kept it before its deadline');
  });

  it('does not revert a change someone allowed to approve kept before the deadline', async () => {
    const w = world();
    const timers = w.timers();
    w.changes.set('cr_kept', change('cr_kept', { revertAfterSeconds: 30 }));
    await timers.noticeChange(change('cr_kept', { revertAfterSeconds: 30 }));

    w.clock.now = T0 + 10_000;
    await expect(timers.keep('cr_kept', { userId: 'U0SAM' })).rejects.toBeInstanceOf(NotAuthorizedError);
    const kept = await timers.keep('cr_kept', { userId: 'U0ALEX', name: 'alex' });
    w.clock.now = T0 + 60_000;
    await timers.tick();

    expect(kept.state).toBe('cancelled');
    expect(w.reverts).toEqual([]);
    expect(w.events.map((e) => e.kind)).toEqual(['scheduled', 'kept']);
    await expect(timers.keep('cr_kept', { userId: 'U0ALEX' })).rejects.toBeInstanceOf(ConflictError);
  });

  it('refuses a Keep that comes after the deadline', async () => {
    const w = world();
    const timers = w.timers();
    w.changes.set('cr_late', change('cr_late', { revertAfterSeconds: 30 }));
    await timers.noticeChange(change('cr_late', { revertAfterSeconds: 30 }));

    w.clock.now = T0 + 30_000;
    await expect(timers.keep('cr_late', { userId: 'U0ALEX' })).rejects.toThrow(/too late to keep/);
    await timers.tick();
    expect(w.reverts).toHaveLength(1);
  });

  it('schedules from approvals.onChange and reverts a for= change with reason temporary', async () => {
    const w = world();
    const timers = w.timers();
    timers.start();
    try {
      w.succeed(change('cr_temp', { forSeconds: 120 }));
      await timers.stop();
      w.clock.now = T0 + 120_000;
      await timers.tick();
    } finally {
      await timers.stop();
    }
    expect(w.reverts).toEqual([{ changeId: 'cr_temp', reason: 'temporary' }]);
  });

  it('fires a deadline that passed while the bot was down when it starts again, once', async () => {
    const w = world();
    await w.timers().noticeChange(change('cr_down', { revertAfterSeconds: 30 }));

    w.clock.now = T0 + 3_600_000;
    const restarted = w.timers('replica_restarted');
    restarted.start();
    await restarted.tick();
    await restarted.stop();

    expect(w.reverts).toEqual([{ changeId: 'cr_down', reason: 'keep_timeout' }]);
  });

  it('fires once with two processes ticking at the same moment', async () => {
    const w = world();
    await w.timers().noticeChange(change('cr_two', { forSeconds: 10 }));
    const a = w.timers('replica_a');
    const b = w.timers('replica_b');

    w.clock.now = T0 + 10_000;
    await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);

    expect(w.reverts).toHaveLength(1);
  });

  it('reports a failed automatic revert with what was left, and never retries it', async () => {
    const w = world({ revertFails: true });
    const timers = w.timers();
    await timers.noticeChange(change('cr_fail', { revertAfterSeconds: 5 }));

    w.clock.now = T0 + 5_000;
    await timers.tick();
    w.clock.now = T0 + 60_000;
    await timers.tick();

    expect(w.reverts).toHaveLength(1);
    const failed = w.events.find((e) => e.kind === 'revert_failed');
    expect(failed?.deadline).toMatchObject({ state: 'failed', note: 'the controller refused it' });
    expect(failed?.text).toContain('could NOT be reverted automatically');
    expect(failed?.text).toContain('not retried');
  });

  it('reverts at once (reason unreachable) when the probe after the write cannot read the controller', async () => {
    const w = world({ reachable: false });
    const timers = w.timers();
    await timers.noticeChange(change('cr_lockout', { revertAfterSeconds: 300 }));

    w.clock.now = T0 + 4_000;
    await timers.tick();
    expect(w.reverts).toEqual([]);
    w.clock.now = T0 + 5_000;
    await timers.tick();
    await timers.tick();

    expect(w.reverts).toEqual([{ changeId: 'cr_lockout', reason: 'unreachable' }]);
  });

  it('lists pending reverts with the time left, and ignores untimed or unfinished changes', async () => {
    const w = world();
    const timers = w.timers();
    w.changes.set('cr_p', change('cr_p', { forSeconds: 7200 }));
    expect(await timers.noticeChange(change('cr_plain', {}))).toBeUndefined();
    expect(
      await timers.noticeChange(change('cr_pending', { state: 'pending', forSeconds: 60 })),
    ).toBeUndefined();
    await timers.noticeChange(change('cr_p', { forSeconds: 7200 }));

    w.clock.now = T0 + 60_000;
    const pending = await timers.pending();

    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ msLeft: 7_140_000, change: { id: 'cr_p' } });
  });
});
