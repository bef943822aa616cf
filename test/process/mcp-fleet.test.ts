// The MCP front end serving a fleet (CONSOLES_FILE): `node dist/main.js mcp` on stdio, driven by the
// SDK's own client, reads one console by `console=` and names the field of an unknown console.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fleet, startFleet } from '../../src/simulator/fleet.js';
import { MAIN } from '../helpers/bot-process.js';

let fleet: Fleet;
let client: Client;

beforeAll(async () => {
  // Two consoles on two versions, so each console's answer is its own.
  fleet = await startFleet({
    consoles: [
      { name: 'berlin', version: '10.1' },
      { name: 'munich', version: '9.0', reach: 'connector' },
    ],
  });
  const file = fleet.consolesFile();
  const dir = mkdtempSync(join(tmpdir(), 'netops-mcp-fleet-'));
  writeFileSync(join(dir, 'consoles.yaml'), file.text);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, 'mcp'],
    env: { ...file.env, CONSOLES_FILE: join(dir, 'consoles.yaml'), DATA_DIR: dir, MCP_WRITES: 'off' },
    stderr: 'pipe',
  });
  client = new Client({ name: 'process-test-fleet-assistant', version: '1.0' });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  await fleet?.close();
});

const call = async (name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

describe('`netops mcp` serving a fleet', () => {
  it('lists list_consoles, and console and site on every tool, console naming the fleet', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('list_consoles');
    const vlans = tools.find((t) => t.name === 'list_vlans');
    expect(vlans?.inputSchema.properties?.console).toMatchObject({ enum: ['berlin', 'munich'] });
    expect(JSON.stringify(vlans?.inputSchema.properties?.console)).toContain('berlin, munich');
    expect(vlans?.inputSchema.properties?.site).toMatchObject({ type: 'string' });
    for (const tool of tools) expect(tool.inputSchema.properties?.console, tool.name).toBeDefined();
    expect(client.getInstructions()).toContain(
      'serves 2 consoles (berlin, munich): every tool takes console=',
    );
  });

  it('reads the console console= names, on the site site= names', async () => {
    const munich = fleet.console('munich');
    const site = munich.siteNames[1];
    if (site === undefined) throw new Error('the fleet seeds two sites per console');
    munich.clearRequests();
    fleet.console('berlin').clearRequests();
    const result = await call('list_vlans', { console: 'munich', site });
    expect(result.isError).toBeUndefined();
    const rows = (result.structuredContent as { result: { name: string }[] }).result;
    const seeded = munich.state.sites.find((s) => s.name === site)?.networks.map((n) => n.name) ?? [];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(seeded).toContain(row.name);
    // munich answered (through the connector), on that site; berlin was not asked.
    expect(munich.requests.some((r) => r.path.includes(`/s/${site}/`))).toBe(true);
    expect(fleet.console('berlin').requests).toEqual([]);
  });

  it('answers list_consoles with every console', async () => {
    const result = await call('list_consoles', {});
    const rows = (result.structuredContent as { result: { console: string; reachable: boolean }[] }).result;
    expect(rows.map((r) => [r.console, r.reachable])).toEqual([
      ['berlin', true],
      ['munich', true],
    ]);
  });

  it('names the console field of an unknown console, with the close name', async () => {
    const result = await call('list_vlans', { console: 'munch' });
    expect(result.isError).toBe(true);
    const error = (result.structuredContent as { error: { fields: { field: string; rule: string }[] } })
      .error;
    expect(error.fields).toEqual([
      { field: 'console', rule: expect.stringContaining('no console is named munch') },
    ]);
    expect(error.fields[0]?.rule).toContain('did you mean munich');
  });

  it('asks for the console when a call names none', async () => {
    const result = await call('list_vlans', {});
    expect(result.isError).toBe(true);
    const error = (result.structuredContent as { error: { fields: { field: string; rule: string }[] } })
      .error;
    expect(error.fields.map((f) => f.field)).toEqual(['console']);
    expect(error.fields[0]?.rule).toContain('berlin, munich');
  });
});
