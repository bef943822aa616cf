import { isIPv6 } from 'node:net';

/** An IPv4 network parsed from CIDR: the address as given, the network, prefix and host range. */
export interface Ipv4Cidr {
  /** The address part as written (network or host form). */
  address: number;
  prefix: number;
  network: number;
  broadcast: number;
  mask: number;
}

const OCTET = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** Parses a dotted quad to an unsigned 32-bit number; undefined when it is not one. */
export function parseIpv4(text: string): number | undefined {
  const parts = text.trim().split('.');
  if (parts.length !== 4 || !parts.every((p) => OCTET.test(p))) return undefined;
  return parts.reduce((acc, p) => acc * 256 + Number(p), 0);
}

/** Formats an unsigned 32-bit number as a dotted quad. */
export function formatIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** True for a dotted-quad IPv4 address. */
export function isIpv4(text: string): boolean {
  return parseIpv4(text) !== undefined;
}

/** Parses `a.b.c.d/n`; undefined when malformed. */
export function parseCidr(text: string): Ipv4Cidr | undefined {
  const match = /^([^/\s]+)\/(\d{1,2})$/.exec(text.trim());
  if (!match?.[1] || match[2] === undefined) return undefined;
  const address = parseIpv4(match[1]);
  const prefix = Number(match[2]);
  if (address === undefined || prefix > 32) return undefined;
  const size = 2 ** (32 - prefix);
  const network = address - (address % size);
  return { address, prefix, network, broadcast: network + size - 1, mask: 2 ** 32 - size };
}

/** True when `ip` lies in the usable host range of the network (not its network or broadcast address). */
export function isHostIn(cidr: Ipv4Cidr, ip: number): boolean {
  if (cidr.prefix >= 31) return ip >= cidr.network && ip <= cidr.broadcast;
  return ip > cidr.network && ip < cidr.broadcast;
}

/** True when two networks share any address. */
export function overlaps(a: Ipv4Cidr, b: Ipv4Cidr): boolean {
  return a.network <= b.broadcast && b.network <= a.broadcast;
}

/** `10.30.0.1/24` → `10.30.0.0/24`. */
export function toNetworkForm(cidr: Ipv4Cidr): string {
  return `${formatIpv4(cidr.network)}/${cidr.prefix}`;
}

/** The controller's usual default lease range for a gateway at `gateway`: .6 up to broadcast − 1. */
export function defaultDhcpRange(cidr: Ipv4Cidr, gateway: number): { start: string; stop: string } {
  const size = cidr.broadcast - cidr.network + 1;
  let start = cidr.network + (size > 16 ? 6 : 2);
  if (start === gateway) start += 1;
  let stop = cidr.broadcast - 1;
  if (stop === gateway) stop -= 1;
  return { start: formatIpv4(start), stop: formatIpv4(stop) };
}

/** True for an IPv4 address, or an IPv4 CIDR when `allowPrefix` is set. */
export function isIpv4OrCidr(text: string, allowPrefix: boolean): boolean {
  return parseIpv4(text) !== undefined || (allowPrefix && parseCidr(text) !== undefined);
}

/** True for an IPv6 address, or an IPv6 prefix (`2001:db8::/32`) when `allowPrefix` is set. */
export function isIpv6OrCidr(text: string, allowPrefix: boolean): boolean {
  const [address = '', prefix, extra] = text.split('/');
  if (extra !== undefined || !isIPv6(address)) return false;
  if (prefix === undefined) return true;
  return allowPrefix && /^\d{1,3}$/.test(prefix) && Number(prefix) <= 128;
}

/** Compares two IPv6 addresses numerically (negative, zero, positive). */
function compareIpv6(a: string, b: string): number {
  const value = (text: string): bigint => {
    const [head = '', tail = ''] = text.split('::');
    const left = head ? head.split(':') : [];
    const right = text.includes('::') && tail ? tail.split(':') : [];
    const groups = text.includes('::')
      ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
      : left;
    return groups.reduce((acc, group) => (acc << 16n) | BigInt(Number.parseInt(group || '0', 16) || 0), 0n);
  };
  const diff = value(a) - value(b);
  return diff === 0n ? 0 : diff < 0n ? -1 : 1;
}

/** Compares two addresses of the same family (IPv4 numerically, else as IPv6). */
export function compareIpv4OrIpv6(a: string, b: string): number {
  const left = parseIpv4(a);
  const right = parseIpv4(b);
  if (left !== undefined && right !== undefined) return left - right;
  return compareIpv6(a, b);
}
