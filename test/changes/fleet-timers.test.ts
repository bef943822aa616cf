import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inverseOf } from '../../src/changes/revert.js';
import { ChangeTimers, type RevertReason } from '../../src/changes/timers.js';
import { silentLogger } from '../../src/log.js';
import type { ChangeRequest } from '../../src/model/change-request.js';
import { FileDeadlineStore } from '../../src/store/file/deadline-file.js';
import { succeededChange } from '../helpers/timed-change.js';

// A fleet's timed change is probed and reverted on the console it was made on: the change request
// keeps `console` in its arguments, and its revert carries it on.

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const T0 = Date.parse('2030-01-01T00:00:00.000Z');

function created(args: Record<string, unknown>, extra: Record<string, unknown> = {}): ChangeRequest {
  return succeededChange(
    T0,
    { id: 'cr_fleet_network', tool: 'create_network', args: { name: 'Lab', vlan_id: 40, ...args } },
    { result: { network: { id: 'net-new-1', name: 'Lab' } }, ...extra },
  );
}

describe("a fleet's timed changes", () => {
  it('are undone on the console they were made on; a one-console change names none', () => {
    const fleet = inverseOf(created({ console: 'munich' }));
    expect(fleet).toMatchObject({
      tool: 'delete_network',
      args: { console: 'munich', network_id: 'net-new-1' },
    });
    const single = inverseOf(created({}));
    expect(single).toMatchObject({ tool: 'delete_network', args: { network_id: 'net-new-1' } });
    expect('args' in single && 'console' in single.args).toBe(false);
  });

  it('are probed on their console, and reverted at once when that console cannot be read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'netops-fleet-timers-'));
    dirs.push(dir);
    const clock = { now: T0 };
    const request = created({ console: 'munich' }, { revertAfterSeconds: 300 });
    const probes: { site: string; console: string | undefined }[] = [];
    const reverts: { changeId: string; reason: RevertReason }[] = [];
    const timers = new ChangeTimers({
      deadlines: new FileDeadlineStore(dir),
      revert: {
        async revertAutomatically(input) {
          reverts.push(input);
          return { kind: 'succeeded', request: created({ console: 'munich' }, { id: 'cr_revert' }) };
        },
      },
      getChange: async (id) => (id === request.id ? request : undefined),
      replicaId: 'replica_a',
      logger: silentLogger(),
      // Only berlin answers: munich, where the change was made, does not.
      probe: async (site, console) => {
        probes.push({ site, console });
        return console === 'berlin';
      },
      now: () => clock.now,
      tickMs: 3_600_000,
      probeAfterMs: 5_000,
      probeBeforeMs: 10_000,
    });
    await timers.noticeChange(request);
    clock.now = T0 + 5_000;
    await timers.tick();
    await timers.tick();

    expect(probes).toEqual([{ site: 'default', console: 'munich' }]);
    expect(reverts).toEqual([{ changeId: request.id, reason: 'unreachable' }]);
    await timers.stop();
  });
});
