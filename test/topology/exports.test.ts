import parseDot, { type Attr, type EdgeStmt, type NodeStmt } from 'dotparser';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { createDemoSites } from '../../src/simulator/demo-site.js';
import { buildTopology } from '../../src/topology/build.js';
import {
  EXPORT_FORMATS,
  escapeXml,
  exportTopology,
  GRAPHML_KEYS,
  parseExportFormat,
  quoteDot,
} from '../../src/topology/exports.js';
import { topologyClientSchema, topologyDeviceSchema } from '../../src/topology/records.js';
import type { Topology } from '../../src/topology/types.js';

const AWKWARD = [
  'Tom & Jerry\'s "Big" <TV>',
  'Café ☕ 🎉 Zoë',
  'back\\slash',
  'multi\nline',
  '</data><data key="n_ip">injected',
];

/** The demo site plus clients whose names exercise every escaping rule. */
function awkwardTopology(): Topology {
  const [site] = createDemoSites(1);
  if (!site) throw new Error('no demo site');
  const extra = AWKWARD.map((name, i) => ({
    mac: `02:00:00:00:00:0${i}`,
    name,
    is_wired: false,
    ap_mac: '78:45:58:6d:70:21',
  }));
  return buildTopology(
    site.devices.map((r) => topologyDeviceSchema.parse(r)),
    [...site.clients, ...extra].map((r) => topologyClientSchema.parse(r)),
    { siteId: 'default', generatedAt: '2026-01-01T00:00:00.000Z', includeCoordinates: true },
  );
}

interface GraphmlDoc {
  graphml: {
    key: { '@_id': string; '@_for': string; '@_attr.name': string; '@_attr.type': string }[];
    graph: {
      '@_edgedefault': string;
      data: { '@_key': string; '#text': string }[];
      node: { '@_id': string; data: { '@_key': string; '#text': string }[] }[];
      edge: {
        '@_id': string;
        '@_source': string;
        '@_target': string;
        data: { '@_key': string; '#text': string }[];
      }[];
    };
  };
}

function parseGraphml(xml: string): GraphmlDoc {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    parseTagValue: false,
    // Character references are XML 1.0 (every conforming reader decodes them); this parser wants
    // the option to.
    htmlEntities: true,
    isArray: (name) => ['key', 'node', 'edge', 'data'].includes(name),
  });
  return parser.parse(xml) as GraphmlDoc;
}

const dataValue = (data: { '@_key': string; '#text': string }[], key: string) =>
  data.find((d) => d['@_key'] === key)?.['#text'];

describe('parseExportFormat', () => {
  it('accepts exactly json, graphml and dot', () => {
    expect(EXPORT_FORMATS.map(parseExportFormat)).toEqual(['json', 'graphml', 'dot']);
  });

  it('refuses any other spelling with a ValidationError naming the three formats', () => {
    for (const bad of ['GraphML', 'png', 'JSON', '']) {
      let error: unknown;
      try {
        parseExportFormat(bad);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues).toEqual([
        { field: 'format', rule: 'must be one of json, graphml, dot (case-sensitive)' },
      ]);
    }
  });
});

describe('GraphML export', () => {
  const topology = awkwardTopology();
  const xml = exportTopology(topology, 'graphml');
  const doc = parseGraphml(xml);

  it('is well-formed XML with a directed graph of every node and connection', () => {
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(doc.graphml.graph['@_edgedefault']).toBe('directed');
    expect(doc.graphml.graph.node).toHaveLength(topology.nodes.length);
    expect(doc.graphml.graph.edge).toHaveLength(topology.connections.length);
    const ids = new Set(doc.graphml.graph.node.map((n) => n['@_id']));
    for (const edge of doc.graphml.graph.edge) {
      expect(ids.has(edge['@_source'])).toBe(true);
      expect(ids.has(edge['@_target'])).toBe(true);
    }
  });

  it('declares a <key> for every data key used, for the right element and with a type', () => {
    const declared = new Map(doc.graphml.key.map((k) => [k['@_id'], k]));
    const used = [
      ...doc.graphml.graph.data.map((d) => ['graph', d['@_key']]),
      ...doc.graphml.graph.node.flatMap((n) => n.data.map((d) => ['node', d['@_key']])),
      ...doc.graphml.graph.edge.flatMap((e) => e.data.map((d) => ['edge', d['@_key']])),
    ];

    expect(used.length).toBeGreaterThan(500);
    for (const [domain, key] of used) {
      expect(declared.get(key ?? '')?.['@_for']).toBe(domain);
    }
    expect(
      doc.graphml.key
        .map((k) => k['@_attr.type'])
        .every((t) => ['string', 'int', 'double', 'boolean'].includes(t)),
    ).toBe(true);
    expect(doc.graphml.key).toHaveLength(GRAPHML_KEYS.length);
  });

  it('round-trips names with quotes, ampersands, angle brackets, non-ASCII and emoji', () => {
    const names = new Map(doc.graphml.graph.node.map((n) => [n['@_id'], dataValue(n.data, 'n_name')]));

    expect(names.get('02:00:00:00:00:00')).toBe('Tom & Jerry\'s "Big" <TV>');
    expect(names.get('02:00:00:00:00:01')).toBe('Café ☕ 🎉 Zoë');
    expect(names.get('02:00:00:00:00:02')).toBe('back\\slash');
    expect(names.get('02:00:00:00:00:04')).toBe('</data><data key="n_ip">injected');
    expect(names.get('9c:b6:d0:4e:11:07')).toBe('Living Room "Big" TV');
    expect(names.get('64:16:7f:aa:31:06')).toBe('Printer <Office>');
  });

  it('writes numbers, booleans and coordinates as typed values and leaves nulls out', () => {
    const edge = doc.graphml.graph.edge.find((e) => e['@_id'] === 'uplink:78:45:58:6d:70:22');
    const gateway = doc.graphml.graph.node.find((n) => n['@_id'] === '74:ac:b9:1c:20:01');

    expect(edge && dataValue(edge.data, 'e_connection_type')).toBe('wireless');
    expect(edge && dataValue(edge.data, 'e_is_uplink')).toBe('true');
    expect(edge?.data.some((d) => d['@_key'] === 'e_source_port')).toBe(false);
    expect(gateway && dataValue(gateway.data, 'n_uplink_depth')).toBe('0');
    expect(gateway?.data.some((d) => d['@_key'] === 'n_uplink_device_id')).toBe(false);
    expect(Number(gateway && dataValue(gateway.data, 'n_x'))).toBe(topology.nodes[0]?.x);
    expect(dataValue(doc.graphml.graph.data, 'g_total_clients')).toBe(String(topology.total_clients));
  });

  it('writes every character beyond ASCII as a character reference, so the file is ASCII', () => {
    expect(/^[\t\n\r\x20-\x7e]*$/.test(xml)).toBe(true);
    expect(xml).toContain('Caf&#xE9; &#x2615; &#x1F389; Zo&#xEB;');
  });

  it('replaces characters XML cannot carry instead of writing a broken document', () => {
    expect(escapeXml('a\u0000b\u001fc\uFFFEd')).toBe('a\uFFFDb\uFFFDc\uFFFDd');
    expect(escapeXml('plain 10.0.0.1')).toBe('plain 10.0.0.1');
  });
});

describe('DOT export', () => {
  const topology = awkwardTopology();
  const dot = exportTopology(topology, 'dot');

  it('parses with a DOT parser into one digraph with every node and edge', () => {
    const [graph, ...rest] = parseDot(dot);
    const statements = graph?.children ?? [];
    const nodes = statements.filter((s): s is NodeStmt => s.type === 'node_stmt');
    const edges = statements.filter((s): s is EdgeStmt => s.type === 'edge_stmt');

    expect(rest).toEqual([]);
    expect(graph?.type).toBe('digraph');
    expect(nodes).toHaveLength(topology.nodes.length);
    expect(edges).toHaveLength(topology.connections.length);
    expect(edges.every((e) => e.edge_list.length === 2)).toBe(true);
  });

  it('round-trips names with quotes, ampersands, angle brackets, non-ASCII and emoji', () => {
    const [graph] = parseDot(dot);
    const labels = new Map(
      (graph?.children ?? [])
        .filter((s): s is NodeStmt => s.type === 'node_stmt')
        .map((s) => [String(s.node_id.id), s.attr_list.find((a: Attr) => a.id === 'name')?.eq]),
    );

    expect(labels.get('02:00:00:00:00:00')).toBe('Tom & Jerry\'s "Big" <TV>');
    expect(labels.get('02:00:00:00:00:01')).toBe('Café ☕ 🎉 Zoë');
    expect(labels.get('9c:b6:d0:4e:11:07')).toBe('Living Room "Big" TV');
    expect(labels.get('3c:22:fb:45:10:03')).toBe("Tom & Jerry's iPad");
  });

  it('escapes backslashes and line breaks so no name can end a string or form a label escape', () => {
    expect(quoteDot('back\\slash')).toBe('"back\\\\slash"');
    expect(quoteDot('multi\nline')).toBe('"multi\\nline"');
    expect(quoteDot('say "hi"')).toBe('"say \\"hi\\""');
    expect(dot).toContain('"02:00:00:00:00:03" [label="multi\\nline"');
  });
});

describe('JSON export', () => {
  it('is the full topology, pretty-printed', () => {
    const topology = awkwardTopology();
    const json = exportTopology(topology, 'json');

    expect(JSON.parse(json)).toEqual(topology);
    expect(json.split('\n')[1]).toBe('  "site_id": "default",');
  });
});
