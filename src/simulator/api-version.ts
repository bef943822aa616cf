/**
 * Which official Network API (Integration) operations the simulated console offers, by the version
 * it plays (`SIMULATOR_API_VERSION`, e.g. `9.0`, `10.1`). A route of an operation the version lacks
 * is never registered, so it answers 404 "No route" as a real older console does. The table is the
 * simulator's own copy of the facts in docs/decisions.md ("The official API first"); a test checks
 * that it agrees with the bot's capability table.
 */

/** The version played when none is given: the document the bot is checked against. */
export const DEFAULT_API_VERSION = '10.1';

// Full version strings the console reports in `info` (and classic sysinfo) for the short forms.
const REPORTED: Readonly<Record<string, string>> = {
  '9.0': '9.0.114',
  '9.4': '9.4.19',
  '10.1': '10.1.68',
};

/** The version `GET /integration/v1/info` answers for a played version (`9.0` → `9.0.114`). */
export function reportedVersion(apiVersion: string): string {
  const short = /^\d+\.\d+$/.test(apiVersion) ? apiVersion : undefined;
  if (short !== undefined) return REPORTED[short] ?? `${short}.0`;
  return apiVersion;
}

/** `major.minor` or `major.minor.patch`, as SIMULATOR_API_VERSION takes it. */
export const API_VERSION_PATTERN = /^\d{1,2}\.\d{1,2}(\.\d{1,4})?$/;

// Pattern (relative to `/integration/v1/`) → first version offering it, checked in order.
const SINCE: readonly { pattern: RegExp; since: readonly [number, number] }[] = [
  { pattern: /^(info|sites)$/, since: [9, 0] },
  { pattern: /^sites\/:siteId\/devices\/:[^/]+\/interfaces\/ports\/:[^/]+\/actions$/, since: [9, 4] },
  { pattern: /^sites\/:siteId\/devices(\/:[^/]+(\/actions)?)?$/, since: [9, 0] },
  { pattern: /^sites\/:siteId\/clients$/, since: [9, 0] },
  { pattern: /^sites\/:siteId\/clients\/:[^/]+(\/actions)?$/, since: [9, 4] },
  { pattern: /^sites\/:siteId\/hotspot\/vouchers(\/:[^/]+)?$/, since: [9, 4] },
];
const LATER: readonly [number, number] = [10, 1];

/**
 * Official operations a console may serve before the version whose document describes them (real
 * consoles served `acl-rules` before 10.x): a simulator playing an older version serves these too
 * when asked to (`officialAlso`), so the bot's try-then-refuse can be held against both kinds.
 */
export type OfficialExtra = 'acl-rules' | 'firewall-zones' | 'traffic-matching-lists';

export const OFFICIAL_EXTRAS: readonly OfficialExtra[] = [
  'acl-rules',
  'firewall-zones',
  'traffic-matching-lists',
];

const EXTRA_ROUTES: Readonly<Record<OfficialExtra, RegExp>> = {
  'acl-rules': /^sites\/:siteId\/acl-rules(\/|$)/,
  'firewall-zones': /^sites\/:siteId\/firewall\/zones(\/|$)/,
  'traffic-matching-lists': /^sites\/:siteId\/traffic-matching-lists(\/|$)/,
};

/**
 * Whether a console playing `apiVersion` offers the Integration route `pattern` (`/integration/v1/…`);
 * `also`: operations it serves whatever the version.
 */
export function simulatorOffers(
  apiVersion: string,
  pattern: string,
  also: readonly OfficialExtra[] = [],
): boolean {
  const relative = pattern.replace(/^\/integration\/v1\//, '');
  if (also.some((extra) => EXTRA_ROUTES[extra].test(relative))) return true;
  const match = /^(\d+)\.(\d+)/.exec(apiVersion);
  if (!match) return true;
  const version = [Number(match[1]), Number(match[2])] as const;
  const since = SINCE.find((entry) => entry.pattern.test(relative))?.since ?? LATER;
  return version[0] > since[0] || (version[0] === since[0] && version[1] >= since[1]);
}
