import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Approvals } from '../../src/approvals/approvals.js';
import { consoleActor } from '../../src/approvals/console-requester.js';
import { NotAuthorizedError } from '../../src/errors.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { silentLogger } from '../../src/log.js';
import type { DeadlineStore } from '../../src/store/deadlines.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { useTestBot } from '../helpers/tool-test.js';
import { Clock, policyWith, tempDataDir } from './harness.js';

// A change confirmed at the console with a deadline: run only while a bot keeps deadlines for the
// store, and a deadline that cannot be stored is said on the change itself, never only logged.

const OPERATOR = consoleActor('rita');

const bot = useTestBot({ simulator: { apiVersion: '9.0' } });
// Deliberately alike: a fresh file store per test in its own temp dir, opened and closed by the suite that uses it.
let data: ReturnType<typeof tempDataDir>;
let store: FileStore;
beforeEach(() => {
  data = tempDataDir();
  store = new FileStore(data.dir, { data: new MemoryStore() });
});
afterEach(async () => {
  await store.close();
  data.remove();
});

function approvalsWith(options: { keeper?: string; deadlines?: DeadlineStore }) {
  return Approvals.open({
    store: store.changes(),
    registry: bot.app.registry,
    context: bot.app.context,
    policy: policyWith(),
    ttlSeconds: 900,
    logger: silentLogger(),
    now: new Clock().now,
    deadlines: options.deadlines ?? store.deadlines(),
    timerKeeper: async () => options.keeper,
  });
}

const puts = () =>
  bot.sim.requests.filter((r) => r.method === 'PUT' && r.route.includes('rest/networkconf')).length;

describe('a change confirmed at the console with a deadline', () => {
  it('is refused, with nothing sent, when no running bot keeps deadlines for the store', async () => {
    const approvals = await approvalsWith({});
    const preview = await approvals.previewChange({
      tool: 'update_network',
      args: { network_id: 'IoT', vlan_id: 25, for: '10m' },
      requester: OPERATOR,
    });
    expect(preview.timing.first).toMatchObject({ seconds: 600, kind: 'temporary', source: 'for=10m' });
    expect(preview.verdict).toMatchObject({
      verdict: 'refuse',
      reason: expect.stringMatching(/no running bot/),
    });
    await expect(
      approvals.runNow({
        tool: 'update_network',
        args: { network_id: 'IoT', vlan_id: 25, for: '10m' },
        requester: OPERATOR,
      }),
    ).rejects.toBeInstanceOf(NotAuthorizedError);
    expect(puts()).toBe(0);
  });

  it('runs with a keeper, and says on the change when its deadline could not be stored', async () => {
    const real = store.deadlines();
    const broken: DeadlineStore = {
      schedule: async () => {
        throw new Error('disk full');
      },
      get: (id) => real.get(id),
      list: (filter) => real.list(filter),
      claimDue: (at, by) => real.claimDue(at, by),
      claim: (id, at, by) => real.claim(id, at, by),
      cancel: (id, at, by) => real.cancel(id, at, by),
      finish: (id, outcome, at, note) => real.finish(id, outcome, at, note),
    };
    const approvals = await approvalsWith({ keeper: 'bot-1', deadlines: broken });
    const outcome = await approvals.runNow({
      tool: 'update_network',
      args: { network_id: 'IoT', vlan_id: 25, for: '10m' },
      requester: OPERATOR,
    });
    expect(outcome.kind).toBe('succeeded');
    expect(puts()).toBe(1);
    expect(outcome.request.forSeconds).toBe(600);
    expect(outcome.request.error).toMatchObject({
      code: 'revert_not_scheduled',
      message: expect.stringMatching(/disk full/),
    });
  });
});
