/**
 * Which official Network API (Integration, `/integration/v1/…`) operations a console offers, by the
 * Network application version it reports in `GET /integration/v1/info`, and so which endpoint
 * generation (official, classic `api/s/{site}`, v2 `v2/api/site/{site}`) each tool group uses there.
 * Pure data and functions: the sources of each fact are in docs/decisions.md, "The official API first".
 */

/** The three endpoint generations the bot speaks. */
export type Generation = 'official' | 'classic' | 'v2';

/** Official operations the bot uses, grouped as the document groups them. */
export type OfficialOperation =
  | 'info'
  | 'sites'
  | 'devices.read'
  | 'devices.action'
  | 'devices.port-action'
  | 'clients.read'
  | 'clients.action'
  | 'hotspot.vouchers'
  | 'networks'
  | 'networks.references'
  | 'firewall.zones'
  | 'firewall.policies'
  | 'firewall.policies.ordering'
  | 'acl-rules'
  | 'acl-rules.ordering'
  | 'traffic-matching-lists'
  | 'wifi.broadcasts'
  | 'dpi.catalogue';

/** A version as `[major, minor]`; patch levels never decide an operation here. */
export type Version = readonly [number, number];

/** The newest version whose document was read: unknown or unreadable versions are treated as this. */
export const NEWEST_KNOWN: Version = [10, 1];

/**
 * The first version whose document was read that offers each operation. 9.0: the first official
 * API (7 endpoints: info, sites, devices list/get/latest statistics, device action, clients list);
 * 9.4: the 9.4.19 document (port action, client get and actions, vouchers); 10.1: the 10.1.85
 * document (the rest). An entry is an upper bound on when the operation appeared, not a lower one
 * (versions between were not read, and consoles served `acl-rules` before 10.x). So it only
 * chooses between an official endpoint and a private one; an operation without a private one
 * (NO_PRIVATE_FALLBACK) is asked on every version, and only the console's 404 refuses it.
 */
export const OFFICIAL_SINCE: Readonly<Record<OfficialOperation, Version>> = {
  // Deliberately alike: a version table, one row per operation.
  info: [9, 0],
  sites: [9, 0],
  'devices.read': [9, 0],
  'devices.action': [9, 0],
  'clients.read': [9, 0],
  'devices.port-action': [9, 4],
  'clients.action': [9, 4],
  'hotspot.vouchers': [9, 4],
  networks: [10, 1],
  'networks.references': [10, 1],
  'firewall.zones': [10, 1],
  'firewall.policies': [10, 1],
  'firewall.policies.ordering': [10, 1],
  'acl-rules': [10, 1],
  'acl-rules.ordering': [10, 1],
  'traffic-matching-lists': [10, 1],
  'wifi.broadcasts': [10, 1],
  'dpi.catalogue': [10, 1],
};

/**
 * Official operations the bot has no private (classic or v2) endpoint for: the version cannot
 * choose anything for them, so they are tried on any console with an API key.
 */
export const NO_PRIVATE_FALLBACK: ReadonlySet<OfficialOperation> = new Set<OfficialOperation>([
  'firewall.zones',
  'acl-rules',
  'acl-rules.ordering',
  'traffic-matching-lists',
]);

/** `10.1.85` → `[10, 1]`; anything unreadable → undefined. */
export function parseVersion(text: string | undefined): Version | undefined {
  const match = /^\s*(\d+)\.(\d+)/.exec(text ?? '');
  if (!match) return undefined;
  return [Number(match[1]), Number(match[2])];
}

function atLeast(version: Version, since: Version): boolean {
  return version[0] > since[0] || (version[0] === since[0] && version[1] >= since[1]);
}

/**
 * Whether the table picks the official endpoint of `operation` on a console reporting `version`.
 * `undefined` means the console has no official API the bot can reach (no API key, or `info` not
 * found: before Network 9.0). False does not mean the console lacks it (see OFFICIAL_SINCE).
 */
export function offersOfficial(version: Version | undefined, operation: OfficialOperation): boolean {
  if (version === undefined) return false;
  return atLeast(version, OFFICIAL_SINCE[operation]);
}

/** The tool groups as the capability table names them (one per group in help). */
export type ApiGroup =
  | 'networks'
  | 'firewall-zones'
  | 'firewall-rules'
  | 'firewall-policies'
  | 'acl-rules'
  | 'traffic-matching-lists'
  | 'traffic-routes'
  | 'dpi'
  | 'bandwidth'
  | 'topology'
  | 'clients'
  | 'devices'
  | 'device-actions'
  | 'client-actions'
  | 'hotspot'
  | 'wifi';

/** What a group uses on a console: its generations, the first being the main one. */
export interface GroupApis {
  group: ApiGroup;
  generations: Generation[];
  /** When the official API would serve the group on a newer console, or never. */
  note?: string;
}

type Rule = (v: Version | undefined) => { generations: Generation[]; note?: string };

const only =
  (...generations: Generation[]): Rule =>
  () => ({ generations });

/**
 * A group with no private endpoint: official wherever an official API answers, whatever the version
 * (the console's 404 refuses it, not the table); the note says when the version predates the
 * document that describes it.
 */
const officialOnly =
  (operation: OfficialOperation): Rule =>
  (v) => {
    if (v === undefined) return { generations: [], note: 'needs the official API and an API key' };
    if (offersOfficial(v, operation)) return { generations: ['official'] };
    return {
      generations: ['official'],
      note: `tried: documented from Network ${sinceText(operation)}; refused if this console answers 404`,
    };
  };

/** The group whose only endpoint is an official operation, for a refusal remembered per console. */
export const GROUP_OF_OFFICIAL_ONLY: Readonly<Partial<Record<OfficialOperation, ApiGroup>>> = {
  'firewall.zones': 'firewall-zones',
  'acl-rules': 'acl-rules',
  'acl-rules.ordering': 'acl-rules',
  'traffic-matching-lists': 'traffic-matching-lists',
};

/**
 * The table: tool group × version → generations. It says what the bot does today, which is what
 * the tests check (docs/decisions.md lists where the bot still uses a private endpoint although
 * the official API has one).
 */
const TABLE: Readonly<Record<ApiGroup, Rule>> = {
  // 10.1: read and written through the official `networks` operations, mapped to the spec's
  // results (tools/networks/official-network-model.ts); older consoles: classic networkconf.
  networks: (v) => ({ generations: offersOfficial(v, 'networks') ? ['official'] : ['classic'] }),
  'firewall-zones': officialOnly('firewall.zones'),
  'firewall-rules': only('classic', 'v2'),
  'firewall-policies': (v) => ({
    generations: offersOfficial(v, 'firewall.policies') ? ['official'] : ['v2'],
  }),
  'acl-rules': officialOnly('acl-rules'),
  'traffic-matching-lists': officialOnly('traffic-matching-lists'),
  'traffic-routes': only('v2'),
  dpi: (v) => ({ generations: offersOfficial(v, 'dpi.catalogue') ? ['classic', 'official'] : ['classic'] }),
  bandwidth: only('classic'),
  topology: only('classic'),
  clients: (v) => ({
    generations: offersOfficial(v, 'clients.read') ? ['classic', 'official'] : ['classic'],
  }),
  devices: only('classic'),
  'device-actions': (v) => ({
    generations: offersOfficial(v, 'devices.action') ? ['official', 'classic'] : ['classic'],
  }),
  'client-actions': (v) => ({
    generations: offersOfficial(v, 'clients.action') ? ['official', 'classic'] : ['classic'],
  }),
  hotspot: (v) => ({ generations: offersOfficial(v, 'hotspot.vouchers') ? ['official'] : ['classic'] }),
  // 10.1: broadcasts read and toggled through the official `wifi/broadcasts`; the
  // client counts stay classic stat/sta.
  wifi: (v) => ({
    generations: offersOfficial(v, 'wifi.broadcasts') ? ['official', 'classic'] : ['classic'],
  }),
};

/**
 * Every group's generations on a console reporting `version` (undefined: no official API
 * reachable); a group whose only operation the console answered 404 (`missing`) is not offered.
 */
export function groupApis(
  version: Version | undefined,
  missing: ReadonlySet<OfficialOperation> = new Set(),
): GroupApis[] {
  const refused = new Map<ApiGroup, OfficialOperation>();
  for (const operation of missing) {
    const group = GROUP_OF_OFFICIAL_ONLY[operation];
    if (group !== undefined && !refused.has(group)) refused.set(group, operation);
  }
  return (Object.keys(TABLE) as ApiGroup[]).map((group) => {
    const operation = refused.get(group);
    if (operation === undefined) return { group, ...TABLE[group](version) };
    return {
      group,
      generations: [],
      note: `this console answered 404 for ${OPERATION_WORDS[operation]} in its official API`,
    };
  });
}

/** One group's generations, as help and App Home print them: `official`, `classic + v2`, `not offered (…)`. */
export function describeGroupApis(apis: GroupApis): string {
  if (apis.generations.length === 0) return `not offered (${apis.note ?? 'no endpoint'})`;
  return apis.generations.join(' + ');
}

/** The official operation an Integration path (relative to the site, or global) belongs to. */
export function operationOfPath(path: string): OfficialOperation | undefined {
  const p = path.split('?')[0]?.replace(/^\/+/, '') ?? '';
  if (p === 'info') return 'info';
  if (p === 'sites') return 'sites';
  if (p.startsWith('dpi/')) return 'dpi.catalogue';
  if (/^devices\/[^/]+\/interfaces\/ports\/[^/]+\/actions$/.test(p)) return 'devices.port-action';
  if (/^devices\/[^/]+\/actions$/.test(p)) return 'devices.action';
  if (p === 'devices' || p.startsWith('devices/')) return 'devices.read';
  if (/^clients\/[^/]+\/actions$/.test(p)) return 'clients.action';
  if (p === 'clients' || p.startsWith('clients/')) return 'clients.read';
  if (p.startsWith('hotspot/vouchers')) return 'hotspot.vouchers';
  if (/^networks\/[^/]+\/references$/.test(p)) return 'networks.references';
  if (p === 'networks' || p.startsWith('networks/')) return 'networks';
  if (p.startsWith('firewall/zones')) return 'firewall.zones';
  if (p === 'firewall/policies/ordering') return 'firewall.policies.ordering';
  if (p.startsWith('firewall/policies')) return 'firewall.policies';
  if (p === 'acl-rules/ordering') return 'acl-rules.ordering';
  if (p.startsWith('acl-rules')) return 'acl-rules';
  if (p.startsWith('traffic-matching-lists')) return 'traffic-matching-lists';
  if (p.startsWith('wifi/broadcasts')) return 'wifi.broadcasts';
  return undefined;
}

/**
 * Whether an Integration path names a whole collection (a list, a create, an ordering), not one
 * object in it: a 404 there means the console lacks the route, while on `acl-rules/{id}` it may
 * only mean that the rule is gone.
 */
export function isCollectionPath(path: string): boolean {
  const p = path.split('?')[0]?.replace(/^\/+|\/+$/g, '') ?? '';
  return /^(info|sites|devices|clients|networks|hotspot\/vouchers|firewall\/zones|firewall\/policies(\/ordering)?|acl-rules(\/ordering)?|traffic-matching-lists|wifi\/broadcasts|dpi\/[a-z-]+)$/.test(
    p,
  );
}

/** Words for an operation in a refusal. */
export const OPERATION_WORDS: Readonly<Record<OfficialOperation, string>> = {
  info: 'application info',
  sites: 'sites',
  'devices.read': 'devices',
  'devices.action': 'device actions',
  'devices.port-action': 'port actions',
  'clients.read': 'clients',
  'clients.action': 'client actions',
  'hotspot.vouchers': 'hotspot vouchers',
  networks: 'networks',
  'networks.references': 'network references',
  'firewall.zones': 'firewall zones',
  'firewall.policies': 'firewall policies',
  'firewall.policies.ordering': 'firewall policy ordering',
  'acl-rules': 'ACL rules',
  'acl-rules.ordering': 'ACL rule ordering',
  'traffic-matching-lists': 'traffic matching lists',
  'wifi.broadcasts': 'Wi-Fi broadcasts',
  'dpi.catalogue': 'the DPI catalogue',
};

/** `10.1` for a refusal's "needs Network 10.1 or later". */
export function sinceText(operation: OfficialOperation): string {
  const [major, minor] = OFFICIAL_SINCE[operation];
  return `${major}.${minor}`;
}
