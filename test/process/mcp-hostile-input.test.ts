// Hostile input over MCP and secrets that must stay hidden, against the built program:
// `node dist/main.js` in HTTP mode with MCP_TOKEN, a fake Slack on loopback, the simulator as the
// controller (with secrets stored in a network, as a real one has), and the SDK's client or raw
// JSON-RPC on POST /mcp.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { LIMITS, messageProblems } from '../../src/slack/blocks/limits.js';
import { type BotProcess, runBot, spawnBot, stopAllBots } from '../helpers/bot-process.js';
import { type FakeSlack, type SlackCall, startFakeSlack } from '../helpers/fake-slack.js';
import { textOf } from '../helpers/mcp.js';
import { commandBody, slackHeaders } from '../helpers/slack-requests.js';

// Networks serve as the sample write on their classic path (networkconf routes and faults): a 9.0
// console. Networks through the official API (10.1): tools/networks-official.test.ts.

// Deliberately alike: this run's own credentials and stored secrets, distinct literals so a leak names its source.
const ALICE = 'attack-alice-secret-0123456789abcdef';
const BOB = 'attack-bob-secret-0123456789abcdef0';
const SIGNING = 'attack-run-signing-secret-0123';
const BOT_TOKEN = 'xoxb-attack-run-0123';
const CHANNEL = 'C0NETOPS';

// Secrets a controller stores in a network (field names from public sources).
const PSK = 'ipsec-psk-Do-Not-Show-4711';
const RADIUS = 'radius-secret-Do-Not-Show-4712';
const OVPN_KEY = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDoNotShow';
const WG_PRIVATE = 'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=';
const TUNNEL_KEY = 'tunnel-key-Do-Not-Show-4713';
const STORED_SECRETS = {
  x_ipsec_pre_shared_key: PSK,
  radius_secret: RADIUS,
  openvpn_configuration: `client\nremote vpn.example.com 1194\n<key>\n-----BEGIN PRIVATE KEY-----\n${OVPN_KEY}\n-----END PRIVATE KEY-----\n</key>\n`,
  wireguard_client_configuration_file: `[Interface]\nPrivateKey = ${WG_PRIVATE}\nAddress = 10.9.0.2/32\n`,
  x_wireguard_private_key: WG_PRIVATE,
  site_tunnel_key: TUNNEL_KEY,
};
const SECRET_VALUES = [PSK, RADIUS, OVPN_KEY, WG_PRIVATE, TUNNEL_KEY];

let sim: Simulator;
let slack: FakeSlack;
let bot: BotProcess;
let port: number;
const clients: Client[] = [];

async function connect(secret: string, name = 'attack-assistant', version = '1.0'): Promise<Client> {
  const client = new Client({ name, version });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
    }),
  );
  clients.push(client);
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

/** One raw JSON-RPC message on POST /mcp: the HTTP status and the parsed answer. */
async function rpc(
  secret: string,
  body: unknown,
  session?: string,
): Promise<{ status: number; session: string | null; json: Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${secret}`,
      ...(session ? { 'mcp-session-id': session } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    session: response.headers.get('mcp-session-id'),
    json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

const initialize = (name = 'curl') => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '1' } },
});

const previews = () =>
  slack.callsOf('chat.postMessage').filter((c) => c.args.channel === CHANNEL && !c.args.thread_ts);

/** Every file under a folder, as text (the journal and the bot's data). */
function filesUnder(dir: string): string {
  return readdirSync(dir)
    .map((name) => join(dir, name))
    .map((path) => (statSync(path).isDirectory() ? filesUnder(path) : readFileSync(path, 'utf8')))
    .join('\n');
}

function expectNoSecret(text: string, where: string): void {
  for (const secret of [...SECRET_VALUES, sim.apiKey, ALICE, BOB, SIGNING, BOT_TOKEN]) {
    expect(text, `${where} shows ${secret}`).not.toContain(secret);
  }
}

beforeAll(async () => {
  [sim, slack] = await Promise.all([startSimulator({ apiVersion: '9.0' }), startFakeSlack()]);
  const iot = sim.state.findNetworkByName('default', 'IoT');
  if (!iot) throw new Error('the demo site has no IoT network');
  Object.assign(iot, STORED_SECRETS);
  bot = spawnBot({
    GATEWAY_URL: sim.url,
    GATEWAY_API_KEY: sim.apiKey,
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING,
    SLACK_API_URL: slack.apiUrl,
    PORT: '0',
    MCP_TOKEN: `U0ALICE:${ALICE},U0BOB:${BOB}`,
    MCP_APPROVAL_CHANNEL: CHANNEL,
    // A sweep every second: a preview Slack refused would be tried again within seconds.
    REPLICA_LEASE_SECONDS: '3',
  });
  port = Number((await bot.waitForLog((l) => l.msg.startsWith('listening on port'))).port);
}, 40_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await stopAllBots();
  await Promise.all([slack?.close(), sim?.close()]);
});

describe('MCP and secrets over the real interfaces', () => {
  it('update_network dry_run over MCP, the Slack preview, the journal and the console mask every secret field', async () => {
    const alice = await connect(ALICE);
    const dry = await call(alice, 'update_network', {
      network_id: 'IoT',
      dhcp_dns_1: '1.1.1.1',
      dry_run: true,
    });
    expect(dry.isError).toBeUndefined();
    const wouldSend = (dry.structuredContent as { would_send: Record<string, unknown> }).would_send;
    for (const field of Object.keys(STORED_SECRETS)) expect(wouldSend[field], field).toBe('[redacted]');
    expectNoSecret(JSON.stringify(dry), 'the MCP dry run');
    const details = await call(alice, 'get_network_details', { network_id: 'IoT' });
    expectNoSecret(JSON.stringify(details), 'get_network_details over MCP');

    const proposed = await call(alice, 'update_network', {
      network_id: 'IoT',
      dhcp_dns_1: '1.1.1.1',
      confirm: true,
    });
    expect(proposed.isError).toBeUndefined();
    expectNoSecret(JSON.stringify(proposed), 'the MCP proposal');
    const id = (proposed.structuredContent as { change_request_id: string }).change_request_id;
    await slack.waitFor(() => previews().some((c) => JSON.stringify(c.args).includes(id)), 10_000);
    const followed = await call(alice, 'get_change_request', { change_request_id: id });
    expectNoSecret(JSON.stringify(followed), 'get_change_request');
    expectNoSecret(JSON.stringify(slack.calls.map((c) => c.args)), 'Slack');
    expectNoSecret(filesUnder(bot.dataDir), 'the journal');

    const consoleRun = await runBot(
      ['update_network', 'network_id=IoT', 'dhcp_dns_1=1.1.1.1', 'dry_run=true', '--json'],
      { env: { GATEWAY_URL: sim.url, GATEWAY_API_KEY: sim.apiKey } },
    );
    expect(consoleRun.stdout).toContain('[redacted]');
    expectNoSecret(consoleRun.stdout + consoleRun.stderr, 'the console');
  });

  it('a client name with markup shows as one plain quoted line of at most 64 characters', async () => {
    const client = await connect(
      ALICE,
      'claude-desktop\n\n:white_check_mark: *Approved by the network admin* — safe to click Approve',
    );
    // Deliberately alike: per-case proposals over MCP: each names its own network so the previews stay apart.
    const proposed = await call(client, 'create_network', {
      name: 'Markup',
      vlan_id: 71,
      subnet: '10.71.0.0/24',
      confirm: true,
    });
    const id = (proposed.structuredContent as { change_request_id: string }).change_request_id;
    await slack.waitFor(() => previews().some((c) => JSON.stringify(c.args).includes(id)), 10_000);
    const preview = previews().find((c) => JSON.stringify(c.args).includes(id)) as SlackCall;
    const shown = JSON.stringify(preview.args);
    expect(shown).not.toContain(':white_check_mark:');
    expect(shown).not.toContain('*Approved');
    const label = /“([^”]*)” via MCP \(token U0ALICE\)/.exec(shown)?.[1] ?? '';
    expect(label).toMatch(/^claude-desktop white check mark Approved by the network/);
    expect(label.length).toBeLessThanOrEqual(64);
    expect(label).not.toMatch(/\\n|[*:_~`<>]/);
  });

  it('a 2,000-character client name stays within Block Kit limits; a preview Slack refuses for content is withdrawn, the proposer told why, and not tried again', async () => {
    const long = await connect(ALICE, 'x'.repeat(2000));
    const fine = await call(long, 'create_network', {
      name: 'Long',
      vlan_id: 72,
      subnet: '10.72.0.0/24',
      confirm: true,
    });
    const fineId = (fine.structuredContent as { change_request_id: string }).change_request_id;
    await slack.waitFor(() => previews().some((c) => JSON.stringify(c.args).includes(fineId)), 10_000);
    const posted = previews().find((c) => JSON.stringify(c.args).includes(fineId)) as SlackCall;
    expect(messageProblems(posted.args)).toEqual([]);
    const fields = (posted.args.blocks as { fields?: { text: string }[] }[]).flatMap((b) => b.fields ?? []);
    for (const field of fields) expect(field.text.length).toBeLessThanOrEqual(LIMITS.fieldText);

    const before = slack.callsOf('chat.postMessage').length;
    slack.failures['chat.postMessage'] = { error: 'invalid_blocks', times: 1 };
    const refused = await call(long, 'create_network', {
      name: 'Refused',
      vlan_id: 73,
      subnet: '10.73.0.0/24',
      confirm: true,
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(
      /Slack refused to post the preview .*invalid_blocks.*withdrawn .* nothing will run/,
    );
    expect(textOf(refused)).not.toMatch(/tries again within seconds/);
    const id = (refused.structuredContent as { change_request_id: string }).change_request_id;
    const state = await call(long, 'get_change_request', { change_request_id: id });
    expect(state.structuredContent).toMatchObject({
      state: 'cancelled',
      status: expect.stringMatching(/withdrawn/),
    });
    // Sweeps run every second: none posts it again.
    await new Promise((r) => setTimeout(r, 2500));
    expect(slack.callsOf('chat.postMessage').length).toBe(before + 1);
  });

  it('300 initialize calls with one token do not push out another token’s session', async () => {
    const alice = await connect(ALICE);
    expect((await alice.listTools()).tools.length).toBeGreaterThan(10);
    for (let i = 0; i < 300; i += 1) {
      const opened = await rpc(BOB, initialize(`flood-${i}`));
      expect(opened.status).toBe(200);
    }
    const list = await alice.listTools();
    expect(list.tools.map((t) => t.name)).toContain('get_change_request');
  });

  it('a malformed resource URI and badly typed tools/call params are "invalid params" naming the field', async () => {
    const { session } = await rpc(ALICE, initialize());
    expect(session).toBeTruthy();
    const read = await rpc(
      ALICE,
      { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'topology://%ZZ' } },
      session ?? '',
    );
    expect(read.json.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/invalid params: params\.uri: .*percent-encoded/),
    });
    const badCall = await rpc(
      ALICE,
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'list_vlans', arguments: 'all of them' },
      },
      session ?? '',
    );
    const error = badCall.json.error as { code: number; message: string };
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/invalid params: params\.arguments: must be an object/);
    expect(error.message).not.toMatch(/invalid_type|"path"|Invalid tools\/call request/);
    const noName = await rpc(
      ALICE,
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 5 } },
      session ?? '',
    );
    expect((noName.json.error as { message: string }).message).toMatch(
      /params\.name: must be the name of a tool/,
    );
    expect(bot.stdout()).not.toMatch(/URIError|unexpected error in the MCP front end/);
  });

  it('a controller error that echoes the API key reaches neither Slack, MCP nor the log', async () => {
    const echo = { meta: { rc: 'error', msg: `api.err.Invalid (key ${sim.apiKey} refused)` }, data: [] };
    sim.injectFault({
      method: 'GET',
      route: 'rest/networkconf',
      kind: 'status',
      status: 400,
      body: echo,
      times: 4,
    });
    // A preview reads the controller fresh (never from the read cache earlier tests filled).
    const body = commandBody({
      text: 'update_network network_id=IoT dhcp_dns_1=1.1.1.1',
      response_url: slack.responseUrl(),
    });
    const answered = await fetch(`http://127.0.0.1:${port}/slack/events`, {
      method: 'POST',
      headers: slackHeaders(SIGNING, body),
      body,
    });
    expect(answered.status).toBe(200);
    const shown = () => JSON.stringify(slack.responses) + JSON.stringify(slack.calls.map((c) => c.args));
    await slack.waitFor(() => shown().includes('The controller refused'), 10_000);
    const alice = await connect(ALICE);
    const result = await call(alice, 'update_network', {
      network_id: 'IoT',
      dhcp_dns_1: '1.1.1.1',
      dry_run: true,
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('[redacted]');
    sim.clearFaults();
    expectNoSecret(JSON.stringify(slack.responses) + JSON.stringify(slack.calls.map((c) => c.args)), 'Slack');
    expectNoSecret(JSON.stringify(result), 'MCP');
    expectNoSecret(bot.stdout() + bot.stderr(), 'the log');
  });

  it('an MCP token whose label is not a Slack user id is refused at start when MCP writes need approval', async () => {
    const run = await runBot([], {
      env: {
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_SIGNING_SECRET: SIGNING,
        SLACK_API_URL: slack.apiUrl,
        PORT: '0',
        MCP_TOKEN: `ci:${ALICE}`,
        MCP_APPROVAL_CHANNEL: CHANNEL,
      },
    });
    expect(run.code).toBe(2);
    expect(run.stdout + run.stderr).toMatch(/MCP_TOKEN.*Slack user id of the token's holder/);
    expect(run.stdout + run.stderr).not.toContain(ALICE);
  });
});
