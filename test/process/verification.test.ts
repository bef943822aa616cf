import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { MAIN, runBot, stopAllBots } from '../helpers/bot-process.js';

// What a write's result says when the controller keeps something else than was sent, through the
// built program: the console's text and --json, and an MCP answer in confirm mode.

afterAll(stopAllBots);

describe('a write the controller stores differently', () => {
  let sim: Simulator;
  let env: Record<string, string>;
  beforeAll(async () => {
    sim = await startSimulator({ apiVersion: '9.0' });
    env = { GATEWAY_URL: sim.url, GATEWAY_API_KEY: sim.apiKey };
  });
  afterAll(async () => {
    await sim?.close();
  });
  const storeOtherVlan = (vlan: number) =>
    sim.injectFault({ kind: 'store-as', method: 'PUT', route: 'rest/networkconf', set: { vlan } });

  it('says "applied, not as sent" with the field sent and held, in the console’s text and --json', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'netops-verify-console-'));
    storeOtherVlan(1071);
    const text = await runBot(['update_network', 'network_id=IoT', 'vlan_id=71', '--yes'], {
      env: { ...env, DATA_DIR: dataDir },
    });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/verification: applied, not as sent: sent vlan 71, controller holds 1071/);

    storeOtherVlan(1072);
    const json = await runBot(['update_network', 'network_id=Cameras', 'vlan_id=72', '--yes', '--json'], {
      env: { ...env, DATA_DIR: dataDir },
    });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      verification: {
        status: 'not_as_sent',
        summary: expect.stringContaining('applied, not as sent'),
        mismatches: [{ field: 'vlan', sent: 72, held: 1072 }],
      },
    });

    const verified = await runBot(['update_network', 'network_id=Guest', 'vlan_id=73', '--yes', '--json'], {
      env: { ...env, DATA_DIR: dataDir },
    });
    expect(JSON.parse(verified.stdout)).toMatchObject({ verification: { status: 'verified' } });
  });

  it('says it in an MCP answer (confirm mode)', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, 'mcp'],
      env: {
        ...env,
        DATA_DIR: mkdtempSync(join(tmpdir(), 'netops-verify-mcp-')),
        MCP_WRITES: 'confirm',
        PATH: process.env.PATH ?? '',
      },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'verification-assistant', version: '1.0' });
    await client.connect(transport);
    try {
      storeOtherVlan(1074);
      const result = (await client.callTool({
        name: 'update_network',
        arguments: { network_id: 'Servers', vlan_id: 74, confirm: true },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        verification: expect.stringMatching(/applied, not as sent: sent vlan 74, controller holds 1074/),
      });
    } finally {
      await client.close();
    }
  });
});
