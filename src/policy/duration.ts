const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** The rule a duration must follow, worded once for every message that refuses one. */
export const DURATION_RULE = 'must be a duration such as 90s, 30m, 2h, 1d or 1h30m';

/**
 * `90s`, `30m`, `2h`, `1d`, `1w` or a sum such as `1h30m`, in seconds; undefined for anything
 * else (no bare numbers: `30` could mean seconds or minutes).
 */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim().toLowerCase();
  if (!/^(\d+[smhdw])+$/.test(trimmed)) return undefined;
  let seconds = 0;
  for (const match of trimmed.matchAll(/(\d+)([smhdw])/g)) {
    seconds += Number(match[1]) * (UNIT_SECONDS[match[2] ?? 's'] ?? 1);
  }
  return seconds > 0 && Number.isSafeInteger(seconds) ? seconds : undefined;
}

/** Seconds as the shortest exact duration text (`5400` → `1h30m`). */
export function formatDuration(seconds: number): string {
  return durationParts(seconds).join('') || '0s';
}

/**
 * Seconds as people write them, one part per unit (`5400` → `1h 30m`): how a message spells a
 * duration in a sentence.
 */
export function durationText(seconds: number): string {
  return durationParts(seconds).join(' ') || '0s';
}

/** Whole days, hours, minutes and seconds, largest first, each only when not zero. */
function durationParts(seconds: number): string[] {
  let rest = Math.round(seconds);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts;
}
