import type { AffectedSet, BlastRadius, ImpactFacts, Risk } from './types.js';

/** Names shown per affected set; the count is always whole. */
export const MAX_NAMES = 5;

/** Clients (or downstream devices) from which a change is high risk. */
export const HIGH_RISK_CLIENTS = 25;
export const HIGH_RISK_DEVICES = 3;

const EMPTY: AffectedSet = { count: 0, names: [] };

const RANK: Record<Risk, number> = { low: 0, medium: 1, high: 2 };

/** The higher of two risks. */
export function maxRisk(a: Risk, b: Risk): Risk {
  return RANK[a] >= RANK[b] ? a : b;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function named(set: AffectedSet): string {
  if (set.names.length === 0) return '';
  const more = set.count > set.names.length ? `, +${set.count - set.names.length} more` : '';
  return ` (${set.names.join(', ')}${more})`;
}

/**
 * The blast radius and risk of a change from the facts the tools gathered. High: it cuts the
 * bot's own path to the controller, takes away 25 or more clients or 3 or more devices, or
 * deletes an object others refer to. Medium: any client, device or reference affected, any
 * delete, or something that could not be checked. Low: none of these.
 */
export function assessImpact(facts: ImpactFacts): BlastRadius {
  const clients = facts.clients ?? EMPTY;
  const devices = facts.devices ?? EMPTY;
  const references = facts.references ?? [];
  const unchecked = facts.unchecked ?? [];
  const reasons: string[] = [];
  let risk: Risk = 'low';
  const raise = (to: Risk, reason: string) => {
    risk = maxRisk(risk, to);
    reasons.push(reason);
  };
  if (facts.selfLockout) raise('high', `self-lockout: ${facts.selfLockout}`);
  if (clients.count > 0) {
    raise(
      clients.count >= HIGH_RISK_CLIENTS ? 'high' : 'medium',
      `${plural(clients.count, 'client')} affected${named(clients)}`,
    );
  }
  if (devices.count > 0) {
    raise(
      devices.count >= HIGH_RISK_DEVICES ? 'high' : 'medium',
      `${plural(devices.count, 'device')} affected${named(devices)}`,
    );
  }
  const names = (list: readonly { kind: string; name: string }[]) => {
    const shown = list
      .slice(0, MAX_NAMES)
      .map((r) => `${r.kind} "${r.name}"`)
      .join(', ');
    return `${shown}${list.length > MAX_NAMES ? `, +${list.length - MAX_NAMES} more` : ''}`;
  };
  // Only a removal leaves references dangling, and only those the controller does not clean up.
  const dangling = facts.removes ? references.filter((r) => r.dangles !== false) : [];
  const others = references.filter((r) => !dangling.includes(r));
  if (dangling.length > 0) {
    raise(
      'high',
      `${plural(dangling.length, 'object')} ${dangling.length === 1 ? 'refers' : 'refer'} to ${facts.target ?? 'the target'}: ${names(dangling)} (they are left pointing at nothing)`,
    );
  }
  if (others.length > 0) {
    raise(
      'medium',
      `${plural(others.length, 'object')} ${others.length === 1 ? 'refers' : 'refer'} to ${facts.target ?? 'the target'}: ${names(others)}${facts.removes ? ' (the controller takes it out of them)' : ''}`,
    );
  }
  if (facts.removes && references.length === 0) raise('medium', `deletes ${facts.target ?? 'the target'}`);
  for (const u of unchecked) raise('medium', `not checked: ${u}`);
  if (reasons.length === 0) reasons.push('no clients, devices or references affected');
  return {
    risk,
    reasons,
    clients: { count: clients.count, names: clients.names.slice(0, MAX_NAMES) },
    devices: { count: devices.count, names: devices.names.slice(0, MAX_NAMES) },
    references,
    selfLockout: Boolean(facts.selfLockout),
    ...(facts.selfLockout
      ? { selfLockoutWarning: `This change may cut the bot off from the controller: ${facts.selfLockout}.` }
      : {}),
    unchecked,
  };
}
