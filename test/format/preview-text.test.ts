import { describe, expect, it } from 'vitest';
import { render } from '../../src/format/plain-text.js';
import { previewRequest, renderPreview } from '../../src/format/preview-text.js';
import { valuesMissingFromPreview } from '../helpers/preview-values.js';

const lines = (text: string) => text.split('\n');

describe('renderPreview: what would be created', () => {
  it('shows the fields, then the warnings', () => {
    const text = renderPreview({
      dry_run: true,
      would_create: { name: 'IoT', vlan: 40, dhcpd_enabled: true },
      warnings: ['VLAN 40 is new on this site', 'clients may need to reconnect'],
    });

    // Deliberately alike: each preview is checked line by line as a whole; the inputs and the lines differ.
    expect(lines(text)).toEqual([
      'preview (dry run, nothing changed):',
      'would create:',
      '  name: IoT',
      '  vlan: 40',
      '  dhcpd_enabled: true',
      '! VLAN 40 is new on this site',
      '! clients may need to reconnect',
    ]);
  });

  it('expands nested objects and itemises lists, lists of objects included', () => {
    const text = renderPreview({
      dry_run: true,
      would_create: {
        bandwidth_limit: { download_limit_kbps: 1024, enabled: false },
        ip_addresses: [{ ip_or_subnet: '1.1.1.1', ports: [53, 853], port_ranges: [] }],
        app_ids: [],
        schedule: {},
        matrix: [
          [1, 2],
          ['a', 'b'],
        ],
      },
    });

    expect(lines(text)).toEqual([
      'preview (dry run, nothing changed):',
      'would create:',
      '  bandwidth_limit:',
      '    download_limit_kbps: 1024',
      '    enabled: false',
      '  ip_addresses:',
      '    - ip_or_subnet: 1.1.1.1',
      '      ports:',
      '        - 53',
      '        - 853',
      '      port_ranges: []',
      '  app_ids: []',
      '  schedule: {}',
      '  matrix:',
      '    - - 1',
      '      - 2',
      '    - - a',
      '      - b',
    ]);
  });

  it('shows values as they are sent: true, false, null, "" and quoted control characters', () => {
    const text = renderPreview({
      dry_run: true,
      would_send: {
        a: true,
        b: false,
        c: null,
        d: '',
        e: ' padded',
        f: 'bell\u0007',
        g: 0,
        unsent: undefined,
      },
    });

    expect(lines(text).slice(2)).toEqual([
      '  a: true',
      '  b: false',
      '  c: null',
      '  d: ""',
      '  e: " padded"',
      '  f: "bell\\u0007"',
      '  g: 0',
    ]);
  });
});

describe('renderPreview: changes', () => {
  it('shows a scalar change as before → after on one line, whatever the diff shape', () => {
    const asList = renderPreview({
      dry_run: true,
      network_id: 'net-iot',
      changes: [
        { field: 'vlan_id', old: 40, new: 41 },
        { field: 'name', from: 'IoT', to: 'Things' },
      ],
    });
    const asRecord = renderPreview({
      dry_run: true,
      would_update: { dhcpd_enabled: { before: true, after: false } },
    });
    const asTuples = renderPreview({ dry_run: true, changes: { name: ['IoT', 'Things'] } });

    expect(asList).toContain('network_id: net-iot\nchanges:\n  vlan_id: 40 → 41\n  name: IoT → Things');
    expect(asRecord).toContain('would update:\n  dhcpd_enabled: true → false');
    expect(asTuples).toContain('changes:\n  name: IoT → Things');
  });

  it('shows both sides of a list change in full, one item a line', () => {
    const text = renderPreview({
      dry_run: true,
      changes: { networkIds: { from: ['a', 'b'], to: ['a', 'b', 'c'] } },
    });

    expect(lines(text).slice(1)).toEqual([
      'changes:',
      '  networkIds:',
      '    before:',
      '      - a',
      '      - b',
      '    after:',
      '      - a',
      '      - b',
      '      - c',
    ]);
  });

  it('gives a change too long for one line a before and an after of its own, uncut', () => {
    const from = `old description ${'x'.repeat(50)}`;
    const to = `new description ${'y'.repeat(50)}`;
    const text = renderPreview({ dry_run: true, changes: { description: { from, to } } }, { width: 80 });

    expect(lines(text).slice(1)).toEqual([
      'changes:',
      '  description:',
      `    before: ${from}`,
      `    after: ${to}`,
    ]);
    expect(text).not.toContain('…');
  });

  it('says when nothing changes, and shows a would_update of plain new values as fields', () => {
    expect(renderPreview({ dry_run: true, changes: {} })).toContain('changes:\n  (no changes)');
    expect(renderPreview({ dry_run: true, would_update: { network_ids: ['a', 'b'] } })).toContain(
      'would update:\n  network_ids:\n    - a\n    - b',
    );
  });
});

describe('renderPreview: long values', () => {
  const description = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');

  it('wraps at spaces within the width, continuing under the value, and loses nothing', () => {
    const text = renderPreview({ dry_run: true, would_send: { description } }, { width: 60 });
    const body = lines(text).slice(2);

    for (const line of body) expect(line.length).toBeLessThanOrEqual(60);
    expect(body.length).toBeGreaterThan(3);
    expect(body[0]?.startsWith('  description: word0 word1')).toBe(true);
    for (const line of body.slice(1))
      expect(line.startsWith(' '.repeat('  description: '.length))).toBe(true);
    expect(body.map((l) => l.trim()).join(' ')).toBe(`description: ${description}`);
  });

  it('breaks only a word wider than the line, into pieces that keep every character', () => {
    const token = 'z'.repeat(150);
    const text = renderPreview({ dry_run: true, would_send: { key: token } }, { width: 60 });

    for (const line of lines(text)) expect(line.length).toBeLessThanOrEqual(60);
    expect(
      lines(text)
        .slice(2)
        .map((l) => l.trim())
        .join('')
        .replace(/^key: /, ''),
    ).toBe(token);
  });

  it('never wraps without a width', () => {
    const text = renderPreview({ dry_run: true, would_send: { description } });

    expect(lines(text)[2]).toBe(`  description: ${description}`);
  });

  it('wraps warnings too', () => {
    const text = renderPreview({ dry_run: true, warnings: [description] }, { width: 50 });

    expect(lines(text).slice(1).length).toBeGreaterThan(1);
    expect(
      lines(text)
        .slice(1)
        .map((l) => l.replace(/^! /, '').trim())
        .join(' '),
    ).toBe(description);
  });
});

describe('renderPreview: names and sections', () => {
  it('shows every id it has a name for with that name, wherever the id is, and not the map itself', () => {
    const text = renderPreview({
      dry_run: true,
      zone_id: 'z1',
      changes: { networkIds: { from: ['n1'], to: ['n1', 'n2'] } },
      would_send: { target_devices: [{ network_id: 'n2', type: 'NETWORK' }] },
      names: { z1: 'Internal', n1: 'Default', n2: 'IoT' },
    });

    expect(text).toContain('zone_id: z1 (Internal)');
    expect(text).toContain(
      '    before:\n      - n1 (Default)\n    after:\n      - n1 (Default)\n      - n2 (IoT)',
    );
    expect(text).toContain('    - network_id: n2 (IoT)\n      type: NETWORK');
    expect(text).not.toContain('names');
  });

  it('orders the sections: subject, create, changes, delete, run, send first, send, reorder; warnings last', () => {
    const text = renderPreview({
      warnings: ['w'],
      would_reorder: { orderedAclRuleIds: ['r1', '(the new rule)'] },
      would_send: { b: 2 },
      would_send_first: [{ zone_id: 'z', body: { a: 1 } }],
      would_delete: { id: 'x' },
      changes: { f: { from: 1, to: 2 } },
      dry_run: true,
      subject: 's',
    });

    expect(lines(text)).toEqual([
      'preview (dry run, nothing changed):',
      'subject: s',
      'changes:',
      '  f: 1 → 2',
      'would delete:',
      '  id: x',
      'would send first:',
      '  - zone_id: z',
      '    body:',
      '      a: 1',
      'would send:',
      '  b: 2',
      'then would reorder:',
      '  orderedAclRuleIds:',
      '    - r1',
      '    - (the new rule)',
      '! w',
    ]);
  });

  it('titles a write that cannot preview itself with its tool, and says when nothing is sent', () => {
    const run = renderPreview({ dry_run: true, tool: 'update_traffic_route', would_run: { enabled: false } });
    const none = renderPreview({ dry_run: true, changes: {}, would_send: null });

    expect(run).toBe(
      'preview (dry run, nothing changed):\nwould run update_traffic_route with:\n  enabled: false',
    );
    expect(none).toContain('would send: nothing');
  });

  it('leaves out the title and the warnings when asked (Slack shows both elsewhere)', () => {
    const text = renderPreview(
      { dry_run: true, would_delete: { id: 'x' }, warnings: ['irreversible'] },
      { title: false, warnings: false },
    );

    expect(text).toBe('would delete:\n  id: x');
  });

  it('is what render() shows for any dry-run result', () => {
    const preview = { dry_run: true, would_create: { items: [{ type: 'PORT_NUMBER', value: 80 }] } };

    expect(render(preview, { width: 100 })).toBe(renderPreview(preview, { width: 100 }));
  });
});

describe('previewRequest', () => {
  it('takes what the write sends, in the order it sends it, and nothing else', () => {
    const preview = {
      dry_run: true,
      zone_id: 'z',
      changes: { a: { from: 1, to: 2 } },
      would_send: { name: 'Internal' },
      would_send_first: [{ zone_id: 'y', body: { name: 'Old' } }],
      would_reorder: { orderedIds: ['p1', '(the new policy)'] },
      names: { z: 'Internal' },
      warnings: ['w'],
    };

    expect(previewRequest(preview)).toEqual({
      would_send_first: [{ zone_id: 'y', body: { name: 'Old' } }],
      would_send: { name: 'Internal' },
      would_reorder: { orderedIds: ['p1', '(the new policy)'] },
    });
    expect(Object.keys(previewRequest(preview))).toEqual(['would_send_first', 'would_send', 'would_reorder']);
  });
});

describe('valuesMissingFromPreview (the test helper the end-to-end tests rely on)', () => {
  const body = { name: 'Lab', enabled: true, ports: [53], nested: { ip: '1.1.1.1', note: '' } };

  it('finds nothing missing when every scalar is shown under its key or as a list item', () => {
    expect(valuesMissingFromPreview(renderPreview({ dry_run: true, would_send: body }), body)).toEqual([]);
  });

  it('names each scalar that is absent or shown only under another key', () => {
    const text = 'name: Lab\nenabled: yes\nother: 1.1.1.1\n- 53';

    expect(valuesMissingFromPreview(text, body)).toEqual([
      'enabled = true',
      'nested.ip = "1.1.1.1"',
      'nested.note = ""',
    ]);
  });
});
