import { DEMO_NOW } from './demo-ids.js';
import { createDemoSites } from './demo-site.js';
import { type LiveActionState, newVoucherCode, settleSite } from './live-actions.js';
import { createPrng, type Prng } from './prng.js';
import type { SimulatorFirewall } from './types.js';

/** Network purposes the controller accepts (its own `purpose` pattern). */
export const NETWORK_PURPOSES = [
  'corporate',
  'guest',
  'remote-user-vpn',
  'site-vpn',
  'vlan-only',
  'vpn-client',
  'wan',
] as const;

/** A classic `rest/networkconf` record, stored exactly as served; unknown keys pass through. */
export interface NetworkConf {
  _id: string;
  site_id: string;
  name: string;
  purpose: string;
  /** The network's Integration UUID (what `/integration/v1/…/networks` calls `id`). */
  external_id?: string;
  enabled?: boolean;
  vlan_enabled?: boolean;
  /** An int, or `""` / a numeric string on some records (a real quirk). Absent on the default LAN. */
  vlan?: number | string;
  ip_subnet?: string;
  dhcpd_enabled?: boolean;
  dhcpd_start?: string;
  dhcpd_stop?: string;
  dhcpd_leasetime?: number | string;
  attr_no_delete?: boolean;
  attr_hidden_id?: string;
  [key: string]: unknown;
}

/** A classic `stat/device` record (gateway, switch or AP). */
export interface DeviceRecord {
  _id: string;
  mac: string;
  name?: string;
  model: string;
  type: string;
  ip: string;
  state: number;
  adopted: boolean;
  [key: string]: unknown;
}

/** A classic `stat/sta` record (an active client). */
export interface ClientRecord {
  _id: string;
  mac: string;
  is_wired: boolean;
  name?: string;
  hostname?: string;
  network_id?: string;
  network?: string;
  [key: string]: unknown;
}

/** A classic `rest/firewallrule` record. */
export interface FirewallRule {
  _id: string;
  site_id: string;
  name: string;
  ruleset: string;
  rule_index: number | string;
  action: string;
  enabled: boolean;
  [key: string]: unknown;
}

/** Who made an Integration object. */
export type Origin = 'SYSTEM_DEFINED' | 'USER_DEFINED';

/**
 * A firewall zone. The Integration API shows `id` (UUID), `name`, `networkIds` (network UUIDs)
 * and `metadata`; the v2 API shows the same zone by `_id`, with `zone_key` and networkconf `_id`s.
 */
export interface FirewallZone {
  id: string;
  /** The v2 `_id` (what a policy's `zone_id` names). */
  _id: string;
  /** System zones' stable key (`internal`, `external`…); null for user zones. */
  zone_key: string | null;
  name: string;
  networkIds: string[];
  metadata: { origin: Origin; configurable?: boolean };
}

/** One side of a v2 firewall policy (go-unifi `FirewallPolicySource` / `Destination`). */
export interface FirewallPolicyEndpoint {
  zone_id: string;
  matching_target: string;
  [key: string]: unknown;
}

/**
 * A v2 `firewall-policies` record (zone-based firewall), stored as served. The official
 * `firewall/policies` routes show the same record by `external_id` (one state).
 */
export interface FirewallPolicy {
  _id: string;
  /** The policy's official (Integration) UUID; a simulator choice, as networkconf and v2 zones carry one. */
  external_id?: string;
  name: string;
  action: string;
  enabled: boolean;
  index: number;
  predefined: boolean;
  source: FirewallPolicyEndpoint;
  destination: FirewallPolicyEndpoint;
  [key: string]: unknown;
}

/** An IPV4 ACL endpoint filter (the API's union keyed on `type`). */
export type Ipv4AclEndpoint =
  | { type: 'IP_ADDRESSES_OR_SUBNETS'; ipAddressesOrSubnets: string[]; portFilter?: number[] | null }
  | { type: 'NETWORKS'; networkIds: string[]; portFilter?: number[] | null }
  | { type: 'PORTS'; portFilter: number[] };

/** A MAC ACL endpoint filter. */
export interface MacAclEndpoint {
  type: 'MAC_ADDRESSES';
  macAddresses: string[];
  prefixLength?: number;
}

/** The switches that enforce an ACL rule; null means every switch. */
export type EnforcingDeviceFilter = { type: 'DEVICES'; deviceIds: string[] } | null;

/** Fields every ACL rule has; `index` is not stored, it is the rule's place in `aclOrdering`. */
interface AclRuleBase {
  id: string;
  enabled: boolean;
  name: string;
  description?: string;
  action: 'ALLOW' | 'BLOCK';
  enforcingDeviceFilter: EnforcingDeviceFilter;
  metadata: { origin: Origin | 'DERIVED' };
}

/** An Integration ACL rule (IPV4 or MAC). */
export type AclRule =
  | (AclRuleBase & {
      type: 'IPV4';
      sourceFilter: Ipv4AclEndpoint | null;
      destinationFilter: Ipv4AclEndpoint | null;
      protocolFilter: ('TCP' | 'UDP')[] | null;
    })
  | (AclRuleBase & {
      type: 'MAC';
      sourceFilter: MacAclEndpoint | null;
      destinationFilter: MacAclEndpoint | null;
      networkIdFilter?: string | null;
    });

// Deliberately alike: the simulator types list items on its own, apart from tools/firewall/traffic-matching-list-model.ts, so each checks the other.
/** One typed item of a traffic matching list. */
export type TrafficMatchingItem =
  | { type: 'PORT_NUMBER'; value: number }
  | { type: 'PORT_NUMBER_RANGE'; start: number; stop: number }
  | { type: 'IP_ADDRESS'; value: string }
  | { type: 'SUBNET'; value: string }
  | { type: 'IP_ADDRESS_RANGE'; start: string; stop: string };

/** Traffic matching list kinds. */
export const TRAFFIC_MATCHING_LIST_TYPES = ['PORTS', 'IPV4_ADDRESSES', 'IPV6_ADDRESSES'] as const;

/** An Integration traffic matching list. */
export interface TrafficMatchingList {
  type: (typeof TRAFFIC_MATCHING_LIST_TYPES)[number];
  id: string;
  name: string;
  items: TrafficMatchingItem[];
}

/** A v2 `trafficrules` record (Traffic Management rule), shaped like the aiounifi fixture. */
export interface TrafficRule {
  _id: string;
  action: 'ALLOW' | 'BLOCK';
  description: string;
  enabled: boolean;
  matching_target: string;
  bandwidth_limit: { download_limit_kbps: number; enabled: boolean; upload_limit_kbps: number };
  [key: string]: unknown;
}

/** A v2 `trafficroutes` record (policy-based route). */
export interface TrafficRoute {
  _id: string;
  description: string;
  enabled: boolean;
  matching_target: string;
  network_id: string;
  [key: string]: unknown;
}

/** A classic `rest/wlanconf` record (an SSID); `networkconf_id` is the network its clients join. */
export interface WlanConf {
  _id: string;
  site_id: string;
  name: string;
  enabled: boolean;
  networkconf_id: string;
  [key: string]: unknown;
}

/** A classic `rest/portconf` record (a switch port profile) and the networks it carries. */
export interface PortConf {
  _id: string;
  site_id: string;
  name: string;
  forward: string;
  native_networkconf_id?: string;
  tagged_networkconf_ids?: string[];
  voice_networkconf_id?: string;
  [key: string]: unknown;
}

/** Byte and packet counters as `stat/sitedpi` and `stat/stadpi` report them. */
export interface DpiCounters {
  rx_bytes: number;
  tx_bytes: number;
  rx_packets: number;
  tx_packets: number;
}

/** Counters of one application (`cat` + `app`, unique together). */
export interface DpiAppCounters extends DpiCounters {
  app: number;
  cat: number;
}

/** One client's per-application DPI counters. */
export interface ClientDpi {
  mac: string;
  by_app: DpiAppCounters[];
}

/**
 * DPI state of a site. Site totals are computed on read: the sum over `clients` plus
 * `unattributed` (traffic of clients that have left), so per-client totals never exceed them.
 */
export interface SiteDpi {
  /** When true, sitedpi/stadpi answer 200 with empty `data` (what many 10.x consoles do). */
  empty: boolean;
  /** `last_updated` (epoch seconds) reported with the counters. */
  lastUpdated: number;
  clients: ClientDpi[];
  unattributed: DpiAppCounters[];
}

/**
 * Everything the simulator knows about one site. Tests may read and edit it directly. The
 * on-call actions' state (clients away, devices restarting, blocks, guest authorizations,
 * vouchers) is in `LiveActionState` (live-actions.ts).
 */
export interface SiteState extends LiveActionState {
  /** Classic site `_id` (24 hex); networkconf `site_id` carries it. */
  _id: string;
  /** Classic short name, the `{site}` path segment (`default`). */
  name: string;
  desc: string;
  /** Integration site UUID; `internalReference` on it is `name`. */
  uuid: string;
  networks: NetworkConf[];
  devices: DeviceRecord[];
  clients: ClientRecord[];
  /** Which firewall the site runs; decides what the rule, zone and policy routes answer. */
  firewall: SimulatorFirewall;
  firewallRules: FirewallRule[];
  zones: FirewallZone[];
  firewallPolicies: FirewallPolicy[];
  aclRules: AclRule[];
  /** User-defined ACL rule ids, highest priority first (`acl-rules/ordering`). */
  aclOrdering: string[];
  trafficMatchingLists: TrafficMatchingList[];
  trafficRules: TrafficRule[];
  trafficRoutes: TrafficRoute[];
  wlans: WlanConf[];
  portProfiles: PortConf[];
  dpi: SiteDpi;
}

/**
 * Builds a console's seeded sites from the seed, firewall generation and start (epoch seconds).
 * The default is the one demo site; a fleet's consoles build several, each its own.
 */
export type SiteBuilder = (seed: number, firewall: SimulatorFirewall, startedAt: number) => SiteState[];

/** The live in-memory store behind every route. JSON-serialisable: `JSON.stringify(state)` is stable. */
export class SimulatorState {
  sites: SiteState[];
  /** How long a restarted device, a power-cycled port or a kicked client stays away (ms); tests shorten it. */
  actionDelayMs = 20_000;
  readonly #seed: number;
  readonly #firewall: SimulatorFirewall;
  /** Epoch seconds the seeded timestamps are relative to (the simulator's start). */
  readonly startedAt: number;
  readonly #build: SiteBuilder;
  #ids: Prng;

  constructor(
    seed: number,
    firewall: SimulatorFirewall = 'zone-based',
    startedAt: number = DEMO_NOW,
    build: SiteBuilder = createDemoSites,
  ) {
    this.#seed = seed;
    this.#firewall = firewall;
    this.startedAt = startedAt;
    this.#build = build;
    this.sites = build(seed, firewall, startedAt);
    this.#ids = idGenerator(seed);
  }

  /** Back to the freshly seeded demo (in place, so held references stay valid), as at the start. */
  reset(): void {
    this.sites = this.#build(this.#seed, this.#firewall, this.startedAt);
    this.#ids = idGenerator(this.#seed);
  }

  /** The site with classic name `name` (`default`). */
  site(name: string): SiteState | undefined {
    return this.sites.find((site) => site.name === name);
  }

  /** The site with Integration UUID `uuid`. */
  siteByUuid(uuid: string): SiteState | undefined {
    return this.sites.find((site) => site.uuid === uuid);
  }

  /** A network by exact name. */
  findNetworkByName(site: string, name: string): NetworkConf | undefined {
    return this.site(site)?.networks.find((network) => network.name === name);
  }

  /** A network by classic `_id` or by Integration UUID (`external_id`). */
  findNetworkById(site: string, id: string): NetworkConf | undefined {
    return this.site(site)?.networks.find((network) => network._id === id || network.external_id === id);
  }

  /** A firewall zone by exact name. */
  findZoneByName(site: string, name: string): FirewallZone | undefined {
    return this.site(site)?.zones.find((zone) => zone.name === name);
  }

  /** A device by MAC (case-insensitive). */
  findDeviceByMac(site: string, mac: string): DeviceRecord | undefined {
    return this.site(site)?.devices.find((device) => device.mac === mac.toLowerCase());
  }

  /** A client by MAC (case-insensitive). */
  findClientByMac(site: string, mac: string): ClientRecord | undefined {
    return this.site(site)?.clients.find((client) => client.mac === mac.toLowerCase());
  }

  /** Brings back restarted devices and reconnecting clients that are due (see live-actions.ts). */
  settle(now = Date.now()): void {
    for (const site of this.sites) settleSite(site, now);
  }

  /** A new ten-digit voucher code for the site; deterministic for a given seed and call order. */
  newVoucherCode(site: SiteState): string {
    return newVoucherCode(site, () => this.#ids.next());
  }

  /** A new classic `_id`; deterministic for a given seed and call order. */
  newObjectId(): string {
    return this.#ids.objectId();
  }

  /** A new Integration UUID; deterministic for a given seed and call order. */
  newUuid(): string {
    return this.#ids.uuid();
  }
}

// A separate stream from the demo generator, so ids of created records never collide with seeded ones.
function idGenerator(seed: number): Prng {
  return createPrng((seed ^ 0x9e3779b9) >>> 0);
}
