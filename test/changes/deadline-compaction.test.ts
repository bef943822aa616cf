import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEADLINES_FILE, FileDeadlineStore, KEEP_FINISHED_MS } from '../../src/store/file/deadline-file.js';
import { runScript } from '../helpers/script-process.js';

const WRITER = 'test/changes/deadline-writer.ts';
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), 'netops-compact-'));
  dirs.push(dir);
  return dir;
};
const T0 = Date.parse('2026-11-20T10:00:00Z');
const HOUR = 3_600_000;
const onDisk = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, DEADLINES_FILE), 'utf8')) as { deadlines: { changeId: string }[] })
    .deadlines;

/** A deadline taken through to `end` at `at` (fired, failed or kept), or left scheduled. */
async function deadline(
  store: FileDeadlineStore,
  changeId: string,
  end: 'fired' | 'failed' | 'kept' | 'scheduled',
  at: number,
) {
  const d = await store.schedule({ kind: 'keep_or_revert', changeId, dueAt: at + 60_000, at });
  if (end === 'kept') await store.cancel(d.id, at + 1_000, 'U0ALEX');
  if (end === 'fired' || end === 'failed') {
    await store.claim(d.id, at + 1_000, 'replica_a');
    await store.finish(d.id, end, at + 2_000, end === 'failed' ? 'the controller refused it' : undefined);
  }
}

describe('deadline file compaction', () => {
  it('drops deadlines fired or kept more than a day ago at the next tick, and keeps the rest', async () => {
    const dir = fresh();
    const store = new FileDeadlineStore(dir);
    for (let n = 0; n < 50; n++) await deadline(store, `cr_old_fired_${n}`, 'fired', T0);
    await deadline(store, 'cr_old_kept', 'kept', T0);
    await deadline(store, 'cr_old_failed', 'failed', T0);
    await deadline(store, 'cr_recent_fired', 'fired', T0 + KEEP_FINISHED_MS);
    await deadline(store, 'cr_waiting', 'scheduled', T0 + KEEP_FINISHED_MS + 2 * HOUR);
    const size = statSync(join(dir, DEADLINES_FILE)).size;

    // A tick finds nothing due, yet the file is rewritten without what is done with.
    const now = T0 + KEEP_FINISHED_MS + HOUR;
    expect(await store.claimDue(now, 'replica_a')).toEqual([]);
    expect(
      onDisk(dir)
        .map((d) => d.changeId)
        .sort(),
    ).toEqual(['cr_old_failed', 'cr_recent_fired', 'cr_waiting']);
    expect(statSync(join(dir, DEADLINES_FILE)).size).toBeLessThan(size / 10);
    expect(await store.compact(now)).toBe(0);
    // What is left still works: the waiting deadline fires once when due.
    const due = await store.claimDue(now + 2 * HOUR, 'replica_a');
    expect(due.map((d) => d.changeId)).toEqual(['cr_waiting']);
  });

  it('a compaction in one process loses nothing another process schedules at the same moment', async () => {
    const dir = fresh();
    const bot = new FileDeadlineStore(dir, {}, { keepFinishedMs: 0 });
    // The other process writes from the moment the bot starts its ticks, once it has loaded.
    const writer = await runScript(WRITER, [dir, 'con', '60', 'go']);
    await writer.ready;
    writer.go();
    // Meanwhile the bot fires its own deadlines one by one, and every tick compacts them away.
    for (let n = 0; n < 60; n++) {
      const now = Date.now();
      await deadline(bot, `cr_bot${n}`, 'fired', now - 10_000);
      await bot.claimDue(now, 'replica_a');
    }
    await writer.done;
    await bot.claimDue(Date.now() + 1_000, 'replica_a');
    const left = onDisk(dir).map((d) => d.changeId);
    expect(left.filter((id) => id.startsWith('cr_bot'))).toEqual([]);
    expect(left.filter((id) => id.startsWith('cr_con')).sort()).toEqual(
      Array.from({ length: 60 }, (_, n) => `cr_con${n}`).sort(),
    );
  }, 120_000);
});
