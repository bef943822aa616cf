import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { isBotError } from '../errors.js';
import type { Generation, OfficialOperation } from '../gateway/capabilities.js';
import type { Gateway } from '../gateway/types.js';
import type { Logger } from '../log.js';
import { readOfficialNetworkDetails } from '../tools/networks/network-source.js';
import { CLASSIC_NETWORK_FIELDS, type FieldRevert, OFFICIAL_NETWORK_FIELDS } from './network-revert.js';
import { fingerprintSecrets, sameWithSecrets, shownSecrets } from './secret-fingerprints.js';
import type { Drift, DriftKind, FieldChange } from './types.js';

type Raw = Record<string, unknown>;
const rawRecord = z.record(z.string(), z.unknown());

/** How one kind of configuration object is read from one endpoint generation, named, and put back. */
interface KindRead {
  /** The generation the read goes to: a baseline from another one is taken again, not compared. */
  generation: Generation;
  /**
   * Which records the read returns when it is not the list as served (`details`: each object read
   * on its own): a baseline of another shape has other fields, so it is taken again, not compared.
   */
  shape?: string;
  read(gateway: Gateway, site: string): Promise<Raw[]>;
  id(record: Raw): string | undefined;
  name(record: Raw): string;
  /**
   * Nested objects compared one level down (`action.type`): the official model nests what the
   * classic and v2 records keep flat, and a revert maps those inner fields one by one.
   */
  nested?: boolean;
  /** Why no tool puts this kind back on this generation (default: the bot has no update tool for it). */
  noRevert?: string;
  /** The update tool and its id argument; `fields` maps a record field to that tool's arguments. */
  revert?: {
    tool: string;
    idArg: string;
    fields: Record<string, FieldRevert>;
  };
}

/** A kind: its read today, and the one to use instead where the console's official API offers it. */
interface KindSpec extends KindRead {
  official?: KindRead & { operation: OfficialOperation };
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const byId = (r: Raw) => str(r._id) ?? str(r.id);
const byName = (r: Raw) => str(r.name) ?? str(r.description) ?? byId(r) ?? '?';
// A sweep reads the controller as it is now (`fresh`): a cached answer could be up to the read
// cache's TTL old. The answer still goes into the cache for commands, and joins an identical read in
// flight, so the sweep is shared with them all the same.
const FRESH = { fresh: true } as const;
const classic = (path: string) => async (g: Gateway, site: string) =>
  (await g.classicRead(site, path, rawRecord, FRESH)).items;
const v2 = (path: string) => async (g: Gateway, site: string) =>
  (await g.v2Read(site, path, rawRecord, FRESH)).items;
const integration = (path: string) => async (g: Gateway, site: string) =>
  (await g.integrationList(site, path, rawRecord, FRESH)).items;

/**
 * The official Wi-Fi broadcasts, each as `GET wifi/broadcasts/{id}` details it: the list (the
 * overview) has no security settings, so a passphrase, a per-network preshared key or a RADIUS
 * profile changed on 10.1 would go unseen. One request per SSID a sweep; the secrets in them are
 * fingerprinted by `readSnapshot` before anything keeps or shows a record.
 */
async function officialWifiDetails(g: Gateway, site: string): Promise<Raw[]> {
  const list = (await integration('wifi/broadcasts')(g, site)).filter(userDefined);
  const details: Raw[] = [];
  for (const overview of list) {
    const id = byId(overview);
    if (!id) continue;
    details.push(await g.integrationGet(site, `wifi/broadcasts/${encodeURIComponent(id)}`, rawRecord, FRESH));
  }
  return details;
}

/**
 * Objects the controller made and keeps itself (`metadata.origin` SYSTEM_DEFINED, or DERIVED: the
 * return-traffic twin of an ALLOW policy, rewritten whenever its policy changes): the official
 * counterpart of the v2 `predefined` flag. No tool changes them, so they are not watched.
 */
const userDefined = (r: Raw) => !isObject(r.metadata) || r.metadata.origin === 'USER_DEFINED';

/** A classic VPN network (remote access, site-to-site, a VPN client): the official API has no such record. */
const isVpnNetwork = (record: Raw) => /vpn/i.test(str(record.purpose) ?? '');

/**
 * An official policy's `action.allowReturnTraffic` back as it was: update_firewall_policy sets it
 * with the action (true for ALLOW, none for BLOCK and REJECT), so only those values can be restored.
 */
function returnTrafficArgs(before: Raw): Record<string, unknown> | undefined {
  const action = isObject(before.action) ? before.action : {};
  if (action.type === 'BLOCK' || action.type === 'REJECT') return { action: action.type };
  return action.type === 'ALLOW' && action.allowReturnTraffic === true ? { action: 'ALLOW' } : undefined;
}

/** Every kind the bot manages, how it is read (the same routes its tools read), and how it is reverted. */
export const KIND_SPECS: Record<DriftKind, KindSpec> = {
  networks: {
    generation: 'classic',
    read: async (g, site) => (await classic('rest/networkconf')(g, site)).filter((n) => n.purpose !== 'wan'),
    id: byId,
    name: byName,
    revert: {
      tool: 'update_network',
      idArg: 'network_id',
      fields: CLASSIC_NETWORK_FIELDS,
    },
    // The official list has no WAN networks (they are not in the model).
    official: {
      operation: 'networks',
      generation: 'official',
      shape: 'details+vpn',
      // The list is an overview: subnet, DHCP and isolation are watched in each network's details.
      // VPN servers and clients are in no official record, yet hold WireGuard keys and pre-shared
      // secrets: they are read from classic networkconf, fingerprinted like every secret.
      read: async (g, site) => [
        ...(await readOfficialNetworkDetails(g, site, FRESH)),
        ...(await classic('rest/networkconf')(g, site)).filter(isVpnNetwork),
      ],
      id: byId,
      name: byName,
      nested: true,
      revert: { tool: 'update_network', idArg: 'network_id', fields: OFFICIAL_NETWORK_FIELDS },
    },
  },
  zones: {
    generation: 'v2',
    read: v2('firewall/zone'),
    id: byId,
    name: byName,
    // The zone tools write through the official API only: where it has no zones, nothing reverts one.
    noRevert: 'update_firewall_zone needs the official zones API (UniFi Network 10.1 or later)',
    // Every zone, system ones too (as the v2 read): their network lists are the admin's to change.
    official: {
      operation: 'firewall.zones',
      generation: 'official',
      read: integration('firewall/zones'),
      id: byId,
      name: byName,
      nested: true,
      revert: {
        tool: 'update_firewall_zone',
        idArg: 'firewall_zone_id',
        fields: { name: { arg: 'name' }, networkIds: { arg: 'network_ids' } },
      },
    },
  },
  policies: {
    generation: 'v2',
    read: async (g, site) => (await v2('firewall-policies')(g, site)).filter((p) => p.predefined !== true),
    id: byId,
    name: byName,
    revert: {
      tool: 'update_firewall_policy',
      idArg: 'policy_id',
      fields: {
        name: { arg: 'name' },
        action: { arg: 'action' },
        enabled: { arg: 'enabled' },
        logging: { arg: 'logging' },
        description: { arg: 'description' },
      },
    },
    official: {
      operation: 'firewall.policies',
      generation: 'official',
      read: async (g, site) => (await integration('firewall/policies')(g, site)).filter(userDefined),
      id: byId,
      name: byName,
      nested: true,
      revert: {
        tool: 'update_firewall_policy',
        idArg: 'policy_id',
        fields: {
          name: { arg: 'name' },
          'action.type': { arg: 'action' },
          'action.allowReturnTraffic': { args: returnTrafficArgs },
          enabled: { arg: 'enabled' },
          loggingEnabled: { arg: 'logging' },
          description: { arg: 'description', value: (v) => str(v) ?? '' },
        },
      },
    },
  },
  firewall_rules: {
    generation: 'classic',
    read: classic('rest/firewallrule'),
    id: byId,
    name: byName,
    revert: {
      tool: 'update_firewall_rule',
      idArg: 'rule_id',
      fields: { name: { arg: 'name' }, action: { arg: 'action' }, enabled: { arg: 'enabled' } },
    },
  },
  acl_rules: {
    generation: 'official',
    read: integration('acl-rules'),
    id: byId,
    name: byName,
    revert: {
      tool: 'update_acl_rule',
      idArg: 'acl_rule_id',
      fields: { name: { arg: 'name' }, enabled: { arg: 'enabled' }, description: { arg: 'description' } },
    },
  },
  lists: { generation: 'official', read: integration('traffic-matching-lists'), id: byId, name: byName },
  routes: {
    generation: 'v2',
    read: v2('trafficrules'),
    id: byId,
    name: byName,
    revert: { tool: 'update_traffic_route', idArg: 'route_id', fields: { enabled: { arg: 'enabled' } } },
  },
  wifi: {
    generation: 'classic',
    read: classic('rest/wlanconf'),
    id: byId,
    name: byName,
    revert: { tool: 'set_wifi_broadcast_enabled', idArg: 'wifi_id', fields: { enabled: { arg: 'enabled' } } },
    // The official details of each SSID of the list (the Wi-Fi tools show its ids on 10.1).
    official: {
      operation: 'wifi.broadcasts',
      generation: 'official',
      shape: 'details',
      read: officialWifiDetails,
      id: byId,
      name: byName,
      nested: true,
      revert: {
        tool: 'set_wifi_broadcast_enabled',
        idArg: 'wifi_id',
        fields: { enabled: { arg: 'enabled' } },
      },
    },
  },
};

/** A kind's read for a generation (an official one only where the kind has one). */
export function readOf(kind: DriftKind, generation?: Generation): KindRead {
  const spec = KIND_SPECS[kind];
  return generation !== undefined && spec.official?.generation === generation ? spec.official : spec;
}

/** Which generation a kind is read from on this console (the official one where it is offered). */
async function chooseRead(gateway: Gateway, kind: DriftKind): Promise<KindRead> {
  const spec = KIND_SPECS[kind];
  return spec.official && (await gateway.offers(spec.official.operation)) ? spec.official : spec;
}

/** Which kinds a write tool touches: a bot change to one of them is not drift. */
export function kindsOfTool(tool: string): DriftKind[] {
  // A network created or deleted joins or leaves a zone's network list (the controller moves it): the
  // zones' change is the bot's too.
  if (/network|vlan/.test(tool)) return ['networks', 'zones'];
  if (tool.includes('zone')) return ['zones', 'policies'];
  if (tool.includes('firewall_policy')) return ['policies'];
  if (tool.includes('firewall_rule')) return ['firewall_rules'];
  if (tool.includes('acl_rule')) return ['acl_rules'];
  if (tool.includes('matching_list')) return ['lists'];
  if (tool.includes('traffic_route')) return ['routes'];
  if (tool.includes('wifi')) return ['wifi'];
  return [];
}

/** A site's configuration: kind → object id → the record as the controller serves it. */
export type Snapshot = Partial<Record<DriftKind, Record<string, Raw>>>;

/** Which generation each kind of a snapshot was read from. */
export type Sources = Partial<Record<DriftKind, Generation>>;

/** Which kinds of a snapshot were read in a shape other than the list as served (`KindRead.shape`). */
export type Shapes = Partial<Record<DriftKind, string>>;

/**
 * Reads every kind, each from the generation its tools use on this console (so the ids are the ones
 * the tools show and accept); a kind the controller will not serve (legacy firewall, no API key, the
 * console's version unknown because it is unreachable) is left out.
 */
export async function readSnapshot(
  gateway: Gateway,
  site: string,
  logger: Logger,
): Promise<{ snapshot: Snapshot; sources: Sources; shapes: Shapes }> {
  const snapshot: Snapshot = {};
  const sources: Sources = {};
  const shapes: Shapes = {};
  for (const kind of Object.keys(KIND_SPECS) as DriftKind[]) {
    try {
      const spec = await chooseRead(gateway, kind);
      // Secrets never enter the baseline (stored) or a drift (posted): only their fingerprints do.
      const records = (await spec.read(gateway, site)).map(fingerprintSecrets);
      const byKey: Record<string, Raw> = {};
      for (const record of records) {
        const id = spec.id(record);
        if (id) byKey[id] = record;
      }
      snapshot[kind] = byKey;
      sources[kind] = spec.generation;
      if (spec.shape) shapes[kind] = spec.shape;
    } catch (error) {
      if (!isBotError(error)) throw error;
      logger.debug(
        { kind, site, reason: error.message },
        'drift: this kind cannot be read; not watched this sweep',
      );
    }
  }
  return { snapshot, sources, shapes };
}

/**
 * The kinds read now in another shape than their baseline (the official Wi-Fi list became its
 * details): their records have other fields, so they are taken again instead of compared, as for a
 * change of generation; and the shapes to store with the new baseline.
 */
export function shapeChanges(
  baseline: Shapes | undefined,
  current: Shapes,
  read: readonly DriftKind[],
): { changed: DriftKind[]; shapes: Shapes } {
  const shapes: Shapes = { ...baseline };
  for (const kind of read) {
    const shape = current[kind];
    if (shape) shapes[kind] = shape;
    else delete shapes[kind];
  }
  return { changed: read.filter((kind) => baseline?.[kind] !== current[kind]), shapes };
}

/**
 * The kinds whose generation differs between the baseline and now (a console upgraded to 10.1, an
 * API key added or removed): their ids differ, so they are taken again instead of compared. A
 * baseline from before generations were recorded was read from each kind's private generation.
 */
export function generationChanges(
  baseline: Sources | undefined,
  current: Sources,
): { kind: DriftKind; from: Generation; to: Generation }[] {
  return (Object.keys(current) as DriftKind[]).flatMap((kind) => {
    const from = baseline?.[kind] ?? KIND_SPECS[kind].generation;
    const to = current[kind];
    return to !== undefined && to !== from ? [{ kind, from, to }] : [];
  });
}

// Fields the controller rewrites by itself: never drift.
const VOLATILE = new Set(['update_time', 'updated_at', '_update_time', 'last_modified', 'modified_at']);

/** A record with its nested objects opened one level (`action.type`); arrays stay whole. */
function opened(record: Raw | undefined): Raw | undefined {
  if (!record) return record;
  const out: Raw = {};
  for (const [key, value] of Object.entries(record)) {
    if (isObject(value)) for (const [inner, v] of Object.entries(value)) out[`${key}.${inner}`] = v;
    else out[key] = value;
  }
  return out;
}

/**
 * Each field that differs, top level (nested values compared whole, or one level down with
 * `nested`), in field order.
 */
export function fieldChanges(before: Raw | undefined, after: Raw | undefined, nested = false): FieldChange[] {
  const was = nested ? opened(before) : before;
  const now = nested ? opened(after) : after;
  const keys = [...new Set([...Object.keys(was ?? {}), ...Object.keys(now ?? {})])];
  return keys
    .filter((k) => !VOLATILE.has(k))
    .filter((k) => !sameWithSecrets(was?.[k], now?.[k]))
    .map((field) => ({ field, before: shownSecrets(was?.[field]), after: shownSecrets(now?.[field]) }));
}

/**
 * The drifts between the baseline and now for the kinds compared (`skip`: the bot changed them);
 * `sources` says which generation each kind was read from (both sides: a kind whose generation
 * changed is in `skip`).
 */
export function compareSnapshots(
  site: string,
  baseline: Snapshot,
  current: Snapshot,
  noticedAt: number,
  skip: ReadonlySet<DriftKind>,
  sources: Sources = {},
): Drift[] {
  const drifts: Drift[] = [];
  for (const kind of Object.keys(current) as DriftKind[]) {
    const was = baseline[kind];
    const now = current[kind];
    if (!was || !now || skip.has(kind)) continue;
    const generation = sources[kind];
    const spec = readOf(kind, generation);
    for (const id of new Set([...Object.keys(was), ...Object.keys(now)])) {
      // Almost every object is as it was: both sides are fingerprinted with this process's key, so
      // equal texts settle it without the field by field comparison (comparing every
      // object field by field held the event loop for 5–10 ms a sweep on a small site).
      if (was[id] !== undefined && JSON.stringify(was[id]) === JSON.stringify(now[id])) continue;
      // A baseline stored before secrets were fingerprinted holds them in the clear: fingerprinted here.
      const fingerprinted = { before: fingerprintSecrets(was[id]), after: fingerprintSecrets(now[id]) };
      const fields = fieldChanges(fingerprinted.before, fingerprinted.after, spec.nested);
      if (fields.length === 0) continue;
      const before = shownSecrets(fingerprinted.before);
      const after = shownSecrets(fingerprinted.after);
      const change = !before ? 'added' : !after ? 'removed' : 'changed';
      drifts.push({
        id: `dr_${noticedAt.toString(36)}_${randomBytes(5).toString('hex')}`,
        site,
        kind,
        // Only an official read is recorded: a drift without it is read as a classic one.
        ...(generation === 'official' && spec !== KIND_SPECS[kind] ? { generation } : {}),
        objectId: id,
        objectName: spec.name((after ?? before) as Raw),
        change,
        fields: change === 'changed' ? fields : [],
        ...(before ? { before } : {}),
        ...(after ? { after } : {}),
        noticedAt,
        ...revertAvailability(kind, spec, change, fields, before, after),
      });
    }
  }
  return drifts;
}

const missing = (v: unknown) => v === undefined || (typeof v === 'number' && Number.isNaN(v));

/** The update tool's arguments that put `fields` back to `before`, or the fields it cannot set. */
function revertArgs(
  spec: NonNullable<KindRead['revert']>,
  fields: FieldChange[],
  before: Raw,
  after: Raw,
): { args: Record<string, unknown> } | { unmapped: string[]; added: string[] } {
  const args: Record<string, unknown> = {};
  const unmapped: string[] = [];
  const added: string[] = [];
  for (const change of fields) {
    const field = spec.fields[change.field];
    // A field that was not stored before, passed as it was, would be an argument left out: the
    // update leaves the field as it is now. Taking a stored field away is not something it does.
    if (field && !('args' in field) && !field.value && change.before === undefined) {
      added.push(change.field);
      continue;
    }
    // A mapping that finds no value (a subnet without its IPv4 block, a VLAN that was not set) cannot
    // put the field back; a plain argument passes the before value as it was.
    const set = !field
      ? undefined
      : 'args' in field
        ? field.args(before, after)
        : field.value
          ? { [field.arg]: field.value(change.before, before) }
          : { [field.arg]: change.before };
    // A mapping that knows which inner fields stand in the way names them, not the whole field.
    if (set && 'cannot' in set) {
      unmapped.push(...(set.cannot as string[]));
      continue;
    }
    const lost = field && !('args' in field) && field.value && Object.values(set ?? {}).some(missing);
    if (!set || lost) unmapped.push(change.field);
    else Object.assign(args, set);
  }
  return unmapped.length > 0 || added.length > 0 ? { unmapped: [...new Set(unmapped)], added } : { args };
}

/** Why a change cannot be put back: the fields the tool cannot set, and those it cannot take away. */
function unavailableText(tool: string, mapped: { unmapped: string[]; added: string[] }): string {
  return [
    ...(mapped.unmapped.length > 0 ? [`${mapped.unmapped.join(', ')} cannot be set by ${tool}`] : []),
    ...(mapped.added.length > 0
      ? [
          `${mapped.added.join(', ')} ${mapped.added.length === 1 ? 'was' : 'were'} not set before, and ${tool} cannot remove a stored field`,
        ]
      : []),
  ].join('; ');
}

function revertAvailability(
  kind: DriftKind,
  read: KindRead,
  change: string,
  fields: FieldChange[],
  before: Raw | undefined,
  after: Raw | undefined,
) {
  const spec = read.revert;
  if (!spec)
    return {
      revertUnavailable: read.noRevert ?? `the bot has no tool that updates ${kind.replace('_', ' ')}`,
    };
  if (change !== 'changed' || !before || !after)
    return { revertUnavailable: `an ${change} object is put back by hand (the bot reverts field changes)` };
  const mapped = revertArgs(spec, fields, before, after);
  if ('unmapped' in mapped) return { revertUnavailable: unavailableText(spec.tool, mapped) };
  return {};
}

/** The tool and arguments that put a changed object back to its `before` values. */
export function revertCall(drift: Drift): { tool: string; args: Record<string, unknown> } | undefined {
  const spec = readOf(drift.kind, drift.generation).revert;
  if (!spec || drift.revertUnavailable || !drift.before || !drift.after) return undefined;
  const mapped = revertArgs(spec, drift.fields, drift.before, drift.after);
  if ('unmapped' in mapped) return undefined;
  // A fleet's drift is put back on its own console: the change request keeps \`console\`, and runs there.
  const console = drift.console === undefined ? {} : { console: drift.console };
  return {
    tool: spec.tool,
    args: { ...console, site_id: drift.site, [spec.idArg]: drift.objectId, ...mapped.args },
  };
}
