import { describe, expect, it } from 'vitest';
import { formatBytes, render, renderTable } from '../../src/format/plain-text.js';
import { NETWORKS } from '../console/fake-registry.js';

/** Start index of each column header, used to check that every row lines up under it. */
function columnStarts(header: string, names: readonly string[]): number[] {
  return names.map((name) => header.indexOf(name));
}

describe('render: tables', () => {
  it('aligns an array of flat objects under headers taken from the keys', () => {
    const text = render(NETWORKS);

    const lines = text.split('\n');
    expect(lines[0]).toBe('id         name   purpose    vlan_id  ip_subnet       dhcpd_enabled');
    expect(lines[1]).toBe('net-lan    LAN    corporate        -  192.168.1.0/24  yes');
    expect(lines[2]).toBe('net-iot    IoT    corporate       40  10.70.0.0/24    yes');
    expect(lines[3]).toBe('net-guest  Guest  guest           50  10.50.0.0/24    no');
    expect(lines[4]).toBe('(3 rows)');
    expect(lines).toHaveLength(5);
  });

  it('takes the union of keys in order of first appearance and shows missing values as -', () => {
    const text = renderTable([
      { a: 1, b: 'x' },
      { c: true, a: 2 },
      { b: undefined, d: null },
    ]);

    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^a\s+b\s+c\s+d$/);
    const [, b = -1, c = -1, d = -1] = columnStarts(lines[0] ?? '', ['a', 'b', 'c', 'd']);
    expect(lines[1]?.slice(b, b + 1)).toBe('x');
    expect(lines[1]?.slice(c, c + 1)).toBe('-');
    expect(lines[2]?.slice(c, c + 3)).toBe('yes');
    expect(lines[3]?.slice(b, b + 1)).toBe('-');
    expect(lines[3]?.slice(d, d + 1)).toBe('-');
    expect(lines[4]).toBe('(3 rows)');
  });

  it('says "(1 row)" for a single row and "(0 rows)" for none', () => {
    expect(
      render([{ a: 1 }])
        .split('\n')
        .at(-1),
    ).toBe('(1 row)');
    expect(render([])).toBe('(0 rows)');
  });

  it('compacts nested objects and arrays into short text', () => {
    const text = renderTable([
      {
        name: 'r1',
        match_criteria: { destination_port: 443, protocol: 'tcp' },
        ids: ['a', 'b'],
        nested: [{ x: 1 }],
      },
    ]);

    const row = text.split('\n')[1] ?? '';
    expect(row).toContain('destination_port=443 protocol=tcp');
    expect(row).toContain('a, b');
    expect(row).toContain('[1 items]');
  });

  it('cuts very wide descriptive cells with an ellipsis, but never a name', () => {
    const text = renderTable([{ name: 'n'.repeat(30), description: 'x'.repeat(100) }], { maxCell: 20 });

    const row = text.split('\n')[1] ?? '';
    expect(row).toBe(`${'n'.repeat(30)}  ${'x'.repeat(19)}…`);
  });

  it('shrinks the widest columns so a row fits the width', () => {
    const rows = Array.from({ length: 3 }, (_, i) => ({
      id: `id-${i}`,
      description: 'd'.repeat(60),
      note: 'n'.repeat(60),
    }));

    const lines = renderTable(rows, { width: 60, maxCell: 80 }).split('\n');

    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60);
    expect(lines[1]).toContain('…');
    expect(lines[1]?.startsWith('id-0')).toBe(true);
  });

  it('shows the first rows of a long table and says how many there are', () => {
    const rows = Array.from({ length: 50 }, (_, i) => ({ n: i }));

    const lines = renderTable(rows, { maxRows: 10 }).split('\n');

    expect(lines).toHaveLength(12);
    expect(lines.at(-1)).toBe('(50 rows, first 10 shown; --json shows all)');
  });

  it('turns control characters from controller data into spaces', () => {
    const text = renderTable([{ name: 'evil\u001b[2Jname\nnext' }]);

    expect(text).not.toContain('\u001b');
    expect(text.split('\n')[1]).toBe('evil [2Jname next');
  });
});

describe('render: tables that fit their width without cutting an identifier', () => {
  const rows = [
    {
      network_id: '6500f0c4e1b2a3000c0ffee1',
      name: 'Building B second floor printers',
      mac: 'aa:bb:cc:dd:ee:01',
      description: 'the printers and the label makers on the second floor of building B',
      uplink: '00:11:22:33:44:55',
    },
    {
      network_id: '6500f0c4e1b2a3000c0ffee2',
      name: 'Lab',
      mac: 'aa:bb:cc:dd:ee:02',
      description: 'test benches',
      uplink: '00:11:22:33:44:66',
    },
  ];
  const ids = rows.flatMap((r) => [r.network_id, r.name, r.mac, r.uplink]);

  it('is unbounded without a width: nothing is cut', () => {
    const text = renderTable(rows);

    expect(text).not.toContain('…');
    expect(text).toContain(rows[0]?.description ?? '?');
  });

  it('narrows only descriptive columns at a terminal width, and every identifier stays whole', () => {
    const lines = renderTable(rows, { width: 120 }).split('\n');

    for (const line of lines) expect(line.length).toBeLessThanOrEqual(120);
    expect(lines[0]).toMatch(/^network_id\s+name\s+mac\s+description\s+uplink$/);
    for (const id of ids) expect(lines.join('\n')).toContain(id);
    expect(lines[1]).toContain('the printers and');
    expect(lines[1]).toContain('…');
  });

  it('keeps an id column copyable: the cell under its header is the bare id, with no ellipsis', () => {
    const id = '6500f0c4e1b2a3000c0ffee1';

    const lines = renderTable([{ id, description: 'd'.repeat(60) }], { width: 40 }).split('\n');

    expect(lines[0]).toMatch(/^id {24}description$/);
    expect(lines[1]).toBe(`${id}  ${'d'.repeat(13)}…`);
  });

  it('shows a key: value block per row when the identifiers alone are wider than the width', () => {
    const text = renderTable(rows, { width: 60 });

    const blocks = text.split('\n\n');
    expect(blocks).toHaveLength(3);
    expect(blocks[0]?.split('\n')).toEqual([
      'network_id:  6500f0c4e1b2a3000c0ffee1',
      'name:        Building B second floor printers',
      'mac:         aa:bb:cc:dd:ee:01',
      `description: ${'the printers and the label makers on the second floor of building B'.slice(0, 46)}…`,
      'uplink:      00:11:22:33:44:55',
    ]);
    expect(blocks[2]).toBe('(2 rows)');
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(60);
  });

  it('never cuts an identifier even when it alone is wider than the width', () => {
    const text = renderTable([{ id: 'x'.repeat(50), note: 'n'.repeat(50) }], { width: 20 });

    expect(text).toContain(`id:   ${'x'.repeat(50)}`);
    expect(text).toContain(`note: ${'n'.repeat(13)}…`);
  });

  it('treats id-shaped values as identifiers whatever the column is called', () => {
    const text = renderTable([{ port: 1, connected_to: 'aa:bb:cc:dd:ee:ff', comment: 'c'.repeat(40) }], {
      width: 34,
    });

    expect(text.split('\n')[1]).toMatch(/^\s*1\s+aa:bb:cc:dd:ee:ff\s+c+…$/);
  });

  it('keeps identifier lines of an object whole and cuts other lines to the width', () => {
    const text = render({ network_id: '6500f0c4e1b2a3000c0ffee1', notes: 'n'.repeat(80) }, { width: 30 });

    expect(text.split('\n')).toEqual(['network_id: 6500f0c4e1b2a3000c0ffee1', `notes: ${'n'.repeat(22)}…`]);
  });
});

describe('render: objects and strings', () => {
  it('prints scalars as key: value lines and each list of objects as its own titled table', () => {
    const stats = {
      site_id: 'default',
      cumulative: true,
      networks: [
        { network_id: 'net-lan', name: 'LAN', vlan_id: null, client_count: 12, total_bytes: 1_234_567_890 },
        { network_id: 'net-iot', name: 'IoT', vlan_id: 40, client_count: 3, total_bytes: 999 },
      ],
    };

    const text = render(stats);

    const [head, table] = text.split('\n\n');
    expect(head).toBe('site_id: default\ncumulative: yes');
    const lines = (table ?? '').split('\n');
    expect(lines[0]).toBe('networks:');
    expect(lines[1]).toMatch(/^network_id\s+name\s+vlan_id\s+client_count\s+total_bytes$/);
    expect(lines[2]).toContain('1.2 GB');
    expect(lines[3]).toContain('999 B');
    expect(lines[4]).toBe('(2 rows)');
  });

  it('renders an object of objects keyed by index as a table with the key first', () => {
    const text = render({
      device_id: 'aa:bb',
      ports: { '1': { connected_to: 'cc:dd', status: 'up' }, '2': { connected_to: null, status: 'down' } },
    });

    const lines = text.split('\n');
    expect(lines[0]).toBe('device_id: aa:bb');
    expect(lines[3]).toMatch(/^port\s+connected_to\s+status$/);
    expect(lines[4]).toMatch(/^1\s+cc:dd\s+up$/);
    expect(lines[5]).toMatch(/^2\s+-\s+down$/);
  });

  it('prints a string result exactly as it is', () => {
    const dot = 'digraph "default" {\n  "a" -> "b";\n}';

    expect(render(dot)).toBe(dot);
  });

  it('shows an empty list field as (none) and null as -', () => {
    expect(render({ networkIds: [], description: null })).toBe('networkIds: (none)\ndescription: -');
  });

  it('keeps a demo-site statistics lookup on one 80x24 screen', () => {
    const networks = Array.from({ length: 6 }, (_, i) => ({
      network_id: `6500f0c4e1b2a3000${i}c0ffee`,
      name: `Network ${i}`,
      vlan_id: i === 0 ? null : i * 10,
      client_count: 40 / 6,
      total_tx_bytes: 123_456_789 * (i + 1),
      total_rx_bytes: 987_654_321 * (i + 1),
      total_bytes: 1_111_111_110 * (i + 1),
    }));

    const lines = render({ site_id: 'default', networks }, { width: 80 }).split('\n');

    expect(lines.length).toBeLessThanOrEqual(24);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines.at(-1)).toBe('(6 rows)');
  });
});

describe('formatBytes', () => {
  it('uses decimal units with one decimal below 100', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1500)).toBe('1.5 kB');
    expect(formatBytes(250_000_000)).toBe('250 MB');
    expect(formatBytes(3_200_000_000_000)).toBe('3.2 TB');
  });
});
