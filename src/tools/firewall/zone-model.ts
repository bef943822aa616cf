import { NotSupportedError } from '../../errors.js';
import { findByIdOrName } from '../../lib/find-by-id-or-name.js';
import type { ZoneRecord } from '../../records/zone-record.js';
import type { NetworkIds } from '../networks/network-ids.js';

/** What an admin may change on a zone: everything, only its networks (configurable system zones), or nothing. */
export type ZoneEditable = 'all' | 'networks' | 'none';

/** A firewall zone as the tools return it (spec 2.4, network ids in classic form). */
export interface Zone {
  id: string;
  name: string;
  /** Kept by the bot: the controller has no such field. */
  description: string | null;
  /**
   * Classic networkconf `_id`s (an Integration UUID only for a network with no networkconf record).
   * The spec's `networkIds`, snake_cased like every other field and the write tools' argument.
   */
  network_ids: string[];
  network_names: (string | null)[];
  origin: string;
  editable: ZoneEditable;
}

/** A network leaving another zone so it can join the target (a network sits in at most one zone). */
export interface ZoneMove {
  network: NetworkIds;
  from: ZoneRecord;
}

/** The store key of a zone's description. */
export function descriptionKey(site: string, zoneId: string): string {
  return `zone-description:${site}:${zoneId}`;
}

/** User zones are fully editable; configurable system zones only in their networks; other system zones not at all. */
export function editableOf(zone: ZoneRecord): ZoneEditable {
  if (zone.metadata?.origin !== 'SYSTEM_DEFINED') return 'all';
  return zone.metadata.configurable === true ? 'networks' : 'none';
}

/** The tools' view of a zone record, its members already translated. */
export function toZone(zone: ZoneRecord, members: readonly NetworkIds[], description: string | null): Zone {
  return {
    id: zone.id,
    name: zone.name,
    description,
    network_ids: members.map((m) => m.id),
    network_names: members.map((m) => m.name),
    origin: zone.metadata?.origin ?? 'USER_DEFINED',
    editable: editableOf(zone),
  };
}

/** A zone named by UUID or (unambiguous, case-insensitive) name. */
export function findZone(zones: readonly ZoneRecord[], ref: string, field: string): ZoneRecord {
  return findByIdOrName(zones, ref, {
    resource: 'firewall zone',
    field,
    id: (z) => z.id,
    name: (z) => z.name,
  });
}

/** Refuses, before any write, a change the controller does not allow on a system zone. */
export function assertEditable(zone: ZoneRecord, change: 'rename' | 'networks' | 'delete'): void {
  const editable = editableOf(zone);
  if (editable === 'all') return;
  if (change === 'delete') {
    throw new NotSupportedError(`zone "${zone.name}" is system-defined and cannot be deleted`);
  }
  if (editable === 'none') {
    throw new NotSupportedError(`zone "${zone.name}" is system-defined and cannot be changed`);
  }
  if (change === 'rename') {
    throw new NotSupportedError(
      `zone "${zone.name}" is system-defined: only its networks can change, not its name`,
    );
  }
}

/**
 * The moves that putting `members` into `target` (undefined: a new zone) needs: each member now
 * in another zone leaves it first. Refused when that other zone may not change.
 */
export function planMoves(
  zones: readonly ZoneRecord[],
  target: ZoneRecord | undefined,
  members: readonly NetworkIds[],
): ZoneMove[] {
  const moves: ZoneMove[] = [];
  for (const network of members) {
    const from = zones.find((zone) => zone.id !== target?.id && zone.networkIds.includes(network.uuid));
    if (!from) continue;
    if (editableOf(from) === 'none') {
      throw new NotSupportedError(
        `network ${network.name ?? network.id} is in zone "${from.name}", which is system-defined and cannot give it up`,
      );
    }
    moves.push({ network, from });
  }
  return moves;
}

/** One PUT body per zone that loses members to the moves, in first-seen order. */
export function moveBodies(
  moves: readonly ZoneMove[],
): { zone: ZoneRecord; body: ZoneBody; left: string[] }[] {
  const byZone = new Map<string, { zone: ZoneRecord; leaving: ZoneMove[] }>();
  for (const move of moves) {
    const entry = byZone.get(move.from.id) ?? { zone: move.from, leaving: [] };
    entry.leaving.push(move);
    byZone.set(move.from.id, entry);
  }
  return [...byZone.values()].map(({ zone, leaving }) => {
    const gone = new Set(leaving.map((m) => m.network.uuid));
    return {
      zone,
      body: { name: zone.name, networkIds: zone.networkIds.filter((id) => !gone.has(id)) },
      left: leaving.map((m) => m.network.name ?? m.network.id),
    };
  });
}

/** The body of a zone POST or PUT: both fields, always (PUT is a full replace). */
export interface ZoneBody {
  name: string;
  networkIds: string[];
}

/**
 * The writes that take moved networks out of their old zones, in the order they are sent (before
 * the target zone's write): a preview shows them with `would_send`, since they change zones too.
 */
export function moveWrites(moves: readonly ZoneMove[]): { zone_id: string; body: ZoneBody }[] {
  return moveBodies(moves).map(({ zone, body }) => ({ zone_id: zone.id, body }));
}

/** The moves as a result shows them (classic ids). */
export function describeMoves(moves: readonly ZoneMove[]) {
  return moves.map((m) => ({
    network_id: m.network.id,
    network_name: m.network.name,
    from_zone_id: m.from.id,
    from_zone: m.from.name,
  }));
}

/** Preview sentences for moves into `targetName`. */
export function moveWarnings(moves: readonly ZoneMove[], targetName: string): string[] {
  return moves.map(
    (m) =>
      `${m.network.name ?? m.network.id} moves from zone "${m.from.name}" to "${targetName}": ` +
      `the policies of "${m.from.name}" stop applying to it`,
  );
}

/** Preview sentences for networks a zone gives up without another zone taking them. */
export function leaveWarnings(leaving: readonly NetworkIds[], zoneName: string): string[] {
  return leaving.map(
    (n) =>
      `${n.name ?? n.id} leaves zone "${zoneName}" and will be in no zone; zone policies stop applying to it`,
  );
}
