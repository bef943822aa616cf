import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Approvals } from '../../src/approvals/approvals.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { openApprovals } from '../approvals/bot-harness.js';
import { ALEX, Clock, RITA, tempDataDir } from '../approvals/harness.js';
import { startTestBot, type TestBot } from '../helpers/test-bot.js';

// Issue 21: random sequences of approved writes, then approved reverts in reverse order, end with
// the controller's records exactly as before the sequence (networks, Wi-Fi, blocked clients).

let bot: TestBot;

// Networks with a domain name: clearing a field a network never had leaves it empty (""), not absent.
const NETWORKS = ['IoT', 'Cameras'];
const step = fc.oneof(
  fc.record({
    tool: fc.constant('update_network'),
    args: fc.record(
      {
        network_id: fc.constantFrom(...NETWORKS),
        name: fc.constantFrom('Alpha', 'Beta', 'Gamma'),
        vlan_id: fc.integer({ min: 70, max: 79 }),
        domain_name: fc.constantFrom('a.example', 'b.example'),
        dhcp_enabled: fc.boolean(),
      },
      { requiredKeys: ['network_id'] },
    ),
  }),
  fc.record({
    tool: fc.constant('create_network'),
    args: fc.record({
      name: fc.constantFrom('Lab', 'Lab2', 'Lab3'),
      vlan_id: fc.integer({ min: 80, max: 89 }),
      subnet: fc.integer({ min: 80, max: 89 }).map((n) => `10.${n}.0.0/24`),
    }),
  }),
  fc.record({
    tool: fc.constant('set_wifi_broadcast_enabled'),
    args: fc.record({ wifi_id: fc.constantFrom('Home', 'Guest WiFi'), enabled: fc.boolean() }),
  }),
  fc.record({
    tool: fc.constantFrom('block_client', 'unblock_client'),
    args: fc.record({ client: fc.constantFrom('Gaming PC', 'Apple TV') }),
  }),
);

/** What the controller holds that these writes may change. */
async function snapshot(): Promise<unknown> {
  const site = bot.site();
  const known = await bot.app.context.gateway.classicRead(
    'default',
    'rest/user',
    (await import('zod')).z.looseObject({}),
    {
      fresh: true,
    },
  );
  return {
    networks: structuredClone(site.networks),
    wlans: structuredClone(site.wlans),
    blocked: known.items
      .filter((c) => (c as { blocked?: boolean }).blocked === true)
      .map((c) => (c as { mac: string }).mac)
      .sort(),
  };
}

beforeAll(async () => {
  bot = await startTestBot();
});
afterAll(async () => {
  await bot.close();
});

describe('writes then approved reverts', () => {
  it('end with the records the sequence started from', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 5 }), async (steps) => {
        bot.sim.reset();
        const data = tempDataDir();
        const store = new FileStore(data.dir, { data: new MemoryStore() });
        try {
          const approvals: Approvals = await openApprovals(bot.app, store.changes(), new Clock());
          const start = await snapshot();
          const done: string[] = [];
          for (const { tool, args } of steps) {
            // A write the tool refuses (a name or VLAN in use, nothing to change) is not a change.
            const request = await approvals.propose({ tool, args, requester: RITA }).catch(() => undefined);
            if (!request) continue;
            const outcome = await approvals.approve(request.id, ALEX);
            if (outcome.kind === 'succeeded') done.push(request.id);
          }
          for (const id of done.reverse()) {
            const revert = await approvals.proposeRevert({ changeId: id, requester: RITA });
            const outcome = await approvals.approve(revert.id, ALEX);
            expect(outcome.kind, `revert of ${id}`).toBe('succeeded');
          }
          expect(await snapshot()).toEqual(start);
        } finally {
          await store.close();
          data.remove();
        }
      }),
      { numRuns: 12, seed: 21 },
    );
  }, 240_000);
});
