import { describe, expect, it } from 'vitest';
import { ConfirmationRequiredError, ResourceNotFoundError } from '../../../src/errors.js';
import { DEMO_TRAFFIC_MATCHING_LISTS } from '../../../src/simulator/index.js';
import type { TrafficMatchingList } from '../../../src/tools/firewall/traffic-matching-list-model.js';
import { expectPagingDefaults, expectPagingRangeRefused } from '../../helpers/list-paging.js';
import { rejection, useTestBot, validationIssues } from '../../helpers/tool-test.js';

const bot = useTestBot();

const LISTS = '/integration/v1/sites/88f7af54-98f8-306a-a1c7-c9349722b1f6/traffic-matching-lists';
const WEB_PORTS = DEMO_TRAFFIC_MATCHING_LISTS.webPorts;
/** The demo Web Ports list as the official API takes it back, renamed by each test. */
const webPortsBody = {
  type: 'PORTS',
  items: [
    { type: 'PORT_NUMBER', value: 80 },
    { type: 'PORT_NUMBER', value: 443 },
    { type: 'PORT_NUMBER_RANGE', start: 8000, stop: 8100 },
  ],
};

/** The lists as stored by the simulator, in the controller's typed form. */
function storedLists() {
  return JSON.parse(JSON.stringify(bot.site().trafficMatchingLists)) as unknown;
}

describe('list_traffic_matching_lists and get_traffic_matching_list', () => {
  it('lists every list with typed items read back as strings', async () => {
    const lists = (await bot.run('list_traffic_matching_lists')) as TrafficMatchingList[];

    expect(lists).toEqual([
      { id: WEB_PORTS, list_type: 'PORTS', name: 'Web Ports', items: ['80', '443', '8000-8100'] },
      {
        id: DEMO_TRAFFIC_MATCHING_LISTS.trustedAdminHosts,
        list_type: 'IPV4_ADDRESSES',
        name: 'Trusted Admin Hosts',
        items: ['192.168.1.112', '10.20.0.0/24', '192.168.1.100-192.168.1.120'],
      },
      {
        id: DEMO_TRAFFIC_MATCHING_LISTS.ipv6CloudDns,
        list_type: 'IPV6_ADDRESSES',
        name: 'IPv6 Cloud DNS',
        items: ['2606:4700:4700::1111', '2001:4860:4860::/48'],
      },
    ]);
  });

  it('pages with limit and offset (defaults 100 and 0)', async () => {
    const page = (await bot.run('list_traffic_matching_lists', {
      limit: '1',
      offset: '1',
    })) as TrafficMatchingList[];

    expect(page.map((l) => l.name)).toEqual(['Trusted Admin Hosts']);
    expectPagingDefaults(bot, 'list_traffic_matching_lists');
  });

  it('refuses an out-of-range limit or offset without asking the controller', async () => {
    await expectPagingRangeRefused(bot, 'list_traffic_matching_lists');
  });

  it('gets one list by id or by name', async () => {
    const byId = await bot.run('get_traffic_matching_list', { list_id: WEB_PORTS });
    const byName = await bot.run('get_traffic_matching_list', { list_id: 'web ports' });

    expect(byId).toEqual({
      id: WEB_PORTS,
      list_type: 'PORTS',
      name: 'Web Ports',
      items: ['80', '443', '8000-8100'],
    });
    expect(byName).toEqual(byId);
  });

  it('raises ResourceNotFoundError for an unknown list', async () => {
    const error = await rejection(
      bot.run('get_traffic_matching_list', { list_id: '00000000-0000-0000-0000-000000000000' }),
    );

    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect((error as Error).message).toBe(
      'traffic matching list 00000000-0000-0000-0000-000000000000 not found',
    );
  });

  it('requires list_id', async () => {
    expect(await validationIssues(bot, 'get_traffic_matching_list', {})).toEqual([
      { field: 'list_id', rule: 'is required', missing: true },
    ]);
    expect(bot.sim.requests).toHaveLength(0);
  });
});

describe('create_traffic_matching_list', () => {
  it('sends string items as typed items and reads them back as the same strings', async () => {
    const ports = (await bot.run('create_traffic_matching_list', {
      list_type: 'PORTS',
      name: 'Alt web',
      items: ['443', '8000-8100'],
      confirm: true,
    })) as { success: boolean; traffic_matching_list: TrafficMatchingList; warnings: string[] };
    const hosts = (await bot.run('create_traffic_matching_list', {
      list_type: 'IPV4_ADDRESSES',
      name: 'Backup targets',
      items: ['10.0.0.0/8', '192.168.1.10-192.168.1.20', '192.168.1.5'],
      confirm: true,
    })) as { traffic_matching_list: TrafficMatchingList };

    expect(bot.writes().map((w) => [w.method, w.route, w.body])).toEqual([
      [
        'POST',
        LISTS,
        {
          type: 'PORTS',
          name: 'Alt web',
          items: [
            { type: 'PORT_NUMBER', value: 443 },
            { type: 'PORT_NUMBER_RANGE', start: 8000, stop: 8100 },
          ],
        },
      ],
      [
        'POST',
        LISTS,
        {
          type: 'IPV4_ADDRESSES',
          name: 'Backup targets',
          items: [
            { type: 'SUBNET', value: '10.0.0.0/8' },
            { type: 'IP_ADDRESS_RANGE', start: '192.168.1.10', stop: '192.168.1.20' },
            { type: 'IP_ADDRESS', value: '192.168.1.5' },
          ],
        },
      ],
    ]);
    expect(ports).toMatchObject({ success: true, warnings: [] });
    expect(ports.traffic_matching_list).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      list_type: 'PORTS',
      name: 'Alt web',
      items: ['443', '8000-8100'],
    });
    const readBack = await bot.run('get_traffic_matching_list', { list_id: hosts.traffic_matching_list.id });
    expect(readBack).toMatchObject({
      list_type: 'IPV4_ADDRESSES',
      items: ['10.0.0.0/8', '192.168.1.10-192.168.1.20', '192.168.1.5'],
    });
  });

  it('takes IPv6 addresses and prefixes in an IPV6 list, and refuses a range (the document has no IPv6 range)', async () => {
    await bot.run('create_traffic_matching_list', {
      list_type: 'IPV6_ADDRESSES',
      name: 'v6 hosts',
      items: ['2001:db8::1', '2001:db8:1::/48'],
      confirm: true,
    });

    expect(bot.writes()[0]?.body).toMatchObject({
      items: [
        { type: 'IP_ADDRESS', value: '2001:db8::1' },
        { type: 'SUBNET', value: '2001:db8:1::/48' },
      ],
    });
    const issues = await validationIssues(bot, 'create_traffic_matching_list', {
      list_type: 'IPV6_ADDRESSES',
      name: 'v6 range',
      items: ['2001:db8::10-2001:db8::20'],
      confirm: true,
    });
    expect(issues).toEqual([
      {
        field: 'items',
        rule: '"2001:db8::10-2001:db8::20" is a range: an IPv6 list takes addresses and prefixes only (list type IPV6_ADDRESSES)',
      },
    ]);
    expect(bot.writes()).toHaveLength(1);
  });

  it('refuses a port in an IPv4 list, naming items and the bad item, before sending anything', async () => {
    const issues = await validationIssues(bot, 'create_traffic_matching_list', {
      list_type: 'IPV4_ADDRESSES',
      name: 'Mixed',
      items: ['10.0.0.0/8', '443'],
      confirm: true,
    });

    expect(issues).toEqual([
      {
        field: 'items',
        rule: '"443" is not an IPv4 address (192.168.1.10), subnet (10.0.0.0/8) or range (192.168.1.10-192.168.1.20) (list type IPV4_ADDRESSES)',
      },
    ]);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it.each([
    ['an address in a PORTS list', 'PORTS', '10.0.0.1', 'is not a port (443) or a port range'],
    ['a port above 65535', 'PORTS', '70000', 'is not a port (443) or a port range'],
    ['port 0', 'PORTS', '0', 'is not a port (443) or a port range'],
    ['a reversed port range', 'PORTS', '8100-8000', 'is a range whose start is after its stop'],
    [
      'a reversed address range',
      'IPV4_ADDRESSES',
      '10.0.0.9-10.0.0.1',
      'is a range whose start is after its stop',
    ],
    ['a bad prefix', 'IPV4_ADDRESSES', '10.0.0.0/33', 'is not an IPv4 address'],
    ['an IPv4 address in an IPv6 list', 'IPV6_ADDRESSES', '10.0.0.1', 'is not an IPv6 address'],
  ])('refuses %s', async (_label, listType, item, rule) => {
    const issues = await validationIssues(bot, 'create_traffic_matching_list', {
      list_type: listType,
      name: 'Bad',
      items: [item],
      confirm: true,
    });

    expect(issues).toHaveLength(1);
    expect(issues[0]?.field).toBe('items');
    expect(issues[0]?.rule).toContain(`"${item}" ${rule}`);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it('refuses an unknown list_type, an empty items list and a missing name, naming each field', async () => {
    const issues = await validationIssues(bot, 'create_traffic_matching_list', {
      list_type: 'MACS',
      items: [],
      confirm: true,
    });

    expect(issues).toEqual([
      { field: 'list_type', rule: 'must be one of PORTS, IPV4_ADDRESSES, IPV6_ADDRESSES' },
      { field: 'name', rule: 'is required', missing: true },
      { field: 'items', rule: 'must hold at least one item' },
    ]);
    expect(bot.sim.requests).toHaveLength(0);
  });

  it('previews the typed payload on a dry run and changes nothing', async () => {
    const before = storedLists();

    const preview = await bot.run('create_traffic_matching_list', {
      list_type: 'PORTS',
      name: 'web ports',
      items: ['22'],
      dry_run: true,
    });

    expect(preview).toEqual({
      dry_run: true,
      would_create: { type: 'PORTS', name: 'web ports', items: [{ type: 'PORT_NUMBER', value: 22 }] },
      warnings: [`another list is already named "Web Ports" (${WEB_PORTS})`],
    });
    expect(bot.writes()).toEqual([]);
    expect(storedLists()).toEqual(before);
  });

  it('changes nothing without confirm', async () => {
    const error = await rejection(
      bot.run('create_traffic_matching_list', { list_type: 'PORTS', name: 'SSH', items: ['22'] }),
    );

    expect(error).toBeInstanceOf(ConfirmationRequiredError);
    expect(bot.sim.requests).toHaveLength(0);
  });
});

describe('update_traffic_matching_list', () => {
  it('replaces every item and PUTs the merged type, name and items (a full replace)', async () => {
    const result = await bot.run('update_traffic_matching_list', {
      list_id: WEB_PORTS,
      items: ['22', '2222-2230'],
      confirm: true,
    });

    expect(bot.writes().map((w) => [w.method, w.route, w.body])).toEqual([
      [
        'PUT',
        `${LISTS}/${WEB_PORTS}`,
        {
          type: 'PORTS',
          name: 'Web Ports',
          items: [
            { type: 'PORT_NUMBER', value: 22 },
            { type: 'PORT_NUMBER_RANGE', start: 2222, stop: 2230 },
          ],
        },
      ],
    ]);
    expect(result).toEqual({
      success: true,
      list_id: WEB_PORTS,
      name: 'Web Ports',
      changes: { items: { from: ['80', '443', '8000-8100'], to: ['22', '2222-2230'] } },
      warnings: ['items replace every existing entry of the list'],
      traffic_matching_list: {
        id: WEB_PORTS,
        list_type: 'PORTS',
        name: 'Web Ports',
        items: ['22', '2222-2230'],
      },
    });
  });

  it('renames by sending the stored type and items unchanged', async () => {
    await bot.run('update_traffic_matching_list', { list_id: 'Web Ports', name: 'HTTP(S)', confirm: true });

    expect(bot.writes()[0]?.body).toEqual({
      ...webPortsBody,
      name: 'HTTP(S)',
    });
    expect(bot.site().trafficMatchingLists[0]?.name).toBe('HTTP(S)');
  });

  it('refuses a new list_type when the kept items do not suit it, and sends nothing', async () => {
    const issues = await validationIssues(bot, 'update_traffic_matching_list', {
      list_id: WEB_PORTS,
      list_type: 'IPV4_ADDRESSES',
      confirm: true,
    });

    expect(issues.map((i) => i.field)).toEqual(['items', 'items', 'items', 'list_type']);
    expect(issues[3]?.rule).toBe('the current items do not suit IPV4_ADDRESSES: give items valid for it');
    expect(bot.writes()).toEqual([]);
  });

  it('changes the type together with items valid for it', async () => {
    const result = (await bot.run('update_traffic_matching_list', {
      list_id: WEB_PORTS,
      list_type: 'IPV4_ADDRESSES',
      items: ['203.0.113.0/24'],
      confirm: true,
    })) as { changes: Record<string, unknown> };

    expect(bot.writes()[0]?.body).toEqual({
      type: 'IPV4_ADDRESSES',
      name: 'Web Ports',
      items: [{ type: 'SUBNET', value: '203.0.113.0/24' }],
    });
    expect(Object.keys(result.changes)).toEqual(['list_type', 'items']);
  });

  it('previews the diff and the body on a dry run, and changes nothing', async () => {
    const before = storedLists();

    const preview = await bot.run('update_traffic_matching_list', {
      list_id: WEB_PORTS,
      name: 'Web',
      dry_run: true,
    });

    expect(preview).toEqual({
      dry_run: true,
      list_id: WEB_PORTS,
      name: 'Web Ports',
      changes: { name: { from: 'Web Ports', to: 'Web' } },
      warnings: [],
      would_send: {
        ...webPortsBody,
        name: 'Web',
      },
    });
    expect(bot.writes()).toEqual([]);
    expect(storedLists()).toEqual(before);
  });

  it('sends nothing when nothing changes', async () => {
    const result = await bot.run('update_traffic_matching_list', {
      list_id: WEB_PORTS,
      items: ['80', '443', '8000-8100'],
      confirm: true,
    });

    expect(result).toMatchObject({ success: true, changes: {} });
    expect(bot.writes()).toEqual([]);
  });

  it('raises ResourceNotFoundError for an unknown list, also on a dry run', async () => {
    const error = await rejection(
      bot.run('update_traffic_matching_list', { list_id: 'Nope', name: 'x', dry_run: true }),
    );

    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect(bot.writes()).toEqual([]);
  });

  it('changes nothing without confirm', async () => {
    const error = await rejection(bot.run('update_traffic_matching_list', { list_id: WEB_PORTS, name: 'x' }));

    expect(error).toBeInstanceOf(ConfirmationRequiredError);
    expect(bot.sim.requests).toHaveLength(0);
  });
});

describe('delete_traffic_matching_list', () => {
  it('deletes the list', async () => {
    const result = await bot.run('delete_traffic_matching_list', {
      list_id: 'IPv6 Cloud DNS',
      confirm: true,
    });

    expect(result).toEqual({ success: true, deleted_list_id: DEMO_TRAFFIC_MATCHING_LISTS.ipv6CloudDns });
    expect(bot.writes().map((w) => [w.method, w.route])).toEqual([
      ['DELETE', `${LISTS}/${DEMO_TRAFFIC_MATCHING_LISTS.ipv6CloudDns}`],
    ]);
    expect(bot.site().trafficMatchingLists.map((l) => l.name)).toEqual(['Web Ports', 'Trusted Admin Hosts']);
  });

  it('previews the list on a dry run and changes nothing', async () => {
    const preview = await bot.run('delete_traffic_matching_list', { list_id: WEB_PORTS, dry_run: true });

    expect(preview).toEqual({
      dry_run: true,
      would_delete: {
        id: WEB_PORTS,
        list_type: 'PORTS',
        name: 'Web Ports',
        items: ['80', '443', '8000-8100'],
      },
      warnings: [
        'deletion is irreversible',
        'check the firewall policies that reference this list before deleting it',
      ],
    });
    expect(bot.writes()).toEqual([]);
    expect(bot.site().trafficMatchingLists).toHaveLength(3);
  });

  it('raises ResourceNotFoundError for an unknown list, also on a dry run', async () => {
    const error = await rejection(
      bot.run('delete_traffic_matching_list', {
        list_id: '00000000-0000-0000-0000-000000000000',
        dry_run: true,
      }),
    );

    // Deliberately alike: an unknown id on a dry run refused per delete tool, with nothing written.
    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect(bot.writes()).toEqual([]);
  });

  it('changes nothing without confirm', async () => {
    const error = await rejection(bot.run('delete_traffic_matching_list', { list_id: WEB_PORTS }));

    expect(error).toBeInstanceOf(ConfirmationRequiredError);
    expect(bot.sim.requests).toHaveLength(0);
  });
});
