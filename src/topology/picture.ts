import { deviceFill, deviceKind, isGatewayType, PALETTE } from './device-kinds.js';
import { dotAttributes, escapeXml, quoteDot } from './exports.js';
import type { Topology, TopologyConnection, TopologyNode } from './types.js';

/** How much detail the picture keeps. The defaults keep a Slack-sized picture legible. */
export interface PictureOptions {
  /** Most boxes drawn; deeper device levels are folded into summaries until the picture fits. */
  maxBoxes?: number;
  /** Most boxes in one rank (row, or column when drawn left to right). */
  maxRankSize?: number;
  /** Most devices drawn under one parent; the others (offline ones drawn first) fold into a summary. */
  maxSiblings?: number;
  /** Up to this many clients on the site, client names are listed; above it, only counts. */
  maxNamedClients?: number;
  /** Names listed per device before "+ N more". */
  namesPerDevice?: number;
}

/** The picture as DOT, with what was simplified to get there. */
export interface PictureModel {
  dot: string;
  /** Devices drawn as their own box. */
  shownDevices: number;
  /** Devices folded into summary boxes. */
  foldedDevices: number;
  /** True when client names are listed, false when clients are only counted per device. */
  clientNames: boolean;
  /** `TB` (top to bottom) for narrow trees, `LR` (left to right) when a rank is too wide for a row. */
  rankdir: 'TB' | 'LR';
}

const DEFAULTS: Required<PictureOptions> = {
  maxBoxes: 150,
  maxRankSize: 40,
  maxSiblings: 30,
  maxNamedClients: 200,
  namesPerDevice: 8,
};

// Above this many boxes in one rank, ranks become columns (left to right) so labels stay readable.
const WIDEST_ROW = 8;

/** A client as the picture lists it: its name and how it is attached. */
interface ClientFacts {
  name: string;
  wireless: boolean;
  port: number | null;
}

interface DeviceInfo {
  node: TopologyNode;
  level: number;
  children: DeviceInfo[];
  clients: ClientFacts[];
  uplink: TopologyConnection | undefined;
}

/** What is drawn at one depth cut: the devices with their own box, and what folds under whom. */
interface Plan {
  visible: DeviceInfo[];
  /** Folded devices (with their subtrees) by the visible parent they hang off; `null` for roots. */
  folded: Map<DeviceInfo | null, DeviceInfo[]>;
}

/** Counts of folded subtrees. */
interface Tally {
  devices: number;
  offline: number;
  clients: number;
  kinds: Map<string, number>;
}

const plural = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

function tally(devices: readonly DeviceInfo[]): Tally {
  const out: Tally = { devices: 0, offline: 0, clients: 0, kinds: new Map() };
  const stack = [...devices];
  while (stack.length > 0) {
    const d = stack.pop();
    if (!d) break;
    out.devices += 1;
    if (d.node.state !== 1) out.offline += 1;
    out.clients += d.clients.length;
    const kind = deviceKind(d.node.device_type).many;
    out.kinds.set(kind, (out.kinds.get(kind) ?? 0) + 1);
    stack.push(...d.children);
  }
  return out;
}

// Which siblings keep their own box first: gateways, then offline devices (problems stay visible).
const keepRank = (d: DeviceInfo) => (isGatewayType(d.node.device_type) ? 0 : d.node.state !== 1 ? 1 : 2);

/** Siblings to draw and to fold when there are more than `max`; the drawn ones keep tree order. */
function capSiblings(
  children: readonly DeviceInfo[],
  max: number,
): { kept: DeviceInfo[]; folded: DeviceInfo[] } {
  if (children.length <= max) return { kept: [...children], folded: [] };
  const ranked = [...children].sort((a, b) => keepRank(a) - keepRank(b));
  const keep = new Set(ranked.slice(0, max - 1));
  return {
    kept: children.filter((c) => keep.has(c)),
    folded: children.filter((c) => !keep.has(c)),
  };
}

function planAt(roots: readonly DeviceInfo[], cut: number, maxSiblings: number): Plan {
  const visible: DeviceInfo[] = [];
  const folded = new Map<DeviceInfo | null, DeviceInfo[]>();
  const top = capSiblings(roots, maxSiblings);
  if (top.folded.length > 0) folded.set(null, top.folded);
  const stack = [...top.kept].reverse();
  while (stack.length > 0) {
    const d = stack.pop();
    if (!d) break;
    visible.push(d);
    if (d.children.length === 0) continue;
    if (d.level >= cut) {
      folded.set(d, d.children);
      continue;
    }
    const { kept, folded: extra } = capSiblings(d.children, maxSiblings);
    if (extra.length > 0) folded.set(d, extra);
    for (let i = kept.length - 1; i >= 0; i--) {
      const kid = kept[i];
      if (kid) stack.push(kid);
    }
  }
  return { visible, folded };
}

/** Boxes in total and in the fullest rank, as Graphviz will place them. */
function measure(plan: Plan, named: boolean): { boxes: number; widest: number } {
  const ranks = new Map<number, number>();
  const bump = (rank: number) => ranks.set(rank, (ranks.get(rank) ?? 0) + 1);
  for (const d of plan.visible) {
    bump(d.level);
    if (named && d.clients.length > 0) bump(d.level + 1);
  }
  for (const parent of plan.folded.keys()) bump(parent ? parent.level + 1 : 0);
  let boxes = 0;
  for (const n of ranks.values()) boxes += n;
  return { boxes, widest: Math.max(0, ...ranks.values()) };
}

/** One HTML-like label row; the text is XML-escaped (names may hold `&`, `<`, `"`…). */
function row(text: string, font: { size?: number; color?: string; bold?: boolean } = {}): string {
  let inner = escapeXml(text);
  if (font.bold) inner = `<B>${inner}</B>`;
  const attributes = `${font.size !== undefined ? ` POINT-SIZE="${font.size}"` : ''}${font.color !== undefined ? ` COLOR="${font.color}"` : ''}`;
  if (attributes) inner = `<FONT${attributes}>${inner}</FONT>`;
  return `<TR><TD ALIGN="LEFT" BALIGN="LEFT">${inner}</TD></TR>`;
}

const table = (rows: string[]) => ({
  html: `<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">${rows.join('')}</TABLE>`,
});

function clientSplit(clients: readonly ClientFacts[]): string {
  const wireless = clients.filter((c) => c.wireless).length;
  const wired = clients.length - wireless;
  return [
    wired > 0 ? `${wired.toLocaleString('en-US')} wired` : '',
    wireless > 0 ? `${wireless.toLocaleString('en-US')} Wi-Fi` : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

function deviceLabel(
  node: TopologyNode,
  clients: readonly ClientFacts[],
  countClients: boolean,
): { html: string } {
  const detail = [node.model, node.ip].filter((part): part is string => Boolean(part)).join(' · ');
  const rows = [row(node.name, { bold: true })];
  if (detail) rows.push(row(detail, { size: 8 }));
  if (node.state !== 1) rows.push(row('offline', { size: 8, color: PALETTE.offline, bold: true }));
  // Big sites: clients are a count in the device's box, in the client colour.
  if (countClients && clients.length > 0) {
    rows.push(
      row(`${plural(clients.length, 'client')} (${clientSplit(clients)})`, {
        size: 8,
        color: PALETTE.clientText,
      }),
    );
  }
  return table(rows);
}

function clientListLabel(
  clients: readonly ClientFacts[],
  perDevice: number,
  heading: string,
): { html: string } {
  const rows = [row(heading, { bold: true, size: 9 })];
  for (const client of clients.slice(0, perDevice)) {
    const via = client.wireless ? 'Wi-Fi' : client.port !== null ? `port ${client.port}` : 'wired';
    rows.push(row(`${client.name} (${via})`, { size: 8 }));
  }
  if (clients.length > perDevice) rows.push(row(`+ ${clients.length - perDevice} more`, { size: 8 }));
  return table(rows);
}

function summaryLabel(t: Tally, orphans: boolean): { html: string } {
  const kinds = [...t.kinds.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([kind, n]) => `${n.toLocaleString('en-US')} ${kind}`)
    .join(' · ');
  const heading = orphans
    ? `${plural(t.devices, 'device')} with unknown uplink`
    : plural(t.devices, 'more device');
  const rows = [row(heading, { bold: true }), row(kinds, { size: 8 })];
  if (t.clients > 0) rows.push(row(plural(t.clients, 'client'), { size: 8, color: PALETTE.clientText }));
  if (t.offline > 0)
    rows.push(
      row(`${t.offline.toLocaleString('en-US')} offline`, { size: 8, color: PALETTE.offline, bold: true }),
    );
  return table(rows);
}

function linkLabel(link: TopologyConnection): string | undefined {
  if (link.status === 'down') return 'down';
  if (link.connection_type === 'wireless') return 'mesh';
  const speed =
    link.speed_mbps === null
      ? ''
      : link.speed_mbps >= 1000
        ? `${link.speed_mbps / 1000}G`
        : `${link.speed_mbps}M`;
  const port = link.source_port !== null ? `port ${link.source_port}` : '';
  return [port, speed].filter(Boolean).join(' · ') || undefined;
}

/** Devices from the topology, linked to their children and clients, with levels from their root. */
function deviceTree(topology: Topology): {
  ordered: DeviceInfo[];
  roots: DeviceInfo[];
  orphans: ClientFacts[];
} {
  const byId = new Map<string, DeviceInfo>();
  const ordered: DeviceInfo[] = [];
  const names = new Map<string, string>();
  for (const node of topology.nodes) {
    names.set(node.node_id, node.name);
    if (node.node_type !== 'device') continue;
    const info: DeviceInfo = { node, level: 0, children: [], clients: [], uplink: undefined };
    byId.set(node.node_id, info);
    ordered.push(info);
  }
  for (const link of topology.connections) {
    const source = byId.get(link.source_node_id);
    if (!source) continue;
    const child = link.is_uplink ? byId.get(link.target_node_id) : undefined;
    if (child) {
      child.uplink = link;
      source.children.push(child);
    } else if (!link.is_uplink) {
      source.clients.push({
        name: names.get(link.target_node_id) ?? link.target_node_id,
        wireless: link.connection_type === 'wireless',
        port: link.source_port,
      });
    }
  }
  const orphans: ClientFacts[] = [];
  for (const node of topology.nodes) {
    if (node.node_type === 'client' && node.uplink_device_id === null) {
      orphans.push({ name: node.name, wireless: false, port: null });
    }
  }
  // Devices arrive in tree order (parents first), so one pass sets every level.
  for (const d of ordered) for (const child of d.children) child.level = d.level + 1;
  return { ordered, roots: ordered.filter((d) => d.uplink === undefined), orphans };
}

/**
 * The topology as a styled DOT picture (pure; render-png.ts turns it into a PNG). Devices are
 * boxes coloured by kind (gateway blue, switch green, AP orange); offline devices and down links
 * are red and dashed; wireless links dashed blue. On small sites each device's clients are listed
 * by name in a grey note; on big sites they are a count in the device's box. When the site is too
 * big for one legible picture, the deepest device levels (and siblings beyond `maxSiblings`) fold
 * into "N more devices" summaries that still count their clients and offline devices.
 *
 * One function: it is the picture's script, node by node and edge by edge in drawing order, and
 * reads best top to bottom.
 */
export function topologyPicture(topology: Topology, options: PictureOptions = {}): PictureModel {
  const settings = { ...DEFAULTS, ...options };
  const { ordered, roots, orphans } = deviceTree(topology);
  const named = topology.total_clients <= settings.maxNamedClients;
  const maxLevel = ordered.reduce((max, d) => Math.max(max, d.level), 0);

  let plan = planAt(roots, maxLevel, settings.maxSiblings);
  let shape = measure(plan, named);
  for (let cut = maxLevel - 1; cut >= 0; cut--) {
    if (shape.boxes <= settings.maxBoxes && shape.widest <= settings.maxRankSize) break;
    plan = planAt(roots, cut, settings.maxSiblings);
    shape = measure(plan, named);
  }
  const rankdir = shape.widest > WIDEST_ROW ? 'LR' : 'TB';

  const offlineDevices = ordered.filter((d) => d.node.state !== 1).length;
  let foldedDevices = 0;
  for (const list of plan.folded.values()) foldedDevices += tally(list).devices;
  const caption = [
    `site ${topology.site_id}`,
    `${plural(topology.total_devices, 'device')}${offlineDevices > 0 ? ` (${offlineDevices} offline)` : ''}`,
    plural(topology.total_clients, 'client'),
    topology.generated_at.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC'),
    ...(foldedDevices > 0 ? [`${plural(foldedDevices, 'device')} folded into summaries`] : []),
  ].join(' · ');

  const lines: string[] = [
    'digraph "topology" {',
    `  graph${dotAttributes({
      rankdir,
      nodesep: 0.2,
      ranksep: rankdir === 'LR' ? 0.8 : 0.45,
      fontname: 'DejaVu Sans',
      fontsize: 11,
      labelloc: 'b',
      label: caption,
      bgcolor: 'white',
      pad: 0.2,
    })};`,
    `  node${dotAttributes({ fontname: 'DejaVu Sans', fontsize: 10, margin: '0.12,0.06' })};`,
    `  edge${dotAttributes({ fontname: 'DejaVu Sans', fontsize: 8, arrowhead: 'none' })};`,
  ];
  const edge = (from: string, to: string, attributes: Parameters<typeof dotAttributes>[0]) =>
    lines.push(`  ${quoteDot(from)} -> ${quoteDot(to)}${dotAttributes(attributes)};`);

  let groups = 0;
  for (const d of plan.visible) {
    const offline = d.node.state !== 1;
    lines.push(
      `  ${quoteDot(d.node.node_id)}${dotAttributes({
        shape: 'box',
        style: offline ? 'rounded,filled,dashed' : 'rounded,filled',
        fillcolor: offline ? PALETTE.offlineFill : deviceFill(d.node.device_type),
        color: offline ? PALETTE.offline : PALETTE.border,
        penwidth: isGatewayType(d.node.device_type) ? 2 : 1,
        label: deviceLabel(d.node, d.clients, !named),
      })};`,
    );
    const link = d.uplink;
    if (link) {
      const down = offline || link.status === 'down';
      const label = linkLabel(link);
      edge(link.source_node_id, d.node.node_id, {
        style: down || link.connection_type === 'wireless' ? 'dashed' : 'solid',
        color: down
          ? PALETTE.offline
          : link.connection_type === 'wireless'
            ? PALETTE.wireless
            : PALETTE.border,
        fontcolor: down ? PALETTE.offline : '#333333',
        label: label ? ` ${label} ` : undefined,
      });
    }
    if (named && d.clients.length > 0) {
      const id = `clients-${groups++}`;
      lines.push(
        `  ${quoteDot(id)}${dotAttributes({
          shape: 'note',
          style: 'filled',
          fillcolor: PALETTE.clientFill,
          color: PALETTE.client,
          fontcolor: '#333333',
          label: clientListLabel(d.clients, settings.namesPerDevice, plural(d.clients.length, 'client')),
        })};`,
      );
      edge(d.node.node_id, id, {
        style: offline || d.clients.every((c) => c.wireless) ? 'dashed' : 'solid',
        color: offline ? PALETTE.offline : PALETTE.client,
      });
    }
  }
  let summaries = 0;
  for (const [parent, devices] of plan.folded) {
    const t = tally(devices);
    const id = `summary-${summaries++}`;
    lines.push(
      `  ${quoteDot(id)}${dotAttributes({
        shape: 'box3d',
        style: 'filled',
        fillcolor: '#f2f2f2',
        color: t.offline > 0 ? PALETTE.offline : PALETTE.border,
        penwidth: t.offline > 0 ? 2 : 1,
        label: summaryLabel(t, parent === null),
      })};`,
    );
    if (parent) {
      const down = devices.some((c) => c.uplink?.status === 'down');
      edge(parent.node.node_id, id, { color: down ? PALETTE.offline : PALETTE.border });
    }
  }
  if (orphans.length > 0) {
    const heading = `${plural(orphans.length, 'client')} on no known device`;
    lines.push(
      `  "clients-unattached"${dotAttributes({
        shape: 'note',
        style: 'filled',
        fillcolor: PALETTE.clientFill,
        color: PALETTE.client,
        label: named
          ? clientListLabel(orphans, settings.namesPerDevice, heading)
          : table([row(heading, { bold: true, size: 9 })]),
      })};`,
    );
  }
  lines.push('}');
  return {
    dot: `${lines.join('\n')}\n`,
    shownDevices: plan.visible.length,
    foldedDevices,
    clientNames: named,
    rankdir,
  };
}
