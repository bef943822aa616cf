import { afterAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { MAIN, runBot, spawnBot, stopAllBots } from '../helpers/bot-process.js';

afterAll(stopAllBots);

describe.concurrent('the console, as `node dist/main.js` runs it with no Slack variables', () => {
  it('runs the interactive console on stdin: lists, previews a create, runs it once approved', async () => {
    const script = [
      'list_vlans',
      '/net create_network name=Lab vlan_id=40 subnet=10.70.0.0/24',
      'y',
      'vlans',
      'quit',
      '',
    ].join('\n');
    const run = await runBot([], { input: script });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('No GATEWAY_URL set: using the built-in controller simulator');
    expect(run.stdout).toMatch(/IoT\s+corporate\s+20\s+10\.20\.0\.1\/24/);
    expect(run.stdout).toContain('preview (dry run, nothing changed)');
    expect(run.stdout).toContain('approve? [y/N]');
    const afterApproval = run.stdout.slice(run.stdout.lastIndexOf('approve? [y/N]'));
    expect(afterApproval).toMatch(/Lab\s+corporate\s+40\s+10\.70\.0\.1\/24/);
  });

  it('runs one command as a table, with the simulator note on stderr only', async () => {
    const run = await runBot(['list_vlans']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^id\s+name\s+purpose\s+vlan_id/);
    for (const name of ['Default', 'IoT', 'Guest', 'Servers', 'Cameras']) expect(run.stdout).toContain(name);
    expect(run.stdout).not.toContain('No GATEWAY_URL set');
    expect(run.stderr).toContain('No GATEWAY_URL set');
  });

  it('prints only its answer and the simulator note with .env.example as shipped (node --env-file)', async () => {
    const bot = spawnBot(
      {},
      { command: [process.execPath, '--env-file=.env.example', MAIN], args: ['list_vlans'] },
    );
    const exit = await bot.exited;
    expect(exit.code).toBe(0);
    expect(bot.stdout()).toMatch(/^id\s+name\s+purpose/);
    // No log lines: the example leaves LOG_LEVEL empty, so a one-shot logs warnings only.
    expect(bot.stderr().trim().split('\n')).toEqual([expect.stringMatching(/^No GATEWAY_URL set/)]);
  });

  it('runs one command and prints JSON for scripts', async () => {
    const run = await runBot(['get_subnet_info', 'network_id=IoT', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ name: 'IoT', vlan_id: 20, dhcpd_gateway: '10.20.0.1' });
  });

  it('previews a one-shot write without --yes and exits 3, changing nothing', async () => {
    const run = await runBot(['delete_network', 'network_id=Servers', '--json']);
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toMatchObject({ dry_run: true, would_delete: { name: 'Servers' } });
    expect(run.stderr).toContain('--yes');
    // A high-risk delete (Guest is referred to by Wi-Fi and policies) needs a second person: --yes
    // is not offered, Slack is.
    const guest = await runBot(['delete_network', 'network_id=Guest', '--json']);
    expect(guest.code).toBe(3);
    expect(guest.stderr).toMatch(
      /cannot run at the console: this change needs 2 approvals .*propose it in Slack/,
    );
  });

  it('exits 1 on list_firewall_rules against the zone-based demo, naming the zone-based firewall and the policy tools', async () => {
    const run = await runBot(['list_firewall_rules']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('not supported: site default uses the zone-based firewall');
    expect(run.stderr).toContain('list_firewall_policies, get_firewall_policy, create_firewall_policy');
    expect(run.stdout).toBe('');
  });

  it('lists traditional rules, and says there are no zones, with SIMULATOR_FIREWALL=legacy', async () => {
    const [rules, zones] = await Promise.all([
      runBot(['list_firewall_rules', '--json'], { env: { SIMULATOR_FIREWALL: 'legacy' } }),
      runBot(['list_firewall_zones'], { env: { SIMULATOR_FIREWALL: 'legacy' } }),
    ]);
    expect(rules.code).toBe(0);
    expect((JSON.parse(rules.stdout) as { name: string }[]).map((r) => r.name)).toContain(
      'Drop Telnet from WAN',
    );
    expect(zones.code).toBe(1);
    expect(zones.stderr).toContain('it has no firewall zones and no firewall policies');
  });

  it('refuses a bad environment naming every bad variable, with exit code 2 and no stack', async () => {
    const run = await runBot(['list_vlans'], {
      env: { PORT: 'abc', SLACK_APP_TOKEN: 'nope', GATEWAY_API_TYPE: 'moon', LOG_LEVEL: 'loud' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('PORT: must be a whole number');
    expect(run.stderr).toContain('SLACK_APP_TOKEN: must be an app-level token starting with xapp-');
    expect(run.stderr).toContain('GATEWAY_API_TYPE: must be local or cloud');
    expect(run.stderr).toContain('LOG_LEVEL: must be one of');
    expect(run.stderr).not.toMatch(/\bat .*\.js:\d+/);
    expect(run.stdout).toBe('');
  });

  it('refuses a bad Slack configuration the same way before starting anything', async () => {
    const run = await runBot([], { env: { SLACK_BOT_TOKEN: 'xoxb-test', PORT: '70000' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('SLACK_SIGNING_SECRET: is required in HTTP mode');
    expect(run.stderr).toContain('PORT: must be a whole number from 0 to 65535');
  });

  it('exits 1 with a clear line when the controller is unreachable', async () => {
    const run = await runBot(['list_vlans'], {
      env: { GATEWAY_URL: 'http://127.0.0.1:9', GATEWAY_API_KEY: 'k', GATEWAY_TIMEOUT_MS: '500' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/unreachable/i);
    expect(run.stderr).not.toMatch(/\bat .*\.[jt]s:\d+/);
  });
});

describe('the console against a running controller', () => {
  let sim: Simulator;
  afterAll(async () => {
    await sim?.close();
  });

  it('keeps a change made by one command for the next, as `npm run simulator` users expect', async () => {
    sim = await startSimulator();
    const env = { GATEWAY_URL: sim.url, GATEWAY_API_KEY: sim.apiKey };
    const created = await runBot(
      ['create_network', 'name=Lab', 'vlan_id=91', 'subnet=10.91.0.0/24', '--yes', '--json'],
      { env },
    );
    expect(created.code).toBe(0);
    const listed = await runBot(['list_vlans', '--json'], { env });
    expect(listed.code).toBe(0);
    expect(JSON.stringify(JSON.parse(listed.stdout))).toContain('"Lab"');
    // The simulator plays 10.1: the network is created through the official API.
    expect(sim.requests.filter((r) => r.method === 'POST' && r.route.endsWith('/networks'))).toHaveLength(1);
  });

  it('still answers with MCP_TOKEN set but no SLACK_BOT_TOKEN, after one warning that no /mcp endpoint is open', async () => {
    const run = await runBot(['list_vlans', '--json'], { env: { MCP_TOKEN: 'ci:0123456789abcdef0123' } });
    expect(run.code).toBe(0);
    expect(Array.isArray(JSON.parse(run.stdout))).toBe(true);
    expect(run.stderr).toMatch(/^warning: MCP_TOKEN is set but SLACK_BOT_TOKEN is not: .*`netops mcp`/m);
    expect(run.stderr).not.toContain('0123456789abcdef0123');
  });

  it('runs a one-shot command even where the Slack variables are set (docker exec), starting no bot', async () => {
    sim ??= await startSimulator();
    const run = await runBot(['list_vlans', '--json'], {
      env: {
        GATEWAY_URL: sim.url,
        GATEWAY_API_KEY: sim.apiKey,
        SLACK_BOT_TOKEN: 'xoxb-test',
        SLACK_APP_TOKEN: 'xapp-test',
        SLACK_API_URL: 'http://127.0.0.1:9',
      },
    });
    expect(run.code).toBe(0);
    expect(Array.isArray(JSON.parse(run.stdout))).toBe(true);
  });
});
