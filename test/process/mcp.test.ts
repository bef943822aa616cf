// The MCP front end as it ships: `node dist/main.js mcp` on stdio, and POST /mcp on a spawned bot,
// each configured by environment variables only and driven by the SDK's own client.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { createRegistry } from '../../src/tools/index.js';
import { MAIN, runBot, spawnBot, stopAllBots } from '../helpers/bot-process.js';
import { type FakeSlack, type SlackCall, startFakeSlack } from '../helpers/fake-slack.js';
import { exampleArguments, SPEC_CALLS, schemaValidator, textOf } from '../helpers/mcp.js';
import { useTestDatabase } from '../helpers/postgres.js';
import { buttonBody, slackHeaders } from '../helpers/slack-requests.js';

// Networks serve as the sample write on their classic path (networkconf routes and faults): a 9.0
// console. Networks through the official API (10.1): tools/networks-official.test.ts.

const SECRET = 'process-mcp-secret-0123456789abcdef';
const SIGNING = 'process-mcp-signing-secret';
const registry = createRegistry('default');

/** `node dist/main.js mcp` with only `env` (plus what the SDK passes: PATH, HOME, …), and a client on it. */
async function stdioClient(env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, 'mcp'],
    env: { DATA_DIR: mkdtempSync(join(tmpdir(), 'netops-mcp-stdio-')), ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'process-test-assistant', version: '1.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

afterAll(stopAllBots);

describe('`netops mcp` on stdio (the built program, the built-in simulator)', () => {
  let client: Client;
  let stderr: () => string;
  beforeAll(async () => {
    ({ client, stderr } = await stdioClient({}));
  });
  afterAll(() => client?.close());

  it('lists every registry tool, each with a JSON Schema that accepts its example and the spec’s arguments', async () => {
    const { tools } = await client.listTools();
    const listed = tools.map((t) => t.name);
    const missing = registry.list().filter((t) => !listed.includes(t.name));
    expect(missing.map((t) => t.name)).toEqual([]);
    // revert_change and propose_change_set are MCP's own, beyond the registry (MCP_WRITES=confirm).
    expect(listed).toHaveLength(registry.list().length + 2);
    expect(listed.slice(-2)).toEqual(['revert_change', 'propose_change_set']);
    const check = schemaValidator(tools);
    for (const { tool, args } of [...exampleArguments(registry), ...SPEC_CALLS]) {
      expect(check(tool, args), `${tool} ${JSON.stringify(args)}`).toEqual([]);
    }
  });

  it('answers tools/call list_vlans with the demo site’s networks', async () => {
    const result = await call(client, 'list_vlans', {});
    expect(result.isError).toBeUndefined();
    const rows = (result.structuredContent as { result: { name: string }[] }).result;
    expect(rows.map((r) => r.name)).toEqual(expect.arrayContaining(['Default', 'IoT', 'Guest', 'Servers']));
    expect(textOf(result)).toMatch(/IoT/);
  });

  it('returns bad arguments as a tool error that names the field', async () => {
    const result = await call(client, 'get_client_dpi', { client_mac: 'not-a-mac', time_range: '2d' });
    expect(result.isError).toBe(true);
    const fields = (result.structuredContent as { error: { fields: { field: string }[] } }).error.fields;
    expect(fields.map((f) => f.field).sort()).toEqual(['client_mac', 'time_range']);
    expect(textOf(result)).toMatch(/client_mac: /);
  });

  it('keeps stdout for the protocol: the simulator note goes to stderr', () => {
    expect(stderr()).toMatch(/built-in controller simulator/);
  });
});

describe("`netops mcp` and one-shot commands with the Slack bot's .env", () => {
  // The signing secret authenticates Slack's requests; a process that takes none does not need it.
  const slackEnv = { SLACK_BOT_TOKEN: 'xoxb-shared-env-token' };

  it('names what it needs instead of the signing secret, and serves reads without it', async () => {
    const refused = await runBot(['mcp'], { env: slackEnv });
    expect(refused.code).toBe(2);
    expect(refused.stderr).not.toMatch(/SLACK_SIGNING_SECRET/);
    expect(refused.stderr).toMatch(
      /needs the shared store \(DATABASE_URL\).*or MCP_WRITES=off \(reads only\)\.$/m,
    );
    const { client } = await stdioClient({ ...slackEnv, MCP_WRITES: 'off' });
    try {
      const result = await call(client, 'list_vlans', {});
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toMatch(/IoT/);
    } finally {
      await client.close();
    }
  });

  it('runs a one-shot command without it, and the bot itself still asks for it', async () => {
    const oneShot = await runBot(['list_vlans'], { env: slackEnv });
    expect(oneShot.code).toBe(0);
    expect(oneShot.stdout).toMatch(/IoT/);
    const bot = await runBot([], { env: slackEnv });
    expect(bot.code).toBe(2);
    expect(bot.stderr).toContain('SLACK_SIGNING_SECRET: is required in HTTP mode');
  });
});

describe('`netops mcp` refuses a configuration it cannot serve', () => {
  it('approval mode with only the file store: exit 2 and why', async () => {
    const run = await runBot(['mcp'], { env: { MCP_WRITES: 'approval', MCP_APPROVAL_CHANNEL: 'C0NETOPS' } });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/MCP_WRITES=approval over stdio needs the shared store \(DATABASE_URL\)/);
  });
});

describe('POST /mcp on the spawned bot in HTTP mode', () => {
  let slack: FakeSlack;
  let port: number;
  beforeAll(async () => {
    slack = await startFakeSlack();
    const bot = spawnBot({
      SLACK_BOT_TOKEN: 'xoxb-process-mcp',
      SLACK_SIGNING_SECRET: SIGNING,
      SLACK_API_URL: slack.apiUrl,
      PORT: '0',
      MCP_TOKEN: `U0PROCMCP:${SECRET}`,
      MCP_APPROVAL_CHANNEL: 'C0NETOPS',
    });
    const listening = await bot.waitForLog((l) => l.msg.startsWith('listening on port'));
    expect(listening.msg).toContain('POST /mcp (MCP_WRITES=approval)');
    port = Number(listening.port);
  });
  afterAll(() => slack?.close());

  it('answers 401 without a token and with a wrong one', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: 'Bearer wrong-token-0123456789' })).status).toBe(401);
  });

  it('serves the SDK client with the right token', async () => {
    const client = new Client({ name: 'process-test-assistant', version: '1.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${SECRET}` } },
      }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('get_change_request');
    const result = await call(client, 'get_subnet_info', { network_id: 'IoT' });
    expect(result.structuredContent).toMatchObject({ name: 'IoT' });
    await client.close();
  });
});

describe('approval mode over stdio: `netops mcp` and the Slack bot, two processes on one PostgreSQL', () => {
  const db = useTestDatabase();
  let slack: FakeSlack;
  let sim: Simulator;
  let client: Client;
  let port: number;
  const CHANNEL = 'C0NETOPS';
  const previews = () =>
    slack.callsOf('chat.postMessage').filter((c) => c.args.channel === CHANNEL && !c.args.thread_ts);
  const networkPosts = () =>
    sim.requests.filter((r) => r.method === 'POST' && r.route.endsWith('rest/networkconf'));

  beforeAll(async () => {
    [slack, sim] = await Promise.all([startFakeSlack(), startSimulator({ apiVersion: '9.0' })]);
    const shared = {
      GATEWAY_URL: sim.url,
      GATEWAY_API_KEY: sim.apiKey,
      DATABASE_URL: db.url,
      MCP_APPROVAL_CHANNEL: CHANNEL,
    };
    const bot = spawnBot({
      ...shared,
      SLACK_BOT_TOKEN: 'xoxb-process-mcp',
      SLACK_SIGNING_SECRET: SIGNING,
      SLACK_API_URL: slack.apiUrl,
      PORT: '0',
      // A sweep every second, so a request from the other process is posted within seconds.
      REPLICA_LEASE_SECONDS: '3',
    });
    port = Number((await bot.waitForLog((l) => l.msg.startsWith('listening on port'))).port);
    ({ client } = await stdioClient({ ...shared, MCP_WRITES: 'approval' }));
  }, 40_000);
  afterAll(async () => {
    await client?.close();
    await Promise.all([slack?.close(), sim?.close()]);
  });

  it('proposes from stdio; the bot posts the preview; a second person’s click runs it once; get_change_request reports it', async () => {
    const result = await call(client, 'create_network', {
      name: 'Lab',
      vlan_id: 45,
      subnet: '10.45.0.0/24',
      confirm: true,
    });
    expect(result.isError).toBeUndefined();
    const answer = result.structuredContent as {
      change_request_id: string;
      state: string;
      message_link: unknown;
    };
    expect(answer).toMatchObject({ state: 'pending', message_link: null });
    expect(textOf(result)).toMatch(/the Slack bot posts it in channel C0NETOPS/);

    await slack.waitFor(() => previews().length > 0, 15_000);
    expect(previews()).toHaveLength(1);
    const preview = previews()[0] as SlackCall;
    const blocks = JSON.stringify(preview.args.blocks);
    expect(blocks).toContain(answer.change_request_id);
    expect(blocks).toContain('“process-test-assistant 1.0” via MCP (token stdio)');
    expect(networkPosts()).toEqual([]);
    // The bot records the message right after Slack answers the post.
    let linked = await call(client, 'get_change_request', { change_request_id: answer.change_request_id });
    await slack.waitFor(async () => {
      linked = await call(client, 'get_change_request', { change_request_id: answer.change_request_id });
      return 'slack_message' in (linked.structuredContent ?? {});
    }, 5_000);
    expect(linked.structuredContent).toMatchObject({
      state: 'pending',
      channel: CHANNEL,
      slack_message: { channel: CHANNEL, ts: expect.stringMatching(/^\d+\.\d+$/) },
    });

    const click = buttonBody({
      actionId: 'approve',
      value: answer.change_request_id,
      userId: 'U2',
      channel: CHANNEL,
      response_url: slack.responseUrl(),
    });
    const clicked = await fetch(`http://127.0.0.1:${port}/slack/events`, {
      method: 'POST',
      headers: slackHeaders(SIGNING, click),
      body: click,
    });
    expect(clicked.status).toBe(200);
    await slack.waitFor(() => slack.callsOf('chat.postMessage').some((c) => c.args.thread_ts), 10_000);
    expect(networkPosts()).toHaveLength(1);

    const done = await call(client, 'get_change_request', { change_request_id: answer.change_request_id });
    expect(done.structuredContent).toMatchObject({
      state: 'succeeded',
      result: { success: true, network: { name: 'Lab', vlan_id: 45 } },
    });
    // Posted once, however many sweeps ran since.
    await new Promise((r) => setTimeout(r, 1500));
    expect(previews()).toHaveLength(1);
  });
});
