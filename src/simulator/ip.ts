import { isIPv6 } from 'node:net';

/** An IPv4 CIDR as the controller stores it: a (gateway) address plus a prefix length. */
export interface Ipv4Cidr {
  /** The address as written, as an unsigned 32-bit integer. */
  address: number;
  prefix: number;
  network: number;
  broadcast: number;
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** Parses dotted-quad IPv4 into an unsigned integer, or undefined. */
export function parseIpv4(text: string): number | undefined {
  if (!IPV4.test(text)) return undefined;
  return text.split('.').reduce((acc, octet) => ((acc << 8) | Number(octet)) >>> 0, 0);
}

function maskOf(prefix: number): number {
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
}

/** Parses `a.b.c.d/p` (p 0–32), or undefined. */
export function parseCidr(text: string): Ipv4Cidr | undefined {
  const match = /^([^/]+)\/(\d{1,2})$/.exec(text);
  if (!match) return undefined;
  const address = parseIpv4(match[1] ?? '');
  const prefix = Number(match[2]);
  if (address === undefined || prefix > 32) return undefined;
  const mask = maskOf(prefix);
  const network = (address & mask) >>> 0;
  return { address, prefix, network, broadcast: (network | ~mask) >>> 0 };
}

/** True when two CIDRs share at least one address. */
export function cidrsOverlap(a: Ipv4Cidr, b: Ipv4Cidr): boolean {
  return a.network <= b.broadcast && b.network <= a.broadcast;
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
