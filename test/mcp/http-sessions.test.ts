import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { McpHttpEndpoint } from '../../src/mcp/http-endpoint.js';

const A = 'session-test-token-a-0123456789';
const B = 'session-test-token-b-0123456789';

let server: Server | undefined;
let endpoint: McpHttpEndpoint | undefined;

afterEach(async () => {
  await endpoint?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** The endpoint on a loopback port with a clock the test moves, and small limits. */
async function start(clock: { now: number }) {
  endpoint = new McpHttpEndpoint(
    [
      { label: 'U0ALICE', secret: A },
      { label: 'U0BOB', secret: B },
    ],
    () => new McpServer({ name: 'test', version: '1' }, { capabilities: {} }),
    silentLogger(),
    () => clock.now,
    { idleMs: 60_000, max: 4, perToken: 2 },
  );
  const http = createServer(endpoint.handle);
  server = http;
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  const post = async (token: string, body: unknown, session?: string) => {
    // Deliberately alike: the raw JSON-RPC POST an MCP client sends, written out so headers are under test.
    const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        ...(session ? { 'mcp-session-id': session } : {}),
      },
      body: JSON.stringify(body),
    });
    await response.text();
    return { status: response.status, session: response.headers.get('mcp-session-id') ?? '' };
  };
  const open = (token: string) =>
    post(token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
  const ping = (token: string, session: string) =>
    post(token, { jsonrpc: '2.0', id: 2, method: 'ping' }, session);
  return { open, ping };
}

describe('MCP sessions over HTTP: a cap per token, idle ones closed', () => {
  it('a token at its cap loses its own least recently used session, never another token’s', async () => {
    const clock = { now: 0 };
    const { open, ping } = await start(clock);
    const alice = await open(A);
    for (let i = 0; i < 10; i += 1) {
      clock.now += 1;
      expect((await open(B)).status).toBe(200);
    }
    expect((await ping(A, alice.session)).status).toBe(200);
    expect(endpoint?.sessionCount).toBe(3);
  });

  it('closes a session unused for the idle time, and keeps one in use', async () => {
    const clock = { now: 0 };
    const { open, ping } = await start(clock);
    const idle = await open(A);
    const busy = await open(B);
    clock.now = 50_000;
    expect((await ping(B, busy.session)).status).toBe(200);
    clock.now = 70_000;
    await open(B);
    expect((await ping(A, idle.session)).status).toBe(404);
    expect((await ping(B, busy.session)).status).toBe(200);
  });
});
