import { beforeAll, describe, expect, it } from 'vitest';
import { ResourceNotFoundError, ValidationError } from '../../../src/errors.js';
import {
  integrationNetworkRecordSchema,
  networkReferencesSchema,
} from '../../../src/records/integration-network-record.js';
import { DEMO_NETWORKS } from '../../../src/simulator/index.js';
import type { RecordedRequest } from '../../../src/simulator/types.js';
import type { Network } from '../../../src/tools/networks/network-model.js';
import {
  fromOfficial,
  officialBody,
  officialReferences,
  parseOfficial,
} from '../../../src/tools/networks/official-network-model.js';
import { integrationRequestProblems } from '../../helpers/openapi-check.js';
import { rejection, useTestBot } from '../../helpers/tool-test.js';

// On a 10.1 console networks are read and written through the official `networks`
// operations; the spec's results are mapped from the official model (tools/official-network-model.ts).

// Deliberately alike: the site and record ids this official-API test addresses; the Wi-Fi tests name theirs the same way.
const SITE = '88f7af54-98f8-306a-a1c7-c9349722b1f6';
const ID = '0b4b1f64-5b0e-4c57-9a55-3f2b3c1d2e01';

/** A gateway network as a 10.1 console shows it, with settings the bot does not model. */
const STORED = {
  management: 'GATEWAY',
  id: ID,
  name: 'Lab',
  enabled: true,
  vlanId: 40,
  metadata: { origin: 'USER_DEFINED' },
  default: false,
  dhcpGuarding: { trustedDhcpServerIpAddresses: ['10.70.0.1'] },
  isolationEnabled: false,
  cellularBackupEnabled: true,
  zoneId: '5c9c5b3c-0d1e-4f2a-8b3c-4d5e6f708192',
  internetAccessEnabled: true,
  mdnsForwardingEnabled: true,
  ipv4Configuration: {
    autoScaleEnabled: false,
    hostIpAddress: '10.70.0.1',
    prefixLength: 24,
    additionalHostIpSubnets: ['10.41.0.1/24'],
    dhcpConfiguration: {
      mode: 'SERVER',
      ipAddressRange: { start: '10.70.0.10', stop: '10.70.0.200' },
      leaseTimeSeconds: 3600,
      pingConflictDetectionEnabled: true,
      dnsServerIpAddressesOverride: ['9.9.9.9', '1.1.1.1'],
      domainName: 'lab.example.com',
      gatewayIpAddressOverride: '10.70.0.2',
      ntpServerIpAddresses: ['10.70.0.1'],
      pxeConfiguration: { serverIpAddress: '10.70.0.5', filename: 'pxelinux.0' },
    },
  },
  ipv6Configuration: {
    interfaceType: 'STATIC',
    clientAddressAssignment: { slaacEnabled: true },
    hostIpAddress: 'fd00:40::1',
    prefixLength: 64,
  },
};

/** A request the simulator would record, for the 10.1.85 document check. */
function request(method: string, path: string, body: unknown): RecordedRequest {
  return { method, route: `/integration/v1/sites/${SITE}/${path}`, path: '', headers: {}, query: {}, body };
}

describe('the official network model (both directions, whole records)', () => {
  it('reads a gateway network into the spec fields, keeping the official flags', () => {
    const record = fromOfficial(integrationNetworkRecordSchema.parse(STORED));
    expect(record).toEqual({
      management: 'GATEWAY',
      metadata: { origin: 'USER_DEFINED' },
      default: false,
      dhcpGuarding: { trustedDhcpServerIpAddresses: ['10.70.0.1'] },
      isolationEnabled: false,
      cellularBackupEnabled: true,
      zoneId: STORED.zoneId,
      internetAccessEnabled: true,
      mdnsForwardingEnabled: true,
      ipv6Configuration: STORED.ipv6Configuration,
      _id: ID,
      external_id: ID,
      name: 'Lab',
      purpose: 'corporate',
      enabled: true,
      vlan_enabled: true,
      vlan: 40,
      ip_subnet: '10.70.0.1/24',
      dhcpd_enabled: true,
      dhcpd_start: '10.70.0.10',
      dhcpd_stop: '10.70.0.200',
      dhcpd_leasetime: 3600,
      dhcpd_dns_enabled: true,
      dhcpd_dns_1: '9.9.9.9',
      dhcpd_dns_2: '1.1.1.1',
      dhcpd_gateway_enabled: true,
      dhcpd_gateway: '10.70.0.2',
      domain_name: 'lab.example.com',
      attr_no_delete: false,
    });
  });

  it('reads an unmanaged network as vlan-only, an isolated one as guest, and the default as untagged and protected', () => {
    expect(
      parseOfficial({
        management: 'UNMANAGED',
        id: ID,
        name: 'Tag',
        enabled: true,
        vlanId: 50,
        metadata: { origin: 'USER_DEFINED' },
        default: false,
      }),
    ).toEqual({
      management: 'UNMANAGED',
      metadata: { origin: 'USER_DEFINED' },
      default: false,
      _id: ID,
      external_id: ID,
      name: 'Tag',
      purpose: 'vlan-only',
      enabled: true,
      vlan_enabled: true,
      vlan: 50,
      dhcpd_enabled: false,
      dhcpd_dns_enabled: false,
      attr_no_delete: false,
    });
    expect(parseOfficial({ ...STORED, isolationEnabled: true })?.purpose).toBe('guest');
    const lan = parseOfficial({
      ...STORED,
      vlanId: 1,
      default: true,
      metadata: { origin: 'SYSTEM_DEFINED' },
    });
    expect(lan).toMatchObject({ vlan_enabled: false, attr_no_delete: true });
    expect(lan?.vlan).toBeUndefined();
  });

  it('writes an unchanged record back as the stored one without its read-only fields (PUT round trip)', () => {
    const record = fromOfficial(integrationNetworkRecordSchema.parse(STORED));
    const { id: _id, metadata: _metadata, default: _default, ...writable } = STORED;
    expect(officialBody(STORED, record)).toEqual(writable);
    expect(
      integrationRequestProblems(request('PUT', `networks/${ID}`, officialBody(STORED, record))),
    ).toEqual([]);
  });

  it('changes only what the update changes, and keeps IPv6, PXE, NTP and DHCP guarding', () => {
    const record = fromOfficial(integrationNetworkRecordSchema.parse(STORED));
    const body = officialBody(STORED, {
      ...record,
      name: 'Lab 2',
      dhcpd_dns_enabled: false,
      domain_name: '',
    });
    expect(body).toMatchObject({
      name: 'Lab 2',
      ipv6Configuration: STORED.ipv6Configuration,
      dhcpGuarding: STORED.dhcpGuarding,
    });
    const dhcp = (body.ipv4Configuration as { dhcpConfiguration: Record<string, unknown> }).dhcpConfiguration;
    expect(dhcp).not.toHaveProperty('dnsServerIpAddressesOverride');
    expect(dhcp).not.toHaveProperty('domainName');
    expect(dhcp).toMatchObject({
      ntpServerIpAddresses: ['10.70.0.1'],
      pxeConfiguration: STORED.ipv4Configuration.dhcpConfiguration.pxeConfiguration,
    });
    expect(integrationRequestProblems(request('PUT', `networks/${ID}`, body))).toEqual([]);
  });

  it('builds a create body from the spec settings, and a vlan-only switch as an unmanaged network', () => {
    const create = officialBody(undefined, {
      name: 'Lab',
      purpose: 'guest',
      vlan_enabled: true,
      vlan: 40,
      ip_subnet: '10.70.0.1/24',
      dhcpd_enabled: true,
      dhcpd_start: '10.70.0.6',
      dhcpd_stop: '10.70.0.254',
      dhcpd_leasetime: 86400,
      dhcpd_dns_enabled: true,
      dhcpd_dns_1: '1.1.1.1',
    });
    // Deliberately alike: the body the tool must send, written out whole; the simulator's own test posts this shape.
    expect(create).toEqual({
      management: 'GATEWAY',
      name: 'Lab',
      enabled: true,
      vlanId: 40,
      isolationEnabled: true,
      cellularBackupEnabled: false,
      internetAccessEnabled: true,
      mdnsForwardingEnabled: false,
      ipv4Configuration: {
        autoScaleEnabled: false,
        hostIpAddress: '10.70.0.1',
        prefixLength: 24,
        dhcpConfiguration: {
          mode: 'SERVER',
          ipAddressRange: { start: '10.70.0.6', stop: '10.70.0.254' },
          leaseTimeSeconds: 86400,
          pingConflictDetectionEnabled: false,
          dnsServerIpAddressesOverride: ['1.1.1.1'],
        },
      },
    });
    expect(integrationRequestProblems(request('POST', 'networks', create))).toEqual([]);
    const record = fromOfficial(integrationNetworkRecordSchema.parse(STORED));
    const vlanOnly = officialBody(STORED, { ...record, purpose: 'vlan-only' });
    expect(vlanOnly).toEqual({
      management: 'UNMANAGED',
      name: 'Lab',
      enabled: true,
      vlanId: 40,
      dhcpGuarding: STORED.dhcpGuarding,
    });
    expect(integrationRequestProblems(request('PUT', `networks/${ID}`, vlanOnly))).toEqual([]);
    // The document check itself refuses a classic field in an official body.
    expect(
      integrationRequestProblems(request('POST', 'networks', { ...create, purpose: 'guest' })).join(),
    ).toMatch(/purpose/);
  });

  it('refuses a tag above what the official API takes (4009), naming vlan_id', () => {
    const error = (() => {
      try {
        officialBody(undefined, { name: 'x', purpose: 'vlan-only', vlan_enabled: true, vlan: 4010 });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      { field: 'vlan_id', rule: "this console's official API takes VLAN ids up to 4009" },
    ]);
  });

  it('lists the references the console reports, leaving clients and SSIDs to the bot’s own checks', () => {
    const answer = networkReferencesSchema.parse({
      referenceResources: [
        { resourceType: 'CLIENT', referenceCount: 5 },
        { resourceType: 'WIFI', referenceCount: 1, references: [{ referenceId: 'w1' }] },
        {
          resourceType: 'STATIC_ROUTE',
          referenceCount: 2,
          references: [{ referenceId: 'r1' }, { referenceId: 'r2' }],
        },
        { resourceType: 'NAT_RULE', referenceCount: 3 },
        { resourceType: 'DEVICE', referenceCount: 0, references: [] },
      ],
    });
    expect(officialReferences(answer)).toEqual([
      {
        kind: 'static route',
        count: 2,
        ids: ['r1', 'r2'],
        listed_by: 'UniFi Network (no tool manages static routes)',
      },
      { kind: 'NAT rule', count: 3, ids: [], listed_by: 'UniFi Network (no tool manages NAT rules)' },
    ]);
  });
});

describe('network tools on a 10.1 console (official networks)', () => {
  const bot = useTestBot();
  const classicNetworkRequests = () => bot.sim.requests.filter((r) => r.route.includes('rest/networkconf'));
  // A cold bot asks classic networkconf in the round that learns the console's version; what
  // these tests hold is how a bot that knows it is a 10.1 console reads and writes networks.
  beforeAll(async () => {
    await bot.app.context.gateway.console();
  });

  it('lists networks by their official ids, with no classic network request', async () => {
    const networks = (await bot.run('list_vlans', {})) as Network[];
    expect(networks.map((n) => [n.id, n.name, n.purpose, n.vlan_id, n.ip_subnet, n.dhcpd_enabled])).toEqual([
      [DEMO_NETWORKS.defaultLan.uuid, 'Default', 'corporate', null, '192.168.1.1/24', true],
      [DEMO_NETWORKS.iot.uuid, 'IoT', 'corporate', 20, '10.20.0.1/24', true],
      [DEMO_NETWORKS.guest.uuid, 'Guest', 'guest', 30, '10.30.0.1/24', true],
      [DEMO_NETWORKS.servers.uuid, 'Servers', 'vlan-only', 50, null, false],
      [DEMO_NETWORKS.cameras.uuid, 'Cameras', 'corporate', 60, '10.60.0.1/24', true],
    ]);
    const subnet = await bot.run('get_subnet_info', { network_id: 'Cameras' });
    expect(subnet).toMatchObject({
      network_id: DEMO_NETWORKS.cameras.uuid,
      dhcpd_start: '10.60.0.50',
      dhcpd_dns_1: '9.9.9.9',
      dhcpd_dns_2: '149.112.112.112',
      dhcpd_leasetime: 86400,
      domain_name: 'cams.home.arpa',
    });
    const stats = (await bot.run('get_network_statistics', {})) as {
      networks: { name: string; client_count: number }[];
    };
    expect(stats.networks.find((n) => n.name === 'Default')?.client_count).toBeGreaterThan(0);
    expect(classicNetworkRequests()).toEqual([]);
  });

  it('creates with one official POST; the network is in the one store and reads the same through classic', async () => {
    const result = (await bot.run('create_network', {
      name: 'Lab',
      vlan_id: 40,
      subnet: '10.70.0.0/24',
      dhcp_dns_1: '1.1.1.1',
      confirm: true,
    })) as { network: Network };
    const writes = bot.writes();
    expect(writes.map((r) => `${r.method} ${r.route}`)).toEqual([
      `POST /integration/v1/sites/${SITE}/networks`,
    ]);
    expect(integrationRequestProblems(writes[0] as RecordedRequest)).toEqual([]);
    const stored = bot.site().networks.find((n) => n.name === 'Lab');
    expect(result.network).toEqual({
      id: stored?.external_id,
      name: 'Lab',
      purpose: 'corporate',
      vlan_id: 40,
      ip_subnet: '10.70.0.1/24',
      dhcpd_enabled: true,
    });
    expect(stored).toMatchObject({
      purpose: 'corporate',
      vlan_enabled: true,
      vlan: 40,
      ip_subnet: '10.70.0.1/24',
      dhcpd_start: '10.70.0.6',
      dhcpd_stop: '10.70.0.254',
      dhcpd_dns_enabled: true,
      dhcpd_dns_1: '1.1.1.1',
    });
    // Classic networkconf is only read, for the VPN client pools a new subnet is checked against
    // (the official API gives no pool's subnet); the network itself is never written through it.
    expect(classicNetworkRequests().map((r) => r.method)).toEqual(['GET']);
  });

  it('reads each network’s details where the official list gives an overview: a new network shows its subnet and DHCP, and an update keeps them', async () => {
    await bot.run('create_network', { name: 'OP-Lab', vlan_id: 61, subnet: '10.61.0.0/24', confirm: true });
    const uuid = bot.site().networks.find((n) => n.name === 'OP-Lab')?.external_id;

    const details = (await bot.run('get_network_details', { network_id: 'OP-Lab' })) as Record<
      string,
      unknown
    >;
    const updated = (await bot.run('update_network', {
      network_id: 'OP-Lab',
      name: 'OP-Lab-2',
      vlan_id: 62,
      confirm: true,
    })) as { network: Network };

    expect(details).toMatchObject({
      id: uuid,
      ip_subnet: '10.61.0.1/24',
      dhcpd_enabled: true,
      dhcpd_start: '10.61.0.6',
    });
    expect(bot.sim.requests.map((r) => `${r.method} ${r.route}`)).toContain(
      `GET /integration/v1/sites/${SITE}/networks/${uuid}`,
    );
    expect(updated.network).toMatchObject({
      name: 'OP-Lab-2',
      vlan_id: 62,
      ip_subnet: '10.61.0.1/24',
      dhcpd_enabled: true,
    });
    expect(bot.site().networks.find((n) => n.external_id === uuid)).toMatchObject({
      name: 'OP-Lab-2',
      vlan: 62,
      ip_subnet: '10.61.0.1/24',
      dhcpd_enabled: true,
      dhcpd_start: '10.61.0.6',
      dhcpd_stop: '10.61.0.254',
    });
  });

  it('shows a guest network as guest and its DHCP as the details say, though the list has neither', async () => {
    const guest = (await bot.run('get_subnet_info', { network_id: 'Guest' })) as Record<string, unknown>;
    const listed = (await bot.run('list_vlans', {})) as Network[];
    expect(guest).toMatchObject({
      dhcpd_start: '10.30.0.10',
      dhcpd_stop: '10.30.0.250',
      dhcpd_leasetime: 7200,
    });
    expect(listed.find((n) => n.name === 'Guest')).toMatchObject({
      purpose: 'guest',
      ip_subnet: '10.30.0.1/24',
    });
  });

  // Deliberately alike: tool tests share the harness's call-then-check shape; the tool, its arguments and the expected answer differ.
  it('previews a create with the official body it would send', async () => {
    const preview = (await bot.run('create_network', {
      name: 'Lab',
      vlan_id: 40,
      subnet: '10.70.0.0/24',
      dry_run: true,
    })) as {
      would_create: Record<string, unknown>;
      would_send: Record<string, unknown>;
    };
    expect(preview.would_create).toMatchObject({ name: 'Lab', vlan: 40, ip_subnet: '10.70.0.1/24' });
    expect(preview.would_send).toMatchObject({
      management: 'GATEWAY',
      vlanId: 40,
      ipv4Configuration: { hostIpAddress: '10.70.0.1', prefixLength: 24 },
    });
    expect(bot.writes()).toEqual([]);
    const refused = await rejection(
      bot.run('create_network', { name: 'Far', vlan_id: 4010, purpose: 'vlan-only', dry_run: true }),
    );
    expect(refused).toBeInstanceOf(ValidationError);
  });

  it('updates with one full-replacement PUT of the current official record; classic-only settings stay stored', async () => {
    const before = bot.site().networks.find((n) => n.name === 'IoT');
    const preview = (await bot.run('update_network', {
      network_id: 'IoT',
      dhcp_dns_1: '1.1.1.1',
      dry_run: true,
    })) as {
      network_id: string;
      changes: Record<string, unknown>;
      would_send: Record<string, unknown>;
    };
    expect(preview.network_id).toBe(DEMO_NETWORKS.iot.uuid);
    expect(preview.changes).toEqual({
      dhcpd_dns_1: { from: null, to: '1.1.1.1' },
      dhcpd_dns_enabled: { from: false, to: true },
    });
    expect(preview.would_send).toEqual({
      management: 'GATEWAY',
      name: 'IoT',
      enabled: true,
      vlanId: 20,
      isolationEnabled: false,
      cellularBackupEnabled: false,
      zoneId: expect.any(String),
      internetAccessEnabled: true,
      mdnsForwardingEnabled: true,
      ipv4Configuration: {
        autoScaleEnabled: false,
        hostIpAddress: '10.20.0.1',
        prefixLength: 24,
        dhcpConfiguration: {
          mode: 'SERVER',
          ipAddressRange: { start: '10.20.0.100', stop: '10.20.0.250' },
          leaseTimeSeconds: 3600,
          pingConflictDetectionEnabled: false,
          dnsServerIpAddressesOverride: ['1.1.1.1'],
          domainName: 'iot.home.arpa',
        },
      },
    });
    await bot.run('update_network', {
      network_id: DEMO_NETWORKS.iot.uuid,
      dhcp_dns_1: '1.1.1.1',
      confirm: true,
    });
    const writes = bot.writes();
    expect(writes.map((r) => `${r.method} ${r.route}`)).toEqual([
      `PUT /integration/v1/sites/${SITE}/networks/${DEMO_NETWORKS.iot.uuid}`,
    ]);
    expect(writes[0]?.body).toEqual(preview.would_send);
    expect(integrationRequestProblems(writes[0] as RecordedRequest)).toEqual([]);
    const after = bot.site().networks.find((n) => n.name === 'IoT');
    // Only the changed fields differ; the "3600" lease-time quirk and classic-only keys stay as stored.
    expect(after).toEqual({ ...before, dhcpd_dns_enabled: true, dhcpd_dns_1: '1.1.1.1' });
    expect(classicNetworkRequests()).toEqual([]);
  });

  it('warns that turning DHCP off drops its settings on the official API', async () => {
    const preview = (await bot.run('update_network', {
      network_id: 'IoT',
      dhcp_enabled: false,
      dry_run: true,
    })) as {
      warnings: string[];
      would_send: { ipv4Configuration: Record<string, unknown> };
    };
    expect(preview.warnings).toContain(
      'the official API keeps no DHCP settings while DHCP is off: turning it on again later starts from the default lease time (86400 s)',
    );
    expect(preview.would_send.ipv4Configuration).not.toHaveProperty('dhcpConfiguration');
  });

  it('one id per network: the network tools’ id is the zone and ACL tools’ id, and each group takes the others’', async () => {
    const [iot] = ((await bot.run('list_vlans', {})) as Network[]).filter((n) => n.name === 'IoT');
    const zones = (await bot.run('list_firewall_zones', {})) as { name: string; network_ids: string[] }[];
    expect(zones.find((z) => z.name === 'IoT Devices')?.network_ids).toContain(iot?.id);
    const members = (await bot.run('get_zone_networks', { zone_id: 'IoT Devices' })) as {
      id?: string;
      network_id?: string;
    }[];
    expect(members.map((m) => m.id ?? m.network_id)).toContain(iot?.id);
    const rules = (await bot.run('list_acl_rules', {})) as {
      source_network_ids?: string[];
      source?: unknown;
    }[];
    expect(JSON.stringify(rules)).toContain(String(iot?.id));
    // Each group accepts the id the other shows, and the classic _id and the name keep working.
    for (const ref of [String(iot?.id), DEMO_NETWORKS.iot.id, 'IoT']) {
      const details = (await bot.run('get_network_details', { network_id: ref })) as Network;
      expect(details.id).toBe(iot?.id);
    }
    const assign = (await bot.run('assign_network_to_zone', {
      zone_id: 'Dmz',
      network_id: iot?.id,
      dry_run: true,
    })) as Record<string, unknown>;
    expect(JSON.stringify(assign)).toContain(String(iot?.id));
    expect(classicNetworkRequests().map((r) => r.method)).toEqual(['GET']);
  });

  it('deletes with one official DELETE and previews through the official references', async () => {
    const preview = (await bot.run('delete_network', { network_id: 'Cameras', dry_run: true })) as {
      would_delete: Network;
    };
    expect(preview.would_delete.id).toBe(DEMO_NETWORKS.cameras.uuid);
    expect(
      bot.sim.requests.some((r) => r.route.endsWith(`/networks/${DEMO_NETWORKS.cameras.uuid}/references`)),
    ).toBe(true);
    await bot.run('delete_network', { network_id: 'Cameras', confirm: true });
    expect(bot.writes().map((r) => `${r.method} ${r.route}`)).toEqual([
      `DELETE /integration/v1/sites/${SITE}/networks/${DEMO_NETWORKS.cameras.uuid}`,
    ]);
    expect(bot.site().networks.some((n) => n.name === 'Cameras')).toBe(false);
    expect(bot.site().zones.some((z) => z.networkIds.includes(DEMO_NETWORKS.cameras.uuid))).toBe(false);
    await expect(bot.run('get_network_details', { network_id: 'Cameras' })).rejects.toBeInstanceOf(
      ResourceNotFoundError,
    );
  });

  it('re-creates a network from its stored networkconf settings (a revert’s restore) through networkconf, named by its official id; a restore of official details stays official', async () => {
    bot.sim.clearRequests();
    const result = (await bot.run('create_network', {
      name: 'Restored',
      vlan_id: 47,
      subnet: '10.47.0.0/24',
      restore: { igmp_snooping: true, dhcpd_leasetime: '1800', dhcpd_ntp_1: '10.47.0.2' },
      confirm: true,
    })) as { network: Network; warnings: string[] };
    expect(bot.writes().map((r) => `${r.method} ${r.route}`)).toEqual([
      'POST /api/s/default/rest/networkconf',
    ]);
    const stored = bot.site().networks.find((n) => n.name === 'Restored');
    expect(stored).toMatchObject({ igmp_snooping: true, dhcpd_leasetime: '1800', dhcpd_ntp_1: '10.47.0.2' });
    expect(result.network.id).toBe(stored?.external_id);
    expect(result.warnings.join()).not.toMatch(/not restored/);

    bot.sim.clearRequests();
    const official = (await bot.run('create_network', {
      name: 'Restored-2',
      vlan_id: 48,
      subnet: '10.48.0.0/24',
      restore: { management: 'GATEWAY', mdnsForwardingEnabled: true, igmp_snooping: true },
      confirm: true,
    })) as { warnings: string[] };
    expect(bot.writes().map((r) => `${r.method} ${r.route}`)).toEqual([
      `POST /integration/v1/sites/${SITE}/networks`,
    ]);
    expect(official.warnings.join()).toMatch(/not restored: igmp_snooping/);
    expect(bot.site().networks.find((n) => n.name === 'Restored-2')).toMatchObject({ mdns_enabled: true });
  });
});
