import { ValidationError } from '../errors.js';
import { deviceFill, PALETTE } from './device-kinds.js';
import { ascii, TextBytes } from './text-bytes.js';
import type { Topology, TopologyConnection, TopologyNode } from './types.js';

/** The export formats of export_topology, exactly as the spec spells them (case-sensitive). */
export const EXPORT_FORMATS = ['json', 'graphml', 'dot'] as const;

/** One of the export formats. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The rule an unknown format breaks, listing the valid ones. */
export const EXPORT_FORMAT_RULE = `must be one of ${EXPORT_FORMATS.join(', ')} (case-sensitive)`;

/** Checks a format name; anything but `json`, `graphml` or `dot` (`GraphML`, `png`…) is a ValidationError. */
export function parseExportFormat(value: string): ExportFormat {
  const format = EXPORT_FORMATS.find((f) => f === value);
  if (format === undefined) throw new ValidationError([{ field: 'format', rule: EXPORT_FORMAT_RULE }]);
  return format;
}

/** The topology as a string in the requested format (export_topology). */
export function exportTopology(topology: Topology, format: ExportFormat): string {
  switch (format) {
    case 'json':
      return toJson(topology);
    case 'graphml':
      return toGraphml(topology);
    case 'dot':
      return toDot(topology);
  }
}

/** The full topology, pretty-printed. */
function toJson(topology: Topology): string {
  return `${JSON.stringify(topology, null, 2)}\n`;
}

// XML 1.0 allows tab, LF, CR and U+0020…U+D7FF, U+E000…U+FFFD, U+10000…: everything else (control
// characters, lone surrogates, U+FFFE/U+FFFF) makes the document unreadable, so it becomes U+FFFD.
const XML_INVALID = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const XML_SPECIAL = /[&<>"']/g;
const XML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

// One scan decides whether anything needs rewriting; most values (MACs, numbers, plain names) do not.
const XML_NEEDS_WORK = /[&<>"']|[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/** Text made safe for XML content and attribute values. */
export function escapeXml(value: string): string {
  if (!XML_NEEDS_WORK.test(value)) return value;
  return value.replace(XML_INVALID, '\uFFFD').replace(XML_SPECIAL, (c) => XML_ENTITIES[c] ?? c);
}

type GraphmlType = 'string' | 'int' | 'double' | 'boolean';

/** One GraphML `<key>`: its id (used by `<data key>`), the element it is for, the attribute name and type. */
export interface GraphmlKey {
  id: string;
  for: 'graph' | 'node' | 'edge';
  name: string;
  type: GraphmlType;
}

/** Every attribute the GraphML export writes; a test checks that each `<data key>` used is declared here. */
export const GRAPHML_KEYS: readonly GraphmlKey[] = [
  ...(
    [
      ['site_id', 'string'],
      ['generated_at', 'string'],
      ['total_devices', 'int'],
      ['total_clients', 'int'],
      ['total_connections', 'int'],
      ['max_depth', 'int'],
    ] as const
  ).map(([name, type]) => ({ id: `g_${name}`, for: 'graph' as const, name, type })),
  ...(
    [
      // `label` repeats the name because Gephi shows that attribute as the node's label.
      ['label', 'string'],
      ['node_type', 'string'],
      ['name', 'string'],
      ['mac', 'string'],
      ['ip', 'string'],
      ['model', 'string'],
      ['device_type', 'string'],
      ['uplink_device_id', 'string'],
      ['uplink_port', 'int'],
      ['uplink_depth', 'int'],
      ['state', 'int'],
      ['x', 'double'],
      ['y', 'double'],
    ] as const
  ).map(([name, type]) => ({ id: `n_${name}`, for: 'node' as const, name, type })),
  ...(
    [
      ['connection_type', 'string'],
      ['source_port', 'int'],
      ['target_port', 'int'],
      ['speed_mbps', 'int'],
      ['is_uplink', 'boolean'],
      ['status', 'string'],
    ] as const
  ).map(([name, type]) => ({ id: `e_${name}`, for: 'edge' as const, name, type })),
];

/**
 * The line as one flat string. V8 keeps a concatenation as a tree of pieces (a rope) until a
 * character is read; reading one here flattens the line while its pieces are still young garbage,
 * instead of leaving millions of pieces for `join` and the old-generation collector (the DOT export).
 */
function flat(line: string): string {
  line.charCodeAt(0);
  return line;
}

/** `<data key="…">value</data>` into the buffer; nothing for null and absent values. */
function writeData(out: TextBytes, open: Uint8Array, value: string | number | null | undefined): void {
  if (value === null || value === undefined) return;
  out.bytes(open);
  if (typeof value === 'string') out.xml(value);
  else out.number(value);
  out.bytes(M.dataClose);
}

// The markup of node and edge lines, encoded once.
const M = {
  nodeOpen: ascii('    <node id="'),
  label: ascii('"><data key="n_label">'),
  nodeType: ascii('</data><data key="n_node_type">'),
  name: ascii('</data><data key="n_name">'),
  dataClose: ascii('</data>'),
  mac: ascii('<data key="n_mac">'),
  ip: ascii('<data key="n_ip">'),
  model: ascii('<data key="n_model">'),
  deviceType: ascii('<data key="n_device_type">'),
  uplinkDevice: ascii('<data key="n_uplink_device_id">'),
  uplinkPort: ascii('<data key="n_uplink_port">'),
  depth: ascii('<data key="n_uplink_depth">'),
  state: ascii('</data><data key="n_state">'),
  x: ascii('<data key="n_x">'),
  y: ascii('<data key="n_y">'),
  nodeClose: ascii('</node>\n'),
  edgeOpen: ascii('    <edge id="'),
  source: ascii('" source="'),
  target: ascii('" target="'),
  connectionType: ascii('"><data key="e_connection_type">'),
  sourcePort: ascii('<data key="e_source_port">'),
  targetPort: ascii('<data key="e_target_port">'),
  speed: ascii('<data key="e_speed_mbps">'),
  uplinkTrue: ascii('<data key="e_is_uplink">true</data>'),
  uplinkFalse: ascii('<data key="e_is_uplink">false</data>'),
  status: ascii('<data key="e_status">'),
  edgeClose: ascii('</data></edge>\n'),
  end: ascii('  </graph>\n</graphml>\n'),
};

// Emitters are written out field by field rather than driven by a table of accessors (half the
// time of a table on a 50,000-client site), straight into one buffer (TextBytes).
function graphmlNode(out: TextBytes, n: TopologyNode): void {
  out.bytes(M.nodeOpen);
  out.xml(n.node_id);
  out.bytes(M.label);
  const nameStart = out.position;
  out.xml(n.name);
  const nameEnd = out.position;
  out.bytes(M.nodeType);
  out.raw(n.node_type);
  out.bytes(M.name);
  out.repeat(nameStart, nameEnd);
  out.bytes(M.dataClose);
  writeData(out, M.mac, n.mac);
  writeData(out, M.ip, n.ip);
  writeData(out, M.model, n.model);
  writeData(out, M.deviceType, n.device_type);
  writeData(out, M.uplinkDevice, n.uplink_device_id);
  writeData(out, M.uplinkPort, n.uplink_port);
  out.bytes(M.depth);
  out.number(n.uplink_depth);
  out.bytes(M.state);
  out.number(n.state);
  out.bytes(M.dataClose);
  writeData(out, M.x, n.x);
  writeData(out, M.y, n.y);
  out.bytes(M.nodeClose);
}

// Deliberately alike: node and edge writers emit different GraphML elements field by field, straight to bytes.
function graphmlEdge(out: TextBytes, c: TopologyConnection): void {
  out.bytes(M.edgeOpen);
  out.xml(c.connection_id);
  out.bytes(M.source);
  out.xml(c.source_node_id);
  out.bytes(M.target);
  out.xml(c.target_node_id);
  out.bytes(M.connectionType);
  out.raw(c.connection_type);
  out.bytes(M.dataClose);
  writeData(out, M.sourcePort, c.source_port);
  writeData(out, M.targetPort, c.target_port);
  writeData(out, M.speed, c.speed_mbps);
  out.bytes(c.is_uplink ? M.uplinkTrue : M.uplinkFalse);
  out.bytes(M.status);
  out.raw(c.status);
  out.bytes(M.edgeClose);
}

// The XML declaration, the root element and a `<key>` per attribute: the same for every export.
const GRAPHML_HEAD = [
  '<?xml version="1.0" encoding="UTF-8"?>',
  '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"',
  '    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"',
  '    xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">',
  ...GRAPHML_KEYS.map(
    (k) => `  <key id="${k.id}" for="${k.for}" attr.name="${k.name}" attr.type="${k.type}"/>`,
  ),
  '',
].join('\n');

// A first guess of the export's size: lines of a large site average about 330 bytes.
const GRAPHML_BYTES_PER_LINE = 400;

/**
 * GraphML (graphml.graphdrawing.org): a `<key>` declared for every attribute, ids and values
 * XML-escaped, nulls omitted, one line per node and edge (big sites give files of tens of MB).
 * Opens in yEd, Gephi and networkx.
 */
export function toGraphml(topology: Topology): string {
  const t = topology;
  const out = new TextBytes((t.nodes.length + t.connections.length) * GRAPHML_BYTES_PER_LINE + 8192);
  out.raw(GRAPHML_HEAD);
  // The site id may be anything: escaped by the same writer as every node and edge.
  out.raw('  <graph id="');
  out.xml(`topology-${t.site_id}`);
  out.raw('" edgedefault="directed">\n    ');
  const graphData: [string, string | number][] = [
    ['g_site_id', t.site_id],
    ['g_generated_at', t.generated_at],
    ['g_total_devices', t.total_devices],
    ['g_total_clients', t.total_clients],
    ['g_total_connections', t.total_connections],
    ['g_max_depth', t.max_depth],
  ];
  for (const [key, value] of graphData) writeData(out, ascii(`<data key="${key}">`), value);
  out.raw('\n');
  for (const node of t.nodes) graphmlNode(out, node);
  for (const c of t.connections) graphmlEdge(out, c);
  out.bytes(M.end);
  return out.toString();
}

/**
 * A DOT double-quoted string. Inside quotes only `"` needs escaping for the parser; backslashes are
 * doubled too, so a name cannot form an escape such as `\N` in a label or swallow the closing quote,
 * and line breaks become `\n` (a line break inside a label).
 */
export function quoteDot(value: string): string {
  return `"${escapeDotText(value)}"`;
}

/** The inside of a DOT double-quoted string (see quoteDot). */
function escapeDotText(value: string): string {
  if (!/["\\\r\n]/.test(value)) return value;
  return value
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/\r\n|\r|\n/g, '\\n');
}

/** A DOT attribute value: text (quoted), a number or boolean (bare), or an HTML-like label (`<…>`). */
export type DotValue = string | number | boolean | { html: string } | null | undefined;

function dotValue(value: string | number | boolean | { html: string }): string {
  if (typeof value === 'string') return quoteDot(value);
  if (typeof value === 'object') return `<${value.html}>`;
  return String(value);
}

/** `[a=1, b="x"]`, leaving out null and absent values. */
export function dotAttributes(attributes: Record<string, DotValue>): string {
  const items: string[] = [];
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined) continue;
    items.push(`${name}=${dotValue(value)}`);
  }
  return items.length > 0 ? ` [${items.join(', ')}]` : '';
}

/** `, name=value` for a present value, nothing for null or absent (a building block of attribute lists). */
function attr(name: string, value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  return `, ${name}=${typeof value === 'string' ? quoteDot(value) : value}`;
}

// Devices are styled by the `node` default below; clients and offline devices override it.
function dotNode(n: TopologyNode): string {
  let style: string;
  if (n.node_type === 'client') {
    style = `, shape=ellipse, style=filled, fillcolor="${PALETTE.clientFill}", color="${PALETTE.client}"`;
  } else if (n.state !== 1) {
    style = `, style="rounded,filled,dashed", fillcolor="${PALETTE.offlineFill}", color="${PALETTE.offline}"`;
  } else {
    style = `, fillcolor="${deviceFill(n.device_type)}"`;
  }
  const name = quoteDot(n.name);
  const fields = `label=${name}, node_type="${n.node_type}", name=${name}${attr('mac', n.mac)}${attr('ip', n.ip)}${attr('model', n.model)}${attr('device_type', n.device_type)}${attr('uplink_device_id', n.uplink_device_id)}${attr('uplink_port', n.uplink_port)}, uplink_depth=${n.uplink_depth}, state=${n.state}${attr('x', n.x)}${attr('y', n.y)}`;
  return `  ${quoteDot(n.node_id)} [${fields}${style}];`;
}

function dotEdge(c: TopologyConnection): string {
  const down = c.status === 'down';
  const wireless = c.connection_type === 'wireless';
  const color = down
    ? PALETTE.offline
    : wireless
      ? PALETTE.wireless
      : c.is_uplink
        ? PALETTE.border
        : PALETTE.clientLink;
  const style = down ? 'dotted' : wireless ? 'dashed' : 'solid';
  const fields = `id=${quoteDot(c.connection_id)}, connection_type="${c.connection_type}"${attr('source_port', c.source_port)}${attr('target_port', c.target_port)}${attr('speed_mbps', c.speed_mbps)}, is_uplink=${c.is_uplink}, status="${c.status}"${c.source_port !== null ? `, label="port ${c.source_port}"` : ''}`;
  return `  ${quoteDot(c.source_node_id)} -> ${quoteDot(c.target_node_id)} [${fields}, style=${style}, color="${color}"];`;
}

/**
 * DOT (Graphviz): every id and string quoted and escaped; the spec's fields are kept as node and
 * edge attributes (Graphviz ignores unknown ones), and a light style makes `dot -Tsvg` readable:
 * devices are boxes coloured by kind, clients ellipses, offline devices and down links red.
 */
export function toDot(topology: Topology): string {
  const t = topology;
  const lines: string[] = [
    `digraph ${quoteDot(`topology-${t.site_id}`)} {`,
    `  graph [site_id=${quoteDot(t.site_id)}${attr('generated_at', t.generated_at)}${attr('total_devices', t.total_devices)}${attr('total_clients', t.total_clients)}${attr('total_connections', t.total_connections)}${attr('max_depth', t.max_depth)}, rankdir=TB, charset="UTF-8"];`,
    `  node [shape=box, style="rounded,filled", color="${PALETTE.border}", fontname="DejaVu Sans", fontsize=10];`,
    '  edge [fontname="DejaVu Sans", fontsize=8];',
  ];
  for (const node of t.nodes) lines.push(flat(dotNode(node)));
  for (const c of t.connections) lines.push(flat(dotEdge(c)));
  lines.push('}', '');
  return lines.join('\n');
}
