import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChangeTimers } from '../../../src/changes/timers.js';
import { ConflictError, NotSupportedError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/log.js';
import type { ChangeRequest } from '../../../src/model/change-request.js';
import { FileDeadlineStore } from '../../../src/store/file/deadline-file.js';
import { keepChange } from '../../../src/tools/bot/keep-tools.js';
import type { ToolContext } from '../../../src/tools/core/define-tool.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const ID = 'cr_aaaaaaaaaaaaaaaaaaaa';
const T0 = Date.parse('2030-01-01T00:00:00.000Z');

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'netops-keep-'));
  dirs.push(dir);
  const clock = { now: T0 };
  const deadlines = new FileDeadlineStore(dir);
  const request = {
    id: ID,
    tool: 'update_firewall_rule',
    site: 'default',
    state: 'succeeded',
    revertAfterSeconds: 300,
  } as unknown as ChangeRequest;
  const reverts: string[] = [];
  const timers = new ChangeTimers({
    deadlines,
    revert: {
      async revertAutomatically(input) {
        reverts.push(input.changeId);
        return { kind: 'succeeded' };
      },
    },
    getChange: async (id) => (id === ID ? request : undefined),
    replicaId: 'replica_t',
    logger: silentLogger(),
    // The gate (test/approvals/gate.test.ts) lets only U0ALEX keep this change.
    gate: {
      mayKeep: async (_change, actor) =>
        actor.userId === 'U0ALEX' ? { ok: true } : { ok: false, reason: 'only U0ALEX may keep it' },
      mayRevertNow: async () => ({ ok: false, reason: 'not here' }),
    },
    now: () => clock.now,
  });
  // keep_change runs as an approved change: the runner puts who approved it in the context.
  const context = { changeTimers: timers, actor: { userId: 'U0ALEX' } } as unknown as ToolContext;
  return { timers, context, clock, request, reverts, deadlines };
}

describe('keep_change', () => {
  it('previews the pending revert, then keeps the change so the deadline does not revert it', async () => {
    const s = setup();
    await s.timers.noticeChange(s.request);

    const preview = await keepChange.run({ change_id: ID, dry_run: true }, s.context);
    const sam = { ...s.context, actor: { userId: 'U0SAM' } } as ToolContext;
    await expect(keepChange.run({ change_id: ID, confirm: true }, sam)).rejects.toThrow(
      /only U0ALEX may keep it/,
    );
    const kept = await keepChange.run({ change_id: ID, confirm: true }, s.context);
    s.clock.now = T0 + 600_000;
    await s.timers.tick();

    expect(preview).toMatchObject({
      dry_run: true,
      would_keep: {
        change_id: ID,
        revert: 'keep_or_revert',
        revert_due_at: new Date(T0 + 300_000).toISOString(),
      },
    });
    expect(kept).toMatchObject({ change_id: ID, kept: true });
    expect(s.reverts).toEqual([]);
    expect(await s.deadlines.list({ changeId: ID })).toMatchObject([{ state: 'cancelled' }]);
  });

  it('says there is nothing to keep when no revert is pending, and refuses to run then', async () => {
    const s = setup();

    expect(await keepChange.run({ change_id: ID, dry_run: true }, s.context)).toMatchObject({
      dry_run: true,
      nothing_to_change: true,
    });
    await expect(keepChange.run({ change_id: ID, confirm: true }, s.context)).rejects.toBeInstanceOf(
      ConflictError,
    );
  });

  it('refuses in a process without timers (its preview says it cannot tell), and validates the change id', async () => {
    await expect(keepChange.run({ change_id: ID, confirm: true }, {} as ToolContext)).rejects.toBeInstanceOf(
      NotSupportedError,
    );
    await expect(keepChange.run({ change_id: ID, dry_run: true }, {} as ToolContext)).resolves.toMatchObject({
      dry_run: true,
      warnings: [expect.stringContaining('runs no change timers')],
    });
    expect(keepChange.args.safeParse({ change_id: 'nope' }).success).toBe(false);
  });
});
