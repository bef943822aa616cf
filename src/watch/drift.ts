import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { isBotError } from '../errors.js';
import type { Gateway } from '../gateway/types.js';
import type { Logger } from '../log.js';
import type { Drift, DriftKind, FieldChange } from './types.js';

type Raw = Record<string, unknown>;
const rawRecord = z.record(z.string(), z.unknown());

/** How one kind of configuration object is read, named, and put back by one of the bot's write tools. */
interface KindSpec {
  read(gateway: Gateway, site: string): Promise<Raw[]>;
  id(record: Raw): string | undefined;
  name(record: Raw): string;
  /** The update tool and its id argument; `fields` maps a record field to that tool's argument. */
  revert?: {
    tool: string;
    idArg: string;
    fields: Record<string, { arg: string; value?: (v: unknown) => unknown }>;
  };
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
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

/** Every kind the bot manages, how it is read (the same routes its tools read), and how it is reverted. */
export const KIND_SPECS: Record<DriftKind, KindSpec> = {
  networks: {
    read: async (g, site) => (await classic('rest/networkconf')(g, site)).filter((n) => n.purpose !== 'wan'),
    id: byId,
    name: byName,
    revert: {
      tool: 'update_network',
      idArg: 'network_id',
      fields: {
        name: { arg: 'name' },
        vlan: { arg: 'vlan_id', value: Number },
        ip_subnet: { arg: 'subnet' },
      },
    },
  },
  zones: {
    read: v2('firewall/zone'),
    id: byId,
    name: byName,
    revert: { tool: 'update_firewall_zone', idArg: 'firewall_zone_id', fields: { name: { arg: 'name' } } },
  },
  policies: {
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
  },
  firewall_rules: {
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
    read: integration('acl-rules'),
    id: byId,
    name: byName,
    revert: {
      tool: 'update_acl_rule',
      idArg: 'acl_rule_id',
      fields: { name: { arg: 'name' }, enabled: { arg: 'enabled' }, description: { arg: 'description' } },
    },
  },
  lists: { read: integration('traffic-matching-lists'), id: byId, name: byName },
  routes: {
    read: v2('trafficrules'),
    id: byId,
    name: byName,
    revert: { tool: 'update_traffic_route', idArg: 'route_id', fields: { enabled: { arg: 'enabled' } } },
  },
  wifi: {
    read: classic('rest/wlanconf'),
    id: byId,
    name: byName,
    revert: { tool: 'set_wifi_broadcast_enabled', idArg: 'wifi_id', fields: { enabled: { arg: 'enabled' } } },
  },
};

/** Which kinds a write tool touches: a bot change to one of them is not drift. */
export function kindsOfTool(tool: string): DriftKind[] {
  if (/network|vlan/.test(tool)) return tool.includes('zone') ? ['networks', 'zones'] : ['networks'];
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

/** Reads every kind; a kind the controller will not serve (legacy firewall, no API key) is left out. */
export async function readSnapshot(gateway: Gateway, site: string, logger: Logger): Promise<Snapshot> {
  const snapshot: Snapshot = {};
  for (const kind of Object.keys(KIND_SPECS) as DriftKind[]) {
    const spec = KIND_SPECS[kind];
    try {
      const records = await spec.read(gateway, site);
      const byKey: Record<string, Raw> = {};
      for (const record of records) {
        const id = spec.id(record);
        if (id) byKey[id] = record;
      }
      snapshot[kind] = byKey;
    } catch (error) {
      if (!isBotError(error)) throw error;
      logger.debug(
        { kind, site, reason: error.message },
        'drift: this kind cannot be read; not watched this sweep',
      );
    }
  }
  return snapshot;
}

// Fields the controller rewrites by itself: never drift.
const VOLATILE = new Set(['update_time', 'updated_at', '_update_time', 'last_modified', 'modified_at']);

/** Each field that differs, top level (nested values compared whole), in field order. */
export function fieldChanges(before: Raw | undefined, after: Raw | undefined): FieldChange[] {
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  return keys
    .filter((k) => !VOLATILE.has(k))
    .filter((k) => JSON.stringify(before?.[k]) !== JSON.stringify(after?.[k]))
    .map((field) => ({ field, before: before?.[field], after: after?.[field] }));
}

/** The drifts between the baseline and now for the kinds compared (`skip`: the bot changed them). */
export function compareSnapshots(
  site: string,
  baseline: Snapshot,
  current: Snapshot,
  noticedAt: number,
  skip: ReadonlySet<DriftKind>,
): Drift[] {
  const drifts: Drift[] = [];
  for (const kind of Object.keys(current) as DriftKind[]) {
    const was = baseline[kind];
    const now = current[kind];
    if (!was || !now || skip.has(kind)) continue;
    const spec = KIND_SPECS[kind];
    for (const id of new Set([...Object.keys(was), ...Object.keys(now)])) {
      const before = was[id];
      const after = now[id];
      const fields = fieldChanges(before, after);
      if (fields.length === 0) continue;
      const change = !before ? 'added' : !after ? 'removed' : 'changed';
      drifts.push({
        id: `dr_${noticedAt.toString(36)}_${randomBytes(5).toString('hex')}`,
        site,
        kind,
        objectId: id,
        objectName: spec.name((after ?? before) as Raw),
        change,
        fields: change === 'changed' ? fields : [],
        ...(before ? { before } : {}),
        ...(after ? { after } : {}),
        noticedAt,
        ...revertAvailability(kind, change, fields),
      });
    }
  }
  return drifts;
}

function revertAvailability(kind: DriftKind, change: string, fields: FieldChange[]) {
  const spec = KIND_SPECS[kind].revert;
  if (!spec) return { revertUnavailable: `the bot has no tool that updates ${kind.replace('_', ' ')}` };
  if (change !== 'changed')
    return { revertUnavailable: `an ${change} object is put back by hand (the bot reverts field changes)` };
  const unmapped = fields.filter((f) => !spec.fields[f.field]).map((f) => f.field);
  if (unmapped.length > 0)
    return { revertUnavailable: `${unmapped.join(', ')} cannot be set by ${spec.tool}` };
  return {};
}

/** The tool and arguments that put a changed object back to its `before` values. */
export function revertCall(drift: Drift): { tool: string; args: Record<string, unknown> } | undefined {
  const spec = KIND_SPECS[drift.kind].revert;
  if (!spec || drift.revertUnavailable || !drift.before) return undefined;
  const args: Record<string, unknown> = { site_id: drift.site, [spec.idArg]: drift.objectId };
  for (const change of drift.fields) {
    const field = spec.fields[change.field];
    if (!field) return undefined;
    args[field.arg] = field.value ? field.value(change.before) : change.before;
  }
  return { tool: spec.tool, args };
}
