import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { JOURNAL_FILE } from '../../src/store/file/journal.js';
import { MAIN, runBot, stopAllBots } from '../helpers/bot-process.js';

// The policy file through the built program: POLICY_FILE is checked at start, and `policy` / `policy
// check` explain it from the console.
afterAll(stopAllBots);

const dir = mkdtempSync(join(tmpdir(), 'netops-guardrails-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const GOOD = file(
  'policy.yaml',
  `rules:
  - name: no-delete-with-clients
    when: tool == "delete_network" && blast_radius.clients.count > 0
    deny: Move the clients off the network first
  - name: two-for-networks
    when: tool.endsWith("_network")
    approvals: 2
`,
);
const TYPE_ERROR = file(
  'type-error.yaml',
  `rules:
  - name: fine
    when: risk == "high"
    approvals: 2
  - name: broken
    when: blast_radius.clients.count > "many"
    approvals: 3
`,
);
const NOT_YAML = file('not-yaml.yaml', 'rules:\n  - name: a\n    when: [unclosed\n    approvals: 2\n');
const SLACK = {
  SLACK_BOT_TOKEN: 'xoxb-guardrails',
  SLACK_SIGNING_SECRET: 'guardrails-signing-secret-000',
  PORT: '0',
  SLACK_API_URL: 'http://127.0.0.1:9/api',
};

describe.concurrent('POLICY_FILE at start (`node dist/main.js`)', () => {
  it('a rule that does not type-check stops the console with the file, line and rule (exit 2)', async () => {
    const run = await runBot(['list_vlans'], { env: { POLICY_FILE: TYPE_ERROR } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`POLICY_FILE: ${TYPE_ERROR}:6: rule "broken": when does not type-check`);
    expect(run.stdout).toBe('');
  });

  it('a file that is not YAML stops the Slack bot before it listens, naming the line (exit 2)', async () => {
    const run = await runBot([], { env: { ...SLACK, POLICY_FILE: NOT_YAML } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      new RegExp(`POLICY_FILE: ${NOT_YAML.replace(/[.]/g, '\\.')}:\\d+: is not valid YAML`),
    );
    expect(run.stdout).not.toContain('listening');
  });

  it('a POLICY_FILE that does not exist is refused like any bad variable', async () => {
    const run = await runBot(['list_vlans'], { env: { POLICY_FILE: join(dir, 'missing.yaml') } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('POLICY_FILE: must name a readable file');
  });
});

describe.concurrent('policy and policy check from the console', () => {
  it('a write previewed at the console ends with its risk and the self-lockout warning, and is not run', async () => {
    const run = await runBot(['update_network', 'network_id=IoT', 'vlan_id=21'], {
      env: { BOT_SOURCE_ADDRESS: '10.20.0.103' },
    });
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/^risk: high \(self-lockout: .*11 clients affected/m);
    expect(run.stdout).toMatch(/^SELF-LOCKOUT: .*10\.20\.0\.103/m);
    const low = await runBot(['update_network', 'network_id=IoT', 'domain_name=iot.lan']);
    expect(low.stdout).toMatch(/^risk: (low|medium) \(/m);
    expect(low.stdout).not.toContain('SELF-LOCKOUT');
  });

  it('`policy check <command>` shows the risk, the blast radius and the matching rule', async () => {
    const run = await runBot(['policy', 'check', 'delete_network', 'network_id=IoT'], {
      env: { POLICY_FILE: GOOD, BOT_SOURCE_ADDRESS: '10.20.0.103' },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('risk: high');
    expect(run.stdout).toContain('no-delete-with-clients');
    expect(run.stdout).toContain('refused by no-delete-with-clients: Move the clients off the network first');
    expect(run.stdout).toContain('the bot’s own address 10.20.0.103 is in network IoT (VLAN 20)');
    expect(run.stdout).toMatch(/clients: 11 \(/);
  });

  it('`policy check` --json answers the decision as data', async () => {
    const run = await runBot(
      ['policy', 'check', 'update_network', 'network_id=Servers', 'name=Racks', '--json'],
      {
        env: { POLICY_FILE: GOOD },
      },
    );
    expect(run.code).toBe(0);
    const answer = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(answer).toMatchObject({
      tool: 'update_network',
      risk: 'low',
      matched_rules: ['two-for-networks'],
      approvals: 2,
      denied: null,
    });
  });

  it('`policy` without a file shows the default: one approval, two for high risk', async () => {
    const run = await runBot(['policy', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      source: 'built-in default (POLICY_FILE is not set)',
      every_write_needs: '1 approval, 2 for high risk',
      rules: [],
    });
  });
});

// The policy wired into approvals: a write the policy denies is refused on the console and through
// MCP too (Slack: test/process/policy-approvals.test.ts), with the rule's reason, and nothing is
// written or journaled.
const DENIED = 'refused by policy rule "no-delete-with-clients": Move the clients off the network first';
const journalOf = (dataDir: string) => {
  const path = join(dataDir, JOURNAL_FILE);
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
};

describe.concurrent('a write the policy denies, on the console and through MCP', () => {
  it('the console refuses it with the rule’s reason and journals nothing', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'netops-guardrails-console-'));
    const run = await runBot(['delete_network', 'network_id=IoT', '--yes'], {
      env: { POLICY_FILE: GOOD, DATA_DIR: dataDir },
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(DENIED);
    expect(journalOf(dataDir)).not.toContain('delete_network');
  });

  it('`netops mcp` refuses it with the rule’s reason and journals nothing', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'netops-guardrails-mcp-'));
    // Deliberately alike: the MCP stdio client of the built program, each suite with its own env.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, 'mcp'],
      env: { DATA_DIR: dataDir, POLICY_FILE: GOOD, MCP_WRITES: 'confirm' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'guardrails-test', version: '1.0' });
    await client.connect(transport);
    try {
      const result = (await client.callTool({
        name: 'delete_network',
        arguments: { network_id: 'IoT', confirm: true },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain(DENIED.replace(/"/g, '\\"'));
      expect(journalOf(dataDir)).not.toContain('delete_network');
    } finally {
      await client.close();
    }
  });
});
