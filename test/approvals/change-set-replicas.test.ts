import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Approvals } from '../../src/approvals/approvals.js';
import { silentLogger } from '../../src/log.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { useTestDatabase } from '../helpers/postgres.js';
import { useTestBot } from '../helpers/tool-test.js';
import { openApprovals } from './bot-harness.js';
import { ALEX, Clock, RITA, STAN } from './harness.js';

// A change set on two replicas sharing PostgreSQL runs once, and a set whose replica died
// mid-run is settled (compensated) by exactly one of the others.

const db = useTestDatabase();
const bot = useTestBot();
let clock: Clock;
const stores: PostgresStore[] = [];

const STEPS = [
  { tool: 'create_network', args: { name: 'Lab', vlan_id: 44, subnet: '10.44.0.0/24' } },
  { tool: 'update_network', args: { network_id: 'Lab', dhcp_dns_1: '9.9.9.9' } },
  { tool: 'update_network', args: { network_id: 'Guest', name: 'Visitors' } },
];

async function replica(leaseSeconds = 30): Promise<Approvals> {
  const store = await PostgresStore.open({ database: { url: db.url }, logger: silentLogger(), leaseSeconds });
  stores.push(store);
  return openApprovals(bot.app, store.changes(), clock);
}

const writes = () => bot.writes();

beforeEach(async () => {
  await db.reset();
  bot.sim.clearFaults();
  clock = new Clock();
});
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close().catch(() => undefined);
});

describe('change sets on two replicas sharing PostgreSQL', () => {
  it('run once for 10 concurrent approvals spread over both', async () => {
    const [a, b] = [await replica(), await replica()];
    const set = await a.proposeSet({ steps: STEPS, requester: RITA });
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).approve(set.id, i % 3 === 0 ? ALEX : STAN)),
    );
    const kinds = outcomes.map((o) => o.kind);
    expect(kinds.filter((k) => k === 'succeeded')).toHaveLength(1);
    expect(writes()).toHaveLength(3);
    expect(bot.site().networks.filter((n) => n.name === 'Lab')).toHaveLength(1);
    expect((await b.get(set.id))?.set?.steps.map((s) => s.status)).toEqual(['done', 'done', 'done']);
  });

  it('a set whose replica stopped mid-step is settled by the other, once: the step in flight read back, the steps before it reverted', async () => {
    const start = structuredClone(bot.site().networks);
    const a = await replica(1);
    const set = await a.proposeSet({ steps: STEPS, requester: RITA });
    // Deliberately alike: a controller write held in flight, the kill point of a set; one in-process replica, one killed process.
    let arrived: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let drop: (reason: Error) => void = () => undefined;
    bot.sim.injectFault({
      kind: 'hold',
      method: 'PUT',
      route: /rest\/networkconf|\/networks\/[^/]+$/,
      times: 2,
      until: (request) =>
        String((request.body as { name?: string } | undefined)?.name) === 'Visitors'
          ? new Promise<void>((_resolve, reject) => {
              drop = reject;
              arrived();
            })
          : Promise.resolve(),
    });
    const running = a.approve(set.id, ALEX);
    await inFlight;
    // Replica a stops renewing its lease (it died); b and c sweep together after it lapsed.
    await stores[0]?.close();
    await new Promise((r) => setTimeout(r, 1500));
    const [b, c] = [await replica(), await replica()];
    await Promise.all([b.sweep(), c.sweep()]);
    drop(new Error('replica a is gone'));
    await running.catch(() => undefined);
    const settled = await b.get(set.id);
    expect(settled?.state).toBe('failed');
    expect(settled?.set?.steps.map((s) => s.status)).toEqual(['reverted', 'reverted', 'failed']);
    expect(bot.site().networks).toEqual(start);
    const history = await b.history(set.id);
    expect(history?.events.filter((e) => e.type === 'set_step' && e.status === 'reverted')).toHaveLength(2);
  });
});
