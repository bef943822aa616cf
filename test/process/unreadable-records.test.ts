// Controller records the bot drops as malformed are
// counted in the answer. The built program, on every face, against the simulator answering
// `GET rest/networkconf` with nine records of which seven cannot be read.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { MAIN, runBot, slackHttpEnv, spawnBot, stopAllBots } from '../helpers/bot-process.js';
import { textOf } from '../helpers/mcp.js';
import { nineNetworks, SEVEN_LEFT_OUT } from '../helpers/odd-records.js';
import { commandBody, slackHeaders } from '../helpers/slack-requests.js';
import { useSlackRig } from '../helpers/slack-rig.js';

// Networks serve as the sample write on their classic path (networkconf routes and faults): a 9.0
// console. Networks through the official API (10.1): tools/networks-official.test.ts.

const SECRET = 'unreadable-records-signing-secret';

const rig = useSlackRig({ apiVersion: '9.0' });
afterEach(async () => {
  await stopAllBots();
  rig.sim.clearFaults();
});

const gatewayEnv = () => ({ GATEWAY_URL: rig.sim.url, GATEWAY_API_KEY: rig.sim.apiKey });

describe('records the bot could not read are counted in the answer', () => {
  it('console one-shot: the table of the two networks, then the line; --json carries the count', async () => {
    rig.sim.injectFault(nineNetworks(Number.POSITIVE_INFINITY));

    const run = await runBot(['list_vlans'], { env: gatewayEnv() });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Lab\s+corporate\s+12/);
    expect(run.stdout).toMatch(/Cameras\s+corporate\s+13/);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe(SEVEN_LEFT_OUT);

    const json = await runBot(['list_vlans', '--json'], { env: gatewayEnv() });
    expect(json.code).toBe(0);
    const answer = JSON.parse(json.stdout) as { result: { name: string }[]; unreadable_records: number };
    expect(answer.result.map((r) => r.name)).toEqual(['Lab', 'Cameras']);
    expect(answer.unreadable_records).toBe(7);
  });

  it('MCP over stdio: the count in the structured result and the line in the text', async () => {
    rig.sim.injectFault(nineNetworks(Number.POSITIVE_INFINITY));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, 'mcp'],
      env: { DATA_DIR: mkdtempSync(join(tmpdir(), 'netops-unreadable-')), ...gatewayEnv() },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'unreadable-records-test', version: '1.0' });
    await client.connect(transport);
    try {
      // The SDK checks structuredContent against the tool's output schema: the field is declared.
      const result = (await client.callTool({ name: 'list_vlans', arguments: {} })) as CallToolResult;
      expect(result.isError).toBeUndefined();
      const structured = result.structuredContent as {
        result: { name: string }[];
        unreadable_records: number;
      };
      expect(structured.result.map((r) => r.name)).toEqual(['Lab', 'Cameras']);
      expect(structured.unreadable_records).toBe(7);
      expect(textOf(result)).toContain(SEVEN_LEFT_OUT);
    } finally {
      await client.close();
    }
  });

  it('Slack: the ephemeral answer says it under the table and in its text', async () => {
    rig.sim.injectFault(nineNetworks(Number.POSITIVE_INFINITY));
    const bot = spawnBot({
      ...slackHttpEnv(rig.slack, SECRET),
      ...gatewayEnv(),
    });
    const listening = await bot.waitForLog((line) => line.msg.startsWith('listening on port'));
    const responseUrl = rig.slack.responseUrl();
    const body = commandBody({ text: 'list_vlans', user_id: 'U1', response_url: responseUrl });
    const ack = await fetch(`http://127.0.0.1:${String(listening.port)}/slack/events`, {
      method: 'POST',
      headers: slackHeaders(SECRET, body),
      body,
    });
    expect(ack.status).toBe(200);
    await rig.slack.waitFor(() => rig.slack.responses.some((r) => responseUrl.endsWith(r.path)), 20_000);
    const answer = rig.slack.responses.find((r) => responseUrl.endsWith(r.path))?.body ?? {};
    expect(answer.response_type ?? 'ephemeral').toBe('ephemeral');
    expect(answer.text).toBe(
      'List vlans: 2 row(s); 7 controller records the bot could not read were left out.',
    );
    const blocks = JSON.stringify(answer.blocks ?? []);
    expect(blocks).toContain('Cameras');
    expect(blocks).toContain(SEVEN_LEFT_OUT);
  });
});
