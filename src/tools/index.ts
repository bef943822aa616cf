import type { ConsoleInfo } from '../gateway/console-info.js';
import { keepTools } from './bot/keep-tools.js';
import { policyTools } from './bot/policy-tools.js';
import { watchTools } from './bot/watch-tools.js';
import { clientActionTools } from './clients/client-actions.js';
import { clientTools } from './clients/clients.js';
import { hotspotTools } from './clients/hotspot.js';
import { topClientsTools } from './clients/top-clients.js';
import { useToolGroups } from './core/catalog.js';
import { withConsoleSpec } from './core/console-spec.js';
import type { ToolGroup } from './core/define-tool.js';
import { ToolRegistry } from './core/registry.js';
import { deviceActionTools } from './devices/device-actions.js';
import { deviceTools } from './devices/devices.js';
import { dpiTools } from './dpi/dpi.js';
import { aclRuleTools } from './firewall/acl-rules.js';
import { firewallPolicyTools } from './firewall/firewall-policies.js';
import { firewallRuleTools } from './firewall/firewall-rules.js';
import { firewallZoneTools } from './firewall/firewall-zones.js';
import { trafficMatchingListTools } from './firewall/traffic-matching-lists.js';
import { trafficRouteTools } from './firewall/traffic-routes.js';
import { fleetStatusTools } from './fleet/fleet-status.js';
import { fleetTools } from './fleet/fleet-tools.js';
import { networkTools } from './networks/networks.js';
import { topologyTools } from './topology/topology.js';
import { wifiBroadcastTools } from './wifi/wifi-broadcasts.js';

/** Every tool group of the spec, in the spec's order (4.1 … 4.9), with the zone-based firewall's policies after the rules. */
const definedGroups: readonly ToolGroup[] = [
  { title: 'Networks and VLANs', api: 'networks', tools: networkTools },
  { title: 'Firewall zones', api: 'firewall-zones', tools: firewallZoneTools },
  { title: 'Firewall rules', api: 'firewall-rules', tools: firewallRuleTools },
  { title: 'Firewall policies (zone-based)', api: 'firewall-policies', tools: firewallPolicyTools },
  { title: 'ACL rules', api: 'acl-rules', tools: aclRuleTools },
  { title: 'Traffic matching lists', api: 'traffic-matching-lists', tools: trafficMatchingListTools },
  { title: 'Traffic routes', api: 'traffic-routes', tools: trafficRouteTools },
  { title: 'DPI statistics', api: 'dpi', tools: dpiTools },
  { title: 'Bandwidth', api: 'bandwidth', tools: topClientsTools },
  { title: 'Topology', api: 'topology', tools: topologyTools },
  // On-call reads.
  { title: 'Clients', api: 'clients', tools: clientTools },
  { title: 'Devices', api: 'devices', tools: deviceTools },
  // The on-call actions.
  { title: 'Device actions', api: 'device-actions', tools: deviceActionTools },
  { title: 'Client actions', api: 'client-actions', tools: clientActionTools },
  { title: 'Hotspot vouchers', api: 'hotspot', tools: hotspotTools },
  { title: 'Wi-Fi broadcasts', api: 'wifi', tools: wifiBroadcastTools },
  // The guardrail policy, explained.
  { title: 'Guardrails', tools: policyTools },
  // Cancels the automatic revert of a change made with revert_after= (revert_change is
  // approvals' own: it proposes the inverse of a recorded change).
  { title: 'Changes', tools: keepTools },
  // The daily digest, read now (the console and MCP cannot receive the Slack message).
  { title: 'Watch', tools: watchTools },
  // Every console at once (CONSOLES_FILE); with one console, that one.
  { title: 'Consoles', tools: [...fleetTools, ...fleetStatusTools] },
];

/**
 * Every tool group, each write tool's change spec kept on the console of its write: a change made
 * with `console=` is read back, verified and undone there.
 */
export const toolGroups: readonly ToolGroup[] = definedGroups.map((group) => ({
  ...group,
  tools: group.tools.map(withConsoleSpec),
}));

// check_policy and the console's risk lines find a tool's impact by name through the catalog.
useToolGroups(toolGroups);

/**
 * The registry of all tools; `defaultSite` fills `site_id` when a command names none, and
 * `consoleInfo` (the gateway's last `info` read) lets help say which endpoints each group uses.
 */
export function createRegistry(
  defaultSite: string,
  consoleInfo?: () => ConsoleInfo | undefined,
): ToolRegistry {
  return new ToolRegistry(toolGroups, { site: defaultSite }, consoleInfo);
}

export type { ToolContext, ToolDefinition, ToolGroup } from './core/define-tool.js';
export { defineTool } from './core/define-tool.js';
export { ToolRegistry } from './core/registry.js';
