/*
 * Short human text for the on-call answers: rates, durations and radio bands as a
 * person reads them at 3 a.m. The exact numbers stay in the results too (`--json`, MCP).
 */

/**
 * A number in the largest SI unit (steps of 1000) it reaches, up to the last of `units`: no
 * decimals in the base unit or from 100 up, else one.
 */
function siScaled(amount: number, units: readonly string[]): string {
  let value = amount;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(value >= 100 || unit === 0 ? 0 : 1)} ${units[unit]}`;
}

/** Bits per second as `12.3 Mbps` (SI units, as link speeds are written). */
export function formatRate(bitsPerSecond: number): string {
  if (!Number.isFinite(bitsPerSecond) || bitsPerSecond <= 0) return '0 bps';
  return siScaled(bitsPerSecond, ['bps', 'kbps', 'Mbps', 'Gbps']);
}

/** Seconds as `3d 4h`, `2h 5m`, `4m 10s`: the two largest units. */
export function formatDuration(seconds: number | undefined): string | null {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return null;
  const s = Math.floor(seconds);
  const parts: [number, string][] = [
    [Math.floor(s / 86400), 'd'],
    [Math.floor((s % 86400) / 3600), 'h'],
    [Math.floor((s % 3600) / 60), 'm'],
    [s % 60, 's'],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  if (first === -1) return '0s';
  return parts
    .slice(first, first + 2)
    .filter(([n]) => n > 0)
    .map(([n, u]) => `${n}${u}`)
    .join(' ');
}

/** The classic `radio` code as a band: ng 2.4 GHz, na 5 GHz, 6e 6 GHz. */
export function bandOf(radio: string | undefined): string | null {
  if (radio === undefined) return null;
  const bands: Record<string, string> = { ng: '2.4 GHz', na: '5 GHz', '6e': '6 GHz', '6g': '6 GHz' };
  return bands[radio] ?? radio;
}

/** Epoch seconds as ISO 8601 (UTC), or null. */
export function isoFromEpoch(seconds: number | undefined): string | null {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) return null;
  return new Date(seconds * 1000).toISOString();
}

/** Bytes as `1.2 GB` (SI units). */
export function formatBytesShort(bytes: number): string {
  return siScaled(bytes, ['B', 'kB', 'MB', 'GB', 'TB']);
}
