import { randomBytes } from 'node:crypto';
import type { Condition } from './observe.js';
import type { Incident } from './types.js';

/** What one poll changed: incidents to post, and incidents whose message must be edited. */
export interface TrackResult {
  opened: Incident[];
  updated: Incident[];
}

export const newIncidentId = (key: string, at: number) =>
  `in_${at.toString(36)}_${randomBytes(4).toString('hex')}_${key.split(':')[0]}`;

/**
 * Turns the conditions of each poll into incidents, with flap suppression: a subject that comes back
 * and fails again within `flapMs` reopens its incident (one message, edited) instead of a new one.
 * Pure over its input list: the caller keeps the incidents in the store.
 */
export function trackConditions(
  incidents: Incident[],
  conditions: readonly Condition[],
  site: string,
  at: number,
  flapMs: number,
): TrackResult {
  const opened: Incident[] = [];
  const updated: Incident[] = [];
  const active = new Map(conditions.map((c) => [c.key, c]));
  const latest = new Map<string, Incident>();
  for (const incident of incidents) {
    if (incident.site !== site) continue;
    const seen = latest.get(incident.key);
    if (!seen || seen.startedAt <= incident.startedAt) latest.set(incident.key, incident);
  }
  for (const condition of active.values()) {
    const known = latest.get(condition.key);
    if (condition.event) {
      // Reported once per change; the same event key a moment later is a new move.
      const incident = newIncident(condition, site, at);
      incident.resolvedAt = at;
      incidents.push(incident);
      opened.push(incident);
      continue;
    }
    if (known && known.resolvedAt === undefined) continue;
    if (known && known.resolvedAt !== undefined && at - known.resolvedAt <= flapMs) {
      known.resolvedAt = undefined;
      known.flaps += 1;
      updated.push(known);
      continue;
    }
    const incident = newIncident(condition, site, at);
    incidents.push(incident);
    opened.push(incident);
  }
  for (const incident of latest.values()) {
    if (incident.event || incident.source !== 'poller' || incident.resolvedAt !== undefined) continue;
    if (active.has(incident.key)) continue;
    incident.resolvedAt = at;
    updated.push(incident);
  }
  return { opened, updated };
}

function newIncident(condition: Condition, site: string, at: number): Incident {
  return {
    id: newIncidentId(condition.key, at),
    key: condition.key,
    site,
    kind: condition.kind,
    subject: condition.subject,
    ...(condition.mac ? { mac: condition.mac } : {}),
    ...(condition.detail ? { detail: condition.detail } : {}),
    startedAt: at,
    flaps: 0,
    ...(condition.event ? { event: true } : {}),
    source: 'poller',
  };
}

/** Incidents worth keeping: open ones, and those that ended within `keepMs` (the digest's day). */
export function pruneIncidents(incidents: Incident[], at: number, keepMs: number): Incident[] {
  return incidents.filter((i) => i.resolvedAt === undefined || at - i.resolvedAt <= keepMs);
}
