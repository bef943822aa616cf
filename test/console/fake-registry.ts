import { z } from 'zod';
import { GatewayUnavailableError } from '../../src/errors.js';
import type { Gateway } from '../../src/gateway/types.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { silentLogger } from '../../src/log.js';
import { defineTool, type ToolContext } from '../../src/tools/core/define-tool.js';
import { ToolRegistry } from '../../src/tools/core/registry.js';

export const NETWORKS = [
  {
    id: 'net-lan',
    name: 'LAN',
    purpose: 'corporate',
    vlan_id: null,
    ip_subnet: '192.168.1.0/24',
    dhcpd_enabled: true,
  },
  {
    id: 'net-iot',
    name: 'IoT',
    purpose: 'corporate',
    vlan_id: 40,
    ip_subnet: '10.70.0.0/24',
    dhcpd_enabled: true,
  },
  {
    id: 'net-guest',
    name: 'Guest',
    purpose: 'guest',
    vlan_id: 50,
    ip_subnet: '10.50.0.0/24',
    dhcpd_enabled: false,
  },
];

/** Everything the fake tools saw, so tests can tell a preview from an execution. */
export interface FakeCalls {
  createNetwork: Record<string, unknown>[];
  executed: Record<string, unknown>[];
  routeUpdates: Record<string, unknown>[];
  gatewayTouches: string[];
}

/** A registry of fake tools (no zone tools, so aliases to them are unavailable) and a context whose gateway throws. */
export function fakeSetup(): { registry: ToolRegistry; context: ToolContext; calls: FakeCalls } {
  const calls: FakeCalls = { createNetwork: [], executed: [], routeUpdates: [], gatewayTouches: [] };
  const siteId = z.string();
  const listVlans = defineTool({
    name: 'list_vlans',
    description: 'List networks',
    access: 'read',
    args: z.object({ site_id: siteId, limit: z.number().int().default(100) }),
    run: async (args) => NETWORKS.slice(0, args.limit),
  });
  const details = defineTool({
    name: 'get_network_details',
    description: 'One network',
    access: 'read',
    args: z.object({ site_id: siteId, network_id: z.string() }),
    run: async (args) => ({ ...NETWORKS[1], id: args.network_id, site: args.site_id }),
  });
  const exportTopology = defineTool({
    name: 'export_topology',
    description: 'Export the topology',
    access: 'read',
    args: z.object({ site_id: siteId, format: z.enum(['json', 'graphml', 'dot']) }),
    run: async (args) => `digraph "${args.site_id}" {\n  "a" -> "b";\n}`,
  });
  // Deliberately alike: defineTool declarations, each a fake tool that fails in its own way.
  const unreachable = defineTool({
    name: 'get_network_statistics',
    description: 'Statistics',
    access: 'read',
    args: z.object({ site_id: siteId }),
    run: async () => {
      throw new GatewayUnavailableError('connect ECONNREFUSED 192.168.1.1:443');
    },
  });
  const explode = defineTool({
    name: 'get_network_topology',
    description: 'Topology',
    access: 'read',
    args: z.object({ site_id: siteId }),
    run: async () => {
      throw new TypeError('cannot read properties of undefined (reading uplink)');
    },
  });
  const createNetwork = defineTool({
    name: 'create_network',
    description: 'Create a network',
    access: 'write',
    args: z.object({
      site_id: siteId,
      name: z.string().min(1),
      vlan_id: z.number().int().min(1).max(4094),
      confirm: z.boolean().optional(),
      dry_run: z.boolean().optional(),
    }),
    run: async (args) => {
      calls.createNetwork.push({ ...args });
      if (args.dry_run === true) {
        return {
          dry_run: true,
          would_create: { name: args.name, vlan: args.vlan_id, purpose: 'corporate' },
          warnings: ['VLAN 40 is new on this site'],
        };
      }
      calls.executed.push({ ...args });
      return { id: 'net-new', name: args.name, vlan_id: args.vlan_id };
    },
  });
  const updateRoute = defineTool({
    name: 'update_traffic_route',
    description: 'Enable or disable a route',
    access: 'write',
    args: z.object({
      site_id: siteId,
      route_id: z.string(),
      enabled: z.boolean().optional(),
      confirm: z.boolean().optional(),
    }),
    run: async (args) => {
      calls.routeUpdates.push({ ...args });
      return { id: args.route_id, enabled: args.enabled };
    },
  });
  const registry = new ToolRegistry(
    [
      { title: 'Networks', tools: [listVlans, details, unreachable, createNetwork] },
      { title: 'Topology', tools: [explode, exportTopology, updateRoute] },
    ],
    { site: 'default' },
  );
  const gateway = new Proxy({} as Gateway, {
    get(_target, property) {
      calls.gatewayTouches.push(String(property));
      throw new Error(`a console test touched the gateway (${String(property)})`);
    },
  });
  return { registry, context: { gateway, logger: silentLogger(), store: new MemoryStore() }, calls };
}
