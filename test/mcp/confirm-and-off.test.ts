import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { CHANGE_REQUEST_META } from '../../src/mcp/tool-calls.js';
import { CHANGE_VERIFIED } from '../helpers/journal-events.js';
import { type McpBot, textOf, useMcpBot } from '../helpers/mcp.js';

/** The text of a read resource's first content. */
function resourceText(read: ReadResourceResult): string {
  const first = read.contents[0];
  return first && 'text' in first ? first.text : '';
}

// Network writes: official `networks` on the simulator's 10.1 console (classic networkconf before).
const networkPosts = (bot: McpBot) =>
  bot.writes().filter((r) => r.route.endsWith('rest/networkconf') || r.route.endsWith('/networks'));

describe('MCP_WRITES=confirm (the default without Slack): the spec’s confirm and dry_run', () => {
  const bot = useMcpBot({ label: 'U0ALICE' });

  it('lists every tool and no get_change_request', async () => {
    const { tools } = await bot.client.listTools();
    const names = tools.map((t) => t.name);
    for (const tool of bot.app.registry.list()) expect(names).toContain(tool.name);
    expect(names).not.toContain('get_change_request');
  });

  it('answers a read as structured content and as readable text', async () => {
    const result = await bot.call('get_subnet_info', { network_id: 'IoT' });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ name: 'IoT', ip_subnet: expect.any(String) });
    expect(textOf(result)).toMatch(/name: +IoT|name: IoT/);
    const list = await bot.call('list_vlans', { limit: 2 });
    expect((list.structuredContent as { result: unknown[] }).result).toHaveLength(2);
    expect(textOf(list)).toContain('(2 rows)');
  });

  it('previews with dry_run and changes nothing', async () => {
    const result = await bot.call('create_network', {
      name: 'Lab',
      vlan_id: 40,
      subnet: '10.70.0.0/24',
      dry_run: true,
    });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({
      dry_run: true,
      would_create: { name: 'Lab', vlan: 40 },
    });
    expect(networkPosts(bot)).toEqual([]);
  });

  it('refuses a write with neither confirm nor dry_run as a tool error, and changes nothing', async () => {
    const result = await bot.call('create_network', { name: 'Lab', vlan_id: 40, subnet: '10.70.0.0/24' });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: 'confirmation_required', fields: [] } });
    expect(textOf(result)).toMatch(
      /not run: create_network changes the network.*dry_run: true.*confirm: true to run it/,
    );
    // Deliberately alike: per-case MCP calls: each names its own network so writes stay apart.
    expect(networkPosts(bot)).toEqual([]);
  });

  it('names the field of a bad argument in a tool error, never a protocol error', async () => {
    const result = await bot.call('create_network', {
      name: 'Lab',
      vlan_id: 5000,
      subnet: '10.70.0.0/24',
      confirm: true,
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      error: {
        code: 'validation_failed',
        message: 'invalid arguments',
        fields: [{ field: 'vlan_id', rule: 'must be a whole number from 1 to 4094' }],
      },
    });
    const unknown = await bot.call('create_network', { name: 'Lab', vlan: 40, confirm: true });
    expect(textOf(unknown)).toMatch(/vlan: is not an argument of create_network; did you mean vlan_id/);
    const noTool = await bot.call('create_vlan', {});
    expect(noTool).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'validation_failed' } },
    });
    expect(networkPosts(bot)).toEqual([]);
  });

  it('runs a confirmed write once and journals it as a request its MCP client asked for and approved', async () => {
    const result = await bot.call('create_network', {
      name: 'Lab',
      vlan_id: 41,
      subnet: '10.41.0.0/24',
      confirm: true,
    });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ success: true, network: { name: 'Lab', vlan_id: 41 } });
    expect(networkPosts(bot)).toHaveLength(1);
    const id = String(result._meta?.[CHANGE_REQUEST_META]);
    const history = await bot.app.approvals?.history(id);
    expect(history?.events.map((e) => e.type)).toEqual([...CHANGE_VERIFIED]);
    expect(history?.request).toMatchObject({
      state: 'succeeded',
      tool: 'create_network',
      requester: { userId: 'mcp:U0ALICE', name: '“test-assistant 9.9” via MCP (token U0ALICE)' },
      approver: { userId: 'mcp:U0ALICE' },
    });
  });

  it('refuses a write its preview finds wrong (a name clash) as a tool error; nothing runs or is journaled', async () => {
    const before = { posts: networkPosts(bot).length, requests: await bot.app.approvals?.count() };
    const result = await bot.call('create_network', {
      name: 'Lab',
      vlan_id: 42,
      subnet: '10.42.0.0/24',
      confirm: true,
    });
    expect(result).toMatchObject({ isError: true, structuredContent: { error: { code: 'conflict' } } });
    expect(textOf(result)).toMatch(/^conflict: a network named "Lab" already exists/);
    expect(result._meta).toBeUndefined();
    expect({ posts: networkPosts(bot).length, requests: await bot.app.approvals?.count() }).toEqual(before);
  });

  it('serves the topology as resources: JSON at topology://{site}, and GraphML and DOT', async () => {
    const { resources } = await bot.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([
      'topology://default',
      'topology://default/graphml',
      'topology://default/dot',
    ]);
    const { resourceTemplates } = await bot.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'topology://{site}',
      'topology://{site}/graphml',
      'topology://{site}/dot',
    ]);
    const json = await bot.client.readResource({ uri: 'topology://default' });
    const topology = JSON.parse(resourceText(json)) as { nodes: unknown[]; site_id: string };
    expect(topology.site_id).toBe('default');
    expect(topology.nodes.length).toBeGreaterThan(10);
    expect(json.contents[0]?.mimeType).toBe('application/json');
    const graphml = await bot.client.readResource({ uri: 'topology://default/graphml' });
    expect(resourceText(graphml)).toMatch(/^<\?xml[\s\S]*<graphml/);
    const dot = await bot.client.readResource({ uri: 'topology://default/dot' });
    expect(resourceText(dot)).toMatch(/^digraph /);
    await expect(bot.client.readResource({ uri: 'topology://default/png' })).rejects.toThrow(
      /no such resource/,
    );
    await expect(bot.client.readResource({ uri: 'topology://nosuchsite' })).rejects.toThrow(/nosuchsite/);
  });
});

describe('MCP_WRITES=off', () => {
  const bot = useMcpBot({ env: { MCP_WRITES: 'off' } });

  it('lists no write tool, and refuses a write called anyway without changing anything', async () => {
    const { tools } = await bot.client.listTools();
    const writes = bot.app.registry.list().filter((t) => t.access === 'write');
    expect(tools.filter((t) => writes.some((w) => w.name === t.name))).toEqual([]);
    expect(tools).toHaveLength(bot.app.registry.list().length - writes.length);
    const result = await bot.call('delete_network', { network_id: 'Guest', confirm: true });
    expect(result).toMatchObject({ isError: true, structuredContent: { error: { code: 'not_authorized' } } });
    expect(textOf(result)).toMatch(/MCP_WRITES=off/);
    expect(bot.writes()).toEqual([]);
    expect(bot.app.approvals).toBeUndefined();
  });
});
