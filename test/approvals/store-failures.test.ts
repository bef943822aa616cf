import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { FileStore } from '../../src/store/file/file-store.js';
import type { TransitionEntry } from '../../src/store/journal-format.js';
import type { ChangeStore, TransitionGuard } from '../../src/store/types.js';
import { useTestBot } from '../helpers/tool-test.js';
import { openApprovals } from './bot-harness.js';
import { ALEX, Clock, RITA, tempDataDir } from './harness.js';

const LAB = { name: 'Lab', vlan_id: '44', subnet: '10.44.0.0/24' };

/** A store whose transitions of one type fail (as a database connection does) while `failing` is set. */
function flaky(store: ChangeStore, type: TransitionEntry['type']) {
  const state = { failing: true, failures: 0 };
  const wrapped: ChangeStore = Object.create(store) as ChangeStore;
  wrapped.transition = async (id: string, entry: TransitionEntry, guard: TransitionGuard) => {
    if (state.failing && entry.type === type) {
      state.failures += 1;
      throw new Error('connection terminated unexpectedly');
    }
    return store.transition(id, entry, guard);
  };
  return { store: wrapped, state };
}

const bot = useTestBot();
let data: ReturnType<typeof tempDataDir>;
let files: FileStore;

beforeEach(() => {
  data = tempDataDir();
  files = new FileStore(data.dir, { data: new MemoryStore() });
});
afterEach(async () => {
  await files.close();
  data.remove();
});

const posts = () => bot.writes().filter((r) => r.method === 'POST');

describe('when the store fails around a run', () => {
  it('tells the truth about a write that ran but could not be recorded, and records it at the next sweep', async () => {
    const { store, state } = flaky(files.changes(), 'succeeded');
    const approvals = await openApprovals(bot.app, store, new Clock());
    const request = await approvals.propose({ tool: 'create_network', args: LAB, requester: RITA });

    const outcome = await approvals.approve(request.id, ALEX);
    const meanwhile = (await approvals.get(request.id))?.state;
    state.failing = false;
    await approvals.sweep();

    expect(outcome).toMatchObject({ kind: 'succeeded', request: { state: 'succeeded' } });
    expect(state.failures).toBe(1);
    expect(meanwhile).toBe('executing');
    expect(await approvals.get(request.id)).toMatchObject({ state: 'succeeded', result: { success: true } });
    expect(posts()).toHaveLength(1);
    expect((await approvals.history(request.id))?.events.map((e) => e.type)).toEqual([
      'created',
      'approved',
      'executing',
      'succeeded',
    ]);
  });

  it('runs nothing when the step before the write cannot be recorded, and says so', async () => {
    const { store } = flaky(files.changes(), 'executing');
    const approvals = await openApprovals(bot.app, store, new Clock());
    const request = await approvals.propose({ tool: 'create_network', args: LAB, requester: RITA });

    const outcome = await approvals.approve(request.id, ALEX);

    expect(outcome).toMatchObject({ kind: 'failed', error: { code: 'internal_error' } });
    expect(outcome.kind === 'failed' && outcome.error.message).toMatch(/^not run: connection terminated/);
    expect(await approvals.get(request.id)).toMatchObject({ state: 'failed' });
    expect(posts()).toEqual([]);
  });
});
