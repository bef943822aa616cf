import { describe, expect, it } from 'vitest';
import { NotSupportedError, ValidationError } from '../../../src/errors.js';
import { officialPolicyRecordSchema } from '../../../src/records/firewall-policy-record.js';
import {
  DEMO_FIREWALL_POLICIES,
  DEMO_FIREWALL_POLICY_UUIDS,
  DEMO_NETWORKS,
  DEMO_ZONE_IDS,
  DEMO_ZONES,
} from '../../../src/simulator/index.js';
import type { FirewallPolicy, FirewallPolicyRow } from '../../../src/tools/firewall/firewall-policy-model.js';
import {
  OFFICIAL,
  type PolicyNetworkIds,
  policyFromOfficial,
  policyToOfficial,
} from '../../../src/tools/firewall/firewall-policy-official.js';
import { NAS_ADDRESS_DESTINATION } from '../../helpers/official-bodies.js';
import { integrationProblems } from '../../helpers/openapi-check.js';
import { rejection, useTestBot, validationIssues } from '../../helpers/tool-test.js';

// The policy tools on a 10.1 console read and write the official `firewall/policies`
// (and `policies/ordering`); the same tools on 9.0 use v2 (firewall-policies.test.ts). Both show
// the same policy the same way, but for its id and its zones' ids.

const N = DEMO_NETWORKS;
const U = DEMO_FIREWALL_POLICY_UUIDS;
const POLICIES = '/integration/v1/sites/88f7af54-98f8-306a-a1c7-c9349722b1f6/firewall/policies';

/** Without the carried originals: what the tools see. */
function visible(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(visible);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== OFFICIAL)
      .map(([key, v]) => [key, visible(v)]),
  );
}

const ids: PolicyNetworkIds = {
  classicOf: (uuid) => (uuid === N.cameras.uuid ? N.cameras.id : uuid),
  uuidOf: async (id) => (id === N.cameras.id ? N.cameras.uuid : id),
};

// Deliberately alike: an official policy record is data; the simulator's test posts the same policy.
/** A whole official record, with parts the tools never write (MAC, IPsec, states, one-time schedule). */
const record = {
  id: '0b8f7d7e-3a43-4d55-9a5c-6a3bb1a7e001',
  enabled: true,
  name: 'Cameras to NAS',
  description: 'backups',
  index: 10001,
  action: { type: 'ALLOW', allowReturnTraffic: true },
  source: {
    zoneId: DEMO_ZONES.iotDevices,
    trafficFilter: {
      type: 'NETWORK',
      networkFilter: { networkIds: [N.cameras.uuid], matchOpposite: false },
      macAddressFilter: 'aa:bb:cc:dd:ee:ff',
    },
  },
  destination: NAS_ADDRESS_DESTINATION,
  ipProtocolScope: {
    ipVersion: 'IPV4',
    protocolFilter: { type: 'NAMED_PROTOCOL', protocol: { name: 'tcp' }, matchOpposite: false },
  },
  connectionStateFilter: ['NEW'],
  ipsecFilter: 'MATCH_ENCRYPTED',
  loggingEnabled: true,
  schedule: {
    mode: 'ONE_TIME_ONLY',
    date: '2026-12-24',
    timeFilter: { startTime: '18:00', stopTime: '23:00' },
  },
  metadata: { origin: 'USER_DEFINED' },
};

describe('the official policy model ↔ the tools’ model', () => {
  it('reads a whole official record as the tools’ (v2-shaped) record', () => {
    const parsed = officialPolicyRecordSchema.parse(record);
    expect(visible(policyFromOfficial(parsed, ids))).toEqual({
      _id: record.id,
      name: 'Cameras to NAS',
      description: 'backups',
      enabled: true,
      action: 'ALLOW',
      create_allow_respond: true,
      protocol: 'tcp',
      ip_version: 'IPV4',
      index: 10001,
      predefined: false,
      logging: true,
      schedule: {
        mode: 'ONE_TIME_ONLY',
        repeat_on_days: [],
        time_all_day: false,
        time_range_start: '18:00',
        time_range_end: '23:00',
        date_start: '2026-12-24',
      },
      source: {
        zone_id: DEMO_ZONES.iotDevices,
        matching_target: 'NETWORK',
        matching_target_type: 'OBJECT',
        network_ids: [N.cameras.id],
        match_opposite_networks: false,
        port_matching_type: 'ANY',
      },
      destination: {
        zone_id: DEMO_ZONES.internal,
        matching_target: 'IP',
        matching_target_type: 'SPECIFIC',
        ips: ['192.168.1.20', '192.168.1.64/28'],
        match_opposite_ips: false,
        port_matching_type: 'SPECIFIC',
        port: '445,8000-8100',
      },
    });
    const system = policyFromOfficial(
      officialPolicyRecordSchema.parse({ ...record, metadata: { origin: 'DERIVED' } }),
      ids,
    );
    expect(system.predefined).toBe(true);
  });

  it('writes an untouched record back whole: everything the tools do not set goes back as it was', async () => {
    const shaped = policyFromOfficial(officialPolicyRecordSchema.parse(record), ids);
    const { id: _id, index: _index, metadata: _metadata, ...rest } = record;
    // tcp is sent by number (see docs/decisions.md); everything else is the record.
    expect(await policyToOfficial(shaped, ids)).toEqual({
      ...rest,
      ipProtocolScope: {
        ipVersion: 'IPV4',
        protocolFilter: { type: 'PROTOCOL_NUMBER', protocolNumber: 6, matchOpposite: false },
      },
    });
  });

  it('writes a new policy (a v2-shaped body) as the official body, field by field', async () => {
    const body = {
      name: 'Block DNS',
      description: '',
      enabled: true,
      action: 'REJECT',
      protocol: 'tcp_udp',
      ip_version: 'BOTH',
      logging: false,
      create_allow_respond: false,
      schedule: {
        mode: 'EVERY_WEEK',
        repeat_on_days: ['sat', 'sun'],
        time_all_day: true,
      },
      source: { zone_id: DEMO_ZONES.iotDevices, matching_target: 'ANY', port_matching_type: 'ANY' },
      destination: {
        zone_id: DEMO_ZONES.external,
        matching_target: 'ANY',
        port_matching_type: 'SPECIFIC',
        port: '53',
      },
    };
    expect(await policyToOfficial(body, ids)).toEqual({
      enabled: true,
      name: 'Block DNS',
      description: '',
      action: { type: 'REJECT' },
      source: { zoneId: DEMO_ZONES.iotDevices },
      destination: {
        zoneId: DEMO_ZONES.external,
        trafficFilter: {
          type: 'PORT',
          portFilter: { type: 'PORTS', matchOpposite: false, items: [{ type: 'PORT_NUMBER', value: 53 }] },
        },
      },
      ipProtocolScope: {
        ipVersion: 'IPV4_AND_IPV6',
        protocolFilter: { type: 'PRESET', preset: { name: 'TCP_UDP' } },
      },
      loggingEnabled: false,
      schedule: { mode: 'EVERY_WEEK', repeatOnDays: ['SATURDAY', 'SUNDAY'] },
    });
    const icmp = await rejection(policyToOfficial({ ...body, protocol: 'icmp' }, ids));
    expect(icmp).toBeInstanceOf(ValidationError);
    expect(icmp.message).toMatch(/ip_version/);
    const daily = await rejection(
      policyToOfficial({ ...body, schedule: { mode: 'EVERY_DAY', time_all_day: true } }, ids),
    );
    expect(daily.message).toMatch(/schedule_time/);
  });
});

describe('the policy tools on a 10.1 console', () => {
  const bot = useTestBot();
  const privateRequests = () =>
    bot.sim.requests.filter(
      (r) =>
        (r.route.startsWith('/v2/') && r.route.includes('firewall')) ||
        // Networks are named as the network tools name them on 10.1: from the official list.
        r.route.includes('rest/networkconf'),
    );

  it('lists and gets policies through the official API, by their official ids, zones by the zone tools’ ids', async () => {
    const rows = (await bot.run('list_firewall_policies')) as FirewallPolicyRow[];
    expect(rows.map((r) => r.id)).toEqual([
      U.allowPlexFromWan,
      U.kidsBedtime,
      U.camerasNoInternet,
      U.blockIotToInternal,
    ]);
    // Deliberately alike: the same row as on 9.0 (firewall-policies.test.ts): a policy shows the same on both APIs but for its ids.
    expect(rows[0]).toEqual({
      id: U.allowPlexFromWan,
      name: 'Allow Plex from WAN',
      action: 'ALLOW',
      enabled: false,
      source: 'External',
      destination: 'Internal: 192.168.1.20 port 32400',
      protocol: 'tcp IPV4',
      schedule: 'always',
      index: 10000,
      predefined: false,
    });
    const policy = (await bot.run('get_firewall_policy', {
      policy_id: 'Block IoT to Internal',
    })) as FirewallPolicy;
    expect(policy).toMatchObject({
      id: U.blockIotToInternal,
      source_zone: 'IoT Devices',
      source_zone_id: DEMO_ZONES.iotDevices,
      destination_zone_id: DEMO_ZONES.internal,
      source_networks: ['IoT'],
    });
    expect(privateRequests()).toEqual([]);
    // The v2 id older output showed (and drift messages carry) still names the same policy.
    const byV2 = await bot.run('get_firewall_policy', {
      policy_id: DEMO_FIREWALL_POLICIES.blockIotToInternal,
    });
    expect(byV2).toEqual(policy);
    // So does a zone's v2 id: it becomes the zone's official id.
    const preview = (await bot.run('create_firewall_policy', {
      name: 'By v2 zone id',
      action: 'BLOCK',
      source_zone: DEMO_ZONE_IDS.iotDevices,
      destination_zone: 'Internal',
      dry_run: true,
    })) as { would_send: { source: { zoneId: string } } };
    expect(preview.would_send.source.zoneId).toBe(DEMO_ZONES.iotDevices);
  });

  it('creates a policy with the official POST and puts it in place with the official ordering', async () => {
    const args = {
      name: 'Cameras to NAS',
      action: 'ALLOW',
      source_zone: DEMO_ZONES.iotDevices,
      source_networks: ['Cameras'],
      destination_zone: 'Internal',
      destination_ips: ['192.168.1.20'],
      destination_port: '445',
      protocol: 'tcp',
      schedule: 'every_week',
      schedule_days: ['mon'],
      schedule_time: '09:00-17:00',
      position: 1,
    };
    const preview = (await bot.run('create_firewall_policy', { ...args, dry_run: true })) as {
      would_send: Record<string, unknown>;
      would_reorder: unknown;
      order_after: string[];
    };
    expect(preview.would_send).toMatchObject({
      action: { type: 'ALLOW', allowReturnTraffic: true },
      source: { zoneId: DEMO_ZONES.iotDevices, trafficFilter: { type: 'NETWORK' } },
      schedule: {
        mode: 'EVERY_WEEK',
        repeatOnDays: ['MONDAY'],
        timeFilter: { startTime: '09:00', stopTime: '17:00' },
      },
    });
    expect(preview.would_reorder).toEqual({
      orderedFirewallPolicyIds: {
        beforeSystemDefined: ['(the new policy)', U.blockIotToInternal],
        afterSystemDefined: [],
      },
    });
    expect(preview.order_after).toEqual(['Cameras to NAS', 'Block IoT to Internal']);
    expect(bot.writes()).toEqual([]);

    const done = (await bot.run('create_firewall_policy', { ...args, confirm: true })) as {
      policy: FirewallPolicy;
    };
    expect(bot.writes().map((r) => `${r.method} ${r.route.replace(/\?.*/, '')}`)).toEqual([
      `POST ${POLICIES}`,
      `PUT ${POLICIES}/ordering`,
    ]);
    expect(integrationProblems(bot.sim.requests)).toEqual([]);
    expect(privateRequests()).toEqual([]);
    expect(done.policy).toMatchObject({
      name: 'Cameras to NAS',
      source_networks: ['Cameras'],
      destination_ips: ['192.168.1.20'],
      destination_port: '445',
      schedule: 'mon 09:00–17:00',
    });
    // One state: the v2 record carries it, first in its pair.
    const stored = bot.site().firewallPolicies.find((p) => p.external_id === done.policy.id);
    expect(stored).toMatchObject({ index: 10000, source: { network_ids: [N.cameras.id] } });
    const rows = (await bot.run('list_firewall_policies')) as FirewallPolicyRow[];
    expect(
      rows
        .filter((r) => r.destination.startsWith('Internal') && r.source.startsWith('IoT'))
        .map((r) => r.name),
    ).toEqual(['Cameras to NAS', 'Block IoT to Internal']);
  });

  it('updates with a full replacement built from the official record: what the tools do not set is kept', async () => {
    const policy = bot.site().firewallPolicies.find((p) => p._id === DEMO_FIREWALL_POLICIES.kidsBedtime);
    if (!policy) throw new Error('no policy');
    Object.assign(policy, {
      connection_state_type: 'CUSTOM',
      connection_states: ['NEW'],
      ipsec: 'MATCH_ENCRYPTED',
    });
    const result = (await bot.run('update_firewall_policy', {
      policy_id: "Kids' bedtime",
      enabled: false,
      confirm: true,
    })) as { changes: Record<string, unknown> };
    expect(result.changes).toEqual({ enabled: { from: true, to: false } });
    const [put] = bot.writes();
    expect(put?.route).toBe(`${POLICIES}/${U.kidsBedtime}`);
    expect(put?.body).toEqual({
      enabled: false,
      name: "Kids' bedtime",
      description: '',
      action: { type: 'BLOCK' },
      source: {
        zoneId: DEMO_ZONES.internal,
        trafficFilter: {
          type: 'IP_ADDRESS',
          ipAddressFilter: {
            type: 'IP_ADDRESSES',
            matchOpposite: false,
            items: [{ type: 'IP_ADDRESS', value: '192.168.1.140' }],
          },
        },
      },
      destination: { zoneId: DEMO_ZONES.external },
      ipProtocolScope: { ipVersion: 'IPV4_AND_IPV6' },
      connectionStateFilter: ['NEW'],
      ipsecFilter: 'MATCH_ENCRYPTED',
      loggingEnabled: false,
      schedule: { mode: 'EVERY_DAY', timeFilter: { startTime: '21:30', stopTime: '23:59' } },
    });
    expect(integrationProblems(bot.sim.requests)).toEqual([]);
    expect(bot.site().firewallPolicies.find((p) => p.external_id === U.kidsBedtime)).toMatchObject({
      enabled: false,
      connection_states: ['NEW'],
      ipsec: 'MATCH_ENCRYPTED',
    });
  });

  // Deliberately alike: tool tests share the harness's call-then-check shape; the tool, its arguments and the expected answer differ.
  it('refuses what the official model cannot say, naming the argument, before anything is sent', async () => {
    const icmp = await validationIssues(bot, 'create_firewall_policy', {
      name: 'Ping',
      action: 'ALLOW',
      source_zone: 'Internal',
      destination_zone: 'External',
      protocol: 'icmp',
      confirm: true,
    });
    expect(icmp.map((i) => i.field)).toEqual(['ip_version']);
    const daily = await validationIssues(bot, 'update_firewall_policy', {
      policy_id: 'Block IoT to Internal',
      schedule: 'every_day',
      confirm: true,
    });
    expect(daily.map((i) => i.field)).toEqual(['schedule_time']);
    expect(bot.writes()).toEqual([]);
  });

  it('deletes through the official API and refuses a system-defined policy', async () => {
    await bot.run('delete_firewall_policy', { policy_id: 'Cameras: no internet', confirm: true });
    expect(bot.writes().map((r) => `${r.method} ${r.route}`)).toEqual([
      `DELETE ${POLICIES}/${U.camerasNoInternet}`,
    ]);
    const generated = bot.site().firewallPolicies.find((p) => p.predefined);
    await expect(
      bot.run('delete_firewall_policy', { policy_id: generated?.external_id, confirm: true }),
    ).rejects.toBeInstanceOf(NotSupportedError);
  });
});
