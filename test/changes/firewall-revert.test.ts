import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Approvals } from '../../src/approvals/approvals.js';
import { changeSpec } from '../../src/changes/tool-changes.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import type { SiteState } from '../../src/simulator/state.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { openApprovals } from '../approvals/bot-harness.js';
import { ALEX, Clock, RITA, tempDataDir } from '../approvals/harness.js';
import { startTestBot, type TestBot } from '../helpers/test-bot.js';

// Revert of an update, a create and a delete of each firewall and traffic kind leaves the
// simulator's records as they were (whole records; a re-created object differs only in its ids).

type Json = Record<string, unknown>;

/** The records of every firewall and traffic kind: what a revert must leave as it found. */
const records = (site: SiteState) =>
  structuredClone({
    firewallPolicies: site.firewallPolicies,
    firewallRules: site.firewallRules,
    zones: site.zones,
    aclRules: site.aclRules,
    aclOrdering: site.aclOrdering,
    trafficMatchingLists: site.trafficMatchingLists,
    trafficRules: site.trafficRules,
    networks: site.networks,
  });

const sameIds = (a: Json, b: Json) => a._id === b._id && a.id === b.id;

function harness(firewall: 'zone-based' | 'legacy') {
  const h = {} as {
    bot: TestBot;
    approvals: Approvals;
    store: FileStore;
    data: ReturnType<typeof tempDataDir>;
  };
  beforeAll(async () => {
    h.bot = await startTestBot({ simulator: { firewall } });
  });
  afterAll(async () => {
    await h.bot.close();
  });
  beforeEach(async () => {
    h.bot.sim.reset();
    h.bot.sim.clearFaults();
    h.data = tempDataDir();
    h.store = new FileStore(h.data.dir, { data: new MemoryStore() });
    h.approvals = await openApprovals(h.bot.app, h.store.changes(), new Clock());
  });
  afterEach(async () => {
    await h.store.close();
    h.data.remove();
  });
  const approved = async (tool: string, args: Json) => {
    const request = await h.approvals.propose({ tool, args, requester: RITA });
    const outcome = await h.approvals.approve(request.id, ALEX);
    if (outcome.kind !== 'succeeded') throw new Error(`${tool} ${outcome.kind} ${JSON.stringify(outcome)}`);
    return outcome.request;
  };
  const revert = async (id: string) => {
    const request = await h.approvals.proposeRevert({ changeId: id, requester: RITA });
    const outcome = await h.approvals.approve(request.id, ALEX);
    if (outcome.kind !== 'succeeded') throw new Error(`revert ${outcome.kind}: ${JSON.stringify(outcome)}`);
    return { proposed: request, done: outcome.request };
  };
  const site = () => h.bot.site();
  return { h, approved, revert, site };
}

/** Runs update → revert, create → revert, and delete (of what the bot created) → revert. */
async function roundTrips(
  t: ReturnType<typeof harness>,
  kind: {
    update: [string, Json];
    create: [string, Json];
    /** The delete tool and its arguments for the object `create` made (its id given). */
    remove: (id: string) => [string, Json];
    createdId: (result: unknown) => string;
    /** The kind's records in the site. */
    pick: (site: SiteState) => unknown[];
  },
) {
  const start = records(t.site());
  const updated = await t.approved(...kind.update);
  expect(updated.verification).toEqual({ status: 'verified' });
  expect(records(t.site())).not.toEqual(start);
  const undoUpdate = await t.revert(updated.id);
  expect(undoUpdate.done.verification).toEqual({ status: 'verified' });
  expect(records(t.site())).toEqual(start);

  const created = await t.approved(...kind.create);
  expect(created.verification?.status).toBe('verified');
  const undoCreate = await t.revert(created.id);
  expect(undoCreate.done.verification).toEqual({ status: 'verified' });
  expect(records(t.site())).toEqual(start);

  // A delete of an object the bot made (the demo's records carry fields a controller fills in).
  const again = await t.approved(...kind.create);
  const id = kind.createdId(again.result);
  const made = structuredClone(
    // A policy made through the official API is known by its UUID, the v2 record's `external_id`.
    kind
      .pick(t.site())
      .find((r) => (r as Json)._id === id || (r as Json).id === id || (r as Json).external_id === id),
  );
  expect(made).toBeDefined();
  const withIt = records(t.site());
  const deleted = await t.approved(...kind.remove(id));
  expect(deleted.verification).toEqual({ status: 'verified' });
  const undoDelete = await t.revert(deleted.id);
  expect(JSON.stringify(undoDelete.proposed.preview)).toContain('new id');
  const remade = kind
    .pick(t.site())
    .find((r) => !kind.pick(withIt as unknown as SiteState).some((o) => sameIds(o as Json, r as Json)));
  expect(remade).toBeDefined();
  // Whole records as they were with the deleted object, its ids replaced by the new ones.
  let expected = JSON.stringify(withIt);
  for (const key of ['_id', 'id', 'external_id'] as const) {
    const old = (made as Json)[key];
    const fresh = (remade as Json)[key];
    if (typeof old === 'string' && typeof fresh === 'string') expected = expected.replaceAll(old, fresh);
  }
  expect(records(t.site())).toEqual(JSON.parse(expected));
}

describe('zone-based firewall kinds', () => {
  const t = harness('zone-based');

  it('firewall policies: update, create and delete each revert to the records as they were', async () => {
    await roundTrips(t, {
      update: [
        'update_firewall_policy',
        {
          policy_id: 'Block IoT to Internal',
          name: 'IoT fenced',
          action: 'REJECT',
          logging: true,
          enabled: false,
        },
      ],
      // Deliberately alike: tool arguments are data; the same demo policy serves the preview tests.
      create: [
        'create_firewall_policy',
        {
          name: 'Cameras to NAS',
          action: 'ALLOW',
          source_zone: 'IoT Devices',
          source_networks: ['Cameras'],
          destination_zone: 'Internal',
          destination_ips: ['192.168.1.20'],
          protocol: 'tcp',
          destination_port: '445',
          description: 'backups',
        },
      ],
      remove: (id) => ['delete_firewall_policy', { policy_id: id }],
      createdId: (result) => String((result as { policy: Json }).policy.id),
      pick: (site) => site.firewallPolicies,
    });
  });

  it('a policy update that changed its sides and ports is put back whole', async () => {
    const start = records(t.site());
    const changed = await t.approved('update_firewall_policy', {
      policy_id: 'Allow Plex from WAN',
      destination_ips: ['192.168.1.99'],
      destination_port: '443',
      protocol: 'tcp',
      description: '',
    });
    await t.revert(changed.id);
    expect(records(t.site())).toEqual(start);
  });

  it('ACL rules: update, create and delete each revert to the records and the ordering as they were', async () => {
    await roundTrips(t, {
      update: [
        'update_acl_rule',
        {
          acl_rule_id: 'Block IoT to NAS',
          name: 'IoT off NAS',
          enabled: false,
          description: 'changed',
          priority: 3,
        },
      ],
      // Deliberately alike: the ACL rule the firewall examples use everywhere, stated whole so a revert test reads alone.
      create: [
        'create_acl_rule',
        {
          name: 'Block IoT to Cameras',
          action: 'deny',
          source_type: 'network',
          source_id: 'IoT',
          destination_type: 'network',
          destination_id: 'Cameras',
          protocol: 'tcp',
          dst_port: 554,
          priority: 1,
        },
      ],
      remove: (id) => ['delete_acl_rule', { acl_rule_id: id }],
      createdId: (result) => String((result as { acl_rule: Json }).acl_rule.id),
      pick: (site) => site.aclRules,
    });
  });

  it('an ACL rule whose source, destination and protocol changed is put back whole, or says what it cannot', async () => {
    const start = records(t.site());
    const moved = await t.approved('update_acl_rule', {
      acl_rule_id: 'Block guest SSH',
      source_type: 'network',
      source_id: 'Cameras',
      protocol: 'udp',
    });
    await t.revert(moved.id);
    expect(records(t.site())).toEqual(start);

    // The address is put back; the two ports it kept were never touched.
    const nas = await t.approved('update_acl_rule', {
      acl_rule_id: 'Block IoT to NAS',
      destination_network: '192.168.1.21',
    });
    await t.revert(nas.id);
    expect(records(t.site())).toEqual(start);

    // A port that was not there cannot be cleared by the tool: the preview says so.
    const ported = await t.approved('update_acl_rule', {
      acl_rule_id: 'Block guest SSH',
      src_port: 1234,
      name: 'X',
    });
    const proposed = await t.h.approvals.proposeRevert({ changeId: ported.id, requester: RITA });
    expect(JSON.stringify(proposed.preview)).toContain('cannot clear a port');
  });

  it('zones: update, create and delete each revert to the records as they were', async () => {
    await roundTrips(t, {
      update: [
        'update_firewall_zone',
        { firewall_zone_id: 'IoT Devices', name: 'Things', network_ids: ['IoT'] },
      ],
      create: ['create_firewall_zone', { name: 'Lab', description: 'benches' }],
      remove: (id) => ['delete_firewall_zone', { zone_id: id }],
      createdId: (result) => String((result as { zone: Json }).zone.id),
      pick: (site) => site.zones,
    });
  });

  it('a zone made with networks taken from another zone: undoing it says where they were', async () => {
    const created = await t.approved('create_firewall_zone', { name: 'Lab', network_ids: ['Cameras'] });
    const undo = await t.revert(created.id);
    expect(JSON.stringify(undo.proposed.preview)).toContain('came from zone \\"IoT Devices\\"');
    expect(t.site().zones.some((z) => z.name === 'Lab')).toBe(false);

    // A deleted zone is re-created with its networks (they were in no zone meanwhile).
    const again = await t.approved('create_firewall_zone', { name: 'Lab', network_ids: ['Cameras'] });
    const lab = (again.result as { zone: Json }).zone;
    const deleted = await t.approved('delete_firewall_zone', { zone_id: String(lab.id) });
    const cameras = t.site().networks.find((n) => n.name === 'Cameras');
    expect(t.site().zones.some((z) => z.networkIds.includes(String(cameras?.external_id)))).toBe(false);
    const remade = await t.revert(deleted.id);
    // One id per network: on 10.1 the zone tools show (and the inverse carries) the official UUID.
    expect(remade.proposed.args).toMatchObject({ name: 'Lab', network_ids: [cameras?.external_id] });
    expect(t.site().zones.find((z) => z.name === 'Lab')?.networkIds).toEqual([cameras?.external_id]);
  });

  it('assign and unassign a network: each revert leaves the zones as they were, in order', async () => {
    const start = records(t.site());
    const moved = await t.approved('assign_network_to_zone', { zone_id: 'Dmz', network_id: 'Cameras' });
    expect(moved.verification).toEqual({ status: 'verified' });
    const back = await t.revert(moved.id);
    expect(back.proposed.tool).toBe('assign_network_to_zone');
    // Cameras goes back to IoT Devices, last in its list: the same members, the order aside.
    const zones = t.site().zones;
    const iot = zones.find((z) => z.name === 'IoT Devices');
    const startIot = start.zones.find((z) => z.name === 'IoT Devices');
    expect([...(iot?.networkIds ?? [])].sort()).toEqual([...(startIot?.networkIds ?? [])].sort());
    expect(zones.find((z) => z.name === 'Dmz')).toEqual(start.zones.find((z) => z.name === 'Dmz'));

    t.h.bot.sim.reset();
    const out = await t.approved('unassign_network_from_zone', { zone_id: 'IoT Devices', network_id: 'IoT' });
    expect(out.verification).toEqual({ status: 'verified' });
    const put = await t.revert(out.id);
    expect(put.proposed.tool).toBe('update_firewall_zone');
    expect(records(t.site())).toEqual(start);

    // A network in no zone: assigning it is undone by taking it out again.
    t.h.bot.sim.reset();
    const freed = await t.approved('unassign_network_from_zone', {
      zone_id: 'IoT Devices',
      network_id: 'IoT',
    });
    const plain = await t.approved('assign_network_to_zone', { zone_id: 'Dmz', network_id: 'IoT' });
    const undo = await t.revert(plain.id);
    expect(undo.proposed.tool).toBe('unassign_network_from_zone');
    await t.revert(freed.id);
    expect(records(t.site())).toEqual(start);
  });

  it('traffic routes: update, create and delete each revert to the records as they were', async () => {
    await roundTrips(t, {
      update: ['update_traffic_route', { route_id: 'Guest bandwidth cap', enabled: false }],
      create: [
        'create_traffic_route',
        {
          name: 'Block DNS bypass',
          action: 'deny',
          destination_ip: '1.1.1.1',
          destination_port: 53,
          vlan_id: 20,
        },
      ],
      remove: (id) => ['delete_traffic_route', { route_id: id }],
      createdId: (result) => String((result as { traffic_route: Json }).traffic_route.id),
      pick: (site) => site.trafficRules,
    });
  });

  it('traffic matching lists: update, create and delete each revert to the records as they were', async () => {
    await roundTrips(t, {
      update: [
        'update_traffic_matching_list',
        { list_id: 'Web Ports', name: 'Webby', items: ['80', '8000-8100'] },
      ],
      create: [
        'create_traffic_matching_list',
        { list_type: 'PORTS', name: 'Mail Ports', items: ['25', '465', '587'] },
      ],
      remove: (id) => ['delete_traffic_matching_list', { list_id: id }],
      createdId: (result) => String((result as { traffic_matching_list: Json }).traffic_matching_list.id),
      pick: (site) => site.trafficMatchingLists,
    });
  });
});

describe('traditional firewall rules', () => {
  const t = harness('legacy');

  it('update, create and delete each revert to the records as they were', async () => {
    await roundTrips(t, {
      update: [
        'update_firewall_rule',
        { rule_id: 'Allow Plex to NAS', name: 'Plex', action: 'drop', enabled: false, rule_index: 30005 },
      ],
      create: [
        'create_firewall_rule',
        {
          name: 'Block Guest to IoT',
          action: 'drop',
          ruleset: 'LAN_IN',
          rule_index: 20010,
          src_networkconf_id: 'Guest',
          dst_networkconf_id: 'IoT',
          state_new: true,
          logging: true,
        },
      ],
      remove: (id) => ['delete_firewall_rule', { rule_id: id }],
      createdId: (result) => String((result as { rule: Json }).rule.id),
      pick: (site) => site.firewallRules,
    });
  });

  it('an update the rule tools cannot undo in full says what is not put back', async () => {
    const changed = await t.approved('update_firewall_rule', {
      rule_id: 'Block IoT to LAN',
      src_address: '10.9.9.9',
      name: 'Block one host',
    });
    const proposed = await t.h.approvals.proposeRevert({ changeId: changed.id, requester: RITA });
    expect(proposed.args).toMatchObject({ name: 'Block IoT to LAN' });
    expect(JSON.stringify(proposed.preview)).toMatch(
      /src_address is not put back|src_networkconf_id is not put back/,
    );
  });
});

describe('every write tool', () => {
  it('has a change spec: an inverse, or the reason it has none', async () => {
    const bot = await startTestBot();
    try {
      const writes = bot.app.registry
        .list()
        .filter((tool) => tool.access === 'write')
        .map((tool) => tool.name);
      expect(writes.length).toBeGreaterThan(30);
      expect(writes.filter((name) => changeSpec(name) === undefined)).toEqual([]);
    } finally {
      await bot.close();
    }
  });
});
