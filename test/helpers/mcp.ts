import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll } from 'vitest';
import { type App, createApp } from '../../src/app.js';
import type { Approvals } from '../../src/approvals/approvals.js';
import { resolveCommand } from '../../src/commands/aliases.js';
import { parseCommandLine } from '../../src/commands/parse-command-line.js';
import { loadConfig } from '../../src/config.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { silentLogger } from '../../src/log.js';
import { mcpKit } from '../../src/mcp/mcp-kit.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import type { RecordedRequest } from '../../src/simulator/types.js';
import { FileStore } from '../../src/store/file/file-store.js';
import type { Store } from '../../src/store/types.js';
import type { ToolRegistry } from '../../src/tools/core/registry.js';
import { exampleLine } from '../../src/tools/core/tool-help.js';
import { lateBound } from './late-bound.js';
import { testGateway } from './test-gateway.js';

/** The spec's 40 tools (section 4), in its order: every one must have a call in SPEC_CALLS. */
export const SPEC_TOOLS = [
  // 4.1, 4.2
  'list_vlans',
  'get_network_details',
  'get_subnet_info',
  'get_network_statistics',
  'create_network',
  'update_network',
  'delete_network',
  // 4.3
  'list_firewall_zones',
  'create_firewall_zone',
  'update_firewall_zone',
  'delete_firewall_zone',
  'assign_network_to_zone',
  'unassign_network_from_zone',
  'get_zone_networks',
  // 4.4
  'list_firewall_rules',
  'create_firewall_rule',
  'update_firewall_rule',
  'delete_firewall_rule',
  // 4.5
  'list_acl_rules',
  'get_acl_rule',
  'create_acl_rule',
  'update_acl_rule',
  'delete_acl_rule',
  // 4.6
  'list_traffic_matching_lists',
  'get_traffic_matching_list',
  'create_traffic_matching_list',
  'update_traffic_matching_list',
  'delete_traffic_matching_list',
  // 4.7
  'list_traffic_routes',
  'create_traffic_route',
  'update_traffic_route',
  'delete_traffic_route',
  // 4.8
  'get_dpi_statistics',
  'list_top_applications',
  'get_client_dpi',
  // 4.9
  'get_network_topology',
  'export_topology',
  'get_device_connections',
  'get_port_mappings',
  'get_topology_statistics',
] as const;

const site = { site_id: 'default' };

/**
 * One call of each spec tool written from the spec's argument tables (section 4), as an MCP client
 * sends them: typed JSON values, site_id given, confirm on writes. Names and values are valid on
 * the demo site (the traditional-rule tools on its legacy flavour): each previews or answers there.
 * Spec arguments the bot refuses by design (a traffic route's priority, DSCP marking, protocol
 * and source port; purpose=wan) are left out.
 */
export const SPEC_CALLS: { tool: (typeof SPEC_TOOLS)[number]; args: Record<string, unknown> }[] = [
  { tool: 'list_vlans', args: { ...site, limit: 100, offset: 0 } },
  { tool: 'get_network_details', args: { ...site, network_id: 'IoT' } },
  { tool: 'get_subnet_info', args: { ...site, network_id: 'Guest' } },
  { tool: 'get_network_statistics', args: { ...site } },
  {
    tool: 'create_network',
    args: {
      ...site,
      name: 'Lab',
      vlan_id: 40,
      subnet: '10.70.0.0/24',
      purpose: 'corporate',
      dhcp_enabled: true,
      dhcp_start: '10.70.0.10',
      dhcp_stop: '10.70.0.200',
      dhcp_dns_1: '1.1.1.1',
      dhcp_dns_2: '9.9.9.9',
      dhcp_dns_3: '8.8.8.8',
      dhcp_dns_4: '8.8.4.4',
      domain_name: 'lab.example.com',
      confirm: true,
      dry_run: true,
    },
  },
  {
    tool: 'update_network',
    args: { ...site, network_id: 'IoT', name: 'IoT', vlan_id: 31, dhcp_dns_1: '1.1.1.1', confirm: true },
  },
  { tool: 'delete_network', args: { ...site, network_id: 'Servers', confirm: true, dry_run: true } },
  { tool: 'list_firewall_zones', args: { ...site } },
  {
    tool: 'create_firewall_zone',
    args: { ...site, name: 'Lab', description: 'Test benches', network_ids: ['Cameras'], confirm: true },
  },
  {
    tool: 'update_firewall_zone',
    args: {
      ...site,
      firewall_zone_id: 'IoT Devices',
      name: 'IoT Devices',
      description: 'Sensors and cameras',
      network_ids: ['IoT', 'Cameras'],
      confirm: true,
    },
  },
  { tool: 'delete_firewall_zone', args: { ...site, zone_id: 'IoT Devices', confirm: true, dry_run: true } },
  { tool: 'assign_network_to_zone', args: { ...site, zone_id: 'Dmz', network_id: 'Cameras', confirm: true } },
  {
    tool: 'unassign_network_from_zone',
    args: { ...site, zone_id: 'IoT Devices', network_id: 'Cameras', confirm: true },
  },
  { tool: 'get_zone_networks', args: { ...site, zone_id: 'IoT Devices' } },
  { tool: 'list_firewall_rules', args: { ...site, limit: 50, offset: 0 } },
  {
    tool: 'create_firewall_rule',
    args: {
      ...site,
      name: 'Block IoT to LAN SSH',
      action: 'drop',
      ruleset: 'LAN_IN',
      rule_index: 2000,
      protocol: 'tcp',
      port: 22,
      src_networkconf_id: 'IoT',
      src_networkconf_type: 'NETv4',
      dst_networkconf_id: 'Default',
      dst_networkconf_type: 'NETv4',
      state_established: false,
      state_related: false,
      state_new: true,
      state_invalid: false,
      logging: false,
      enabled: true,
      confirm: true,
      dry_run: true,
    },
  },
  {
    tool: 'update_firewall_rule',
    args: {
      ...site,
      rule_id: 'Allow Plex to NAS',
      name: 'Allow Plex to NAS',
      action: 'accept',
      src_address: '203.0.113.0/24',
      dst_address: '192.168.1.21',
      protocol: 'tcp',
      port: 32400,
      enabled: true,
      confirm: true,
    },
  },
  {
    tool: 'delete_firewall_rule',
    args: { ...site, rule_id: 'Drop Telnet from WAN', confirm: true, dry_run: true },
  },
  {
    tool: 'list_acl_rules',
    args: { ...site, limit: 10, offset: 0, filter_expr: "name.eq('Block IoT to NAS')" },
  },
  { tool: 'get_acl_rule', args: { ...site, acl_rule_id: 'Block IoT to NAS' } },
  {
    tool: 'create_acl_rule',
    args: {
      ...site,
      name: 'IoT to servers',
      action: 'deny',
      enabled: true,
      source_type: 'network',
      source_id: 'IoT',
      destination_type: 'ip',
      destination_network: '10.20.0.0/24',
      protocol: 'tcp',
      src_port: 1024,
      dst_port: 443,
      priority: 100,
      description: 'no IoT to servers',
      confirm: true,
    },
  },
  {
    tool: 'update_acl_rule',
    args: {
      ...site,
      acl_rule_id: 'Block guest SSH',
      enabled: false,
      priority: 1,
      description: 'paused for the audit',
      confirm: true,
    },
  },
  {
    tool: 'delete_acl_rule',
    args: { ...site, acl_rule_id: 'Block guest SSH', confirm: true, dry_run: true },
  },
  { tool: 'list_traffic_matching_lists', args: { ...site, limit: 100, offset: 0 } },
  { tool: 'get_traffic_matching_list', args: { ...site, list_id: 'Web Ports' } },
  {
    tool: 'create_traffic_matching_list',
    args: { ...site, list_type: 'PORTS', name: 'Web', items: ['80', '443'], confirm: true },
  },
  {
    tool: 'update_traffic_matching_list',
    args: {
      ...site,
      list_id: 'Web Ports',
      list_type: 'PORTS',
      name: 'Web Ports',
      items: ['80', '443', '8080'],
      confirm: true,
    },
  },
  {
    tool: 'delete_traffic_matching_list',
    args: { ...site, list_id: 'IPv6 Cloud DNS', confirm: true, dry_run: true },
  },
  { tool: 'list_traffic_routes', args: { ...site } },
  {
    tool: 'create_traffic_route',
    args: {
      ...site,
      name: 'Block telnet',
      action: 'deny',
      destination_ip: '203.0.113.0/24',
      destination_port: 23,
      protocol: 'all',
      vlan_id: 30,
      enabled: true,
      confirm: true,
    },
  },
  {
    tool: 'update_traffic_route',
    args: { ...site, route_id: 'Guest bandwidth cap', enabled: false, confirm: true },
  },
  { tool: 'delete_traffic_route', args: { ...site, route_id: 'Allow NAS offsite backup', confirm: true } },
  { tool: 'get_dpi_statistics', args: { ...site, time_range: '7d' } },
  { tool: 'list_top_applications', args: { ...site, limit: 5, time_range: '24h' } },
  { tool: 'get_client_dpi', args: { ...site, client_mac: '00:11:32:8a:bc:04', time_range: '1h' } },
  { tool: 'get_network_topology', args: { ...site, include_coordinates: true } },
  { tool: 'export_topology', args: { ...site, format: 'graphml' } },
  { tool: 'get_device_connections', args: { ...site, device_id: 'Core Switch' } },
  { tool: 'get_port_mappings', args: { ...site, device_id: 'Core Switch' } },
  { tool: 'get_topology_statistics', args: { ...site } },
];

/** Every tool's help example as the typed JSON arguments an MCP client would send. */
export function exampleArguments(registry: ToolRegistry): { tool: string; args: Record<string, unknown> }[] {
  return registry.list().map((tool) => {
    const line = exampleLine(tool);
    if (line === undefined) throw new Error(`${tool.name} has no example`);
    const { args } = resolveCommand(parseCommandLine(line), registry);
    const typed = registry.coerce(tool.name, args);
    return { tool: tool.name, args: tool.access === 'write' ? { ...typed, confirm: true } : typed };
  });
}

/** A JSON Schema validator for listed tools' input schemas (ajv, as the SDK uses it). */
export function schemaValidator(tools: readonly Tool[]) {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  const byName = new Map(tools.map((t) => [t.name, ajv.compile(t.inputSchema)]));
  return (tool: string, args: unknown): string[] => {
    const validate = byName.get(tool);
    if (!validate) return [`${tool} is not listed`];
    return validate(args) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
  };
}

/** The bot built as `netops mcp` builds it (no Slack), with the SDK's client on an in-memory transport. */
export interface McpBot {
  app: App;
  sim: Simulator;
  client: Client;
  /** Requests the simulator received that change something. */
  writes(): RecordedRequest[];
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** Starts a simulator and an MCP-only app (file store in a fresh DATA_DIR) and connects a client as `label`. */
export async function startMcpBot(
  options: {
    env?: Record<string, string>;
    label?: string;
    store?: Store;
    /** The demo site's firewall generation (default zone-based, as the simulator's). */
    firewall?: 'zone-based' | 'legacy';
  } = {},
): Promise<McpBot> {
  const sim = await startSimulator(options.firewall ? { firewall: options.firewall } : {});
  const config = loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'netops-mcp-')), ...options.env });
  const app = createApp({
    config,
    logger: silentLogger(),
    gateway: testGateway(sim),
    store: options.store ?? new FileStore(config.dataDir, { data: new MemoryStore() }),
    mcpKit,
    ownsChanges: config.mcp.writes !== 'off',
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test-assistant', version: '9.9' });
  await app.mcp?.connect(serverSide, options.label ?? 'stdio');
  await client.connect(clientSide);
  return {
    app,
    sim,
    client,
    writes: () => sim.requests.filter((r) => r.method !== 'GET' && !r.route.includes('/stat/')),
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    async close() {
      await client.close();
      await app.close();
      await sim.close();
    },
  };
}

/** One MCP bot for the enclosing suite: started before its tests, closed after them. */
export function useMcpBot(options: Parameters<typeof startMcpBot>[0] = {}): McpBot {
  let current: McpBot | undefined;
  beforeAll(async () => {
    current = await startMcpBot(options);
  });
  afterAll(async () => {
    await current?.close();
  });
  return lateBound(() => current, 'the MCP bot is used before its beforeAll ran');
}

/**
 * An MCP bot in `approval` mode for the agent U0AGENT (Bob and Carol approve in C0NETOPS), and its
 * approvals, which that mode always has.
 */
export function useApprovalMcpBot(): { bot: McpBot; approvals: () => Approvals } {
  const bot = useMcpBot({
    env: { MCP_WRITES: 'approval', MCP_APPROVAL_CHANNEL: 'C0NETOPS', APPROVERS: 'U0BOB,U0CAROL' },
    label: 'U0AGENT',
  });
  const approvals = () => {
    if (!bot.app.approvals) throw new Error('no approvals');
    return bot.app.approvals;
  };
  return { bot, approvals };
}

/** The text of a tool result's first content block. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}
