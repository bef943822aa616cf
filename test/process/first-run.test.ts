// What a first-time user meets, checked on the built program as it ships:
// `node dist/main.js` one-shot and interactive, and `node dist/main.js mcp` with the SDK's client.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_ZONE_IDS, DEMO_ZONES } from '../../src/simulator/demo-ids.js';
import { MAIN, runBot, spawnBot, stopAllBots } from '../helpers/bot-process.js';
import { textOf } from '../helpers/mcp.js';

/** `node dist/main.js mcp` on stdio with the built-in simulator, and the SDK's client on it. */
async function mcpClient(): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, 'mcp'],
    env: { DATA_DIR: mkdtempSync(join(tmpdir(), 'netops-newcomer-')) },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'newcomer', version: '1.0' });
  await client.connect(transport);
  return client;
}

afterAll(stopAllBots);

describe.concurrent('tables keep ids, names, MACs and addresses whole', () => {
  it('routes at 160 columns shows the client MAC, the network and the destination whole', async () => {
    const run = await runBot(['routes'], { env: { COLUMNS: '160' } });
    expect(run.code).toBe(0);
    // A long cell wraps at its spaces within its column: the client's MAC may start a line of its own.
    const lines = run.stdout.split('\n');
    const mac = lines.findIndex((line) => line.includes('00:11:32:8a:bc:04'));
    const at = lines[mac]?.indexOf('00:11:32:8a:bc:04') ?? -1;
    expect(
      lines[mac]?.slice(at - 7, at) === 'client ' || lines[mac - 1]?.slice(at).startsWith('client'),
    ).toBe(true);
    expect(run.stdout).toContain('network IoT (VLAN 20)');
    expect(run.stdout).toContain('destination_ip=198.51.100.50');
    expect(run.stdout).not.toContain('…');
    for (const line of run.stdout.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(160);
  });

  it('list_firewall_policies at 80 and 160 columns keeps addresses and headers whole', async () => {
    for (const columns of ['80', '160']) {
      const run = await runBot(['list_firewall_policies'], { env: { COLUMNS: columns } });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('Internal: 192.168.1.20 port 32400');
      expect(run.stdout).not.toMatch(/enabl…|prede…/);
      for (const line of run.stdout.trimEnd().split('\n')) {
        if (!/192\.168|[0-9a-f]{24}/.test(line))
          expect(line.length, line).toBeLessThanOrEqual(Number(columns));
      }
    }
  });
});

/** Waits until `text()` satisfies `ok`, polling; fails with the output after a few seconds. */
async function until(text: () => string, ok: (t: string) => boolean, what: string): Promise<void> {
  const started = Date.now();
  while (!ok(text())) {
    if (Date.now() - started > 15_000) throw new Error(`never saw ${what}:\n${text()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.concurrent('small things a newcomer notices', () => {
  it('prints the package version for --version, without starting a controller', async () => {
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
    const run = await runBot(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(`netops-bot ${version}`);
    expect(run.stderr).toBe('');
  });

  it('says "nothing to change" for a no-op update_network, exits 0 and asks nothing', async () => {
    const run = await runBot(['update_network', 'network_id=Guest', 'name=Guest']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('nothing to change');
    expect(run.stderr).not.toContain('--yes');
    const console = await runBot([], { input: 'update_network network_id=Guest name=Guest\nquit\n' });
    expect(console.code).toBe(0);
    expect(console.stdout).toContain('nothing to change');
    expect(console.stdout).not.toContain('approve? [y/N]');
  });

  it('answers Ctrl-C at approve? [y/N] with "not run" and returns to the prompt', async () => {
    const bot = spawnBot({});
    const write = (line: string) => bot.child.stdin?.write(`${line}\n`);
    write('update_network network_id=Guest dhcp_dns_1=1.1.1.1');
    await until(bot.stdout, (t) => t.includes('approve? [y/N]'), 'the approval prompt');
    bot.child.kill('SIGINT');
    await until(bot.stdout, (t) => t.includes('not run.'), '"not run."');
    write('get_network_details network_id=Guest --json');
    await until(bot.stdout, (t) => t.includes('"dhcpd_dns_enabled"'), 'the network after the interrupt');
    write('quit');
    const exit = await bot.exited;
    expect(exit.code).toBe(0);
    expect(bot.stdout()).not.toContain('"dhcpd_dns_1": "1.1.1.1"');
  });
});

describe.concurrent('dead ends and wrong words', () => {
  it('`firewall` and `rules` list the policies on the zone-based demo, the rules on a traditional one', async () => {
    const [firewall, rules, legacy] = await Promise.all([
      runBot(['firewall', '--json']),
      runBot(['rules', '--json']),
      runBot(['rules', '--json'], { env: { SIMULATOR_FIREWALL: 'legacy' } }),
    ]);
    for (const run of [firewall, rules]) {
      expect(run.code, run.stderr).toBe(0);
      const rows = JSON.parse(run.stdout) as { name: string; source: string }[];
      expect(rows.map((r) => r.name)).toContain('Block IoT to Internal');
      expect(rows[0]).toHaveProperty('source');
    }
    expect(legacy.code, legacy.stderr).toBe(0);
    expect((JSON.parse(legacy.stdout) as { ruleset: string }[])[0]).toHaveProperty('ruleset');
  });

  it("the console names its own help for an unknown command, not Slack's /net help", async () => {
    const run = await runBot(['frobnicate']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('`help` lists them');
    expect(run.stderr).not.toContain('/net help');
  });

  it('MCP names its own tool list, and its errors carry the "MCP error" prefix once', async () => {
    const client = await mcpClient();
    try {
      const unknown = (await client.callTool({ name: 'frobnicate', arguments: {} })) as CallToolResult;
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).not.toContain('/net help');
      const failure = await client.readResource({ uri: 'topology://no-such-site' }).then(
        () => undefined,
        (error: Error) => error,
      );
      expect(failure?.message).toMatch(/^MCP error -?\d+: /);
      expect(failure?.message.match(/MCP error/g)).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});

describe.concurrent('one id per object', () => {
  it('a policy shows its zones by the id the zone tools show, and `zone` takes either id', async () => {
    const [policy, byV2, byUuid] = await Promise.all([
      runBot(['get_firewall_policy', 'policy_id=Block IoT to Internal', '--json']),
      runBot(['zone', DEMO_ZONE_IDS.iotDevices, '--json']),
      runBot(['zone', DEMO_ZONES.iotDevices, '--json']),
    ]);
    expect(policy.code, policy.stderr).toBe(0);
    expect(JSON.parse(policy.stdout)).toMatchObject({
      source_zone_id: DEMO_ZONES.iotDevices,
      destination_zone_id: DEMO_ZONES.internal,
    });
    expect(byV2.code, byV2.stderr).toBe(0);
    expect(byV2.stdout).toBe(byUuid.stdout);
    expect((JSON.parse(byV2.stdout) as { name: string }[]).map((n) => n.name).sort()).toEqual([
      'Cameras',
      'IoT',
    ]);
  });
});

describe.concurrent('names where a newcomer types and reads them', () => {
  it('`client "Apple TV"` takes a name (or hostname or IP) as well as a MAC', async () => {
    const [byName, byIp, byMac] = await Promise.all([
      runBot(['client', 'Apple TV', '--json']),
      runBot(['client', '192.168.1.41', '--json']),
      runBot(['get_client_dpi', 'client_mac=F0-B3-EC-21-55-08', '--json']),
    ]);
    for (const run of [byName, byIp, byMac]) {
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ client_mac: 'f0:b3:ec:21:55:08' });
    }
    const unknown = await runBot(['client', 'Apple']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('did you mean Apple TV');
  });

  it('`ports "Core Switch"` names what is on each port, not only its MAC', async () => {
    const run = await runBot(['ports', 'Core Switch'], { env: { COLUMNS: '160' } });
    expect(run.code, run.stderr).toBe(0);
    const port1 = run.stdout.split('\n').find((line) => /^1\s/.test(line));
    expect(port1).toContain('Synology NAS');
    expect(run.stdout).toContain('connected_names');
    const json = JSON.parse((await runBot(['ports', 'Core Switch', '--json'])).stdout) as {
      ports: Record<string, { connected_nodes: string[]; connected_names: string[] }>;
    };
    expect(json.ports['1']).toMatchObject({
      connected_nodes: ['00:11:32:8a:bc:04'],
      connected_names: ['Synology NAS'],
    });
  });

  it('the zones table has snake_case headers only', async () => {
    const run = await runBot(['zones'], { env: { COLUMNS: '200' } });
    expect(run.code, run.stderr).toBe(0);
    const header = run.stdout.split('\n')[0] ?? '';
    expect(header).toContain('network_ids');
    for (const word of header.trim().split(/\s+/)) expect(word).toMatch(/^[a-z_]+$/);
  });
});

interface ListedAclRule {
  name: string;
  source_type: string;
  source_id: string | null;
  source_name: string | null;
  destination_type: string;
  destination_name: string | null;
  protocol: string;
}

describe.concurrent('the ACL table in the words the write tools take', () => {
  // Both tests read the same `acl --json` of the demo: the command runs once for them.
  let aclListing: ReturnType<typeof runBot> | undefined;
  const aclJson = () => {
    aclListing ??= runBot(['acl', '--json']);
    return aclListing;
  };

  it('names the networks and clients a rule points at, beside their ids', async () => {
    const run = await aclJson();
    expect(run.code, run.stderr).toBe(0);
    const rules = JSON.parse(run.stdout) as ListedAclRule[];
    const byName = (name: string) => rules.find((r) => r.name === name);
    expect(byName('Block IoT to NAS')).toMatchObject({ source_type: 'network', source_name: 'IoT' });
    expect(byName('Allow cameras to NVR')).toMatchObject({ source_name: 'Cameras' });
    expect(byName("Block kids' tablet")).toMatchObject({
      source_type: 'device',
      source_id: '8c:85:90:1f:aa:0b',
      source_name: 'Küchen-Tablet',
    });
    const table = await runBot(['acl'], { env: { COLUMNS: '160' } });
    const lines = table.stdout.split('\n');
    const at = lines[0]?.indexOf('source_name') ?? -1;
    expect(at).toBeGreaterThan(0);
    expect(lines.find((line) => line.startsWith('Block IoT to NAS'))?.slice(at)).toMatch(/^IoT\s/);
    expect(lines.find((line) => line.startsWith("Block kids' tablet"))?.slice(at)).toMatch(
      /^Küchen-Tablet\s/,
    );
  });

  it('every source_type, destination_type and protocol a listed rule shows is one create_acl_rule takes', async () => {
    const listing = await aclJson();
    expect(listing.code, listing.stderr).toBe(0);
    const rules = JSON.parse(listing.stdout) as ListedAclRule[];
    const help = (await runBot(['help', 'create_acl_rule'])).stdout;
    expect(rules.map((r) => r.protocol)).toContain('tcp_udp');
    for (const rule of rules) {
      for (const value of [rule.source_type, rule.destination_type, rule.protocol]) {
        expect(help, `${rule.name}: ${value}`).toMatch(new RegExp(`\\b${value}\\b`));
      }
    }
    const preview = await runBot([
      'create_acl_rule',
      'name=Both',
      'action=deny',
      'protocol=tcp_udp',
      'dst_port=22',
      '--json',
    ]);
    expect(preview.code, preview.stderr).toBe(3);
    expect(JSON.parse(preview.stdout)).toMatchObject({ would_send: { protocolFilter: ['TCP', 'UDP'] } });
  });
});
