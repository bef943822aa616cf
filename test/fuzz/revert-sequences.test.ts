import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Approvals } from '../../src/approvals/approvals.js';
import { inverseOf } from '../../src/changes/revert.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { openApprovals } from '../approvals/bot-harness.js';
import { ALEX, Clock, RITA, STAN, tempDataDir } from '../approvals/harness.js';
import type { TestBot } from '../helpers/test-bot.js';
import { useTestBots } from '../helpers/tool-test.js';

// Random sequences of approved writes, then approved reverts in reverse order, end with
// the controller's records exactly as before the sequence (networks, Wi-Fi, blocked clients; and
// firewall policies, ACL rules and their order, zones, traffic routes and matching lists).

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

// The firewall and traffic kinds: updates of the demo's objects, creates, zone membership. Deletes
// are left out: a delete reverted re-creates with a new id, so an earlier create's revert (which
// deletes by id) finds nothing; test/changes/firewall-revert.test.ts covers delete → revert.
const firewallStep = fc.oneof(
  fc.record({
    tool: fc.constant('update_firewall_policy'),
    args: fc.record(
      {
        policy_id: fc.constantFrom('Block IoT to Internal', 'Allow Plex from WAN', 'Cameras: no internet'),
        name: fc.constantFrom('P1', 'P2'),
        action: fc.constantFrom('ALLOW', 'BLOCK', 'REJECT'),
        enabled: fc.boolean(),
        logging: fc.boolean(),
        description: fc.constantFrom('', 'changed'),
      },
      { requiredKeys: ['policy_id'] },
    ),
  }),
  fc.record({
    tool: fc.constant('create_firewall_policy'),
    args: fc.record({
      name: fc.constantFrom('New policy', 'Another policy'),
      action: fc.constantFrom('ALLOW', 'BLOCK'),
      source_zone: fc.constant('IoT Devices'),
      destination_zone: fc.constantFrom('Internal', 'External'),
    }),
  }),
  fc.record({
    tool: fc.constant('update_acl_rule'),
    args: fc.record(
      {
        acl_rule_id: fc.constantFrom('Block IoT to NAS', 'Allow cameras to NVR', 'Block guest SSH'),
        name: fc.constantFrom('R1', 'R2'),
        enabled: fc.boolean(),
        priority: fc.integer({ min: 1, max: 4 }),
        description: fc.constantFrom('', 'changed'),
        protocol: fc.constantFrom('tcp', 'udp', 'all'),
        destination_network: fc.constantFrom('192.168.1.30', '10.9.0.0/24'),
      },
      { requiredKeys: ['acl_rule_id'] },
    ),
  }),
  fc.record({
    tool: fc.constant('create_acl_rule'),
    args: fc.record({
      name: fc.constantFrom('New rule', 'Another rule'),
      action: fc.constantFrom('allow', 'deny'),
      priority: fc.integer({ min: 1, max: 5 }),
    }),
  }),
  fc.record({
    tool: fc.constant('update_firewall_zone'),
    args: fc.record(
      {
        firewall_zone_id: fc.constant('IoT Devices'),
        name: fc.constantFrom('Things', 'Sensors'),
        network_ids: fc.subarray(['IoT', 'Cameras']),
      },
      { requiredKeys: ['firewall_zone_id'] },
    ),
  }),
  fc.record({
    tool: fc.constant('create_firewall_zone'),
    args: fc.record({ name: fc.constantFrom('Lab', 'Benches') }),
  }),
  fc.record({
    tool: fc.constantFrom('assign_network_to_zone', 'unassign_network_from_zone'),
    args: fc.record({
      zone_id: fc.constantFrom('IoT Devices', 'Dmz', 'Internal'),
      network_id: fc.constantFrom('IoT', 'Cameras', 'Servers'),
    }),
  }),
  fc.record({
    tool: fc.constant('update_traffic_route'),
    args: fc.record({
      route_id: fc.constantFrom('Guest bandwidth cap', 'Block social media on IoT'),
      enabled: fc.boolean(),
    }),
  }),
  fc.record({
    tool: fc.constant('create_traffic_route'),
    args: fc.record({
      name: fc.constantFrom('Block DNS bypass', 'Cap IoT'),
      action: fc.constant('deny'),
      destination_ip: fc.constantFrom('1.1.1.1', '8.8.8.8'),
      vlan_id: fc.constant(20),
    }),
  }),
  fc.record({
    tool: fc.constant('update_traffic_matching_list'),
    args: fc.record(
      {
        list_id: fc.constant('Web Ports'),
        name: fc.constantFrom('L1', 'L2'),
        items: fc.subarray(['80', '443', '8000-8100'], { minLength: 1 }),
      },
      { requiredKeys: ['list_id'] },
    ),
  }),
  fc.record({
    tool: fc.constant('create_traffic_matching_list'),
    args: fc.record({
      list_type: fc.constant('PORTS'),
      name: fc.constantFrom('Mail Ports', 'Game Ports'),
      items: fc.subarray(['25', '465', '3074'], { minLength: 1 }),
    }),
  }),
);

/**
 * How many sequences of firewall writes: 3 in `npm test` (about a second each), FUZZ_RUNS with
 * `npm run fuzz`, at most 100 (60 took about a minute on 2 cores).
 */
const FIREWALL_RUNS = Math.min(100, Math.max(1, Number(process.env.FUZZ_RUNS ?? 0) || 3));

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
    ...firewallRecords(),
    networks: structuredClone(site.networks),
    wlans: structuredClone(site.wlans),
    blocked: known.items
      .filter((c) => (c as { blocked?: boolean }).blocked === true)
      .map((c) => (c as { mac: string }).mac)
      .sort(),
  };
}

/**
 * The firewall and traffic records. A zone's networks are compared as a set: a network moved back
 * to its old zone goes last in its list, and the order of a zone's networks means nothing.
 */
function firewallRecords() {
  const site = bot.site();
  return structuredClone({
    firewallPolicies: site.firewallPolicies,
    zones: site.zones.map((zone) => ({ ...zone, networkIds: [...zone.networkIds].sort() })),
    aclRules: site.aclRules,
    aclOrdering: site.aclOrdering,
    trafficRules: site.trafficRules,
    trafficMatchingLists: site.trafficMatchingLists,
  });
}

/** Approves as the default policy asks: a second approver for a high-risk change. */
async function approveFully(approvals: Approvals, id: string) {
  const first = await approvals.approve(id, ALEX);
  return first.kind === 'endorsed' ? approvals.approve(id, STAN) : first;
}

/** Runs `steps` approved, then reverts every one that ran, newest first, each approved. */
async function writesThenReverts(steps: { tool: string; args: Record<string, unknown> }[]) {
  const data = tempDataDir();
  const store = new FileStore(data.dir, { data: new MemoryStore() });
  try {
    const approvals: Approvals = await openApprovals(bot.app, store.changes(), new Clock());
    const done: string[] = [];
    for (const { tool, args } of steps) {
      // A write the tool refuses (a name or VLAN in use, nothing to change) is not a change.
      const request = await approvals.propose({ tool, args, requester: RITA }).catch(() => undefined);
      if (!request) continue;
      const outcome = await approveFully(approvals, request.id);
      if (outcome.kind === 'succeeded') done.push(request.id);
    }
    for (const id of done.reverse()) {
      // An update that changed nothing (the policy, ACL and zone tools propose it all the same)
      // has nothing to revert, and says so; every other change is reverted.
      const ran = await approvals.get(id);
      const plan = ran ? inverseOf(ran) : undefined;
      if (plan && 'reason' in plan && /left no field .* different|changed nothing/.test(plan.reason))
        continue;
      const revert = await approvals.proposeRevert({ changeId: id, requester: RITA });
      const outcome = await approveFully(approvals, revert.id);
      expect(outcome.kind, `revert of ${id}`).toBe('succeeded');
    }
    return done.length;
  } finally {
    await store.close();
    data.remove();
  }
}

// Networks are written through the official API on 10.1 (the default) and through networkconf on 9.0.
const [official, classic] = useTestBots({}, { simulator: { apiVersion: '9.0' } });
beforeAll(() => {
  bot = official;
});

/**
 * On 10.1 a network whose DHCP server is off has no DHCP settings in the official model, so
 * turning it off and back on starts from the default lease time (the preview says so): the
 * 10.1 run leaves `dhcp_enabled=false` out; the 9.0 run keeps it.
 */
const onOfficial = (steps: { tool: string; args: Record<string, unknown> }[]) =>
  steps.map((s) => {
    if (s.args.dhcp_enabled !== false) return s;
    const { dhcp_enabled: _off, ...args } = s.args;
    return { ...s, args };
  });

describe('writes then approved reverts', () => {
  it('end with the records the sequence started from', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 5 }), async (steps) => {
        for (const [each, run] of [
          [classic, steps],
          [official, onOfficial(steps)],
        ] as const) {
          bot = each;
          bot.sim.reset();
          const start = await snapshot();
          await writesThenReverts(run);
          expect(await snapshot()).toEqual(start);
        }
        bot = official;
      }),
      { numRuns: 12, seed: 21 },
    );
  }, 240_000);

  it('over firewall policies, ACL rules, zones, traffic routes and lists, end with the records they started from', async () => {
    let ran = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(firewallStep, { minLength: 1, maxLength: 6 }), async (steps) => {
        bot.sim.reset();
        const start = firewallRecords();
        ran += await writesThenReverts(steps);
        expect(firewallRecords()).toEqual(start);
      }),
      { numRuns: FIREWALL_RUNS, seed: 2121 },
    );
    // The sequences did change something (not all refused).
    expect(ran).toBeGreaterThan(FIREWALL_RUNS);
  }, 600_000);
});
