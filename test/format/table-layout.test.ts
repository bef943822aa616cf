import { describe, expect, it } from 'vitest';
import { render, renderTable } from '../../src/format/plain-text.js';
import { columnRoles, isIdColumn, wrapHeader, wrapWords } from '../../src/format/table-layout.js';

const text = (value: unknown) => (value === null || value === undefined ? '-' : String(value));
const roles = (rows: Record<string, unknown>[], extra: { key?: string; showIds?: boolean } = {}) => {
  const keys = Object.keys(rows[0] ?? {});
  return Object.fromEntries(
    keys.map((header, i) => [
      header,
      columnRoles(
        keys.map((h) => ({ header: h, values: rows.map((r) => r[h]) })),
        { declared: [], showIds: extra.showIds ?? false, text, ...(extra.key ? { key: extra.key } : {}) },
      )[i],
    ]),
  );
};

describe('column roles', () => {
  it('tells opaque ids (ids, UUIDs, MACs) from a VLAN number whose key ends in _id', () => {
    expect(isIdColumn('id', ['f7e4b021-d18e-4106-ab6a-fc61245820da'])).toBe(true);
    expect(isIdColumn('mac', ['00:17:88:6a:bc:12'])).toBe(true);
    expect(isIdColumn('connected_nodes', [['00:17:88:6a:bc:12']])).toBe(true);
    expect(isIdColumn('vlan_id', [20, null])).toBe(false);
    expect(isIdColumn('where', ['Core Switch #13'])).toBe(false);
  });

  it('makes names, addresses, places and times lookups, the rest text, and the name the key', () => {
    const rows = [
      {
        id: '65b3c8e1f4a9d20c7e5a1402',
        name: 'Hue Bridge',
        ip: '10.20.0.10',
        where: 'Core Switch #13',
        created_at: '2026-12-07T01:51:52.000Z',
        rate: '1.9 Mbit/s',
      },
    ];

    expect(roles(rows)).toEqual({
      id: 'id',
      name: 'key',
      ip: 'lookup',
      where: 'lookup',
      created_at: 'lookup',
      rate: 'text',
    });
    expect(roles(rows, { showIds: true }).id).toBe('lookup');
  });

  it('without a name, keys on the first short column that is neither an id nor a count', () => {
    expect(roles([{ minutes: 1440, id: 'x', code: '48614-09510' }])).toMatchObject({ code: 'key', id: 'id' });
    expect(roles([{ port: 1, id: 'x', note: 'n'.repeat(40) }])).toMatchObject({ port: 'key', id: 'id' });
    expect(roles([{ id: 'x', note: 'n'.repeat(40) }])).toMatchObject({ id: 'key', note: 'text' });
    expect(roles([{ id: 'cr_x', state: 'succeeded' }], { key: 'id' }).id).toBe('key');
  });
});

describe('wrapping', () => {
  it('wraps at spaces and splits only a word longer than the width', () => {
    expect(wrapWords('Living Room AP · Home-IoT', 12)).toEqual(['Living Room', 'AP ·', 'Home-IoT']);
    expect(wrapWords('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapWords('short', 10)).toEqual(['short']);
  });

  it('breaks a header after `_` into even lines', () => {
    expect(wrapHeader('rx_bytes_per_s', 13)).toEqual(['rx_bytes_', 'per_s']);
    expect(wrapHeader('since_connect', 9)).toEqual(['since_', 'connect']);
    expect(wrapHeader('name', 2)).toEqual(['name']);
  });
});

describe('what gives way first', () => {
  const networks = [
    {
      id: 'f7e4b021-d18e-4106-ab6a-fc61245820da',
      name: 'Default',
      purpose: 'corporate',
      vlan_id: null,
      ip_subnet: '192.168.1.1/24',
      dhcpd_enabled: true,
    },
    {
      id: '105d70c6-d0c6-464b-b972-ce7509dddcfb',
      name: 'IoT',
      purpose: 'corporate',
      vlan_id: 20,
      ip_subnet: '10.20.0.1/24',
      dhcpd_enabled: true,
    },
  ];

  it('leaves out the ids before anything else, and shows them on request', () => {
    const narrow = renderTable(networks, { width: 80 }).split('\n');
    const asked = renderTable(networks, { width: 80, ids: true, idsHint: 'ids' }).split('\n');

    expect(narrow).toEqual([
      'name     purpose    vlan_id  ip_subnet       dhcpd_enabled',
      'Default  corporate        -  192.168.1.1/24  yes',
      'IoT      corporate       20  10.20.0.1/24    yes',
      '(2 rows; --ids shows id)',
    ]);
    expect(asked.join('\n')).toContain('f7e4b021-d18e-4106-ab6a-fc61245820da');
    expect(asked.at(-1)).toBe('(2 rows)');
    expect(renderTable(networks).split('\n')[0]).toMatch(/^id\s+name/);
  });

  it("names Slack's way of asking for the ids when told", () => {
    expect(renderTable(networks, { width: 60, idsHint: '/net … ids' }).split('\n').at(-1)).toBe(
      '(2 rows; /net … ids shows id)',
    );
  });

  it('moves the detail column under its row when the table is too wide, wrapped, never cut', () => {
    const change =
      'create_network name=Lab vlan_id=71 subnet=10.71.0.0/24 purpose=corporate dhcp_enabled=true';
    const rows = [{ id: 'cr_wbm5gxzhq5wseg3kshv5', state: 'succeeded', change }];

    const lines = renderTable(rows, { width: 60, key: 'id', detail: 'change' }).split('\n');

    expect(lines).toEqual([
      'id                       state',
      'cr_wbm5gxzhq5wseg3kshv5  succeeded',
      '  change: create_network name=Lab vlan_id=71',
      '    subnet=10.71.0.0/24 purpose=corporate dhcp_enabled=true',
      '(1 row)',
    ]);
    expect(renderTable(rows, { key: 'id', detail: 'change' }).split('\n')[0]).toMatch(
      /^id\s+state\s+change$/,
    );
  });

  it('prints every nested value, and no empty warnings line, in a key: value answer', () => {
    const result = {
      success: true,
      traffic_route: { name: 'Guest bandwidth cap', match_criteria: { protocol: 'all', vlan_id: 30 } },
      warnings: [],
    };

    expect(render(result)).toBe(
      'success: yes\ntraffic_route: name=Guest bandwidth cap match_criteria={protocol: all, vlan_id: 30}',
    );
  });
});
