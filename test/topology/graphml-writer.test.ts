import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GRAPHML_KEYS, toGraphml } from '../../src/topology/exports.js';
import { TextBytes } from '../../src/topology/text-bytes.js';
import type { Topology, TopologyConnection, TopologyNode } from '../../src/topology/types.js';

/*
 * The GraphML export is written into one byte buffer instead of being built from
 * strings. These properties hold it equal, character for character, to a straightforward
 * rendering written here from the format's rules, for graphs whose names and ids are hostile.
 */

/** XML escaping from the rules, one code point at a time; beyond ASCII, a character reference. */
function referenceEscape(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    let cp = unit;
    let width = 1;
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        cp = (unit - 0xd800) * 0x400 + (next - 0xdc00) + 0x10000;
        width = 2;
      }
    }
    const valid =
      cp === 0x9 ||
      cp === 0xa ||
      cp === 0xd ||
      (cp >= 0x20 && cp <= 0xd7ff) ||
      (cp >= 0xe000 && cp <= 0xfffd) ||
      cp >= 0x10000;
    const entity = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }[
      String.fromCharCode(cp)
    ];
    if (!valid) out += '&#xFFFD;';
    else if (entity) out += entity;
    else if (cp > 0x7f) out += `&#x${cp.toString(16).toUpperCase()};`;
    else out += value.slice(i, i + width);
    i += width - 1;
  }
  return out;
}

function referenceGraphml(t: Topology): string {
  const d = (key: string, value: string | number | boolean | null | undefined) =>
    value === null || value === undefined
      ? ''
      : `<data key="${key}">${typeof value === 'string' ? referenceEscape(value) : String(value)}</data>`;
  // Deliberately alike: the reference writer spells out the GraphML head itself, so the exporter's is checked against it.
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"',
    '    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"',
    '    xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">',
    ...GRAPHML_KEYS.map(
      (k) => `  <key id="${k.id}" for="${k.for}" attr.name="${k.name}" attr.type="${k.type}"/>`,
    ),
    `  <graph id="${referenceEscape(`topology-${t.site_id}`)}" edgedefault="directed">`,
    `    ${d('g_site_id', t.site_id)}${d('g_generated_at', t.generated_at)}${d('g_total_devices', t.total_devices)}${d('g_total_clients', t.total_clients)}${d('g_total_connections', t.total_connections)}${d('g_max_depth', t.max_depth)}`,
  ];
  for (const n of t.nodes) {
    lines.push(
      `    <node id="${referenceEscape(n.node_id)}">${d('n_label', n.name)}${d('n_node_type', n.node_type)}${d('n_name', n.name)}${d('n_mac', n.mac)}${d('n_ip', n.ip)}${d('n_model', n.model)}${d('n_device_type', n.device_type)}${d('n_uplink_device_id', n.uplink_device_id)}${d('n_uplink_port', n.uplink_port)}${d('n_uplink_depth', n.uplink_depth)}${d('n_state', n.state)}${d('n_x', n.x)}${d('n_y', n.y)}</node>`,
    );
  }
  for (const c of t.connections) {
    lines.push(
      `    <edge id="${referenceEscape(c.connection_id)}" source="${referenceEscape(c.source_node_id)}" target="${referenceEscape(c.target_node_id)}">${d('e_connection_type', c.connection_type)}${d('e_source_port', c.source_port)}${d('e_target_port', c.target_port)}${d('e_speed_mbps', c.speed_mbps)}${d('e_is_uplink', c.is_uplink)}${d('e_status', c.status)}</edge>`,
    );
  }
  lines.push('  </graph>', '</graphml>', '');
  return lines.join('\n');
}

// Every UTF-16 unit, lone surrogates included, weighted towards the characters escaping is about.
const hostileUnit = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom('<', '>', '&', '"', "'", '\t', '\n', '\r', '\u0000', '\u001f', '\u007f'),
  },
  { weight: 4, arbitrary: fc.constantFrom('é', 'ü', '☕', '🎉', '\uFFFE', '\uFFFF', '\uFFFD', '\u2019') },
  { weight: 2, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => String.fromCharCode(u)) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)) },
  { weight: 8, arbitrary: fc.constantFrom('a', 'Z', '0', ' ', '-', ':', '.') },
);
const hostile = fc.string({ unit: hostileUnit, maxLength: 24 });
const nullable = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null });
const port = nullable(fc.integer({ min: 0, max: 100_000 }));

const node: fc.Arbitrary<TopologyNode> = fc.record(
  {
    node_id: hostile,
    node_type: fc.constantFrom('device' as const, 'client' as const),
    name: hostile,
    mac: hostile,
    ip: nullable(hostile),
    model: nullable(hostile),
    device_type: nullable(hostile),
    uplink_device_id: nullable(hostile),
    uplink_port: port,
    uplink_depth: fc.integer({ min: 0, max: 40 }),
    state: fc.constantFrom(0 as const, 1 as const),
    x: fc.double({ noNaN: true, noDefaultInfinity: true }),
    y: fc.oneof(fc.integer({ min: -5, max: 5000 }), fc.double({ noNaN: true })),
  },
  {
    requiredKeys: [
      'node_id',
      'node_type',
      'name',
      'mac',
      'ip',
      'uplink_device_id',
      'uplink_port',
      'uplink_depth',
      'state',
    ],
  },
);

const connection: fc.Arbitrary<TopologyConnection> = fc.record({
  connection_id: hostile,
  source_node_id: hostile,
  target_node_id: hostile,
  connection_type: fc.constantFrom('uplink' as const, 'wired' as const, 'wireless' as const),
  source_port: port,
  target_port: port,
  speed_mbps: port,
  is_uplink: fc.boolean(),
  status: fc.constantFrom('up' as const, 'down' as const),
});

const topology: fc.Arbitrary<Topology> = fc.record({
  site_id: hostile,
  generated_at: hostile,
  nodes: fc.array(node, { maxLength: 30 }),
  connections: fc.array(connection, { maxLength: 30 }),
  total_devices: fc.nat(),
  total_clients: fc.nat(),
  total_connections: fc.nat(),
  max_depth: fc.nat(),
  has_coordinates: fc.boolean(),
});

describe('GraphML written into a byte buffer', () => {
  it('equals the straightforward rendering for random graphs with hostile names', () => {
    fc.assert(
      fc.property(topology, (t) => {
        expect(toGraphml(t)).toBe(referenceGraphml(t));
      }),
      { numRuns: 300, seed: 26 },
    );
  });

  it('equals it when the first guess of the size is far too small (the buffer grows)', () => {
    const name = '☕ <Küche> & "Büro" '.repeat(400);
    const t: Topology = {
      site_id: 'default',
      generated_at: '2026-01-01T00:00:00.000Z',
      nodes: [
        {
          node_id: 'aa',
          node_type: 'client',
          name,
          mac: 'aa',
          ip: null,
          uplink_device_id: null,
          uplink_port: null,
          uplink_depth: 0,
          state: 1,
        },
      ],
      connections: [],
      total_devices: 0,
      total_clients: 1,
      total_connections: 0,
      max_depth: 0,
      has_coordinates: false,
    };
    expect(toGraphml(t)).toBe(referenceGraphml(t));
    expect(toGraphml(t).length).toBeGreaterThan(8192 + 400);
  });
});

describe('TextBytes', () => {
  it('escapes into ASCII exactly as the rules say, for any UTF-16 text', () => {
    fc.assert(
      fc.property(fc.array(hostileUnit, { maxLength: 20 }), (units) => {
        const value = units.join('');
        const out = new TextBytes(1);
        out.xml(value);
        expect(out.toString()).toBe(referenceEscape(value));
        expect(/^[\t\n\r\x20-\x7f]*$/.test(out.toString())).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('writes numbers as template literals do, integers digit by digit', () => {
    const values = [
      0,
      7,
      10,
      42,
      -1,
      -0,
      1234567890123,
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
      0.5,
      -2.25,
      1e21,
      2 ** 60,
    ];
    const out = new TextBytes(1);
    for (const v of values) {
      out.number(v);
      out.raw(',');
    }
    expect(out.toString()).toBe(values.map((v) => `${v},`).join(''));
  });

  it('repeats earlier bytes, growing the buffer when needed', () => {
    const out = new TextBytes(1);
    out.xml('☕ab');
    const end = out.position;
    for (let i = 0; i < 300; i++) out.repeat(0, end);
    expect(out.toString()).toBe('&#x2615;ab'.repeat(301));
  });
});
