import { z } from 'zod';
import { ResourceNotFoundError } from '../errors.js';
import { type NetworkRecord, networkRecordSchema } from '../gateway/records/network-record.js';
import type { Gateway } from '../gateway/types.js';
import { findNetwork } from './network-model.js';
import { parseOfficial } from './official-network-model.js';

/** Where a site's networks were read from, and the stored official records (for a full-replacement PUT). */
export interface NetworkSet {
  /** True when read through the official `networks` operation (Network 10.1+ with an API key). */
  official: boolean;
  /** The networks in the tools' model (classic names); on an official set `_id` is the UUID. */
  records: NetworkRecord[];
  /** Official records as the console sent them, by UUID (empty for a classic set). */
  stored: Map<string, Record<string, unknown>>;
  /** On an official set: classic networkconf, read at once because the id looked for was classic. */
  classic?: Promise<NetworkRecord[]>;
}

const CLASSIC = 'rest/networkconf';
const storedSchema = z.looseObject({ id: z.string().min(1) });
/** A classic networkconf `_id`: 24 hex digits. */
const CLASSIC_ID = /^[0-9a-f]{24}$/i;

/**
 * The tools' record of each official record, kept while the gateway's answer holding it lives: readers
 * of one answer get its records, parsed once, as readers of classic lists do (read-only). Parsing
 * and mapping every network again for each command was a quarter of what a `list_vlans` allocated
 * (issue 26, acks: docs/performance.md).
 */
const officialRecords = new WeakMap<object, NetworkRecord | null>();

function officialRecordOf(raw: Record<string, unknown>): NetworkRecord | undefined {
  const known = officialRecords.get(raw);
  if (known !== undefined) return known ?? undefined;
  const record = parseOfficial(raw);
  officialRecords.set(raw, record ?? null);
  return record;
}

/**
 * A read asked ahead, whose failure only means "not this way" (no API key: the gateway refuses at
 * once, even synchronously): undefined instead of an error.
 */
function quietly<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return read().catch(() => undefined);
  } catch {
    return Promise.resolve(undefined);
  }
}

/** Whether the console's official API serves networks (then every network read and write uses it). */
export function usesOfficialNetworks(gateway: Gateway): Promise<boolean> {
  return gateway.offers('networks');
}

/**
 * The site's networks from the official API where the console offers it, else classic networkconf.
 * `fresh` for reads a write decision depends on; `ref`, the id or name the caller will look up.
 * A cold read stays within two round trips: the console's version and the site's Integration id
 * are asked together, and while the version is not known yet the official list is asked alongside
 * (on a console without it, that answer is dropped); a classic `_id` as `ref` has its networkconf
 * read started at once (on an official console it translates the id, on an older one it is the list).
 */
export async function loadNetworks(
  gateway: Gateway,
  site: string,
  options: { fresh?: boolean; ref?: string } = {},
): Promise<NetworkSet> {
  const fresh = options.fresh === true;
  const classicList = () =>
    gateway.classicRead(site, CLASSIC, networkRecordSchema, { fresh }).then((list) => list.items);
  const officialList = () =>
    gateway.integrationList(site, 'networks', storedSchema, { fresh }).then((list) => list.items);
  const classicEarly = options.ref !== undefined && CLASSIC_ID.test(options.ref) ? classicList() : undefined;
  // Used below or dropped; unused, its failure must not count as unhandled.
  classicEarly?.catch(() => undefined);
  const speculative = gateway.knownConsole() === undefined ? quietly(officialList) : undefined;
  const [official] = await Promise.all([
    usesOfficialNetworks(gateway),
    quietly(() => gateway.resolveSiteUuid(site)),
  ]);
  if (official) {
    const items = (await speculative) ?? (await officialList());
    const records: NetworkRecord[] = [];
    const stored = new Map<string, Record<string, unknown>>();
    for (const raw of items) {
      const record = officialRecordOf(raw);
      if (!record) continue;
      records.push(record);
      stored.set(raw.id, raw);
    }
    return { official: true, records, stored, ...(classicEarly ? { classic: classicEarly } : {}) };
  }
  return { official: false, records: await (classicEarly ?? classicList()), stored: new Map() };
}

/**
 * A network by id or name. On an official set a classic `_id` (what older results, journals and
 * drift baselines carry) is still accepted: networkconf is read once, only then, to find its UUID.
 */
export async function findInSet(
  gateway: Gateway,
  site: string,
  set: NetworkSet,
  ref: string,
  field = 'network_id',
): Promise<NetworkRecord> {
  try {
    return findNetwork(set.records, ref, field);
  } catch (error) {
    if (!(error instanceof ResourceNotFoundError) || !set.official || !CLASSIC_ID.test(ref)) throw error;
    const list =
      (await set.classic?.catch(() => undefined)) ??
      (await gateway.classicRead(site, CLASSIC, networkRecordSchema)).items;
    const classic = list.find((r) => r._id === ref);
    if (!classic?.external_id) throw error;
    return findNetwork(set.records, classic.external_id, field);
  }
}

/** The classic `_id` of an official network (classic and v2 objects point at networks by it). */
export async function classicIdOf(
  gateway: Gateway,
  site: string,
  uuid: string,
  fresh = false,
): Promise<string | undefined> {
  const { items } = await gateway.classicRead(site, CLASSIC, networkRecordSchema, { fresh });
  return items.find((r) => r.external_id === uuid)?._id;
}
