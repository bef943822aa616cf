import { z } from 'zod';
import { isBotError, ResourceNotFoundError } from '../../errors.js';
import type { Gateway } from '../../gateway/types.js';
import { type Ipv4Cidr, isHostIn, parseIpv4 } from '../../lib/ip.js';
import { mapBounded } from '../../lib/map-bounded.js';
import { clientRecordSchema } from '../../records/client-record.js';
import { type NetworkRecord, networkRecordSchema } from '../../records/network-record.js';
import { findNetwork, isVpnPool, toNetworkDetails } from './network-model.js';
import { parseOfficial } from './official-network-model.js';

/** Where a site's networks were read from, and the stored official records (for a full-replacement PUT). */
export interface NetworkSet {
  /** True when read through the official `networks` operation (Network 10.1+ with an API key). */
  official: boolean;
  /** The networks in the tools' model (classic names); on an official set `_id` is the UUID. */
  records: NetworkRecord[];
  /** Official records as the console sent them, by UUID (empty for a classic set). */
  stored: Map<string, Record<string, unknown>>;
  /**
   * On an official set: classic networkconf when it was read alongside (a cold read, or the id looked
   * for was classic), for what translates official ids to classic ones without asking again.
   */
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
 * (acks: docs/performance.md).
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

/** How many network details are asked at once (a site has a handful; a large one waits its turn). */
const DETAIL_CONCURRENCY = 8;

/**
 * Whether an official list item is the document's "Network overview" (id, name, management,
 * enabled, vlanId, metadata, default, zoneId or deviceId): a gateway- or switch-managed network's
 * subnet, DHCP and isolation are only in its details. An unmanaged network has none to read.
 */
function isOverview(raw: Record<string, unknown>): boolean {
  if (raw.management === 'UNMANAGED') return false;
  return !('ipv4Configuration' in raw) && !('isolationEnabled' in raw);
}

type Details = Promise<Record<string, unknown> | undefined>;

/** `GET networks/{id}` of each id not asked yet, at most DETAIL_CONCURRENCY at a time, into `into`. */
function readDetails(
  gateway: Gateway,
  site: string,
  ids: readonly string[],
  fresh: boolean,
  into: Map<string, Details>,
): void {
  const wanted = ids.filter((id) => !into.has(id));
  if (wanted.length === 0) return;
  const batch = mapBounded(wanted, DETAIL_CONCURRENCY, (id) =>
    gateway
      .integrationGet(site, `networks/${encodeURIComponent(id)}`, storedSchema, { fresh })
      // A network deleted between the list and its details is shown as the list showed it.
      .catch((error: unknown) => {
        if (error instanceof ResourceNotFoundError) return undefined;
        throw error;
      }),
  );
  wanted.forEach((id, index) => {
    const one = batch.then((details) => details[index]);
    // Awaited where the list is put together, or dropped with a list that failed first.
    one.catch(() => undefined);
    into.set(id, one);
  });
}

// The merged record of an overview and its details, kept while both answers live: parsed records
// are cached by object (officialRecordOf), so the same answers must give the same object.
const merged = new WeakMap<object, WeakMap<object, Record<string, unknown>>>();

function mergedOf(overview: Record<string, unknown>, details: Record<string, unknown>) {
  let byDetails = merged.get(overview);
  if (!byDetails) {
    byDetails = new WeakMap();
    merged.set(overview, byDetails);
  }
  let record = byDetails.get(details);
  if (!record) {
    record = { ...overview, ...details };
    byDetails.set(details, record);
  }
  return record;
}

/**
 * The official list with each overview replaced by the network's details (overview fields first,
 * so a field only the list carries stays). `early` holds details already asked for.
 */
async function withDetails(
  gateway: Gateway,
  site: string,
  items: readonly Record<string, unknown>[],
  fresh: boolean,
  early: Map<string, Details>,
): Promise<Record<string, unknown>[]> {
  const overviews = items.filter(isOverview).map((raw) => String(raw.id));
  readDetails(gateway, site, overviews, fresh, early);
  return Promise.all(
    items.map(async (raw) => {
      if (!isOverview(raw)) return raw;
      const details = await early.get(String(raw.id));
      return details ? mergedOf(raw, details) : raw;
    }),
  );
}

/**
 * The official networks as details: the list (`Network overview` on 10.1) and `GET networks/{id}`
 * for each network the list shows as an overview. For readers outside the network tools (drift).
 */
export async function readOfficialNetworkDetails(
  gateway: Gateway,
  site: string,
  options: { fresh?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const fresh = options.fresh === true;
  const { items } = await gateway.integrationList(site, 'networks', storedSchema, { fresh });
  return withDetails(gateway, site, items, fresh, new Map());
}

/**
 * The site's networks from the official API where the console offers it, else classic networkconf.
 * `fresh` for reads a write decision depends on; `ref`, the id or name the caller will look up;
 * `details: false` for readers of names and ids only (the overview has them). On the official API the list is an overview, so each gateway network's details are read too
 * (side by side, bounded). A cold read stays within two round trips: while the console's version
 * is not known yet, it is asked together with the site's Integration id and classic networkconf;
 * on an official console networkconf's `external_id`s are the UUIDs, so the details are asked in
 * the same round trip as the official list. A classic `_id` as `ref` has networkconf read at once
 * too (on an official console it translates the id, on an older one it is the list).
 */
export async function loadNetworks(
  gateway: Gateway,
  site: string,
  options: { fresh?: boolean; ref?: string; details?: boolean } = {},
): Promise<NetworkSet> {
  const fresh = options.fresh === true;
  const details = options.details !== false;
  const classicList = () =>
    gateway.classicRead(site, CLASSIC, networkRecordSchema, { fresh }).then((list) => list.items);
  const officialList = () =>
    gateway.integrationList(site, 'networks', storedSchema, { fresh }).then((list) => list.items);
  const cold = gateway.knownConsole() === undefined;
  const classicEarly =
    cold || (options.ref !== undefined && CLASSIC_ID.test(options.ref)) ? classicList() : undefined;
  // Used below or dropped; unused, its failure must not count as unhandled.
  classicEarly?.catch(() => undefined);
  const speculative = cold ? quietly(officialList) : undefined;
  const [official] = await Promise.all([
    usesOfficialNetworks(gateway),
    quietly(() => gateway.resolveSiteUuid(site)),
  ]);
  if (official) {
    const early = new Map<string, Details>();
    if (cold && details) {
      const known = (await classicEarly?.catch(() => undefined)) ?? [];
      const uuids = known
        .filter((n) => n.purpose !== 'wan' && n.purpose !== 'vlan-only' && n.external_id)
        .map((n) => String(n.external_id));
      readDetails(gateway, site, uuids, fresh, early);
    }
    const listed = (await speculative) ?? (await officialList());
    const items = details ? await withDetails(gateway, site, listed, fresh, early) : listed;
    const records: NetworkRecord[] = [];
    const stored = new Map<string, Record<string, unknown>>();
    for (const raw of items) {
      const record = officialRecordOf(raw);
      if (!record) continue;
      records.push(record);
      stored.set(String(raw.id), raw);
    }
    return { official: true, records, stored, ...(classicEarly ? { classic: classicEarly } : {}) };
  }
  // A VPN server's client pool is not a network of the site's VLANs (the official list leaves it out too).
  const records = (await (classicEarly ?? classicList())).filter((r) => !isVpnPool(r));
  return { official: false, records, stored: new Map() };
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

const rawSchema = z.looseObject({ _id: z.string().min(1) });

/**
 * A network with every setting the controller stores (secrets masked), as the record a deleted
 * network is re-created from. On a console whose official API serves networks the official details
 * hold only the official model, which has no place for much a network stores (IGMP snooping, DHCP
 * guarding, NTP, WPAD, boot and IPv6 settings…): the network's classic networkconf record is read
 * instead, shown under its official id. 10.1 consoles still serve networkconf, the record their own
 * UI writes, so only it says what the network was. Not there (unreadable, no `external_id`): the
 * official details, as get_network_details shows them.
 */
export async function readStoredNetwork(
  gateway: Gateway,
  site: string,
  ref: string,
): Promise<Record<string, unknown>> {
  // Asked alongside the network tools' own read, not after it.
  const stored = gateway.classicRead(site, CLASSIC, rawSchema, { fresh: true }).then((list) => list.items);
  stored.catch(() => undefined);
  const set = await loadNetworks(gateway, site, { fresh: true, ref });
  const network = await findInSet(gateway, site, set, ref);
  const records = await stored.catch((error: unknown) => {
    if (set.official && isBotError(error)) return [];
    throw error;
  });
  const classic = records.find((raw) =>
    set.official ? raw.external_id === network._id : raw._id === network._id,
  );
  const parsed = classic ? networkRecordSchema.safeParse(classic) : undefined;
  if (!classic || !parsed?.success) return toNetworkDetails(network);
  return toNetworkDetails({ ...parsed.data, _id: network._id }, classic);
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

/**
 * Remote-access VPN client pools with the clients whose address is in each: only classic
 * networkconf holds the pools (the official 10.1 networks and `vpn/servers` overviews have no
 * subnet), and the network tools' sets leave them out. Unreadable: none.
 */
export async function readVpnPools(
  gateway: Gateway,
  site: string,
): Promise<{ pools: NetworkRecord[]; clientsIn: (pool: Ipv4Cidr) => string[] }> {
  const [records, clients] = await Promise.all([
    gateway
      .classicRead(site, CLASSIC, networkRecordSchema, { fresh: true })
      .then((list) => list.items)
      .catch(() => []),
    gateway
      .classicRead(site, 'stat/sta', clientRecordSchema, { fresh: true })
      .then((list) => list.items)
      .catch(() => []),
  ]);
  const pools = records.filter(isVpnPool);
  return {
    pools,
    clientsIn: (pool) =>
      clients
        .filter((c) => {
          const ip = typeof c.ip === 'string' ? parseIpv4(c.ip) : undefined;
          return ip !== undefined && isHostIn(pool, ip);
        })
        .map((c) => String(c.name || c.hostname || c.mac)),
  };
}
