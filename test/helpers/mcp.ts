import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { type App, createApp } from '../../src/app.js';
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
import type { ToolRegistry } from '../../src/tools/registry.js';
import { exampleLine } from '../../src/tools/tool-help.js';
import { testGateway } from './test-gateway.js';

/**
 * Argument objects written from the spec's argument tables (section 4), as an MCP client sends
 * them: typed JSON values, site_id given, confirm or dry_run on writes.
 */
export const SPEC_CALLS: { tool: string; args: Record<string, unknown> }[] = [
  { tool: 'list_vlans', args: { site_id: 'default', limit: 100, offset: 0 } },
  { tool: 'get_network_details', args: { site_id: 'default', network_id: 'IoT' } },
  {
    tool: 'create_network',
    args: {
      site_id: 'default',
      name: 'Lab',
      vlan_id: 40,
      subnet: '10.40.0.0/24',
      purpose: 'corporate',
      dhcp_enabled: true,
      dhcp_start: '10.40.0.10',
      dhcp_stop: '10.40.0.200',
      dhcp_dns_1: '1.1.1.1',
      domain_name: 'lab.example.com',
      confirm: true,
      dry_run: true,
    },
  },
  { tool: 'update_network', args: { site_id: 'default', network_id: 'IoT', vlan_id: 31, confirm: true } },
  {
    tool: 'delete_network',
    args: { site_id: 'default', network_id: 'Servers', confirm: true, dry_run: true },
  },
  {
    tool: 'create_firewall_zone',
    args: {
      site_id: 'default',
      name: 'Lab',
      description: 'Test benches',
      network_ids: ['IoT'],
      confirm: true,
    },
  },
  {
    tool: 'update_firewall_zone',
    args: { site_id: 'default', firewall_zone_id: 'z1', network_ids: ['IoT', 'Guest'], confirm: true },
  },
  {
    tool: 'assign_network_to_zone',
    args: { site_id: 'default', zone_id: 'z1', network_id: 'IoT', confirm: true },
  },
  {
    tool: 'create_firewall_rule',
    args: {
      site_id: 'default',
      name: 'Block IoT to LAN',
      action: 'drop',
      ruleset: 'LAN_IN',
      rule_index: 2000,
      protocol: 'tcp',
      port: 22,
      src_networkconf_id: 'IoT',
      src_networkconf_type: 'NETv4',
      dst_networkconf_id: 'Default',
      dst_networkconf_type: 'NETv4',
      state_new: true,
      logging: false,
      enabled: true,
      confirm: true,
    },
  },
  { tool: 'list_firewall_rules', args: { site_id: 'default', limit: 50, offset: 0 } },
  {
    tool: 'create_acl_rule',
    args: {
      site_id: 'default',
      name: 'IoT to servers',
      action: 'deny',
      enabled: true,
      source_type: 'network',
      source_id: 'IoT',
      destination_type: 'ip',
      destination_network: '10.20.0.0/24',
      protocol: 'tcp',
      dst_port: 443,
      priority: 100,
      description: 'no IoT to servers',
      confirm: true,
    },
  },
  { tool: 'list_acl_rules', args: { site_id: 'default', limit: 10, offset: 0, filter_expr: "name.eq('x')" } },
  {
    tool: 'create_traffic_matching_list',
    args: { site_id: 'default', list_type: 'PORTS', name: 'Web', items: ['80', '443'], confirm: true },
  },
  {
    tool: 'create_traffic_route',
    args: {
      site_id: 'default',
      name: 'Block telnet',
      action: 'deny',
      destination_ip: '203.0.113.0/24',
      destination_port: 23,
      protocol: 'tcp',
      vlan_id: 30,
      priority: 10,
      enabled: true,
      confirm: true,
    },
  },
  {
    tool: 'update_traffic_route',
    args: { site_id: 'default', route_id: 'r1', enabled: false, confirm: true },
  },
  { tool: 'get_dpi_statistics', args: { site_id: 'default', time_range: '7d' } },
  { tool: 'list_top_applications', args: { site_id: 'default', limit: 5, time_range: '24h' } },
  { tool: 'get_client_dpi', args: { site_id: 'default', client_mac: 'aa:bb:cc:dd:ee:ff', time_range: '1h' } },
  { tool: 'get_network_topology', args: { site_id: 'default', include_coordinates: true } },
  { tool: 'export_topology', args: { site_id: 'default', format: 'graphml' } },
  { tool: 'get_device_connections', args: { site_id: 'default' } },
  { tool: 'get_port_mappings', args: { site_id: 'default', device_id: 'Core Switch' } },
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
  options: { env?: Record<string, string>; label?: string; store?: Store } = {},
): Promise<McpBot> {
  const sim = await startSimulator();
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

/** The text of a tool result's first content block. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}
