import { connect } from 'node:net';
import { byName } from '../../lib/collate.js';
import { isHostIn, isIpv4, parseCidr, parseIpv4 } from '../../lib/ip.js';
import { MAX_NAMES } from '../../policy/risk.js';
import type { AffectedSet, ImpactFacts } from '../../policy/types.js';
import type { Guardrails, ToolContext } from './context.js';

export type { Guardrails } from './context.js';

/*
 * The guardrails' side of the tools: what the policy is measured against, where the bot stands on
 * the network (a probe that opens a socket), and the small fact helpers every write tool's
 * `impact` uses. policy/ turns the facts into a risk and a decision; nothing here decides.
 */

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

// localeCompare's order (the default locale's), from one collator made on first use (idle memory).
const byLocale = byName;

/**
 * The count and the first MAX_NAMES names in locale order. Only those few are kept in order as the
 * names go by: a gateway's restart touches every client of the site, and sorting 50,000 names to
 * show a handful was most of the blast radius's cost. Ties keep their order, as a stable sort would.
 */
export function affected(names: readonly string[]): AffectedSet {
  return affectedBy(names, (name) => name);
}

/** affected() of what `label` names each item, without building the list of every name. */
export function affectedBy<T>(items: readonly T[], label: (item: T) => string): AffectedSet {
  const first: string[] = [];
  for (let i = 0; i < items.length; i += 1) {
    const name = label(items[i] as T);
    if (first.length === MAX_NAMES && byLocale(name, first[MAX_NAMES - 1] as string) >= 0) continue;
    let at = first.length;
    while (at > 0 && byLocale(name, first[at - 1] as string) < 0) at -= 1;
    first.splice(at, 0, name);
    if (first.length > MAX_NAMES) first.pop();
  }
  return { count: items.length, names: first };
}

/** Why an address inside `subnet` means self-lockout, or undefined. */
export function lockoutIn(
  position: NetworkPosition,
  subnet: string | undefined,
  what: string,
): string | undefined {
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

export function addressIs(position: NetworkPosition, ip: string | undefined): string | undefined {
  if (!ip) return undefined;
  if (ip === position.source) return 'the bot’s own address';
  if (ip === position.controller) return 'the controller’s address';
  return undefined;
}

/** The target's id or name as the arguments give it, for tools whose impact is not read. */
export function namedTarget(tool: string, args: Record<string, unknown>): string | undefined {
  const key = Object.keys(args).find((k) => k.endsWith('_id') && k !== 'site_id');
  const value = key ? args[key] : undefined;
  return typeof value === 'string'
    ? `${tool.replace(/^[a-z]+_/, '').replace(/_/g, ' ')} ${value}`
    : undefined;
}

/** What a write tool's `impact` is given: the call, its site, and the bot's position. */
export interface ImpactInput {
  context: ToolContext;
  site: string;
  tool: string;
  args: Record<string, unknown>;
  position: NetworkPosition;
}

/**
 * Reads the facts of a would-be write fresh: the clients and devices it affects, what refers to
 * its target, and whether it cuts the bot's own path to the controller.
 */
export type ImpactGatherer = (input: ImpactInput) => Promise<ImpactFacts>;
