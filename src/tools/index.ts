import { aclRuleTools } from './acl-rules.js';
import { clientActionTools } from './client-actions.js';
import { clientTools } from './clients.js';
import type { ToolGroup } from './define-tool.js';
import { deviceActionTools } from './device-actions.js';
import { deviceTools } from './devices.js';
import { dpiTools } from './dpi.js';
import { firewallPolicyTools } from './firewall-policies.js';
import { firewallRuleTools } from './firewall-rules.js';
import { firewallZoneTools } from './firewall-zones.js';
import { hotspotTools } from './hotspot.js';
import { networkTools } from './networks.js';
import { policyTools } from './policy-tools.js';
import { ToolRegistry } from './registry.js';
import { topClientsTools } from './top-clients.js';
import { topologyTools } from './topology.js';
import { trafficMatchingListTools } from './traffic-matching-lists.js';
import { trafficRouteTools } from './traffic-routes.js';
import { wifiBroadcastTools } from './wifi-broadcasts.js';

/** Every tool group of the spec, in the spec's order (4.1 … 4.9), with the zone-based firewall's policies after the rules. */
export const toolGroups: readonly ToolGroup[] = [
  { title: 'Networks and VLANs', tools: networkTools },
  { title: 'Firewall zones', tools: firewallZoneTools },
  { title: 'Firewall rules', tools: firewallRuleTools },
  { title: 'Firewall policies (zone-based)', tools: firewallPolicyTools },
  { title: 'ACL rules', tools: aclRuleTools },
  { title: 'Traffic matching lists', tools: trafficMatchingListTools },
  { title: 'Traffic routes', tools: trafficRouteTools },
  { title: 'DPI statistics', tools: dpiTools },
  { title: 'Bandwidth', tools: topClientsTools },
  { title: 'Topology', tools: topologyTools },
  // Issue 20: on-call reads.
  { title: 'Clients', tools: clientTools },
  { title: 'Devices', tools: deviceTools },
  // Issue 20: the on-call actions.
  { title: 'Device actions', tools: deviceActionTools },
  { title: 'Client actions', tools: clientActionTools },
  { title: 'Hotspot vouchers', tools: hotspotTools },
  { title: 'Wi-Fi broadcasts', tools: wifiBroadcastTools },
  // Issue 22: the guardrail policy, explained.
  { title: 'Guardrails', tools: policyTools },
];

/** The registry of all tools; `defaultSite` fills `site_id` when a command names none. */
export function createRegistry(defaultSite: string): ToolRegistry {
  return new ToolRegistry(toolGroups, { site: defaultSite });
}

export type { ToolContext, ToolDefinition, ToolGroup } from './define-tool.js';
export { defineTool } from './define-tool.js';
export { ToolRegistry } from './registry.js';
