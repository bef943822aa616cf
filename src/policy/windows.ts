import { Cron } from 'croner';

/** A named change window: openings by a cron pattern in a time zone, each open for `durationSeconds`. */
export interface ChangeWindow {
  name: string;
  /** Five-field cron pattern (minute hour day month weekday), or six with seconds first, read in `timezone`. */
  cron: string;
  durationSeconds: number;
  timezone: string;
  /** How the file said it, for `show_policy` (`mon-fri 22:00 for 4h (Europe/Berlin)`). */
  description: string;
}

/** A freeze: from `from` to `to` (ms since the epoch), writes are refused, or need `approvers`. */
export interface Freeze {
  name: string;
  from: number;
  to: number;
  reason: string;
  /** Set: a write during the freeze is allowed with one of these approvers; unset: refused. */
  approvers?: string[];
}

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

const cronCache = new Map<string, Cron>();

function cronOf(window: Pick<ChangeWindow, 'cron' | 'timezone'>): Cron {
  const key = `${window.timezone}\u0000${window.cron}`;
  let cron = cronCache.get(key);
  if (!cron) {
    // No callback: croner schedules nothing, it only answers when the pattern next matches.
    cron = new Cron(window.cron, { timezone: window.timezone, paused: true });
    cronCache.set(key, cron);
  }
  return cron;
}

/** Why a cron pattern is refused, or undefined when croner takes it and it ever matches. */
export function cronProblem(pattern: string, timezone: string): string | undefined {
  // Six fields put seconds first (croner's own form): windows a few seconds long, for tests and drills.
  const fields = pattern.trim().split(/\s+/).length;
  if (fields !== 5 && fields !== 6) {
    return 'must be a cron pattern of five fields: minute hour day-of-month month day-of-week (or six, seconds first)';
  }
  try {
    const next = new Cron(pattern, { timezone, paused: true }).nextRun(new Date(Date.UTC(2000, 0, 1)));
    return next ? undefined : 'never opens';
  } catch (error) {
    return `is not a cron pattern croner accepts: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** The opening in effect at `at` (ms), or undefined when the window is closed then. */
export function openingAt(window: ChangeWindow, at: number): number | undefined {
  const next = cronOf(window).nextRun(new Date(at - window.durationSeconds * 1000));
  const opening = next?.getTime();
  return opening !== undefined && opening <= at ? opening : undefined;
}

export function isOpen(window: ChangeWindow, at: number): boolean {
  return openingAt(window, at) !== undefined;
}

/** The first opening strictly after `after` (ms), or undefined when there is none. */
export function nextOpening(window: ChangeWindow, after: number): number | undefined {
  return cronOf(window).nextRun(new Date(after))?.getTime();
}

// Openings looked at when several windows must all be open at once: a year of daily ones.
const MAX_CANDIDATES = 400;

/**
 * The first moment at or after `at` when every window is open: `at` itself when they all are,
 * else the earliest opening of one of them at which the others are open too. Undefined when the
 * windows never overlap within the search.
 */
export function firstCommonOpening(windows: readonly ChangeWindow[], at: number): number | undefined {
  if (windows.length === 0) return at;
  if (windows.every((w) => isOpen(w, at))) return at;
  let cursor = at;
  for (let i = 0; i < MAX_CANDIDATES; i += 1) {
    const candidates = windows.map((w) => nextOpening(w, cursor)).filter((t): t is number => t !== undefined);
    if (candidates.length === 0) return undefined;
    const t = Math.min(...candidates);
    if (windows.every((w) => isOpen(w, t))) return t;
    cursor = t;
  }
  return undefined;
}

/** Freezes in force at `at` (from ≤ at < to). */
export function activeFreezes(freezes: readonly Freeze[], at: number): Freeze[] {
  return freezes.filter((f) => f.from <= at && at < f.to);
}

/** `HH:MM` (24 h) as minutes after midnight, or undefined. */
export function parseClock(text: string): number | undefined {
  const match = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(text.trim());
  return match ? Number(match[1]) * 60 + Number(match[2]) : undefined;
}
