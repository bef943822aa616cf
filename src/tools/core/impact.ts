import { connect } from 'node:net';
import { isBotError } from '../../errors.js';
import { isHostIn, isIpv4, overlaps, parseCidr, parseIpv4 } from '../../lib/ip.js';
import { normalizeMac } from '../../lib/mac.js';
// The policy's modules, not its index (which holds the CEL compiler and the YAML parser: issue 26).
import { evaluateChange, type PolicyDecision } from '../../policy/evaluate.js';
import type { Policy } from '../../policy/policy.js';
import { assessImpact, MAX_NAMES } from '../../policy/risk.js';
import type { AffectedSet, BlastRadius, ChangeRequest, ImpactFacts } from '../../policy/types.js';
import { networkRecordSchema } from '../../records/network-record.js';
import { buildTopology } from '../../topology/build.js';
import { clientsByNetwork, vlanOf } from '../networks/network-model.js';
import { AFTER_DELETE_TEXT, referencesOfNetwork } from '../networks/network-references.js';
import { findInSet, loadNetworks, readVpnPools, usesOfficialNetworks } from '../networks/network-source.js';
import { readSsid } from '../wifi/wifi-broadcasts.js';
import type { ToolAccess, ToolContext } from './define-tool.js';
import { firewallGeneration } from './firewall-generation.js';
import {
  clientLabel,
  deviceLabel,
  findLiveDevice,
  type LiveClient,
  type LiveDevice,
  readLiveClients,
  readLiveDevices,
  resolveClient,
} from './live-targets.js';

/*
 * Issue 22: the facts policy/ needs about a would-be write, read fresh from the controller: the
 * clients and devices it affects, what refers to its target, and whether it cuts the bot's own
 * path to the controller. policy/ turns them into a risk and a decision; nothing here decides.
 */

/** The guardrails of this process: the policy in effect and what self-lockout is measured against. */
export interface Guardrails {
  policy: Policy;
  /** The controller's URL (GATEWAY_URL, or the built-in simulator's); unset in cloud mode. */
  controllerUrl?: string;
  /** BOT_SOURCE_ADDRESS: the bot's own address as the network sees it, instead of asking the socket. */
  sourceAddress?: string;
  /** Resolves a `/net` command line to a registered tool and its validated arguments (app.ts wires the registry). */
  resolve(line: string): { tool: string; access: ToolAccess; args: Record<string, unknown> };
  /** Clock (ms since the epoch); tests fix it. */
  now(): number;
}

/** Where the bot stands: its own source address and the controller's address, when known. */
export interface NetworkPosition {
  source?: string;
  controller?: string;
}

const PROBE_TIMEOUT_MS = 3000;
const positions = new Map<string, Promise<NetworkPosition>>();

/**
 * The local and remote addresses of a TCP connection to the controller: the address the
 * controller (and every firewall rule between) sees the bot come from. Asked once per URL and
 * process; a failed probe leaves both unknown (and is asked again next time).
 */
function probePosition(url: string): Promise<NetworkPosition> {
  const cached = positions.get(url);
  if (cached) return cached;
  const probe = new Promise<NetworkPosition>((resolvePosition) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      resolvePosition({});
      return;
    }
    const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
    const socket = connect({ host: target.hostname.replace(/^\[|\]$/g, ''), port });
    const done = (position: NetworkPosition) => {
      socket.destroy();
      if (position.source === undefined) positions.delete(url);
      resolvePosition(position);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => done({}));
    socket.once('error', () => done({}));
    socket.once('connect', () =>
      done({
        ...(socket.localAddress ? { source: socket.localAddress.replace(/^::ffff:/, '') } : {}),
        ...(socket.remoteAddress ? { controller: socket.remoteAddress.replace(/^::ffff:/, '') } : {}),
      }),
    );
  });
  positions.set(url, probe);
  return probe;
}

/** The bot's position: BOT_SOURCE_ADDRESS when set, else a probe of the controller's URL. */
export async function networkPosition(guardrails: Guardrails | undefined): Promise<NetworkPosition> {
  if (!guardrails) return {};
  const url = guardrails.controllerUrl;
  const host = url ? safeHost(url) : undefined;
  const literal = host && isIpv4(host) ? host : undefined;
  if (guardrails.sourceAddress) {
    return { source: guardrails.sourceAddress, ...(literal ? { controller: literal } : {}) };
  }
  if (!url) return {};
  const probed = await probePosition(url);
  return { ...probed, ...(literal ? { controller: literal } : {}) };
}

function safeHost(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

function affected(names: readonly string[]): AffectedSet {
  const sorted = [...names].sort((a, b) => a.localeCompare(b));
  return { count: sorted.length, names: sorted.slice(0, MAX_NAMES) };
}

/** Why an address inside `subnet` means self-lockout, or undefined. */
function lockoutIn(position: NetworkPosition, subnet: string | undefined, what: string): string | undefined {
  const cidr = subnet ? parseCidr(subnet) : undefined;
  if (!cidr) return undefined;
  for (const [who, address] of [
    ['the bot’s own address', position.source],
    ['the controller’s address', position.controller],
  ] as const) {
    const ip = address ? parseIpv4(address) : undefined;
    if (ip !== undefined && isHostIn(cidr, ip)) return `${who} ${address} is in ${what}, subnet ${subnet}`;
  }
  return undefined;
}

function addressIs(position: NetworkPosition, ip: string | undefined): string | undefined {
  if (!ip) return undefined;
  if (ip === position.source) return 'the bot’s own address';
  if (ip === position.controller) return 'the controller’s address';
  return undefined;
}

// update_network arguments that never move a client or the bot off its network.
const HARMLESS_NETWORK_ARGS = new Set([
  'site_id',
  'network_id',
  'confirm',
  'dry_run',
  'name',
  'domain_name',
  'dhcp_dns_1',
  'dhcp_dns_2',
  'dhcp_dns_3',
  'dhcp_dns_4',
]);

async function networkImpact(
  context: ToolContext,
  site: string,
  tool: string,
  args: Record<string, unknown>,
  position: NetworkPosition,
): Promise<ImpactFacts> {
  const { gateway } = context;
  // What does not depend on which network it is starts with the network read, not after it: the
  // clients, and the firewall generation that decides which references are asked.
  const clientsEarly = readLiveClients({ gateway, site }, { fresh: true });
  clientsEarly.catch(() => undefined);
  firewallGeneration(gateway, site).catch(() => undefined);
  // On a console known to serve networks officially, the classic ids its references need too (a
  // cold read asks networkconf alongside anyway: `set.classic`).
  const classicEarly =
    gateway.knownConsole() !== undefined && (await usesOfficialNetworks(gateway))
      ? gateway
          .classicRead(site, 'rest/networkconf', networkRecordSchema, { fresh: true })
          .then((l) => l.items)
      : undefined;
  classicEarly?.catch(() => undefined);
  // The network as the network tools read it (official on 10.1), so the target is the one they change.
  const set = await loadNetworks(gateway, site, { fresh: true, ref: String(args.network_id ?? '') });
  const network = await findInSet(gateway, site, set, String(args.network_id ?? ''));
  const vlan = vlanOf(network);
  const label = `network ${network.name}${vlan ? ` (VLAN ${vlan})` : ''}`;
  const removes = tool === 'delete_network';
  const touchesPath =
    removes || Object.keys(args).some((k) => args[k] !== undefined && !HARMLESS_NETWORK_ARGS.has(k));
  const [clients, references] = await Promise.all([
    clientsEarly,
    referencesOfNetwork(gateway, site, network, set.official, set.classic ?? classicEarly),
  ]);
  const members = clientsByNetwork([network], clients, set.official).get(network._id) ?? [];
  const lockout = touchesPath ? lockoutIn(position, network.ip_subnet, label) : undefined;
  return {
    target: label,
    targetRecord: network as Record<string, unknown>,
    // A rename or a DNS change drops no client; the count is still shown for a change that can.
    ...(touchesPath ? { clients: affected(members.map((c) => clientLabel(c))) } : {}),
    references: references.references.map((r) => ({
      kind: r.kind,
      name: r.name,
      id: r.id,
      dangles: r.after_delete !== AFTER_DELETE_TEXT.removed,
    })),
    removes,
    ...(lockout ? { selfLockout: lockout } : {}),
    unchecked: references.unchecked,
  };
}

/** Devices and clients behind `rootMac` (or only behind its port `port`) on the uplink tree. */
function downstream(
  devices: readonly LiveDevice[],
  clients: readonly LiveClient[],
  rootMac: string,
  port?: number,
): { devices: LiveDevice[]; clients: LiveClient[] } {
  const topology = buildTopology(devices, clients, { siteId: '', generatedAt: '' });
  const children = new Map<string, string[]>();
  const root = normalizeMac(rootMac) ?? rootMac.toLowerCase();
  for (const c of topology.connections) {
    if (c.source_node_id === root && port !== undefined && c.source_port !== port) continue;
    const list = children.get(c.source_node_id);
    if (list) list.push(c.target_node_id);
    else children.set(c.source_node_id, [c.target_node_id]);
  }
  const byMac = new Map<string, LiveDevice | LiveClient>();
  for (const d of devices) byMac.set(normalizeMac(d.mac) ?? d.mac, d);
  const clientMacs = new Set<string>();
  for (const c of clients) {
    const mac = normalizeMac(c.mac) ?? c.mac;
    byMac.set(mac, c);
    clientMacs.add(mac);
  }
  const found = { devices: [] as LiveDevice[], clients: [] as LiveClient[] };
  const seen = new Set([root]);
  const queue = [root];
  while (queue.length > 0) {
    const id = queue.shift() as string;
    for (const child of children.get(id) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      const record = byMac.get(child);
      if (!record) continue;
      if (clientMacs.has(child)) found.clients.push(record as LiveClient);
      else {
        found.devices.push(record as LiveDevice);
        queue.push(child);
      }
    }
  }
  return found;
}

async function deviceImpact(
  context: ToolContext,
  site: string,
  tool: string,
  args: Record<string, unknown>,
  position: NetworkPosition,
): Promise<ImpactFacts> {
  const live = { gateway: context.gateway, site };
  const [devices, clients] = await Promise.all([
    readLiveDevices(live, { fresh: true }),
    readLiveClients(live, { fresh: true }),
  ]);
  const device = findLiveDevice(devices, String(args.device_id ?? ''));
  const port = tool === 'power_cycle_port' && typeof args.port_idx === 'number' ? args.port_idx : undefined;
  const behind = downstream(devices, clients, device.mac, port);
  const label = `device ${deviceLabel(device)}${port !== undefined ? ` port ${port}` : ''}`;
  // A restart takes the device itself down too; a port power cycle only what hangs off the port.
  const down = port === undefined ? [device, ...behind.devices] : behind.devices;
  let lockout: string | undefined;
  for (const node of [...down, ...behind.clients]) {
    const who = addressIs(position, node.ip ?? undefined);
    if (who) {
      const name = 'hostname' in node ? clientLabel(node as LiveClient) : deviceLabel(node as LiveDevice);
      lockout = `${who} ${node.ip} is ${node === device ? '' : 'behind '}${node === device ? `${label} itself` : `${label} (${name})`}`;
      break;
    }
  }
  return {
    target: label,
    targetRecord: device as Record<string, unknown>,
    clients: affected(behind.clients.map((c) => clientLabel(c))),
    devices: affected(down.map((d) => deviceLabel(d))),
    ...(lockout ? { selfLockout: lockout } : {}),
  };
}

async function clientImpact(
  context: ToolContext,
  site: string,
  args: Record<string, unknown>,
  position: NetworkPosition,
): Promise<ImpactFacts> {
  const client = await resolveClient({ gateway: context.gateway, site }, String(args.client ?? ''), {
    known: true,
    fresh: true,
  });
  const label = `client ${clientLabel(client)}`;
  const who = addressIs(position, client.ip ?? undefined);
  return {
    target: label,
    targetRecord: client as Record<string, unknown>,
    clients: affected([clientLabel(client)]),
    ...(who ? { selfLockout: `${who} ${client.ip} is ${label}` } : {}),
  };
}

async function wifiImpact(
  context: ToolContext,
  site: string,
  args: Record<string, unknown>,
  position: NetworkPosition,
): Promise<ImpactFacts> {
  const { gateway } = context;
  const wanted = String(args.wifi_id ?? '');
  // Turning an SSID off drops its clients: they are read alongside the SSID, not after it.
  const clients = args.enabled === false ? readLiveClients({ gateway, site }, { fresh: true }) : undefined;
  clients?.catch(() => undefined);
  // As the Wi-Fi tools read it: the official list on 10.1 (issue 25), else classic wlanconf.
  const { name, record } = await readSsid(gateway, site, wanted);
  const wlan = { ...record, name };
  const label = `Wi-Fi ${wlan.name}`;
  if (!clients) return { target: label, targetRecord: wlan as Record<string, unknown> };
  const on = (await clients).filter((c) => c.is_wired !== true && c.essid === wlan.name);
  const self = on.find((c) => addressIs(position, c.ip ?? undefined));
  return {
    target: label,
    targetRecord: wlan as Record<string, unknown>,
    clients: affected(on.map((c) => clientLabel(c))),
    ...(self
      ? { selfLockout: `${addressIs(position, self.ip ?? undefined)} ${self.ip} is on ${label}` }
      : {}),
  };
}

/**
 * A new network's subnet over a VPN client pool: the VPN clients with addresses in the overlap
 * are affected (their traffic and the new network's would be misrouted).
 */
async function createNetworkImpact(
  context: ToolContext,
  site: string,
  args: Record<string, unknown>,
): Promise<ImpactFacts> {
  const label = `new network ${String(args.name ?? '')}`.trim();
  const subnet = typeof args.subnet === 'string' ? parseCidr(args.subnet) : undefined;
  if (!subnet) return { target: label };
  const vpn = await readVpnPools(context.gateway, site);
  const names = vpn.pools.flatMap((pool) => {
    const theirs = pool.ip_subnet ? parseCidr(pool.ip_subnet) : undefined;
    return theirs && overlaps(theirs, subnet) ? vpn.clientsIn(theirs) : [];
  });
  return { target: label, ...(names.length > 0 ? { clients: affected(names) } : {}) };
}

const NETWORK_TOOLS = new Set(['update_network', 'delete_network']);
const DEVICE_TOOLS = new Set(['restart_device', 'power_cycle_port']);
const CLIENT_TOOLS = new Set(['block_client', 'reconnect_client', 'unauthorize_guest']);

/** The target's id or name as the arguments give it, for tools whose impact is not read. */
function namedTarget(tool: string, args: Record<string, unknown>): string | undefined {
  const key = Object.keys(args).find((k) => k.endsWith('_id') && k !== 'site_id');
  const value = key ? args[key] : undefined;
  return typeof value === 'string'
    ? `${tool.replace(/^[a-z]+_/, '').replace(/_/g, ' ')} ${value}`
    : undefined;
}

/**
 * The facts of a would-be write, read fresh. A read that fails on the controller's side is listed
 * under `unchecked` (and raises the risk), never taken for "nothing affected"; a target that does
 * not exist is refused as the tool itself would refuse it.
 */
export async function gatherImpact(
  context: ToolContext,
  tool: string,
  args: Record<string, unknown>,
): Promise<ImpactFacts> {
  const site = typeof args.site_id === 'string' ? args.site_id : 'default';
  const position = await networkPosition(context.guardrails);
  try {
    if (NETWORK_TOOLS.has(tool)) return await networkImpact(context, site, tool, args, position);
    if (tool === 'create_network') return await createNetworkImpact(context, site, args);
    if (DEVICE_TOOLS.has(tool)) return await deviceImpact(context, site, tool, args, position);
    if (CLIENT_TOOLS.has(tool)) return await clientImpact(context, site, args, position);
    if (tool === 'set_wifi_broadcast_enabled') return await wifiImpact(context, site, args, position);
  } catch (error) {
    if (!isBotError(error) || !error.code.startsWith('gateway_')) throw error;
    return {
      ...(namedTarget(tool, args) ? { target: namedTarget(tool, args) } : {}),
      unchecked: [`the blast radius could not be read: ${error.message}`],
    };
  }
  const target = namedTarget(tool, args);
  return { ...(target ? { target } : {}), removes: tool.startsWith('delete_') };
}

/** The blast radius of a change and what the policy requires of it: the one call approvals/ makes. */
export interface ChangeAssessment {
  facts: ImpactFacts;
  radius: BlastRadius;
  decision: PolicyDecision;
}

/**
 * Gathers the facts of a change, assesses its risk and evaluates the policy in effect (the
 * context's guardrails, or the default policy) at `now`. Call it at preview, at approval and
 * right before the change runs: every call reads the controller afresh.
 */
export async function assessChange(
  context: ToolContext,
  change: ChangeRequest,
  policy: Policy,
  now: number,
): Promise<ChangeAssessment> {
  const facts = await gatherImpact(context, change.tool, change.args);
  const radius = assessImpact(facts);
  const decision = evaluateChange(policy, change, radius, facts.targetRecord ?? {}, now);
  return { facts, radius, decision };
}
