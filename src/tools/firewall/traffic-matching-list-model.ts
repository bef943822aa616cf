import { type FieldIssue, ValidationError } from '../../errors.js';
import { compareIpv4OrIpv6, isIpv6OrCidr, parseCidr, parseIpv4 } from '../../lib/ip.js';
import type {
  TrafficMatchingItemRecord,
  TrafficMatchingListRecord,
} from '../../records/traffic-matching-list-record.js';

/** The list types the controller knows (its field `type`, the spec's `list_type`). */
export const LIST_TYPES = ['PORTS', 'IPV4_ADDRESSES', 'IPV6_ADDRESSES'] as const;

/** A list type. */
export type ListType = (typeof LIST_TYPES)[number];

/** One typed item as the controller takes it. */
export type TypedItem =
  | { type: 'PORT_NUMBER'; value: number }
  | { type: 'PORT_NUMBER_RANGE'; start: number; stop: number }
  | { type: 'IP_ADDRESS'; value: string }
  | { type: 'SUBNET'; value: string }
  | { type: 'IP_ADDRESS_RANGE'; start: string; stop: string };

/** The spec's traffic matching list (2.9): items as strings. */
export type TrafficMatchingList = {
  id: string;
  list_type: string;
  name: string;
  items: string[];
};

const RANGE = /^([^\s-]+)\s*-\s*([^\s-]+)$/;

/** What each list type accepts, for messages. */
const ACCEPTS: Record<ListType, string> = {
  PORTS: 'a port (443) or a port range (8000-8100), ports 1–65535',
  IPV4_ADDRESSES: 'an IPv4 address (192.168.1.10), subnet (10.0.0.0/8) or range (192.168.1.10-192.168.1.20)',
  IPV6_ADDRESSES: 'an IPv6 address (2001:db8::1) or prefix (2001:db8::/32)',
};

function portOf(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : undefined;
}

function portItem(text: string): TypedItem | string {
  const single = portOf(text);
  if (single !== undefined) return { type: 'PORT_NUMBER', value: single };
  const range = RANGE.exec(text);
  const start = range?.[1] === undefined ? undefined : portOf(range[1]);
  const stop = range?.[2] === undefined ? undefined : portOf(range[2]);
  if (start === undefined || stop === undefined) return `is not ${ACCEPTS.PORTS}`;
  if (start > stop) return 'is a range whose start is after its stop';
  return { type: 'PORT_NUMBER_RANGE', start, stop };
}

function addressItem(text: string, version: 4 | 6): TypedItem | string {
  const isAddress = (t: string) => (version === 4 ? parseIpv4(t) !== undefined : isIpv6OrCidr(t, false));
  const accepts = ACCEPTS[version === 4 ? 'IPV4_ADDRESSES' : 'IPV6_ADDRESSES'];
  if (text.includes('/')) {
    const ok = version === 4 ? parseCidr(text) !== undefined : isIpv6OrCidr(text, true);
    return ok ? { type: 'SUBNET', value: text } : `is not ${accepts}`;
  }
  if (isAddress(text)) return { type: 'IP_ADDRESS', value: text };
  const range = RANGE.exec(text);
  const [start, stop] = [range?.[1], range?.[2]];
  if (start === undefined || stop === undefined || !isAddress(start) || !isAddress(stop)) {
    return `is not ${accepts}`;
  }
  // The 10.1.85 document's IPv6 items are addresses and subnets only (found by the suite-wide check).
  if (version === 6) return 'is a range: an IPv6 list takes addresses and prefixes only';
  if (compareIpv4OrIpv6(start, stop) > 0) return 'is a range whose start is after its stop';
  return { type: 'IP_ADDRESS_RANGE', start, stop };
}

/** One string item as the typed item its list type takes, or the reason it is refused. */
export function parseItem(text: string, type: ListType): TypedItem | string {
  const trimmed = text.trim();
  if (type === 'PORTS') return portItem(trimmed);
  return addressItem(trimmed, type === 'IPV4_ADDRESSES' ? 4 : 6);
}

/**
 * The spec's string items as typed items, checked against the list type: `"443"` → PORT_NUMBER,
 * `"8000-8100"` → PORT_NUMBER_RANGE, `"10.0.0.0/8"` → SUBNET, `"a-b"` → IP_ADDRESS_RANGE, an
 * address → IP_ADDRESS. Every refused item is named, under the field `items`.
 */
export function toTypedItems(items: readonly string[], type: ListType, field = 'items'): TypedItem[] {
  const typed: TypedItem[] = [];
  const issues: FieldIssue[] = [];
  for (const text of items) {
    const parsed = parseItem(text, type);
    if (typeof parsed === 'string') issues.push({ field, rule: `"${text}" ${parsed} (list type ${type})` });
    else typed.push(parsed);
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return typed;
}

/** A stored typed item as the spec's string: `443`, `8000-8100`, `10.0.0.0/8`, `a-b`. */
export function itemText(item: TrafficMatchingItemRecord): string {
  if (item.value !== undefined) return String(item.value);
  if (item.start !== undefined && item.stop !== undefined) return `${item.start}-${item.stop}`;
  // A kind this bot does not know: shown whole rather than dropped.
  return JSON.stringify(item);
}

/** The spec's view of a stored list. */
export function toTrafficMatchingList(record: TrafficMatchingListRecord): TrafficMatchingList {
  return { id: record.id, list_type: record.type, name: record.name, items: record.items.map(itemText) };
}

/** True for a list type the bot can edit. */
export function isListType(type: string): type is ListType {
  return (LIST_TYPES as readonly string[]).includes(type);
}
