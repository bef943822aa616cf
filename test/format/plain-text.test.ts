import { describe, expect, it } from 'vitest';
import { formatBytes, render, renderObject, renderTable } from '../../src/format/plain-text.js';
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
    // A nested object is shown by its values, never by its size.
    expect(row).toContain('{x: 1}');
    expect(text).not.toMatch(/items|fields/);
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

// Deliberately alike: records as table input written out in full; table-layout.test.ts feeds its own.
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

  it('leaves the ids (ids and MACs) out first at a terminal width, says so, and keeps the rest whole', () => {
    const lines = renderTable(rows, { width: 120 }).split('\n');

    for (const line of lines) expect(line.length).toBeLessThanOrEqual(120);
    expect(lines[0]).toMatch(/^name\s+description$/);
    expect(lines[1]).toContain('Building B second floor printers');
    expect(lines[1]).toContain(rows[0]?.description ?? '?');
    expect(lines.at(-1)).toBe('(2 rows; --ids shows network_id, mac, uplink)');
  });

  it('shows the ids whole when asked, cutting descriptive text instead', () => {
    const lines = renderTable(rows, { width: 120, ids: true, idsHint: 'ids' }).split('\n');

    for (const line of lines) expect(line.length).toBeLessThanOrEqual(120);
    expect(lines[0]).toMatch(/^network_id\s+name\s+mac\s+description\s+uplink$/);
    for (const id of ids) expect(lines.join('\n')).toContain(id);
    expect(lines[1]).toContain('the printers and');
    expect(lines[1]).toContain('…');
    expect(lines.at(-1)).toBe('(2 rows)');
  });

  it('keeps an id column copyable: the cell under its header is the bare id, with no ellipsis', () => {
    const id = '6500f0c4e1b2a3000c0ffee1';

    const lines = renderTable([{ id, description: 'd'.repeat(60) }], { width: 40 }).split('\n');

    expect(lines[0]).toMatch(/^id {24}description$/);
    expect(lines[1]).toBe(`${id}  ${'d'.repeat(13)}…`);
  });

  const places = [
    {
      name: 'Kitchen Plug',
      ip: '10.20.0.101',
      where: 'Garden Mesh AP · Home-IoT · 2.4 GHz · -64 dBm',
      uptime: '13d',
    },
    { name: 'Hue Bridge', ip: '10.20.0.10', where: 'Core Switch #13', uptime: '3d' },
  ];

  it('stays a table where it used to become key: value blocks: a long place wraps in its column', () => {
    const lines = renderTable(places, { width: 60 }).split('\n');

    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60);
    expect(lines[0]).toMatch(/^name\s+ip\s+where\s+uptime$/);
    const at = lines[0]?.indexOf('where') ?? -1;
    const last = lines.findIndex((line) => line.startsWith('Hue Bridge'));
    // The first row takes several lines; its place, read down the column, is whole.
    expect(last).toBe(3);
    expect(lines[1]).toMatch(/^Kitchen Plug\s+10\.20\.0\.101\s+Garden Mesh AP · Home-IoT\s+13d$/);
    const where = lines.slice(1, last).map((line) =>
      line
        .slice(at)
        .replace(/\s+13d$/, '')
        .trim(),
    );
    expect(where.join(' ')).toBe(places[0]?.where);
    expect(lines[last]).toMatch(/^Hue Bridge\s+10\.20\.0\.10\s+Core Switch #13\s+3d$/);
    expect(lines.join('\n')).not.toMatch(/…|^\w+: /m);
  });

  it('moves a place that would wrap onto more than three lines under its row, whole', () => {
    const lines = renderTable(places, { width: 40 }).split('\n');

    for (const line of lines) expect(line.length).toBeLessThanOrEqual(40);
    expect(lines[0]).toMatch(/^name\s+ip\s+uptime$/);
    expect(lines[1]).toMatch(/^Kitchen Plug\s+10\.20\.0\.101\s+13d$/);
    expect(lines[2]).toBe('  where: Garden Mesh AP · Home-IoT · 2.4');
    expect(lines[3]).toBe('    GHz · -64 dBm');
    expect(lines[5]).toBe('  where: Core Switch #13');
  });

  it('never cuts the key column, even when it alone is wider than the width', () => {
    const note = 'a note that runs on for a while';
    const lines = renderTable([{ id: 'x'.repeat(50), note }], { width: 20 }).split('\n');

    expect(lines[0]).toBe('id');
    expect(lines[1]).toBe('x'.repeat(50));
    expect(lines.slice(2, -1)).toEqual(['  note: a note that', '    runs on for a', '    while']);
  });

  it('treats id-shaped values as ids whatever the column is called', () => {
    const row = { port: 1, connected_to: 'aa:bb:cc:dd:ee:ff', comment: 'c'.repeat(40) };

    const narrow = renderTable([row], { width: 34 }).split('\n');
    const asked = renderTable([row], { width: 34, ids: true }).split('\n');

    expect(narrow[0]).toMatch(/^port\s+comment$/);
    expect(narrow.at(-1)).toBe('(1 row; --ids shows connected_to)');
    expect(asked[1]).toMatch(/^\s*1\s+aa:bb:cc:dd:ee:ff\s+c+…$/);
  });

  it('keeps identifier lines of an object whole, wrapped at a space, and cuts other lines to the width', () => {
    const text = render({ network_id: '6500f0c4e1b2a3000c0ffee1', notes: 'n'.repeat(80) }, { width: 30 });

    expect(text.split('\n')).toEqual([
      'network_id:',
      '  6500f0c4e1b2a3000c0ffee1',
      `notes: ${'n'.repeat(22)}…`,
    ]);
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
    expect(lines.at(-1)).toBe('(6 rows; --ids shows network_id)');
  });

  it('prints no `warnings: (none)` line for a result with nothing to warn about', () => {
    const text = render({ success: true, name: 'Guest', warnings: [] });

    expect(text).toBe('success: yes\nname: Guest');
    expect(render({ success: true, warnings: ['deletion is irreversible'] })).toContain(
      'warnings: deletion is irreversible',
    );
  });

  it('prints nested values as values, never as a count of fields', () => {
    const text = render({
      sent: { api: 'classic', path: 'cmd/stamgr', body: { cmd: 'block-sta', mac: '62:10:c4:8d:5e:1d' } },
    });
    const table = renderTable([{ name: 'r1', match: [{ port: 443, protocol: 'tcp' }, { port: 80 }] }]);

    expect(text).toBe('sent: api=classic path=cmd/stamgr body={cmd: block-sta, mac: 62:10:c4:8d:5e:1d}');
    expect(table.split('\n')[1]).toBe('r1    {port: 443, protocol: tcp}, {port: 80}');
    expect(table).not.toMatch(/fields|items/);
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

describe('a list of texts too long for one line', () => {
  it('puts each item on its own line, wrapped but never cut', () => {
    const steps = [
      '1. reverted: create_network name=Doorcams vlan_id=77 subnet=10.77.0.0/24 purpose=corporate',
      '2. failed: update_network network_id=Guest name=Visitors — the controller rejected the input',
      '3. not run: update_network network_id=Doorcams dhcp_dns_1=9.9.9.9',
    ];
    const text = renderObject({ status: 'failed', steps }, { width: 60 });
    const lines = text.split('\n');
    expect(lines[1]).toBe('steps:');
    expect(lines.filter((line) => /^ {2}\d\. /.test(line))).toHaveLength(3);
    expect(lines.every((line) => line.length <= 60)).toBe(true);
    expect(text.replace(/\n\s+/g, ' ')).toContain(steps[1]);
    // One line when it fits.
    expect(renderObject({ steps: ['a', 'b'] }, { width: 60 })).toBe('steps: a, b');
  });
});
