/**
 * The official (Integration, Network 10.1+) firewall policy model, mapped to and from the shape the
 * policy tools work in (the v2 record's: `zone_id`, `matching_target`, `port`, `schedule.mode` …).
 * Reading: an official record becomes a v2-shaped record, so the views, checks and previews stay
 * one code path whichever endpoint served the policy. Writing: the v2-shaped body the tools build
 * becomes the official body (Ubiquiti's OpenAPI 10.1.85, "Create or update firewall policy"); on
 * an update it starts from the current official record, so what the tools do not write (IPsec and
 * connection-state filters, MAC, region or application filters, one-time schedules) goes back as
 * it was. Sources and choices: docs/decisions.md, "Firewall policies through the official API".
 */

import { type FieldIssue, ValidationError } from '../../errors.js';
import { isRecord } from '../../lib/is-record.js';
import type { OfficialPolicyRecord } from '../../records/firewall-policy-record.js';

type Json = Record<string, unknown>;

/** Where the official original of a translated part is kept, so an untouched part goes back as it was. */
export const OFFICIAL = '__official';

/** IANA protocol numbers the tools' protocol words stand for. */
const PROTOCOL_NUMBERS: Readonly<Record<string, number>> = { icmp: 1, tcp: 6, udp: 17, icmpv6: 58 };
const WORD_OF_NUMBER = new Map(Object.entries(PROTOCOL_NUMBERS).map(([word, n]) => [n, word]));

const DAY_NAMES: Readonly<Record<string, string>> = {
  mon: 'MONDAY',
  tue: 'TUESDAY',
  wed: 'WEDNESDAY',
  thu: 'THURSDAY',
  fri: 'FRIDAY',
  sat: 'SATURDAY',
  sun: 'SUNDAY',
};
const DAY_WORDS = new Map(Object.entries(DAY_NAMES).map(([word, name]) => [name, word]));

const IP_VERSIONS: Readonly<Record<string, string>> = { IPV4: 'IPV4', IPV6: 'IPV6', BOTH: 'IPV4_AND_IPV6' };

/** Network ids between the tools (classic `_id`s) and the official API (UUIDs). */
export interface PolicyNetworkIds {
  /** The classic id of a network UUID (the UUID itself when no networkconf record has it). */
  classicOf(uuid: string): string;
  /** The UUID of a classic network id. */
  uuidOf(classicId: string): Promise<string>;
}

// ---------------------------------------------------------------- reading

/** The tools' protocol word for an official protocol filter (none: every protocol). */
export function protocolWord(filter: unknown): string {
  if (!isRecord(filter)) return 'all';
  let word: string;
  if (filter.type === 'PRESET') {
    const name = isRecord(filter.preset) ? String(filter.preset.name ?? '') : '';
    word = name === 'TCP_UDP' ? 'tcp_udp' : name.toLowerCase();
  } else if (filter.type === 'PROTOCOL_NUMBER') {
    const n = Number(filter.protocolNumber);
    word = WORD_OF_NUMBER.get(n) ?? `protocol ${n}`;
  } else if (filter.type === 'NAMED_PROTOCOL') {
    // The document spells the names in lower case ("tcp") and keys their subtypes in upper ("TCP").
    const name = isRecord(filter.protocol) ? String(filter.protocol.name ?? '') : '';
    word = name.toLowerCase().replace(/_/g, '-');
  } else {
    word = String(filter.type ?? 'all').toLowerCase();
  }
  return filter.matchOpposite === true ? `not ${word}` : word;
}

function portText(filter: unknown): { type: string; port?: string } {
  if (!isRecord(filter)) return { type: 'ANY' };
  if (filter.type !== 'PORTS' || !Array.isArray(filter.items)) return { type: 'OBJECT' };
  const parts = filter.items
    .filter(isRecord)
    .map((item) =>
      item.type === 'PORT_NUMBER_RANGE' ? `${String(item.start)}-${String(item.stop)}` : String(item.value),
    );
  return { type: 'SPECIFIC', port: parts.join(',') };
}

function ipText(item: Json): string {
  if (item.type === 'IP_ADDRESS_RANGE') return `${String(item.start)}-${String(item.stop)}`;
  return String(item.value ?? '');
}

/** One side as the tools read it: zone, what it matches (networks by classic id, addresses) and a port. */
function sideFromOfficial(side: Json, ids: PolicyNetworkIds): Json {
  const filter = isRecord(side.trafficFilter) ? side.trafficFilter : undefined;
  const port = portText(filter?.portFilter);
  const out: Json = {
    zone_id: String(side.zoneId ?? ''),
    matching_target: 'ANY',
    port_matching_type: port.type,
    ...(port.port === undefined ? {} : { port: port.port }),
    [OFFICIAL]: side,
  };
  if (filter === undefined || filter.type === 'PORT') return out;
  if (filter.type === 'NETWORK' && isRecord(filter.networkFilter)) {
    const uuids = Array.isArray(filter.networkFilter.networkIds) ? filter.networkFilter.networkIds : [];
    return {
      ...out,
      matching_target: 'NETWORK',
      matching_target_type: 'OBJECT',
      network_ids: uuids.map((uuid) => ids.classicOf(String(uuid))),
      match_opposite_networks: filter.networkFilter.matchOpposite === true,
    };
  }
  if (filter.type === 'IP_ADDRESS' && isRecord(filter.ipAddressFilter)) {
    const ip = filter.ipAddressFilter;
    const items = ip.type === 'IP_ADDRESSES' && Array.isArray(ip.items) ? ip.items.filter(isRecord) : [];
    return {
      ...out,
      matching_target: 'IP',
      matching_target_type: ip.type === 'IP_ADDRESSES' ? 'SPECIFIC' : 'OBJECT',
      ips: items.map(ipText),
      match_opposite_ips: ip.matchOpposite === true,
    };
  }
  // MAC addresses, regions, VPNs, domains, applications: shown by their type, sent back as they are.
  return { ...out, matching_target: String(filter.type ?? 'ANY') };
}

function scheduleFromOfficial(schedule: Json | undefined): Json {
  if (schedule === undefined) return { mode: 'ALWAYS' };
  const time = isRecord(schedule.timeFilter) ? schedule.timeFilter : undefined;
  const days = Array.isArray(schedule.repeatOnDays) ? schedule.repeatOnDays : [];
  return {
    mode: String(schedule.mode ?? 'ALWAYS'),
    repeat_on_days: days.map((day) => DAY_WORDS.get(String(day)) ?? String(day).toLowerCase()),
    time_all_day: time === undefined,
    ...(time === undefined
      ? {}
      : { time_range_start: String(time.startTime), time_range_end: String(time.stopTime) }),
    ...(schedule.date === undefined ? {} : { date_start: String(schedule.date) }),
    ...(schedule.startDate === undefined ? {} : { date_start: String(schedule.startDate) }),
    ...(schedule.stopDate === undefined ? {} : { date_end: String(schedule.stopDate) }),
    [OFFICIAL]: schedule,
  };
}

/**
 * An official policy as the tools read it (the v2 record's shape). `predefined`: anything the
 * admin did not make (system-defined, or derived: the return-traffic twin of an ALLOW policy).
 */
export function policyFromOfficial(record: OfficialPolicyRecord, ids: PolicyNetworkIds): Json {
  const scope = record.ipProtocolScope;
  const version = String(scope?.ipVersion ?? 'IPV4_AND_IPV6');
  return {
    _id: record.id,
    name: record.name,
    description: record.description ?? '',
    enabled: record.enabled !== false,
    action: record.action?.type,
    create_allow_respond: record.action?.allowReturnTraffic === true,
    protocol: protocolWord(scope?.protocolFilter),
    ip_version: version === 'IPV4_AND_IPV6' ? 'BOTH' : version,
    ...(record.index === undefined ? {} : { index: record.index }),
    predefined: (record.metadata?.origin ?? 'USER_DEFINED') !== 'USER_DEFINED',
    logging: record.loggingEnabled === true,
    schedule: scheduleFromOfficial(record.schedule),
    source: sideFromOfficial(record.source, ids),
    destination: sideFromOfficial(record.destination, ids),
    [OFFICIAL]: record,
  };
}

/** Every network UUID the policies' network filters name (to resolve them in one pass). */
export function networkUuidsIn(records: readonly OfficialPolicyRecord[]): string[] {
  const uuids = new Set<string>();
  for (const record of records) {
    for (const side of [record.source, record.destination]) {
      const filter = isRecord(side.trafficFilter) ? side.trafficFilter : undefined;
      const ids = isRecord(filter?.networkFilter) ? filter.networkFilter.networkIds : undefined;
      if (Array.isArray(ids)) for (const id of ids) uuids.add(String(id));
    }
  }
  return [...uuids];
}

// ---------------------------------------------------------------- writing

// Deliberately alike: simulator/routes/integration-policies.ts builds the official port filter on its own, so each checks the other.
function portFilterOf(side: Json, original: Json | undefined): Json | undefined {
  if (side.port_matching_type === 'SPECIFIC' && typeof side.port === 'string') {
    const items = side.port.split(',').map((part) => {
      const [start = '', stop] = part.split('-');
      return stop === undefined
        ? { type: 'PORT_NUMBER', value: Number(start) }
        : { type: 'PORT_NUMBER_RANGE', start: Number(start), stop: Number(stop) };
    });
    return { type: 'PORTS', matchOpposite: side.match_opposite_ports === true, items };
  }
  // A port list object (traffic matching list) the tools do not write: kept as it was.
  if (side.port_matching_type === 'OBJECT' && isRecord(original?.portFilter)) return original.portFilter;
  return undefined;
}

function ipItem(text: string): Json {
  const range = /^([^/-]+)-([^/-]+)$/.exec(text);
  if (range) return { type: 'IP_ADDRESS_RANGE', start: range[1], stop: range[2] };
  return text.includes('/') ? { type: 'SUBNET', value: text } : { type: 'IP_ADDRESS', value: text };
}

async function sideToOfficial(side: Json, ids: PolicyNetworkIds): Promise<Json> {
  const original = isRecord(side[OFFICIAL]) ? (side[OFFICIAL] as Json) : undefined;
  const originalFilter = isRecord(original?.trafficFilter) ? original.trafficFilter : undefined;
  const portFilter = portFilterOf(side, originalFilter);
  const withPort = (filter: Json): Json => {
    const { portFilter: _old, ...rest } = filter;
    return portFilter === undefined ? rest : { ...rest, portFilter };
  };
  const out: Json = { zoneId: side.zone_id };
  const target = side.matching_target;
  if (target === 'ANY') {
    if (portFilter !== undefined) out.trafficFilter = { type: 'PORT', portFilter };
    return out;
  }
  const sameType = (type: string) => (originalFilter?.type === type ? originalFilter : {});
  if (target === 'NETWORK') {
    const networkIds = await Promise.all(
      (Array.isArray(side.network_ids) ? side.network_ids : []).map((id) => ids.uuidOf(String(id))),
    );
    out.trafficFilter = withPort({
      ...sameType('NETWORK'),
      type: 'NETWORK',
      networkFilter: { networkIds, matchOpposite: side.match_opposite_networks === true },
    });
    return out;
  }
  if (target === 'IP') {
    const kept = sameType('IP_ADDRESS');
    const ipFilter =
      side.matching_target_type === 'OBJECT' && isRecord(kept.ipAddressFilter)
        ? kept.ipAddressFilter
        : {
            type: 'IP_ADDRESSES',
            matchOpposite: side.match_opposite_ips === true,
            items: (Array.isArray(side.ips) ? side.ips : []).map((ip) => ipItem(String(ip))),
          };
    out.trafficFilter = withPort({ ...kept, type: 'IP_ADDRESS', ipAddressFilter: ipFilter });
    return out;
  }
  // A filter the tools do not write: the original, with the port as the tools now say.
  if (originalFilter !== undefined) out.trafficFilter = withPort(originalFilter);
  return out;
}

function protocolFilterOf(protocol: string, ipVersion: string, original: unknown): Json | undefined {
  if (protocol === 'all') return undefined;
  if (protocol === 'tcp_udp') return { type: 'PRESET', preset: { name: 'TCP_UDP' } };
  const number = PROTOCOL_NUMBERS[protocol];
  if (number !== undefined) {
    // A number, not a name: the document's named protocols spell a name two ways (see decisions).
    return { type: 'PROTOCOL_NUMBER', protocolNumber: number, matchOpposite: false };
  }
  // A protocol the tools do not write (a named one set in the UI): kept as it was.
  if (isRecord(original) && protocolWord(original) === protocol) return original;
  throw new ValidationError([
    {
      field: 'protocol',
      rule: `${protocol} cannot be written through the official API (ip_version ${ipVersion})`,
    },
  ]);
}

function scheduleToOfficial(schedule: Json): Json | undefined {
  const mode = String(schedule.mode ?? 'ALWAYS');
  if (mode === 'ALWAYS') return undefined;
  const time =
    schedule.time_all_day === false && schedule.time_range_start && schedule.time_range_end
      ? { startTime: schedule.time_range_start, stopTime: schedule.time_range_end }
      : undefined;
  if (mode === 'EVERY_DAY') {
    if (time === undefined) {
      throw new ValidationError([
        {
          field: 'schedule_time',
          rule: 'is required with schedule every_day on this console: its official API has no all-day daily schedule (that is schedule always)',
        },
      ]);
    }
    return { mode, timeFilter: time };
  }
  if (mode === 'EVERY_WEEK') {
    const days = (Array.isArray(schedule.repeat_on_days) ? schedule.repeat_on_days : []).map(
      (day) => DAY_NAMES[String(day)] ?? String(day).toUpperCase(),
    );
    return { mode, repeatOnDays: days, ...(time === undefined ? {} : { timeFilter: time }) };
  }
  // One-time and custom schedules are shown, never written by the tools: sent back as they were.
  const original = schedule[OFFICIAL];
  if (isRecord(original)) return original;
  throw new ValidationError([
    { field: 'schedule', rule: `${mode.toLowerCase()} is not a schedule the tools write` },
  ]);
}

/** Refusals of what the official model cannot say, by argument. */
function officialIssues(protocol: string, ipVersion: string): FieldIssue[] {
  if ((protocol === 'icmp' && ipVersion !== 'IPV4') || (protocol === 'icmpv6' && ipVersion !== 'IPV6')) {
    return [
      {
        field: 'ip_version',
        rule: `must be ${protocol === 'icmp' ? 'IPV4' : 'IPV6'} with protocol ${protocol} on this console: its official API matches ${protocol} for one IP version only`,
      },
    ];
  }
  return [];
}

/**
 * The official body for a v2-shaped policy the tools built. On an update `body` carries the current
 * record under OFFICIAL: every field the document allows that the tools do not set is kept from it.
 */
export async function policyToOfficial(body: Json, ids: PolicyNetworkIds): Promise<Json> {
  const original = isRecord(body[OFFICIAL]) ? (body[OFFICIAL] as Json) : {};
  const { id: _id, index: _index, metadata: _metadata, ...kept } = original;
  const protocol = String(body.protocol ?? 'all');
  const ipVersion = String(body.ip_version ?? 'BOTH');
  const issues = officialIssues(protocol, ipVersion);
  if (issues.length > 0) throw new ValidationError(issues);
  const originalScope = isRecord(original.ipProtocolScope) ? original.ipProtocolScope : {};
  const protocolFilter = protocolFilterOf(protocol, ipVersion, originalScope.protocolFilter);
  const action = String(body.action);
  const schedule = scheduleToOfficial(isRecord(body.schedule) ? body.schedule : { mode: 'ALWAYS' });
  const out: Json = {
    ...kept,
    enabled: body.enabled !== false,
    name: body.name,
    description: typeof body.description === 'string' ? body.description : '',
    action:
      action === 'ALLOW'
        ? { type: 'ALLOW', allowReturnTraffic: body.create_allow_respond === true }
        : { type: action },
    source: await sideToOfficial(isRecord(body.source) ? body.source : {}, ids),
    destination: await sideToOfficial(isRecord(body.destination) ? body.destination : {}, ids),
    ipProtocolScope: {
      ipVersion: IP_VERSIONS[ipVersion] ?? 'IPV4_AND_IPV6',
      ...(protocolFilter === undefined ? {} : { protocolFilter }),
    },
    loggingEnabled: body.logging === true,
  };
  if (schedule === undefined) delete out.schedule;
  else out.schedule = schedule;
  return out;
}

/** The official ordering body of a zone pair. */
export function orderingBody(before: readonly string[], after: readonly string[]): Json {
  return { orderedFirewallPolicyIds: { beforeSystemDefined: [...before], afterSystemDefined: [...after] } };
}

/** The ordering path of a zone pair (official zone ids). */
export function orderingPath(sourceZoneId: string, destinationZoneId: string): string {
  const query = new URLSearchParams({
    sourceFirewallZoneId: sourceZoneId,
    destinationFirewallZoneId: destinationZoneId,
  });
  return `firewall/policies/ordering?${query}`;
}
