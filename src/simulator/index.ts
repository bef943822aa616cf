export {
  DEMO_ACL_RULES,
  DEMO_CORE_SWITCH_UUID,
  DEMO_DEVICES,
  DEMO_FIREWALL_POLICIES,
  DEMO_FIREWALL_POLICY_UUIDS,
  DEMO_NETWORKS,
  DEMO_NOW,
  DEMO_SITE,
  DEMO_TRAFFIC_MATCHING_LISTS,
  DEMO_ZONE_IDS,
  DEMO_ZONES,
  type DemoDeviceKey,
  type DemoNetworkKey,
  demoReadArguments,
} from './demo-ids.js';
export { DEFAULT_SEED } from './demo-site.js';
export {
  type Fleet,
  type FleetCloudHandle,
  type FleetConsole,
  type FleetConsoleOptions,
  type FleetConsolesFile,
  type FleetOptions,
  type FleetReach,
  fleetConsoleName,
  startFleet,
} from './fleet.js';
export { FLEET_LIMITS, FLEET_SHARED_CLIENT_NAMES } from './fleet-seed.js';
export { SIMULATOR_DEFAULTS, type Simulator, startSimulator } from './server.js';
export type {
  AclRule,
  ClientRecord,
  DeviceRecord,
  FirewallPolicy,
  FirewallRule,
  FirewallZone,
  NetworkConf,
  SiteDpi,
  SiteState,
  TrafficMatchingList,
  TrafficRoute,
  TrafficRule,
} from './state.js';
export { SimulatorState } from './state.js';
export { type ClientTraffic, demoTraffic, type TrafficStep } from './traffic.js';
// Deliberately alike: index.ts re-exports the option types server.ts takes, as the simulator's public surface.
export type {
  FaultSpec,
  RecordedRequest,
  SimulatorFirewall,
  SimulatorFlavor,
  SimulatorOptions,
} from './types.js';
export { SIMULATOR_FIREWALLS } from './types.js';
