import { describe, expect, it } from 'vitest';
import { ConflictError, ResourceNotFoundError, ValidationError } from '../../../src/errors.js';
import { clientRecordSchema } from '../../../src/records/client-record.js';
import { networkRecordSchema } from '../../../src/records/network-record.js';
import {
  assertNoClash,
  buildCreatePayload,
  findNetwork,
  networkStatistics,
  toNetwork,
  toNetworkDetails,
  toSubnetInfo,
} from '../../../src/tools/networks/network-model.js';
import { fixtureRecords } from '../../helpers/fixtures.js';

const realNetworks = fixtureRecords('classic/rest-networkconf.udm.json').map((r) =>
  networkRecordSchema.parse(r),
);
const net = (fields: Record<string, unknown>) =>
  networkRecordSchema.parse({ _id: 'n0', name: 'N', ...fields });
const client = (fields: Record<string, unknown>) =>
  clientRecordSchema.parse({ mac: '00:00:00:00:00:01', ...fields });

describe('network mapping over a real networkconf capture', () => {
  it('maps every record to the spec shape; untagged and WAN have no VLAN', () => {
    expect(realNetworks.map(toNetwork).map((n) => [n.name, n.purpose, n.vlan_id, n.ip_subnet])).toEqual([
      ['WAN', 'wan', null, null],
      ['Unbound - Untagged', 'corporate', null, '192.168.5.1/24'],
      ['Bhoomi - Default VLAN', 'corporate', 22, '10.22.22.1/24'],
      ['Luna - Servers VLAN', 'corporate', 33, '10.33.33.1/24'],
    ]);
  });

  it('derives subnet info: gateway from ip_subnet, DNS only when custom DNS is on', () => {
    const dnsSet = networkRecordSchema.parse(
      fixtureRecords('classic/rest-networkconf-put-response-lan-dns-set.udm.json')[0],
    );
    const dnsCleared = networkRecordSchema.parse(
      fixtureRecords('classic/rest-networkconf-put-response-lan-dns-cleared.udm.json')[0],
    );
    const set = toSubnetInfo(dnsSet);
    expect(set.dhcpd_gateway).toBe(dnsSet.ip_subnet?.split('/')[0]);
    expect(set.dhcpd_dns_1).toBe(dnsSet.dhcpd_dns_1);
    expect(set.dhcpd_dns_3).toBeNull();
    const cleared = toSubnetInfo(dnsCleared);
    expect(cleared.dhcpd_dns_enabled).toBe(false);
    expect(cleared.dhcpd_dns_1).toBeNull();
  });

  it('masks secret fields in details but keeps the rest', () => {
    const details = toNetworkDetails(
      net({ x_wan_password: 'hunter2', wan_type: 'pppoe', vlan: 7, vlan_enabled: true }),
    );
    expect(details.x_wan_password).toBe('[redacted]');
    expect(details.wan_type).toBe('pppoe');
    expect(details.vlan_id).toBe(7);
    expect(JSON.stringify(details)).not.toContain('hunter2');
  });
});

describe('findNetwork', () => {
  const records = [
    net({ _id: 'a1', name: 'IoT', external_id: 'uuid-1' }),
    net({ _id: 'b2', name: 'Lab' }),
    net({ _id: 'c3', name: 'lab' }),
  ];
  it('finds by classic id, Integration id, or unique name', () => {
    expect(findNetwork(records, 'a1')._id).toBe('a1');
    expect(findNetwork(records, 'uuid-1')._id).toBe('a1');
    expect(findNetwork(records, 'iot')._id).toBe('a1');
  });
  it('refuses an ambiguous name and reports a missing one as not found', () => {
    expect(() => findNetwork(records, 'LAB')).toThrow(ValidationError);
    expect(() => findNetwork(records, 'nope')).toThrow(ResourceNotFoundError);
  });
});

describe('networkStatistics', () => {
  it('counts by network_id, falls back to VLAN only without one, and adds wired counters', () => {
    const networks = [
      net({ _id: 'lan', name: 'LAN' }),
      net({ _id: 'iot', name: 'IoT', vlan_enabled: true, vlan: 20 }),
    ];
    const clients = [
      client({ network_id: 'lan', tx_bytes: 100, rx_bytes: 50 }),
      client({ network_id: 'lan', is_wired: true, 'wired-tx_bytes': 7, 'wired-rx_bytes': 3 }),
      // Its vlan says 20 but its network_id wins.
      client({ network_id: 'lan', vlan: 20 }),
      client({ vlan: 20, tx_bytes: 1, rx_bytes: 1 }),
      client({ vlan: 0 }),
    ];
    const stats = networkStatistics(networks, clients);
    expect(stats).toEqual([
      {
        network_id: 'lan',
        name: 'LAN',
        vlan_id: null,
        client_count: 3,
        total_tx_bytes: 107,
        total_rx_bytes: 53,
        total_bytes: 160,
      },
      {
        network_id: 'iot',
        name: 'IoT',
        vlan_id: 20,
        client_count: 1,
        total_tx_bytes: 1,
        total_rx_bytes: 1,
        total_bytes: 2,
      },
    ]);
  });
});

describe('buildCreatePayload', () => {
  const base = { name: 'Lab', vlan_id: 40, purpose: 'corporate', dhcp_enabled: true };
  it('sends the gateway form, tags the VLAN and fills a default lease range', () => {
    expect(buildCreatePayload({ ...base, subnet: '10.40.0.0/24' })).toEqual({
      name: 'Lab',
      purpose: 'corporate',
      networkgroup: 'LAN',
      enabled: true,
      vlan_enabled: true,
      vlan: 40,
      ip_subnet: '10.40.0.1/24',
      dhcpd_enabled: true,
      dhcpd_start: '10.40.0.6',
      dhcpd_stop: '10.40.0.254',
      dhcpd_leasetime: 86400,
    });
  });
  it('keeps a given gateway address and turns custom DNS on', () => {
    const payload = buildCreatePayload({
      ...base,
      subnet: '10.40.0.254/24',
      dhcp_dns_1: '9.9.9.9',
      dhcp_dns_2: '1.1.1.1',
    });
    expect(payload).toMatchObject({
      ip_subnet: '10.40.0.254/24',
      dhcpd_stop: '10.40.0.253',
      dhcpd_dns_enabled: true,
      dhcpd_dns_1: '9.9.9.9',
      dhcpd_dns_2: '1.1.1.1',
    });
  });
  it('sends a tag-only segment without subnet or DHCP', () => {
    expect(buildCreatePayload({ ...base, purpose: 'vlan-only', dhcp_enabled: false })).toEqual({
      name: 'Lab',
      purpose: 'vlan-only',
      networkgroup: 'LAN',
      enabled: true,
      vlan_enabled: true,
      vlan: 40,
    });
  });
  it('refuses ranges outside the subnet, reversed ranges, and missing subnets, naming the field', () => {
    const issues = (args: Record<string, unknown>) => {
      try {
        buildCreatePayload({ ...base, subnet: '10.40.0.0/24', ...args });
      } catch (error) {
        return (error as ValidationError).issues;
      }
      return [];
    };
    expect(issues({ dhcp_start: '10.41.0.10' })).toEqual([
      { field: 'dhcp_start', rule: 'must be a host address inside 10.40.0.0/24' },
    ]);
    expect(issues({ dhcp_start: '10.40.0.200', dhcp_stop: '10.40.0.100' })).toEqual([
      { field: 'dhcp_start', rule: 'must not be after dhcp_stop' },
    ]);
    expect(issues({ subnet: undefined })).toEqual([
      { field: 'subnet', rule: 'is required unless purpose is vlan-only', missing: true },
    ]);
    expect(issues({ subnet: '10.40.0.0/31' })[0]?.field).toBe('subnet');
  });
});

describe('assertNoClash', () => {
  const others = [net({ _id: 'g', name: 'Guest', vlan_enabled: true, vlan: 30, ip_subnet: '10.30.0.1/24' })];
  it('refuses a used VLAN, a used name and an overlapping subnet', () => {
    expect(() => assertNoClash(others, { name: 'X', vlan: 30 })).toThrow(/VLAN 30 is already used by Guest/);
    expect(() => assertNoClash(others, { name: 'guest', vlan: 31 })).toThrow(ConflictError);
    expect(() =>
      assertNoClash(others, {
        name: 'X',
        vlan: 31,
        cidr: {
          address: 0,
          prefix: 16,
          network: 10 * 2 ** 24 + 30 * 2 ** 16,
          broadcast: 10 * 2 ** 24 + 31 * 2 ** 16 - 1,
          mask: 0,
        },
      }),
    ).toThrow(/overlaps Guest/);
    expect(() => assertNoClash(others, { name: 'X', vlan: 31 })).not.toThrow();
  });
});
