import { beforeEach, describe, expect, it } from 'vitest';
import type { Approvals } from '../../src/approvals/approvals.js';
import { CHANGE_VERIFIED } from '../helpers/journal-events.js';
import { usePostgresReplicas } from '../helpers/postgres.js';
import { useTestBot } from '../helpers/tool-test.js';
import { openApprovals } from './bot-harness.js';
import { ALEX, Clock, RITA, STAN } from './harness.js';

const LAB = { name: 'Lab', vlan_id: '44', subnet: '10.44.0.0/24' };

const { stores, open } = usePostgresReplicas();
const bot = useTestBot();
let clock: Clock;

/** One replica: its own store (pool, lease) on the shared database, over the same controller. */
async function replica(ttl = 900): Promise<Approvals> {
  const store = await open();
  return openApprovals(bot.app, store.changes(), clock, undefined, ttl);
}

const posts = () => bot.writes().filter((r) => r.method === 'POST');

beforeEach(() => {
  clock = new Clock();
});

describe('approvals on two replicas sharing PostgreSQL', () => {
  it('run a change once for 20 concurrent approvals spread over both', async () => {
    const [a, b] = [await replica(), await replica()];
    const request = await a.propose({ tool: 'create_network', args: LAB, requester: RITA });

    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? a : b).approve(request.id, i % 3 === 0 ? ALEX : STAN),
      ),
    );

    const kinds = outcomes.map((o) => o.kind);
    expect(kinds.filter((k) => k === 'succeeded')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'already')).toHaveLength(19);
    expect(posts()).toHaveLength(1);
    expect(bot.site().networks.filter((n) => n.name === 'Lab')).toHaveLength(1);
    const history = await b.history(request.id);
    expect(history?.events.map((e) => e.type)).toEqual([...CHANGE_VERIFIED]);
    expect(await stores[0]?.changes().verifyJournal()).toMatchObject({ ok: true, events: 5 });
  });

  it('approve on one replica what was proposed on the other', async () => {
    const [a, b] = [await replica(), await replica()];
    const request = await a.propose({ tool: 'create_network', args: LAB, requester: RITA });
    await a.attachMessage(request.id, { channel: 'C0OPS', ts: '1.2' });

    const outcome = await b.approve(request.id, ALEX);

    expect(outcome).toMatchObject({ kind: 'succeeded', request: { state: 'succeeded', approver: ALEX } });
    expect(await a.get(request.id)).toMatchObject({
      state: 'succeeded',
      message: { channel: 'C0OPS', ts: '1.2' },
    });
    expect(posts()).toHaveLength(1);
  });

  it('supersede an identical pending request made on the other replica', async () => {
    const [a, b] = [await replica(), await replica()];
    const first = await a.propose({ tool: 'create_network', args: LAB, requester: RITA });

    const second = await b.propose({ tool: 'create_network', args: LAB, requester: STAN });

    expect(second.replaces).toBe(first.id);
    expect(await a.get(first.id)).toMatchObject({ state: 'superseded', supersededBy: second.id });
    expect((await a.list({ state: 'pending' })).map((r) => r.id)).toEqual([second.id]);
  });

  it('expire each overdue request once, whichever replica sweeps', async () => {
    const [a, b] = [await replica(60), await replica(60)];
    const request = await a.propose({ tool: 'create_network', args: LAB, requester: RITA });
    clock.advance(61);

    const sweeps = await Promise.all([a.sweep(), b.sweep()]);

    expect(sweeps.flatMap((s) => s.expired.map((r) => r.id))).toEqual([request.id]);
    expect(await b.approve(request.id, ALEX)).toMatchObject({ kind: 'expired' });
    expect(bot.writes()).toEqual([]);
  });

  it('hand the reminder of a waiting request to one replica of several sweeping at once', async () => {
    const [a, b, c] = [await replica(), await replica(), await replica()];
    const request = await a.propose({ tool: 'create_network', args: LAB, requester: RITA });
    await a.attachMessage(request.id, { channel: 'C0OPS', ts: '1.2' });
    clock.advance(301);

    const claims = await Promise.all([a, b, c, a, b, c].map((r) => r.claimReminders(300)));
    const later = await b.claimReminders(300);

    expect(claims.flat().map((r) => r.id)).toEqual([request.id]);
    expect(later).toEqual([]);
    const events = (await c.history(request.id))?.events.map((e) => e.type);
    expect(events).toEqual(['created', 'message', 'reminded']);
  });
});
