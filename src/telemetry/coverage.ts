/** Window lengths by the names tools accept (`top_clients window`, DPI `time_range`). */
export const WINDOW_MS = {
  '5m': 300_000,
  '1h': 3_600_000,
  '6h': 21_600_000,
  '12h': 43_200_000,
  '24h': 86_400_000,
  '7d': 604_800_000,
  '30d': 2_592_000_000,
} as const;

export type WindowName = keyof typeof WINDOW_MS;

/** What span an answer covers, said once in words and once in fields. */
export interface Coverage {
  /** The window asked for (`1h`). */
  window: string;
  /** The span the figures cover (ISO 8601); absent when nothing is covered yet. */
  from?: string;
  to?: string;
  seconds: number;
  /** True when the span is the whole window (to the sampling step). */
  complete: boolean;
  /** "last 60 min", or "last 14 min: the bot started 14 min ago". Never names a span it does not cover. */
  covers: string;
}

/** A duration as people say it: 45 s, 14 min, 1 h 5 min, 2 d 3 h. Minutes are floored, never rounded up. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60)
    return seconds % 60 === 0 || minutes >= 10 ? `${minutes} min` : `${minutes} min ${seconds % 60} s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`;
}

/** Why the samples stop where they do. */
export interface History {
  /** When this process started sampling (ms). */
  startedAt: number;
  /** The oldest sample the figures could use (ms), undefined before the first. */
  firstAt: number | undefined;
  /** The sampling interval (ms). */
  intervalMs: number;
  now: number;
}

/**
 * The coverage of a span for a window. A span shorter than the window is named by its own length
 * and the reason: this process started recently, or the samples kept go back only so far.
 */
export function coverage(
  window: string,
  windowMs: number,
  span: { from: number; to: number; stepMs: number },
  history: History,
): Coverage {
  const ms = Math.max(0, span.to - span.from);
  const base = {
    window,
    seconds: Math.round(ms / 1000),
    ...(ms > 0 ? { from: new Date(span.from).toISOString(), to: new Date(span.to).toISOString() } : {}),
  };
  if (ms > 0 && ms >= windowMs - span.stepMs) {
    // A long window counted in hourly buckets may fall short of it by part of an hour: say so.
    const covers =
      ms >= windowMs
        ? `last ${formatDuration(ms)}`
        : `last ${formatDuration(ms)}: older samples are kept as hourly sums, so the oldest part of ${window} is left out`;
    return { ...base, complete: true, covers };
  }
  const began = history.firstAt;
  const reason =
    began === undefined || began >= history.startedAt - history.intervalMs
      ? `the bot started ${formatDuration(history.now - history.startedAt)} ago`
      : `the samples kept go back ${formatDuration(history.now - began)}`;
  if (ms === 0) {
    return {
      ...base,
      complete: false,
      covers: `no span yet: ${reason} and samples every ${formatDuration(history.intervalMs)}; two samples make the first span`,
    };
  }
  return { ...base, complete: false, covers: `last ${formatDuration(ms)}: ${reason}` };
}
