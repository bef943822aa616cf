import { describe, expect, it } from 'vitest';
import {
  ConfirmationRequiredError,
  ConflictError,
  GatewayRejectedError,
  ResourceNotFoundError,
} from '../../../src/errors.js';
import {
  DEMO_ACL_RULES,
  DEMO_FIREWALL_POLICY_UUIDS,
  DEMO_NETWORKS,
  DEMO_ZONES,
} from '../../../src/simulator/index.js';
import { type Network, WAN_REFUSAL } from '../../../src/tools/networks/network-model.js';
import {
  findNetworkReferences,
  type NetworkReference,
} from '../../../src/tools/networks/network-references.js';
import { fixtureRecords } from '../../helpers/fixtures.js';
import { expectPagingDefaults, LIMIT_ISSUE } from '../../helpers/list-paging.js';
import { startTestBot } from '../../helpers/test-bot.js';
import { rejection, useTestBot, validationIssues } from '../../helpers/tool-test.js';

// The classic path (networkconf): a 9.0 console. The official path (10.1) is networks-official.test.ts.
const bot = useTestBot({ simulator: { apiVersion: '9.0' } });

describe('list_vlans', () => {
  it('lists every network, WAN with its empty vlan included, untagged first then by VLAN', async () => {
    const networks = (await bot.run('list_vlans')) as Network[];
    expect(networks.map((n) => [n.name, n.vlan_id])).toEqual([
      ['Default', null],
      ['WAN', null],
      ['IoT', 20],
      ['Guest', 30],
      ['Servers', 50],
      ['Cameras', 60],
    ]);
    expect(networks.find((n) => n.name === 'WAN')).toEqual({
      id: DEMO_NETWORKS.wan.id,
      name: 'WAN',
      purpose: 'wan',
      vlan_id: null,
      ip_subnet: null,
      dhcpd_enabled: false,
    });
    expect(networks.find((n) => n.name === 'IoT')).toEqual({
      id: DEMO_NETWORKS.iot.id,
      name: 'IoT',
      purpose: 'corporate',
      vlan_id: 20,
      ip_subnet: '10.20.0.1/24',
      dhcpd_enabled: true,
    });
  });

  it('pages with limit and offset (defaults 100 and 0)', async () => {
    const page = (await bot.run('list_vlans', { limit: '2', offset: '2' })) as Network[];
    expect(page.map((n) => n.name)).toEqual(['IoT', 'Guest']);
    expectPagingDefaults(bot, 'list_vlans');
  });

  it('survives a record the schema cannot read, and an odd vlan value', async () => {
    bot.site().networks.push({ _id: '', site_id: 'x', name: 'broken', purpose: 'corporate' });
    const iot = bot.site().networks.find((n) => n.name === 'IoT');
    if (iot) iot.vlan = '20';
    const answer = (await bot.run('list_vlans')) as { result: Network[]; unreadable_records: number };
    const networks = answer.result;
    expect(answer.unreadable_records).toBe(1);
    expect(networks.map((n) => n.name)).not.toContain('broken');
    expect(networks.find((n) => n.name === 'IoT')?.vlan_id).toBe(20);
  });

  it('refuses an out-of-range limit without asking the controller', async () => {
    expect(await validationIssues(bot, 'list_vlans', { limit: '0' })).toEqual([LIMIT_ISSUE]);
    expect(bot.sim.requests).toHaveLength(0);
  });
});

describe('get_network_details and get_subnet_info', () => {
  it('returns the spec fields plus every stored field, found by id or by name', async () => {
    const byId = (await bot.run('get_network_details', { network_id: DEMO_NETWORKS.cameras.id })) as Record<
      string,
      unknown
    >;
    const byName = await bot.run('get_network_details', { network_id: 'cameras' });
    expect(byName).toEqual(byId);
    expect(byId).toMatchObject({
      id: DEMO_NETWORKS.cameras.id,
      name: 'Cameras',
      vlan_id: 60,
      dhcpd_enabled: true,
    });
    expect(byId.external_id).toBe(DEMO_NETWORKS.cameras.uuid);
    expect(byId.dhcpd_dns_1).toBe('9.9.9.9');
    expect(Object.keys(byId).slice(0, 6)).toEqual([
      'id',
      'name',
      'purpose',
      'vlan_id',
      'ip_subnet',
      'dhcpd_enabled',
    ]);
  });

  it('masks a stored secret', async () => {
    const guest = bot.site().networks.find((n) => n.name === 'Guest');
    if (guest) guest.x_passphrase = 'correct horse';
    const details = await bot.run('get_network_details', { network_id: 'Guest' });
    expect(JSON.stringify(details)).not.toContain('correct horse');
    expect((details as Record<string, unknown>).x_passphrase).toBe('[redacted]');
  });

  it('answers the subnet plan with DNS nulls where unset and the derived gateway', async () => {
    const info = await bot.run('get_subnet_info', { network_id: DEMO_NETWORKS.cameras.id });
    expect(info).toMatchObject({
      network_id: DEMO_NETWORKS.cameras.id,
      name: 'Cameras',
      ip_subnet: '10.60.0.1/24',
      vlan_id: 60,
      dhcpd_enabled: true,
      dhcpd_dns_1: '9.9.9.9',
      dhcpd_dns_3: null,
      dhcpd_dns_4: null,
      dhcpd_gateway: '10.60.0.1',
    });
    const lan = (await bot.run('get_subnet_info', { network_id: 'Default' })) as Record<string, unknown>;
    expect(lan.vlan_id).toBeNull();
    expect(typeof lan.dhcpd_leasetime).toBe('number');
  });

  it.each(['get_network_details', 'get_subnet_info'])(
    '%s raises ResourceNotFoundError for a missing network',
    async (tool) => {
      const error = await rejection(bot.run(tool, { network_id: 'ffffffffffffffffffffffff' }));
      expect(error).toBeInstanceOf(ResourceNotFoundError);
      expect((error as Error).message).toBe('network ffffffffffffffffffffffff not found');
    },
  );
});

describe('get_network_statistics', () => {
  it('counts clients by network_id, falls back to VLAN, and counts wired byte counters', async () => {
    const site = bot.site();
    site.clients.length = 0;
    site.clients.push(
      // Wired: only hyphenated counters, and a vlan that disagrees with its network_id.
      {
        _id: 'c1',
        mac: '02:00:00:00:00:01',
        is_wired: true,
        network_id: DEMO_NETWORKS.iot.id,
        vlan: 0,
        'wired-tx_bytes': 1000,
        'wired-rx_bytes': 500,
      },
      {
        _id: 'c2',
        mac: '02:00:00:00:00:02',
        is_wired: false,
        network_id: DEMO_NETWORKS.iot.id,
        tx_bytes: 10,
        rx_bytes: 20,
      },
      // No network_id: counted by its VLAN tag.
      { _id: 'c3', mac: '02:00:00:00:00:03', is_wired: false, vlan: 30, tx_bytes: 1, rx_bytes: 2 },
      // No network_id and untagged: matches nothing.
      { _id: 'c4', mac: '02:00:00:00:00:04', is_wired: false, vlan: 0, tx_bytes: 5, rx_bytes: 5 },
    );
    const stats = (await bot.run('get_network_statistics')) as {
      site_id: string;
      networks: {
        name: string;
        client_count: number;
        total_tx_bytes: number;
        total_rx_bytes: number;
        total_bytes: number;
      }[];
      unassigned_clients: number;
    };
    expect(stats.site_id).toBe('default');
    expect(stats.networks).toHaveLength(6);
    const iot = stats.networks.find((n) => n.name === 'IoT');
    expect(iot).toEqual({
      network_id: DEMO_NETWORKS.iot.id,
      name: 'IoT',
      vlan_id: 20,
      client_count: 2,
      total_tx_bytes: 1010,
      total_rx_bytes: 520,
      total_bytes: 1530,
    });
    expect(stats.networks.find((n) => n.name === 'Guest')?.client_count).toBe(1);
    expect(stats.networks.find((n) => n.name === 'Default')?.client_count).toBe(0);
    expect(stats.unassigned_clients).toBe(1);
  });
});

describe('create_network', () => {
  const lab = { name: 'Lab40', vlan_id: '40', subnet: '10.44.0.0/24' };

  it('creates Lab on VLAN 40 (the README scenario) tagged, in gateway form, with one POST', async () => {
    const result = (await bot.run('create_network', {
      name: 'Lab',
      vlan_id: '40',
      subnet: '10.70.0.0/24',
      confirm: 'true',
    })) as {
      success: boolean;
      network: Network;
    };
    expect(result.success).toBe(true);
    expect(result.network).toMatchObject({
      name: 'Lab',
      vlan_id: 40,
      ip_subnet: '10.70.0.1/24',
      purpose: 'corporate',
    });
    const stored = bot.site().networks.find((n) => n._id === result.network.id);
    expect(stored).toMatchObject({
      vlan_enabled: true,
      vlan: 40,
      dhcpd_enabled: true,
      dhcpd_start: '10.70.0.6',
    });
    const posts = bot.writes();
    expect(posts).toHaveLength(1);
    expect(posts[0]?.method).toBe('POST');
  });

  it('returns {dry_run, would_create} and changes nothing on a dry run', async () => {
    const before = JSON.stringify(bot.site().networks);
    const result = await bot.run('create_network', {
      name: 'Lab',
      vlan_id: 44,
      subnet: '10.44.0.0/24',
      dry_run: true,
    });
    expect(result).toMatchObject({
      dry_run: true,
      would_create: { name: 'Lab', vlan: 44, ip_subnet: '10.44.0.1/24' },
    });
    expect(JSON.stringify(bot.site().networks)).toBe(before);
    expect(bot.writes()).toHaveLength(0);
  });

  it('sends nothing at all without confirm', async () => {
    await expect(
      bot.run('create_network', { name: 'Lab', vlan_id: 44, subnet: '10.44.0.0/24' }),
    ).rejects.toBeInstanceOf(ConfirmationRequiredError);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it.each([
    [{ vlan_id: '0' }, 'vlan_id', 'must be a whole number from 1 to 4094'],
    [{ vlan_id: '4095' }, 'vlan_id', 'must be a whole number from 1 to 4094'],
    [{ subnet: '10.44.0.0/33' }, 'subnet', 'must be an IPv4 CIDR such as 10.30.0.0/24'],
    [{ subnet: 'lab-net' }, 'subnet', 'must be an IPv4 CIDR such as 10.30.0.0/24'],
    [{ dhcp_start: '10.99.0.10' }, 'dhcp_start', 'must be a host address inside 10.44.0.0/24'],
    [{ dhcp_stop: '10.44.1.10' }, 'dhcp_stop', 'must be a host address inside 10.44.0.0/24'],
    [{ purpose: 'dmz' }, 'purpose', 'must be one of corporate, guest, vlan-only, wan'],
    [{ dhcp_dns_1: '9.9.9' }, 'dhcp_dns_1', 'must be an IPv4 address such as 10.0.0.1'],
  ])('refuses %o naming %s, with no request sent', async (bad, field, rule) => {
    const issues = await validationIssues(bot, 'create_network', { ...lab, ...bad, confirm: true });
    expect(issues).toContainEqual({ field, rule });
    expect(bot.sim.requests).toHaveLength(0);
  });

  it('refuses a VLAN or subnet already in use before sending anything', async () => {
    const vlanTaken = await rejection(
      bot.run('create_network', { name: 'X', vlan_id: 30, subnet: '10.77.0.0/24', confirm: true }),
    );
    expect(vlanTaken).toBeInstanceOf(ConflictError);
    expect((vlanTaken as Error).message).toBe(`VLAN 30 is already used by Guest (${DEMO_NETWORKS.guest.id})`);
    const overlap = await rejection(
      bot.run('create_network', { name: 'X', vlan_id: 77, subnet: '10.20.0.128/25', confirm: true }),
    );
    expect((overlap as Error).message).toBe('subnet overlaps IoT (10.20.0.1/24)');
    expect(bot.writes()).toHaveLength(0);
  });

  it('creates a tag-only segment without address plan', async () => {
    const result = (await bot.run('create_network', {
      name: 'Voice',
      vlan_id: 61,
      purpose: 'vlan-only',
      dhcp_enabled: false,
      confirm: true,
    })) as { network: Network };
    const stored = bot.site().networks.find((n) => n._id === result.network.id);
    expect(stored).toMatchObject({ purpose: 'vlan-only', vlan_enabled: true, vlan: 61 });
    expect(stored?.ip_subnet).toBeUndefined();
  });

  it('refuses purpose=wan with the reason before anything is read or sent', async () => {
    const issues = await validationIssues(bot, 'create_network', {
      name: 'WAN2',
      vlan_id: 70,
      subnet: '10.70.0.0/24',
      purpose: 'wan',
      confirm: true,
    });
    expect(issues).toEqual([{ field: 'purpose', rule: WAN_REFUSAL }]);
    expect(WAN_REFUSAL).toMatch(/wan_networkgroup/);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it("passes the controller's refusal through as a sentence with its code", async () => {
    const error = await rejection(
      bot.run('create_network', { name: 'High', vlan_id: 4090, subnet: '10.90.0.0/24', confirm: true }),
    );
    expect(error).toBeInstanceOf(GatewayRejectedError);
    expect((error as GatewayRejectedError).controllerCode).toMatch(/InvalidPayload/);
    expect(bot.writes()).toHaveLength(1);
  });
});

describe('update_network', () => {
  it('PUTs the stored object with only the supplied fields changed', async () => {
    const stored = structuredClone(bot.site().networks.find((n) => n.name === 'IoT'));
    if (!stored) throw new Error('no IoT network');
    const result = await bot.run('update_network', {
      network_id: 'IoT',
      name: 'IoT Things',
      dhcp_dns_1: '1.1.1.1',
      confirm: true,
    });
    const puts = bot.writes();
    expect(puts).toHaveLength(1);
    expect(puts[0]?.method).toBe('PUT');
    expect(puts[0]?.route).toBe(`/api/s/default/rest/networkconf/${DEMO_NETWORKS.iot.id}`);
    const { _id, site_id, external_id, attr_no_delete, attr_hidden_id, ...editable } = stored;
    expect(puts[0]?.body).toEqual({
      ...editable,
      name: 'IoT Things',
      dhcpd_dns_enabled: true,
      dhcpd_dns_1: '1.1.1.1',
    });
    expect(result).toMatchObject({ success: true, network: { name: 'IoT Things', vlan_id: 20 } });
    expect(bot.site().networks.find((n) => n._id === DEMO_NETWORKS.iot.id)?.dhcpd_dns_1).toBe('1.1.1.1');
  });

  it('previews a field-by-field diff with a re-tag warning, and changes nothing', async () => {
    const before = JSON.stringify(bot.site().networks);
    const preview = (await bot.run('update_network', {
      network_id: 'Guest',
      vlan_id: 31,
      dry_run: true,
    })) as {
      dry_run: boolean;
      changes: Record<string, { from: unknown; to: unknown }>;
      warnings: string[];
    };
    expect(preview.dry_run).toBe(true);
    expect(preview.changes).toEqual({ vlan: { from: 30, to: 31 } });
    expect(preview.warnings[0]).toMatch(
      /^re-tags all traffic on Guest; [1-9]\d* active clients? will reconnect$/,
    );
    expect(JSON.stringify(bot.site().networks)).toBe(before);
    expect(bot.writes()).toHaveLength(0);
  });

  it('moves the lease range with the subnet unless one is given', async () => {
    await bot.run('update_network', { network_id: 'Guest', subnet: '10.130.0.0/24', confirm: true });
    expect(bot.site().networks.find((n) => n.name === 'Guest')).toMatchObject({
      ip_subnet: '10.130.0.1/24',
      dhcpd_start: '10.130.0.6',
      dhcpd_stop: '10.130.0.254',
    });
  });

  it('refuses a lease range outside the stored subnet, naming the field', async () => {
    const issues = await validationIssues(bot, 'update_network', {
      network_id: 'Guest',
      dhcp_start: '10.31.0.5',
      confirm: true,
    });
    expect(issues).toEqual([{ field: 'dhcp_start', rule: 'must be a host address inside 10.30.0.0/24' }]);
    expect(bot.writes()).toHaveLength(0);
  });

  it('sends no PUT when nothing would change', async () => {
    const result = await bot.run('update_network', { network_id: 'Guest', name: 'Guest', confirm: true });
    expect(result).toMatchObject({ success: true, changes: {} });
    expect(bot.writes()).toHaveLength(0);
  });

  it('refuses to turn a network into a WAN, sending nothing', async () => {
    const issues = await validationIssues(bot, 'update_network', {
      network_id: 'IoT',
      purpose: 'wan',
      confirm: true,
    });
    expect(issues).toEqual([{ field: 'purpose', rule: WAN_REFUSAL }]);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it('refuses dhcp_enabled=true on a network without a subnet, sending nothing', async () => {
    const issues = await validationIssues(bot, 'update_network', {
      network_id: 'Servers',
      dhcp_enabled: true,
      confirm: true,
    });
    expect(issues).toEqual([
      { field: 'dhcp_enabled', rule: 'a vlan-only network has no subnet, so it cannot serve DHCP' },
    ]);
    expect(bot.writes()).toHaveLength(0);
  });

  it('drops the subnet and DHCP fields when switching to vlan-only, and says so in the preview', async () => {
    const stored = structuredClone(bot.site().networks.find((n) => n.name === 'Cameras'));
    if (!stored) throw new Error('no Cameras network');
    const preview = (await bot.run('update_network', {
      network_id: 'Cameras',
      purpose: 'vlan-only',
      dry_run: true,
    })) as { changes: Record<string, { from: unknown; to: unknown }>; warnings: string[] };
    expect(preview.changes).toMatchObject({
      purpose: { from: 'corporate', to: 'vlan-only' },
      ip_subnet: { from: '10.60.0.1/24', to: null },
      dhcpd_enabled: { from: true, to: false },
      dhcpd_start: { from: '10.60.0.50', to: null },
      dhcpd_dns_1: { from: '9.9.9.9', to: null },
      domain_name: { from: 'cams.home.arpa', to: null },
    });
    expect(preview.warnings[0]).toMatch(/^switching to vlan-only drops the address plan of Cameras/);
    expect(bot.writes()).toHaveLength(0);

    const result = (await bot.run('update_network', {
      network_id: 'Cameras',
      purpose: 'vlan-only',
      confirm: true,
    })) as { network: Network };
    const [put] = bot.writes();
    const body = put?.body as Record<string, unknown>;
    expect(put?.method).toBe('PUT');
    expect(body).toMatchObject({ purpose: 'vlan-only', dhcpd_enabled: false, vlan_enabled: true, vlan: 60 });
    for (const dropped of [
      'ip_subnet',
      'dhcpd_start',
      'dhcpd_stop',
      'dhcpd_leasetime',
      'dhcpd_dns_1',
      'domain_name',
    ]) {
      expect(body).not.toHaveProperty(dropped);
    }
    expect(body.igmp_snooping).toBe(stored.igmp_snooping);
    expect(result.network).toMatchObject({ purpose: 'vlan-only', ip_subnet: null, dhcpd_enabled: false });
  });

  it('refuses DHCP settings together with a switch to vlan-only, naming each field', async () => {
    const issues = await validationIssues(bot, 'update_network', {
      network_id: 'IoT',
      purpose: 'vlan-only',
      dhcp_start: '10.20.0.10',
      dhcp_dns_1: '1.1.1.1',
      confirm: true,
    });
    expect(issues).toEqual([
      { field: 'dhcp_start', rule: 'a vlan-only network has no subnet or DHCP range' },
      { field: 'dhcp_dns_1', rule: 'a vlan-only network has no DHCP server to hand it out' },
    ]);
    expect(bot.writes()).toHaveLength(0);
  });

  it('clears one DNS server with an empty value and keeps custom DNS on while another is left', async () => {
    await bot.run('update_network', { network_id: 'Cameras', dhcp_dns_2: '', confirm: true });
    const body = bot.writes()[0]?.body as Record<string, unknown>;
    expect(body).toMatchObject({ dhcpd_dns_1: '9.9.9.9', dhcpd_dns_2: '', dhcpd_dns_enabled: true });
    expect(bot.site().networks.find((n) => n.name === 'Cameras')?.dhcpd_dns_2).toBe('');
  });

  it('turns custom DNS off when the last server is cleared, as the console does', async () => {
    // The console's own "clear DNS" PUT answers dhcpd_dns_enabled false (captured from a UDM).
    const [captured] = fixtureRecords('classic/rest-networkconf-put-response-lan-dns-cleared.udm.json') as {
      dhcpd_dns_enabled: boolean;
    }[];
    const preview = (await bot.run('update_network', {
      network_id: 'Cameras',
      dhcp_dns_1: '',
      dhcp_dns_2: '',
      dry_run: true,
    })) as { changes: Record<string, { from: unknown; to: unknown }>; warnings: string[] };
    expect(preview.changes).toEqual({
      dhcpd_dns_1: { from: '9.9.9.9', to: '' },
      dhcpd_dns_2: { from: '149.112.112.112', to: '' },
      dhcpd_dns_enabled: { from: true, to: captured?.dhcpd_dns_enabled },
    });
    expect(preview.warnings).toContain(
      'no custom DNS server is left: clients get the gateway as their DNS server',
    );

    await bot.run('update_network', { network_id: 'Cameras', dhcp_dns_1: '', dhcp_dns_2: '', confirm: true });
    expect(bot.writes()[0]?.body).toMatchObject({
      dhcpd_dns_1: '',
      dhcpd_dns_2: '',
      dhcpd_dns_enabled: false,
    });
  });

  it('clears domain_name with an empty value; clearing what is not set sends nothing', async () => {
    await bot.run('update_network', { network_id: 'IoT', domain_name: '', confirm: true });
    expect(bot.writes()[0]?.body).toMatchObject({ domain_name: '' });
    bot.sim.clearRequests();

    const result = await bot.run('update_network', {
      network_id: 'Guest',
      domain_name: '',
      dhcp_dns_3: '',
      confirm: true,
    });
    expect(result).toMatchObject({ success: true, changes: {} });
    expect(bot.writes()).toHaveLength(0);
  });

  it('still refuses a malformed DNS server or domain, saying empty clears it', async () => {
    const issues = await validationIssues(bot, 'update_network', {
      network_id: 'IoT',
      dhcp_dns_1: '1.1.1',
      domain_name: 'bad domain',
      confirm: true,
    });
    expect(issues).toEqual([
      { field: 'dhcp_dns_1', rule: 'must be an IPv4 address such as 10.0.0.1, or empty to clear it' },
      { field: 'domain_name', rule: 'must be a domain name such as lan.example.com, or empty to clear it' },
    ]);
  });

  it('raises ResourceNotFoundError for a missing network', async () => {
    await expect(
      bot.run('update_network', { network_id: 'Nope', name: 'x', confirm: true }),
    ).rejects.toBeInstanceOf(ResourceNotFoundError);
  });
});

describe('delete_network', () => {
  // Zone-based references need zones and ACL rules (10.1): delete_network through the official API.
  const bot = useTestBot();
  type DeletePreview = { would_delete: Network; references: NetworkReference[]; warnings: string[] };

  it('says nothing about clients losing connectivity when none is on the network', async () => {
    await bot.run('create_network', { name: 'Empty', vlan_id: 45, subnet: '10.45.0.0/24', confirm: true });
    const preview = (await bot.run('delete_network', {
      network_id: 'Empty',
      dry_run: true,
    })) as DeletePreview;
    expect(preview.warnings).toContain('deletion is irreversible');
    expect(preview.warnings.filter((w) => /client|connectivity/.test(w))).toEqual([]);
  });

  it('previews with a client count and deletes nothing on a dry run', async () => {
    const preview = (await bot.run('delete_network', {
      network_id: 'Guest',
      dry_run: true,
    })) as DeletePreview;
    // One id per network: on a 10.1 console the official UUID.
    expect(preview.would_delete.id).toBe(DEMO_NETWORKS.guest.uuid);
    // Volatile facts live only in warnings, so a client joining does not void an approval (drift).
    expect(Object.keys(preview).sort()).toEqual(['dry_run', 'references', 'warnings', 'would_delete']);
    expect(preview.warnings).toContainEqual(
      expect.stringMatching(/^[1-9]\d* active clients? on Guest \(VLAN 30\) lose connectivity immediately$/),
    );
    expect(preview.warnings).toContain('deletion is irreversible');
    expect(bot.site().networks.some((n) => n.name === 'Guest')).toBe(true);
    expect(bot.writes()).toHaveLength(0);
  });

  it('lists by name every policy, rule, route, zone, SSID and port profile that points at IoT (zone-based demo)', async () => {
    const preview = (await bot.run('delete_network', { network_id: 'IoT', dry_run: true })) as DeletePreview;

    expect(preview.references).toEqual([
      {
        kind: 'firewall policy',
        name: 'Block IoT to Internal',
        // The official id: policies are read through the official API on 10.1.
        id: DEMO_FIREWALL_POLICY_UUIDS.blockIotToInternal,
        via: 'source',
        listed_by: 'list_firewall_policies',
        after_delete: 'unchanged: it points at a network that no longer exists',
      },
      {
        kind: 'ACL rule',
        name: 'Block IoT to NAS',
        id: DEMO_ACL_RULES.blockIotToNas,
        via: 'source',
        listed_by: 'list_acl_rules',
        after_delete: 'unchanged: it points at a network that no longer exists',
      },
      {
        kind: 'traffic route',
        name: 'Block social media on IoT',
        id: '65b3c8e1f4a9d20c7e5a1201',
        via: 'applies to',
        listed_by: 'list_traffic_routes',
        after_delete: 'unchanged: it points at a network that no longer exists',
      },
      {
        kind: 'firewall zone',
        name: 'IoT Devices',
        id: DEMO_ZONES.iotDevices,
        via: 'member',
        listed_by: 'list_firewall_zones',
        after_delete: 'the controller takes the network out of it',
      },
      {
        kind: 'Wi-Fi network',
        name: 'Home-IoT',
        // On 10.1 the SSID by its official broadcast id, as the Wi-Fi tools show it.
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
        via: 'network',
        listed_by: 'list_wifi_broadcasts',
        after_delete: 'unchanged: it points at a network that no longer exists',
      },
      {
        kind: 'port profile',
        name: 'AP trunk',
        id: '65b3c8e1f4a9d20c7e5a1602',
        via: 'tagged network',
        listed_by: 'UniFi Network (no tool manages port profiles)',
        after_delete: 'unchanged: it points at a network that no longer exists',
      },
    ]);
    // Each tool named there exists, so the admin can run it to find the object.
    for (const reference of preview.references.filter((r) => r.listed_by.startsWith('list_')))
      expect(bot.app.registry.get(reference.listed_by), reference.listed_by).toBeDefined();
    expect(preview.warnings).toContain(
      '5 object(s) listed under references still point at IoT; they are not changed and will point at a network that no longer exists',
    );
    expect(preview.warnings).toContain(
      'IoT leaves firewall zone "IoT Devices" (the controller takes it out)',
    );
    expect(preview.warnings.filter((w) => w.startsWith('could not check'))).toEqual([]);
    // The legacy rule list of a zone-based console is empty whatever points at IoT: not asked.
    expect(bot.sim.requests.filter((r) => r.route.includes('rest/firewallrule'))).toEqual([]);
    expect(bot.writes()).toHaveLength(0);
  });

  it('finds a network referenced as a destination, an egress or a MAC rule filter', async () => {
    const [route] = bot.site().trafficRoutes;
    const backup = bot.site().trafficRules.find((r) => r.description === 'Allow NAS offsite backup');
    const macRule = bot.site().aclRules.find((r) => r.type === 'MAC');
    const plex = bot.site().firewallPolicies.find((p) => p.name === 'Allow Plex from WAN');
    const bedtime = bot.site().firewallPolicies.find((p) => p.name === "Kids' bedtime");
    if (!route || !backup || macRule?.type !== 'MAC' || !plex || !bedtime)
      throw new Error('demo records missing');
    route.network_id = DEMO_NETWORKS.cameras.id;
    backup.network_ids = [DEMO_NETWORKS.cameras.id];
    macRule.networkIdFilter = DEMO_NETWORKS.cameras.uuid;
    plex.destination = {
      ...plex.destination,
      matching_target: 'NETWORK',
      matching_target_type: 'OBJECT',
      network_ids: [DEMO_NETWORKS.cameras.id],
    };
    // A network id left beside an address target matches nothing, so it points at nothing.
    bedtime.source = { ...bedtime.source, network_ids: [DEMO_NETWORKS.cameras.id] };
    // Deliberately alike: each delete preview is checked for its whole list of references; the network and what points at it differ.
    const preview = (await bot.run('delete_network', {
      network_id: 'Cameras',
      dry_run: true,
    })) as DeletePreview;

    expect(preview.references.map((r) => [r.kind, r.name, r.via])).toEqual([
      ['firewall policy', 'Allow Plex from WAN', 'destination'],
      ['firewall policy', 'Cameras: no internet', 'source'],
      ['ACL rule', 'Allow cameras to NVR', 'source'],
      ['ACL rule', "Block kids' tablet", 'network filter'],
      ['traffic route', 'Allow NAS offsite backup', 'destination'],
      ['policy-based route', 'Work domains via primary WAN', 'egress network'],
      ['firewall zone', 'IoT Devices', 'member'],
      ['port profile', 'Camera ports', 'native network'],
    ]);
    // The traffic routes are what list_traffic_routes shows; policy-based routes no tool manages.
    expect(preview.references.find((r) => r.kind === 'traffic route')?.listed_by).toBe('list_traffic_routes');
    expect(preview.references.find((r) => r.kind === 'policy-based route')?.listed_by).toBe(
      'UniFi Network (no tool manages policy-based routes)',
    );
    const routes = (await bot.run('list_traffic_routes')) as { name: string }[];
    expect(routes.map((r) => r.name)).toContain('Allow NAS offsite backup');
    expect(routes.map((r) => r.name)).not.toContain('Work domains via primary WAN');
  });

  it('says which kinds it could not check instead of failing or claiming nothing points there', async () => {
    bot.sim.injectFault({
      kind: 'status',
      status: 400,
      route: '/firewall/policies',
      body: { statusCode: 400, code: 'api.err.InvalidObject', message: 'InvalidObject' },
    });
    bot.sim.injectFault({ kind: 'status', status: 404, route: '/acl-rules' });

    const preview = (await bot.run('delete_network', { network_id: 'IoT', dry_run: true })) as DeletePreview;

    expect(preview.references.map((r) => r.kind)).toEqual([
      'traffic route',
      'firewall zone',
      'Wi-Fi network',
      'port profile',
    ]);
    const unchecked = preview.warnings.filter((w) => w.startsWith('could not check'));
    expect(unchecked).toHaveLength(2);
    expect(unchecked[0]).toMatch(/^could not check firewall policies: .*InvalidObject/);
    expect(unchecked[1]).toMatch(/^could not check ACL rules: /);
  });

  it('keeps the references in the compared part of the preview, unlike the client count', async () => {
    const first = (await bot.run('delete_network', { network_id: 'IoT', dry_run: true })) as DeletePreview;
    const zone = bot.site().zones.find((z) => z.name === 'IoT Devices');
    if (!zone) throw new Error('no IoT Devices zone');
    zone.networkIds = [DEMO_NETWORKS.cameras.uuid];

    const second = (await bot.run('delete_network', { network_id: 'IoT', dry_run: true })) as DeletePreview;

    expect(second.references).toHaveLength(first.references.length - 1);
    expect(second.references.some((r) => r.kind === 'firewall zone')).toBe(false);
  });

  it('checks existence on a dry run too', async () => {
    await expect(bot.run('delete_network', { network_id: 'Nope', dry_run: true })).rejects.toBeInstanceOf(
      ResourceNotFoundError,
    );
  });

  it('deletes and answers {success, deleted_network_id}', async () => {
    // A classic _id (older results, journals) is still accepted; the answer names the official id.
    const result = await bot.run('delete_network', { network_id: DEMO_NETWORKS.servers.id, confirm: true });
    expect(result).toEqual({ success: true, deleted_network_id: DEMO_NETWORKS.servers.uuid });
    expect(bot.site().networks.some((n) => n._id === DEMO_NETWORKS.servers.id)).toBe(false);
    expect(bot.writes().map((r) => `${r.method} ${r.route}`)).toEqual([
      `DELETE /integration/v1/sites/${bot.site().uuid}/networks/${DEMO_NETWORKS.servers.uuid}`,
    ]);
  });

  it('refuses the default network, does not know the WAN (the official API lists none), and sends nothing', async () => {
    await expect(bot.run('delete_network', { network_id: 'Default', confirm: true })).rejects.toThrow(
      /system network/,
    );
    await expect(bot.run('delete_network', { network_id: 'WAN', confirm: true })).rejects.toBeInstanceOf(
      ResourceNotFoundError,
    );
    expect(bot.writes()).toHaveLength(0);
  });
});

describe('delete_network on a 9.0 console (classic networkconf)', () => {
  it('refuses the WAN as a system network and deletes through networkconf', async () => {
    await expect(bot.run('delete_network', { network_id: 'WAN', confirm: true })).rejects.toThrow(
      /system network/,
    );
    const result = await bot.run('delete_network', { network_id: DEMO_NETWORKS.servers.id, confirm: true });
    expect(result).toEqual({ success: true, deleted_network_id: DEMO_NETWORKS.servers.id });
    expect(bot.writes().map((r) => `${r.method} ${r.route}`)).toEqual([
      `DELETE /api/s/default/rest/networkconf/${DEMO_NETWORKS.servers.id}`,
    ]);
  });
});

describe('delete_network on a legacy console (traditional rules, no zones)', () => {
  type DeletePreview = { references: NetworkReference[]; warnings: string[] };
  const legacy = useTestBot({ simulator: { firewall: 'legacy' } });
  const iot = { id: DEMO_NETWORKS.iot.id, uuid: DEMO_NETWORKS.iot.uuid, name: 'IoT' };

  it('lists the rules that point at IoT, and asks for no zones or policies the console has not got', async () => {
    const preview = (await legacy.run('delete_network', {
      network_id: 'IoT',
      dry_run: true,
    })) as DeletePreview;

    expect(preview.references.map((r) => [r.kind, r.name, r.via])).toEqual([
      ['firewall rule', 'Block IoT to LAN', 'source'],
      ['ACL rule', 'Block IoT to NAS', 'source'],
      ['traffic route', 'Block social media on IoT', 'applies to'],
      ['Wi-Fi network', 'Home-IoT', 'network'],
      ['port profile', 'AP trunk', 'tagged network'],
    ]);
    expect(preview.references[0]?.id).toBe('65b3c8e1f4a9d20c7e5a1102');
    expect(preview.warnings.filter((w) => w.startsWith('could not check'))).toEqual([]);
    expect(
      legacy.sim.requests.filter((r) => r.route.includes('firewall-policies') || r.route.includes('/zones')),
    ).toEqual([]);
  });

  it('reports the kinds of the other firewall generation as not applicable, not as nothing found', async () => {
    const report = await findNetworkReferences(legacy.app.context.gateway, 'default', iot);

    expect(report.notApplicable).toEqual([
      'firewall policies: not applicable, site default uses the traditional firewall',
      'firewall zones: not applicable, site default uses the traditional firewall',
    ]);
    expect(report.unchecked).toEqual([]);
    expect(report.references.some((r) => r.kind === 'firewall rule')).toBe(true);
  });

  it('names a rule list the controller refused among the kinds it could not check', async () => {
    legacy.sim.injectFault({
      kind: 'status',
      status: 400,
      route: '/rest/firewallrule',
      body: { meta: { rc: 'error', msg: 'api.err.InvalidObject' }, data: [] },
    });

    const preview = (await legacy.run('delete_network', {
      network_id: 'IoT',
      dry_run: true,
    })) as DeletePreview;

    expect(preview.references.some((r) => r.kind === 'firewall rule')).toBe(false);
    const unchecked = preview.warnings.filter((w) => w.startsWith('could not check'));
    expect(unchecked).toHaveLength(1);
    expect(unchecked[0]).toMatch(/^could not check firewall rules: .*InvalidObject/);
  });
});

describe('delete_network when the firewall generation cannot be read', () => {
  it('leaves the generation-bound kinds unchecked, with the reason, and checks the others', async () => {
    const fresh = await startTestBot({ simulator: { firewall: 'legacy' } });
    try {
      fresh.sim.injectFault({
        kind: 'status',
        status: 400,
        route: 'site-feature-migration',
        body: { code: 'api.err.Invalid', message: 'odd', errorCode: 400 },
      });

      const preview = (await fresh.run('delete_network', {
        network_id: 'IoT',
        dry_run: true,
      })) as { references: NetworkReference[]; warnings: string[] };

      const unchecked = preview.warnings.filter((w) => w.startsWith('could not check'));
      expect(unchecked.map((w) => w.split(':')[0])).toEqual([
        'could not check firewall rules',
        'could not check firewall policies',
        'could not check firewall zones',
      ]);
      expect(preview.references.map((r) => r.kind)).toEqual([
        'ACL rule',
        'traffic route',
        'Wi-Fi network',
        'port profile',
      ]);
    } finally {
      await fresh.close();
    }
  });
});
