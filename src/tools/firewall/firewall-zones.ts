import { z } from 'zod';
import { ConflictError, ResourceNotFoundError } from '../../errors.js';
import { invalidResponse } from '../../gateway/envelopes.js';
import type { Gateway } from '../../gateway/types.js';
import type { KeyValueStore } from '../../lib/json-file-store.js';
import { v2ZoneRecordSchema } from '../../records/firewall-policy-record.js';
import { type ZoneRecord, zoneRecordSchema } from '../../records/zone-record.js';
import { confirm, dryRun, idOrName, siteId, text } from '../core/arg-types.js';
import { fieldChanges, namesIn, nothingToChange, sameJson, withStateLeft } from '../core/crud-model.js';
import { defineTool, type ToolDefinition } from '../core/define-tool.js';
import { requireZoneBasedFirewall } from '../core/firewall-generation.js';
import { NetworkDirectory, type NetworkIds } from '../networks/network-ids.js';
import { toNetwork } from '../networks/network-model.js';
import { zoneChanges, zoneMembershipChanges } from './changes.js';
import { descriptionArg, requireLocal } from './firewall-args.js';
import {
  assertEditable,
  describeMoves,
  descriptionKey,
  findZone,
  leaveWarnings,
  moveBodies,
  moveWarnings,
  moveWrites,
  planMoves,
  toZone,
  type Zone,
  type ZoneBody,
  type ZoneMove,
} from './zone-model.js';

const ZONES = 'firewall/zones';

const zoneRef = idOrName('zone');
const networkRef = idOrName('network');
const description = descriptionArg('Kept by the bot (the controller has no zone description)');

/** The site's zones and networks, read together. */
interface ZoneSite {
  gateway: Gateway;
  site: string;
  zones: ZoneRecord[];
  networks: NetworkDirectory;
  store: KeyValueStore;
}

async function loadZones(
  context: { gateway: Gateway; store: KeyValueStore },
  site: string,
  fresh: boolean,
): Promise<ZoneSite> {
  requireLocal(
    context.gateway,
    'firewall zone tools',
    'they use the gateway’s local API, which the cloud API does not offer',
  );
  // The Integration site id is looked up alongside the generation check, not after it: on a cold
  // start that is one round trip to the controller instead of two. Its failure is seen below,
  // through the reads that need it; on a legacy site it is not needed at all.
  context.gateway.resolveSiteUuid(site).catch(() => undefined);
  // So is the console's version: on a console older than the zones' document the zone read waits
  // for it (the first zone request goes alone there), and it must not cost a round of its own.
  context.gateway.console().catch(() => undefined);
  // The networks (with their details, which come after the list) are read alongside the check too.
  const directory = NetworkDirectory.load(context.gateway, site, {
    fresh,
    withIntegration: true,
    official: true,
  });
  directory.catch(() => undefined);
  // A legacy site has no zones; the Integration API would refuse with a bare code.
  await requireZoneBasedFirewall(context.gateway, site);
  const [zones, networks] = await Promise.all([
    context.gateway.integrationList(site, ZONES, zoneRecordSchema, { fresh }),
    directory,
  ]);
  return { gateway: context.gateway, site, zones: zones.items, networks, store: context.store };
}

/**
 * A zone by Integration UUID or name, or by the v2 `_id` the policy API knows it by (older output
 * showed policies' zones so): mapped through the v2 zone's `external_id`, read only on a miss.
 */
async function findZoneById(s: ZoneSite, ref: string, field: string): Promise<ZoneRecord> {
  try {
    return findZone(s.zones, ref, field);
  } catch (error) {
    const wanted = ref.trim();
    if (!(error instanceof ResourceNotFoundError) || !/^[0-9a-f]{24}$/i.test(wanted)) throw error;
    const v2 = await s.gateway.v2Read(s.site, 'firewall/zone', v2ZoneRecordSchema).catch(() => undefined);
    const uuid = v2?.items.find((zone) => zone._id === wanted)?.external_id;
    if (!uuid) throw error;
    return findZone(s.zones, uuid, field);
  }
}

async function descriptionOf(s: ZoneSite, zoneId: string): Promise<string | null> {
  const value = await s.store.get<unknown>(descriptionKey(s.site, zoneId));
  return typeof value === 'string' && value !== '' ? value : null;
}

async function zoneView(s: ZoneSite, zone: ZoneRecord): Promise<Zone> {
  return toZone(zone, await s.networks.describeAll(zone.networkIds), await descriptionOf(s, zone.id));
}

/** The zone as the controller answered a write, or as we sent it when the answer is not a zone. */
function writtenZone(answer: unknown, fallback: ZoneRecord): ZoneRecord {
  const parsed = zoneRecordSchema.safeParse(answer);
  return parsed.success ? parsed.data : fallback;
}

/**
 * A dry run with every zone and network id it carries named (`names`), and the writes that move
 * networks out of their old zones (`would_send_first`) when there are any.
 */
function zonePreview(
  s: ZoneSite,
  preview: Record<string, unknown>,
  moves: readonly ZoneMove[],
  members: readonly NetworkIds[],
): Record<string, unknown> {
  const { warnings, ...rest } = preview;
  const shown = {
    dry_run: true,
    ...rest,
    ...(moves.length > 0 ? { would_send_first: moveWrites(moves) } : {}),
  };
  const known = new Map<string, string>();
  for (const zone of s.zones) known.set(zone.id, zone.name);
  for (const network of s.networks.records) {
    known.set(network._id, network.name);
    if (network.external_id) known.set(network.external_id, network.name);
  }
  for (const m of [...members, ...moves.map((move) => move.network)]) {
    if (m.name === null) continue;
    known.set(m.id, m.name);
    known.set(m.uuid, m.name);
  }
  const names = namesIn(shown, (id) => known.get(id));
  return { ...shown, ...(Object.keys(names).length > 0 ? { names } : {}), warnings };
}

/** Network arguments resolved to both id spaces, without repeats, in the caller's order. */
async function resolveNetworks(s: ZoneSite, refs: readonly string[], field: string): Promise<NetworkIds[]> {
  const resolved: NetworkIds[] = [];
  for (const ref of refs) {
    const network = await s.networks.resolve(ref, field);
    if (!resolved.some((r) => r.uuid === network.uuid)) resolved.push(network);
  }
  return resolved;
}

function assertNameFree(s: ZoneSite, name: string, self?: ZoneRecord): void {
  const clash = s.zones.find((z) => z !== self && z.name.toLowerCase() === name.toLowerCase());
  if (clash) throw new ConflictError(`a firewall zone named "${clash.name}" already exists (${clash.id})`);
}

/**
 * Runs a zone write after taking moved networks out of their old zones (the controller refuses a
 * network in two zones). A failure after an earlier step says exactly what was left behind.
 */
async function writeWithMoves(
  s: ZoneSite,
  moves: readonly ZoneMove[],
  step: string,
  write: () => Promise<unknown>,
): Promise<unknown> {
  const done: string[] = [];
  for (const { zone, body, left } of moveBodies(moves)) {
    try {
      await s.gateway.integrationWrite(s.site, 'PUT', `${ZONES}/${zone.id}`, body);
    } catch (error) {
      throw withStateLeft(error, done, `removing ${left.join(', ')} from zone "${zone.name}"`);
    }
    done.push(`${left.join(', ')} removed from zone "${zone.name}" and now in no zone`);
  }
  try {
    return await write();
  } catch (error) {
    throw withStateLeft(error, done, step);
  }
}

// Deliberately alike: the tools below are defineTool declarations, whose shape the framework fixes; each differs in args and run.
const listFirewallZones = defineTool({
  name: 'list_firewall_zones',
  description: 'List the firewall zones with their networks (local API only)',
  access: 'read',
  firewall: 'zone-based',
  example: '',
  args: z.object({ site_id: siteId }),
  async run({ site_id }, context) {
    const s = await loadZones(context, site_id, false);
    return Promise.all(s.zones.map((zone) => zoneView(s, zone)));
  },
});

const createFirewallZone = defineTool({
  name: 'create_firewall_zone',
  change: zoneChanges.create_firewall_zone,
  description: 'Create a firewall zone, optionally with networks (moved from their old zone)',
  access: 'write',
  firewall: 'zone-based',
  example: 'name=Lab description="Test benches" network_ids=Cameras',
  args: z.object({
    site_id: siteId,
    name: text(128).describe('Zone name'),
    description: description.optional(),
    network_ids: z.array(networkRef).optional().describe('Networks to put in the zone (ids or names)'),
    confirm,
    dry_run: dryRun,
  }),
  async run(args, context) {
    const s = await loadZones(context, args.site_id, true);
    assertNameFree(s, args.name);
    const members = await resolveNetworks(s, args.network_ids ?? [], 'network_ids');
    const moves = planMoves(s.zones, undefined, members);
    const body: ZoneBody = { name: args.name, networkIds: members.map((m) => m.uuid) };
    const note = args.description || null;
    const warnings = moveWarnings(moves, args.name);
    if (args.dry_run) {
      const preview = {
        would_create: {
          name: args.name,
          description: note,
          network_ids: members.map((m) => m.id),
          network_names: members.map((m) => m.name),
        },
        would_send: body,
        moves: describeMoves(moves),
        warnings,
      };
      return zonePreview(s, preview, moves, members);
    }
    const answer = await writeWithMoves(s, moves, `creating zone "${args.name}"`, () =>
      context.gateway.integrationWrite(args.site_id, 'POST', ZONES, body),
    );
    const created = zoneRecordSchema.safeParse(answer);
    if (!created.success) throw invalidResponse('the created zone has no id', ZONES);
    if (note) await context.store.set(descriptionKey(args.site_id, created.data.id), note);
    return { success: true, zone: await zoneView(s, created.data), moves: describeMoves(moves), warnings };
  },
});

const updateFirewallZone = defineTool({
  name: 'update_firewall_zone',
  change: zoneChanges.update_firewall_zone,
  description: 'Rename a zone, change its description, or replace its whole network list',
  access: 'write',
  firewall: 'zone-based',
  example: 'firewall_zone_id="IoT Devices" description="Sensors and cameras"',
  args: z.object({
    site_id: siteId,
    firewall_zone_id: zoneRef,
    name: text(128).optional().describe('New zone name (a user zone only)'),
    description: description.optional().describe('New description; empty clears it'),
    network_ids: z
      .array(networkRef)
      .optional()
      .describe('Replaces the whole list (does not append); networks in another zone are moved'),
    confirm,
    dry_run: dryRun,
  }),
  async run(args, context) {
    const s = await loadZones(context, args.site_id, true);
    const zone = await findZoneById(s, args.firewall_zone_id, 'firewall_zone_id');
    const name = args.name ?? zone.name;
    if (name !== zone.name) {
      assertEditable(zone, 'rename');
      assertNameFree(s, name, zone);
    }
    const current = await s.networks.describeAll(zone.networkIds);
    let members = current;
    let moves: ZoneMove[] = [];
    if (args.network_ids !== undefined) {
      const wanted = await resolveNetworks(s, args.network_ids, 'network_ids');
      // The same set in another order is no change: the order of a zone's networks means nothing.
      const sameSet = sameJson(wanted.map((m) => m.uuid).sort(), [...zone.networkIds].sort());
      if (!sameSet) {
        assertEditable(zone, 'networks');
        members = wanted;
        moves = planMoves(s.zones, zone, members);
      }
    }
    const before = await descriptionOf(s, zone.id);
    const after = args.description === undefined ? before : args.description || null;
    const changes = fieldChanges(
      { name: zone.name, description: before, network_ids: current.map((m) => m.id) },
      { name, description: after, network_ids: members.map((m) => m.id) },
    );
    const body: ZoneBody = { name, networkIds: members.map((m) => m.uuid) };
    const controllerChange = 'name' in changes || 'network_ids' in changes;
    const kept = new Set(members.map((m) => m.uuid));
    const warnings = [
      ...moveWarnings(moves, name),
      ...leaveWarnings(
        current.filter((m) => !kept.has(m.uuid)),
        zone.name,
      ),
    ];
    const summary = { zone_id: zone.id, name: zone.name, changes, moves: describeMoves(moves), warnings };
    if (args.dry_run && Object.keys(changes).length === 0) return nothingToChange(summary);
    if (args.dry_run) {
      const preview = { ...summary, would_send: controllerChange ? body : null };
      return zonePreview(s, preview, moves, [...current, ...members]);
    }
    let record = zone;
    if (controllerChange) {
      const answer = await writeWithMoves(s, moves, `updating zone "${zone.name}"`, () =>
        context.gateway.integrationWrite(args.site_id, 'PUT', `${ZONES}/${zone.id}`, body),
      );
      record = writtenZone(answer, { ...zone, ...body });
    }
    if ('description' in changes) {
      const key = descriptionKey(args.site_id, zone.id);
      if (after) await context.store.set(key, after);
      else await context.store.delete(key);
    }
    return { success: true, ...summary, zone: await zoneView(s, record) };
  },
});

const deleteFirewallZone = defineTool({
  name: 'delete_firewall_zone',
  change: zoneChanges.delete_firewall_zone,
  description: 'Delete a firewall zone (its networks stay, in no zone)',
  access: 'write',
  firewall: 'zone-based',
  example: 'zone_id="IoT Devices"',
  args: z.object({ site_id: siteId, zone_id: zoneRef, confirm, dry_run: dryRun }),
  async run({ site_id, zone_id, dry_run }, context) {
    const s = await loadZones(context, site_id, true);
    const zone = await findZoneById(s, zone_id, 'zone_id');
    assertEditable(zone, 'delete');
    const view = await zoneView(s, zone);
    const names = view.network_names.map((n, i) => n ?? view.network_ids[i]);
    const warnings = [
      'deletion is irreversible',
      ...(names.length > 0 ? [`its networks (${names.join(', ')}) stay as they are, in no zone`] : []),
    ];
    if (dry_run) return { dry_run: true, would_delete: view, warnings };
    await context.gateway.integrationWrite(site_id, 'DELETE', `${ZONES}/${zone.id}`);
    await context.store.delete(descriptionKey(site_id, zone.id));
    return { success: true, deleted_zone_id: zone.id };
  },
});

const membershipArgs = z.object({
  site_id: siteId,
  zone_id: zoneRef,
  network_id: networkRef,
  confirm,
  dry_run: dryRun,
});

/** The zone and network a membership tool names, both resolved. */
async function loadMembership(
  args: z.output<typeof membershipArgs>,
  context: { gateway: Gateway; store: KeyValueStore },
) {
  const s = await loadZones(context, args.site_id, true);
  const zone = await findZoneById(s, args.zone_id, 'zone_id');
  const network = await s.networks.resolve(args.network_id, 'network_id');
  const current = await s.networks.describeAll(zone.networkIds);
  const assignment = {
    zone_id: zone.id,
    zone_name: zone.name,
    network_id: network.id,
    network_name: network.name,
  };
  return { s, zone, network, current, assignment };
}

const assignNetworkToZone = defineTool({
  name: 'assign_network_to_zone',
  change: zoneMembershipChanges.assign_network_to_zone,
  description: 'Add a network to a zone (moved from its old zone; no change if already a member)',
  access: 'write',
  firewall: 'zone-based',
  example: 'zone_id=Dmz network_id=Cameras',
  args: membershipArgs,
  async run(args, context) {
    const { s, zone, network, current, assignment } = await loadMembership(args, context);
    if (zone.networkIds.includes(network.uuid)) {
      if (args.dry_run)
        return nothingToChange({
          name: zone.name,
          assignment,
          already_assigned: true,
          changes: {},
          warnings: [],
        });
      return {
        success: true,
        assignment,
        already_assigned: true,
        zone: await zoneView(s, zone),
        warnings: [],
      };
    }
    assertEditable(zone, 'networks');
    const moves = planMoves(s.zones, zone, [network]);
    const body: ZoneBody = { name: zone.name, networkIds: [...zone.networkIds, network.uuid] };
    const from = current.map((m) => m.id);
    const summary = {
      assignment,
      already_assigned: false,
      changes: { network_ids: { from, to: [...from, network.id] } },
      moves: describeMoves(moves),
      warnings: moveWarnings(moves, zone.name),
    };
    if (args.dry_run) return zonePreview(s, { ...summary, would_send: body }, moves, [...current, network]);
    const answer = await writeWithMoves(
      s,
      moves,
      `adding ${network.name ?? network.id} to zone "${zone.name}"`,
      () => context.gateway.integrationWrite(args.site_id, 'PUT', `${ZONES}/${zone.id}`, body),
    );
    return { success: true, ...summary, zone: await zoneView(s, writtenZone(answer, { ...zone, ...body })) };
  },
});

// Deliberately alike: assign and unassign take the same membership args and loader; the membership change each makes is its own.
const unassignNetworkFromZone = defineTool({
  name: 'unassign_network_from_zone',
  change: zoneMembershipChanges.unassign_network_from_zone,
  description: 'Remove a network from a zone (an error if it is not a member)',
  access: 'write',
  firewall: 'zone-based',
  example: 'zone_id="IoT Devices" network_id=Cameras',
  args: membershipArgs,
  async run(args, context) {
    const { s, zone, network, current, assignment } = await loadMembership(args, context);
    if (!zone.networkIds.includes(network.uuid)) {
      const other = s.zones.find((z) => z.networkIds.includes(network.uuid));
      throw new ConflictError(
        `network ${network.name ?? network.id} (${network.id}) is not in zone "${zone.name}"; ` +
          (other ? `it is in zone "${other.name}"` : 'it is in no zone'),
      );
    }
    assertEditable(zone, 'networks');
    const body: ZoneBody = {
      name: zone.name,
      networkIds: zone.networkIds.filter((id) => id !== network.uuid),
    };
    const from = current.map((m) => m.id);
    const summary = {
      assignment,
      changes: { network_ids: { from, to: from.filter((id) => id !== network.id) } },
      warnings: leaveWarnings([network], zone.name),
    };
    if (args.dry_run) return zonePreview(s, { ...summary, would_send: body }, [], current);
    const answer = await context.gateway.integrationWrite(args.site_id, 'PUT', `${ZONES}/${zone.id}`, body);
    return { success: true, ...summary, zone: await zoneView(s, writtenZone(answer, { ...zone, ...body })) };
  },
});

const getZoneNetworks = defineTool({
  name: 'get_zone_networks',
  description: 'The networks of a zone, with names, VLANs and subnets from the network data',
  access: 'read',
  firewall: 'zone-based',
  example: 'zone_id="IoT Devices"',
  args: z.object({ site_id: siteId, zone_id: zoneRef }),
  async run({ site_id, zone_id }, context) {
    const s = await loadZones(context, site_id, false);
    const zone = await findZoneById(s, zone_id, 'zone_id');
    const members = await s.networks.describeAll(zone.networkIds);
    return members.map((m) =>
      m.record
        ? toNetwork(m.record)
        : { id: m.id, name: m.name, purpose: null, vlan_id: null, ip_subnet: null, dhcpd_enabled: null },
    );
  },
});

/** Spec 4.3: zone-based firewall zones and network assignment (Integration API, local only). */
export const firewallZoneTools: ToolDefinition[] = [
  listFirewallZones,
  createFirewallZone,
  updateFirewallZone,
  deleteFirewallZone,
  assignNetworkToZone,
  unassignNetworkFromZone,
  getZoneNetworks,
];
