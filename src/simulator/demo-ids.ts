/**
 * Fixed identities of the demo site. They do not depend on the seed (the seed only drives
 * counters such as bytes, RSSI and uptimes), so tests elsewhere may name them directly.
 */

/** Epoch seconds the demo treats as "now" (`last_seen`, `last_updated`…), for byte-identical state. */
export const DEMO_NOW = 1_767_225_600;

/** The demo site: classic `_id` and name, and its Integration UUID (the one seen on real consoles). */
export const DEMO_SITE = {
  id: '65b3c8e1f4a9d20c7e5a1000',
  name: 'default',
  desc: 'Default',
  uuid: '88f7af54-98f8-306a-a1c7-c9349722b1f6',
} as const;

/** Keys of the demo networks. */
export type DemoNetworkKey = 'wan' | 'defaultLan' | 'iot' | 'guest' | 'cameras' | 'servers' | 'vpn';

/** Classic `_id` and Integration UUID (`external_id`) of every demo network. */
export const DEMO_NETWORKS: Readonly<Record<DemoNetworkKey, { id: string; uuid: string; name: string }>> = {
  wan: { id: '65b3c8e1f4a9d20c7e5a1010', uuid: '4debfb6c-952b-42d1-bb2e-3fae1518a9da', name: 'WAN' },
  defaultLan: {
    id: '65b3c8e1f4a9d20c7e5a1011',
    uuid: 'f7e4b021-d18e-4106-ab6a-fc61245820da',
    name: 'Default',
  },
  iot: { id: '65b3c8e1f4a9d20c7e5a1012', uuid: '105d70c6-d0c6-464b-b972-ce7509dddcfb', name: 'IoT' },
  guest: { id: '65b3c8e1f4a9d20c7e5a1013', uuid: '409629cf-35f2-454b-bc99-e7b58c308205', name: 'Guest' },
  cameras: { id: '65b3c8e1f4a9d20c7e5a1014', uuid: 'eebdb547-7347-4c17-b2c0-3f61eb899b25', name: 'Cameras' },
  servers: { id: '65b3c8e1f4a9d20c7e5a1015', uuid: 'ce108e73-d93b-43d1-b59b-ed6edd4b6089', name: 'Servers' },
  // The WireGuard server's client pool: a networkconf record the official networks list leaves out.
  vpn: { id: '65b3c8e1f4a9d20c7e5a1016', uuid: '', name: 'WireGuard VPN' },
};

/** Keys of the demo devices. */
export type DemoDeviceKey =
  | 'gateway'
  | 'coreSwitch'
  | 'officeSwitch'
  | 'flexSwitch'
  | 'livingAp'
  | 'meshAp'
  | 'garageAp';

/** `_id`, MAC and name of every demo device. */
export const DEMO_DEVICES: Readonly<Record<DemoDeviceKey, { id: string; mac: string; name: string }>> = {
  gateway: { id: '65b3c8e1f4a9d20c7e5a1401', mac: '74:ac:b9:1c:20:01', name: 'Dream Machine Pro' },
  coreSwitch: { id: '65b3c8e1f4a9d20c7e5a1402', mac: '74:ac:b9:1c:20:11', name: 'Core Switch' },
  officeSwitch: { id: '65b3c8e1f4a9d20c7e5a1403', mac: 'f4:92:bf:3a:41:12', name: 'Office Switch' },
  flexSwitch: { id: '65b3c8e1f4a9d20c7e5a1404', mac: 'e0:63:da:5b:60:13', name: 'Media Cabinet Flex' },
  livingAp: { id: '65b3c8e1f4a9d20c7e5a1405', mac: '78:45:58:6d:70:21', name: 'Living Room AP' },
  meshAp: { id: '65b3c8e1f4a9d20c7e5a1406', mac: '78:45:58:6d:70:22', name: 'Garden Mesh AP' },
  garageAp: { id: '65b3c8e1f4a9d20c7e5a1407', mac: '24:5a:4c:8e:90:23', name: 'Garage AP' },
};

/** Integration UUID of the core switch (used by an ACL rule's enforcing-device filter). */
export const DEMO_CORE_SWITCH_UUID = '28910c6a-2cff-4ec0-b92e-5e20c1a21c3b';

// Deliberately alike: fixed demo ids, one table per id space (Integration UUIDs, v2 _ids).
/** Integration UUIDs of the firewall zones. */
export const DEMO_ZONES = {
  internal: 'b5eb9b3a-d6db-407d-80b1-79f669a5be5f',
  external: '30f357ba-2560-4239-aba4-cd406883f4a0',
  gateway: 'd62c4182-214c-408f-8018-b666d57e7028',
  vpn: '57a10817-dd88-4369-8c79-dce5f4646aad',
  hotspot: 'e3ff63b6-2133-4c6b-ac9e-3b042db39dc8',
  dmz: 'b892a8e2-58d0-4b91-b538-9e4b1b900391',
  iotDevices: 'a7dca796-ccbd-4534-a2d2-b90a335798c8',
} as const;

/**
 * v2 `_id`s of the same zones (`firewall/zone`, and the `zone_id` of a policy's source and
 * destination). The v2 zone's `external_id` is the Integration UUID above.
 */
export const DEMO_ZONE_IDS: Readonly<Record<keyof typeof DEMO_ZONES, string>> = {
  internal: '65b3c8e1f4a9d20c7e5a1501',
  external: '65b3c8e1f4a9d20c7e5a1502',
  gateway: '65b3c8e1f4a9d20c7e5a1503',
  vpn: '65b3c8e1f4a9d20c7e5a1504',
  hotspot: '65b3c8e1f4a9d20c7e5a1505',
  dmz: '65b3c8e1f4a9d20c7e5a1506',
  iotDevices: '65b3c8e1f4a9d20c7e5a1507',
};

/** `_id` of the site's `ZONE_BASED_FIREWALL` entry in `site-feature-migration` (zone-based flavour). */
export const DEMO_ZONE_MIGRATION_ID = '65b3c8e1f4a9d20c7e5a1600';

/** `_id`s of the user-defined firewall policies (zone-based flavour). */
export const DEMO_FIREWALL_POLICIES = {
  blockIotToInternal: '65b3c8e1f4a9d20c7e5a1601',
  camerasNoInternet: '65b3c8e1f4a9d20c7e5a1602',
  allowPlexFromWan: '65b3c8e1f4a9d20c7e5a1603',
  kidsBedtime: '65b3c8e1f4a9d20c7e5a1604',
} as const;

/** Official (Integration) UUIDs of the same policies (the v2 record's `external_id`). */
export const DEMO_FIREWALL_POLICY_UUIDS: Readonly<Record<keyof typeof DEMO_FIREWALL_POLICIES, string>> = {
  blockIotToInternal: 'd7f20e07-ed42-42ed-84bb-895c608099f6',
  camerasNoInternet: 'ee544eeb-36cb-4404-83ed-3511d7ec202a',
  allowPlexFromWan: '793bfb39-a2ef-483a-8e04-33b7df28434d',
  kidsBedtime: 'c1e3efac-f3f5-4a17-9ba8-b6150ada35d1',
};

/** Official UUIDs of the controller's generated policies, in their seeded order. */
export const DEMO_PREDEFINED_POLICY_UUIDS = [
  '9092a4d9-4e4f-46d7-88e3-69b041747c23',
  'dbcf34d8-96a8-4ab3-989d-51ec6c90847f',
  'ba9e5c47-afca-4560-936e-0b4f1fd8218a',
  'f6a6c411-8327-475b-b277-6fead50db719',
] as const;

/** Integration UUIDs of the ACL rules, in their seeded order. */
export const DEMO_ACL_RULES = {
  blockIotToNas: '385c64c2-1d8e-4a30-b391-9b34bec60595',
  allowCamerasToNvr: 'a99b590b-35e1-4967-8d1e-13d1ea80d5c7',
  blockGuestSsh: 'e2706c76-70c5-4a31-97cd-54a49e371fcb',
  blockKidsTabletMac: '31fafee4-7976-4b1a-b7ae-c1df98841477',
} as const;

/** Integration UUIDs of the traffic matching lists. */
export const DEMO_TRAFFIC_MATCHING_LISTS = {
  webPorts: 'd618a2d1-51b0-48d6-8dd4-dbe5dbca2eab',
  trustedAdminHosts: '2f039dc9-92c7-4647-a2a4-9c6bd1205065',
  ipv6CloudDns: '23eeb91a-08a7-4298-a458-70c7fd708eb5',
} as const;

// A demo value for each required argument of the read tools (site_id aside), so a run over the
// whole catalogue (tests, bench) can call every read against the demo site.
const DEMO_READ_ARGUMENTS: Readonly<Record<string, string>> = {
  network_id: DEMO_NETWORKS.iot.id,
  zone_id: DEMO_ZONES.iotDevices,
  acl_rule_id: DEMO_ACL_RULES.blockIotToNas,
  list_id: DEMO_TRAFFIC_MATCHING_LISTS.webPorts,
  client_mac: '9c:b6:d0:4e:11:07',
  client: 'Galaxy-S23',
  device_id: DEMO_DEVICES.coreSwitch.id,
  // The official id: a 10.1 console shows it, and the v2 record carries it (`external_id`).
  policy_id: DEMO_FIREWALL_POLICY_UUIDS.blockIotToInternal,
  format: 'graphml',
  // check_policy's would-be change: one the demo site has a target for.
  command: 'delete_network network_id=IoT',
};

/** Tools that need one of several optional arguments (get_client_dpi: client or client_mac). */
const DEMO_ONE_OF: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  get_client_dpi: { client: 'Galaxy-S23' },
};

/**
 * Demo values for a read tool's required arguments. An argument with none stops the caller with
 * its name, so a new read tool cannot be left out of a whole-catalogue run silently.
 */
export function demoReadArguments(tool: string, required: readonly string[]): Record<string, string> {
  const args: Record<string, string> = { ...DEMO_ONE_OF[tool] };
  for (const name of required) {
    if (name === 'site_id') continue;
    const value = DEMO_READ_ARGUMENTS[name];
    if (value === undefined) {
      throw new Error(`no demo value for ${tool}'s required argument ${name} (src/simulator/demo-ids.ts)`);
    }
    args[name] = value;
  }
  return args;
}
