import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { silentLogger } from '../../src/log.js';
import { mcpKit } from '../../src/mcp/mcp-kit.js';
import { startSimulator } from '../../src/simulator/index.js';
import { slackKit } from '../../src/slack/slack-kit.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { type SlackCall, startFakeSlack } from '../helpers/fake-slack.js';
import { startFakeSocketMode } from '../helpers/fake-socket-mode.js';
import { textOf } from '../helpers/mcp.js';
import { type SlackBot, startSlackBot } from '../helpers/slack-bot.js';
import { testGateway } from '../helpers/test-gateway.js';

const SECRET = 'mcp-test-secret-0123456789abcdef';
const OTHER_SECRET = 'mcp-test-other-secret-0123456789';
const CHANNEL = 'C0NETOPS';

/** An SDK client over Streamable HTTP with a bearer token. */
async function connect(port: number, token = SECRET): Promise<Client> {
  const client = new Client({ name: 'test-assistant', version: '9.9' });
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
});

function postMcp(port: number, headers: Record<string, string> = {}, body = initialize) {
  return fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });
}

function approveValue(call: SlackCall | undefined): string | undefined {
  const blocks = (call?.args.blocks ?? []) as {
    type: string;
    elements?: { action_id: string; value: string }[];
  }[];
  return blocks.flatMap((b) => b.elements ?? []).find((e) => e.action_id === 'approve')?.value;
}

describe('POST /mcp on the bot’s port (HTTP mode), MCP_WRITES=approval', () => {
  let bot: SlackBot;
  let client: Client;
  const previews = () =>
    bot.slack.callsOf('chat.postMessage').filter((c) => c.args.channel === CHANNEL && !c.args.thread_ts);
  const networkPosts = () =>
    bot.sim.requests.filter((r) => r.method === 'POST' && r.route.endsWith('/networks'));
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  beforeAll(async () => {
    bot = await startSlackBot({
      mcp: true,
      env: { MCP_TOKEN: `U0ALICE:${SECRET},U0CIBOT:${OTHER_SECRET}`, MCP_APPROVAL_CHANNEL: CHANNEL },
    });
    client = await connect(bot.port);
  });
  afterAll(async () => {
    await client?.close();
    await bot?.close();
  });

  it('answers 401 without a bearer token or with a wrong one, and leaves Slack’s route alone', async () => {
    const none = await postMcp(bot.port);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(await none.json()).toMatchObject({
      jsonrpc: '2.0',
      error: { message: expect.stringMatching(/bearer token/) },
    });
    expect((await postMcp(bot.port, { authorization: `Bearer ${SECRET}x` })).status).toBe(401);
    expect((await postMcp(bot.port, { authorization: SECRET })).status).toBe(401);
    expect((await postMcp(bot.port, { authorization: `Basic ${SECRET}` })).status).toBe(401);
    expect((await bot.command('list_vlans')).status).toBe(200);
  });

  it('keeps a session to the token that opened it', async () => {
    const opened = await postMcp(bot.port, { authorization: `Bearer ${SECRET}` });
    expect(opened.status).toBe(200);
    const session = opened.headers.get('mcp-session-id') ?? '';
    expect(session).not.toBe('');
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const other = await postMcp(
      bot.port,
      { authorization: `Bearer ${OTHER_SECRET}`, 'mcp-session-id': session },
      list,
    );
    expect(other.status).toBe(404);
    const tooBig = await postMcp(
      bot.port,
      { authorization: `Bearer ${SECRET}` },
      `"${'x'.repeat(1_100_000)}"`,
    );
    expect(tooBig.status).toBe(413);
  });

  it('lists every registry tool and get_change_request', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const tool of bot.app.registry.list()) expect(names).toContain(tool.name);
    // revert_change follows get_change_request; propose_change_set comes last.
    expect(names.slice(-3)).toEqual(['get_change_request', 'revert_change', 'propose_change_set']);
    const list = await call('list_vlans', {});
    expect(textOf(list)).toContain('IoT');
  });

  it('turns a confirmed write into a change request in the channel, changes nothing, and answers at once', async () => {
    const result = await call('create_network', {
      name: 'Lab',
      vlan_id: 44,
      subnet: '10.44.0.0/24',
      confirm: true,
    });
    expect(result.isError).toBeUndefined();
    const answer = result.structuredContent as Record<string, unknown>;
    expect(answer).toMatchObject({
      change_request_id: expect.stringMatching(/^cr_/),
      state: 'pending',
      preview: { dry_run: true, would_create: { name: 'Lab', vlan: 44 } },
      message_link: expect.stringMatching(/^https:\/\/example\.slack\.com\/archives\/C0NETOPS\/p\d+$/),
      channel: CHANNEL,
    });
    expect(textOf(result)).toMatch(/pending: nothing has changed yet/);
    expect(previews()).toHaveLength(1);
    const preview = previews()[0];
    expect(approveValue(preview)).toBe(answer.change_request_id);
    const shown = JSON.stringify(preview?.args.blocks);
    expect(shown).toContain('“test-assistant 9.9” via MCP (token U0ALICE) for <@U0ALICE>');
    expect(shown).toMatch(/Lab[\s\S]*10\.44\.0\./);
    expect(networkPosts()).toEqual([]);
    const request = await bot.approvals.get(String(answer.change_request_id));
    expect(request).toMatchObject({
      state: 'pending',
      channel: CHANNEL,
      requester: { userId: 'mcp:U0ALICE' },
    });
  });

  it('runs it once when a second person approves; the token’s holder cannot approve it; get_change_request follows it', async () => {
    const id = approveValue(previews()[0]) ?? '';
    const pending = await call('get_change_request', { change_request_id: id });
    expect(pending.structuredContent).toMatchObject({
      state: 'pending',
      message_link: expect.stringContaining('C0NETOPS'),
    });

    await bot.click('approve', id, 'U0ALICE');
    await bot.slack.waitFor(() =>
      bot.slack.responses.some((r) => JSON.stringify(r.body).includes('your MCP client requested')),
    );
    expect(networkPosts()).toEqual([]);

    await bot.click('approve', id, 'U2');
    await bot.slack.waitFor(() => bot.slack.callsOf('chat.postMessage').some((c) => c.args.thread_ts));
    await bot.click('approve', id, 'U3');
    await bot.slack.waitFor(() =>
      bot.slack.responses.some((r) => JSON.stringify(r.body).includes('Already ran')),
    );
    expect(networkPosts()).toHaveLength(1);
    // The official body (10.1): the tag is `vlanId`.
    expect(networkPosts()[0]?.body).toMatchObject({ name: 'Lab', vlanId: 44 });

    const done = await call('get_change_request', { change_request_id: id });
    expect(done.structuredContent).toMatchObject({
      change_request_id: id,
      state: 'succeeded',
      approved_by: 'u2',
      result: { success: true, network: { name: 'Lab', vlan_id: 44 } },
    });
    expect(textOf(done)).toMatch(/succeeded, approved and run/);
  });

  it('reads only the change requests its own token proposed: not another token’s, not a person’s in Slack', async () => {
    const id = approveValue(previews()[0]) ?? '';
    expect((await call('get_change_request', { change_request_id: id })).isError).toBeUndefined();
    const other = await connect(bot.port, OTHER_SECRET);
    try {
      const result = (await other.callTool({
        name: 'get_change_request',
        arguments: { change_request_id: id },
      })) as CallToolResult;
      expect(result.structuredContent).toMatchObject({ error: { code: 'not_found' } });
      expect(textOf(result)).toMatch(/reads only the change requests it proposed/);
      expect(JSON.stringify(result)).not.toContain('10.44.0.');
    } finally {
      await other.close();
    }
    const before = previews().length;
    await bot.command('create_network name=Lab45 vlan_id=45 subnet=10.45.0.0/24', 'U2', CHANNEL);
    await bot.slack.waitFor(() => previews().length > before);
    const slackId = approveValue(previews()[before]) ?? '';
    expect(await bot.approvals.get(slackId)).toMatchObject({ requester: { userId: 'U2' } });
    const theirs = await call('get_change_request', { change_request_id: slackId });
    expect(theirs.structuredContent).toMatchObject({ error: { code: 'not_found' } });
    expect(JSON.stringify(theirs)).not.toContain('Lab45');
  });

  it('previews with dry_run without a change request, and refuses bad ids as tool errors', async () => {
    const before = previews().length;
    const preview = await call('delete_network', { network_id: 'Guest', dry_run: true });
    expect(preview.structuredContent).toMatchObject({ dry_run: true });
    const unconfirmed = await call('delete_network', { network_id: 'Guest' });
    expect(textOf(unconfirmed)).toMatch(/confirm: true to ask a person to approve it in Slack/);
    const bad = await call('get_change_request', { change_request_id: 'nope' });
    expect(bad.structuredContent).toMatchObject({
      error: { code: 'validation_failed', fields: [{ field: 'change_request_id' }] },
    });
    const missing = await call('get_change_request', { change_request_id: `cr_${'a'.repeat(20)}` });
    expect(missing.structuredContent).toMatchObject({ error: { code: 'not_found' } });
    expect(previews()).toHaveLength(before);
  });
});

describe('the MCP endpoint’s presence', () => {
  it('is absent (404) when MCP_TOKEN is unset', async () => {
    const bot = await startSlackBot({ mcp: true, env: { MCP_WRITES: 'confirm' } });
    try {
      expect((await postMcp(bot.port, { authorization: `Bearer ${SECRET}` })).status).toBe(404);
      expect(bot.app.mcp).toBeDefined();
    } finally {
      await bot.close();
    }
  });

  it('is served on the health server’s port in Socket Mode', async () => {
    const [slack, socket, sim] = await Promise.all([
      startFakeSlack(),
      startFakeSocketMode(),
      startSimulator(),
    ]);
    slack.socketModeUrl = socket.url;
    const config = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-test',
      SLACK_APP_TOKEN: 'xapp-test',
      SLACK_API_URL: slack.apiUrl,
      PORT: '0',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'netops-mcp-socket-')),
      MCP_TOKEN: SECRET,
      MCP_WRITES: 'confirm',
    });
    const app = createApp({
      config,
      logger: silentLogger(),
      gateway: testGateway(sim),
      store: new FileStore(config.dataDir, { data: new MemoryStore() }),
      slackKit,
      mcpKit,
    });
    try {
      const started = await app.slack?.start();
      expect(started?.mode).toBe('socket');
      const port = started?.port ?? 0;
      expect((await postMcp(port)).status).toBe(401);
      const client = await connect(port);
      const result = (await client.callTool({
        name: 'get_subnet_info',
        arguments: { network_id: 'IoT' },
      })) as CallToolResult;
      expect(result.structuredContent).toMatchObject({ name: 'IoT' });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).not.toContain('get_change_request');
      await client.close();
    } finally {
      await app.close();
      await Promise.all([slack.close(), socket.close(), sim.close()]);
    }
  });
});
