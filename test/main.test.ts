import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const MAIN = join(process.cwd(), 'src', 'main.ts');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real entry point in a child process with a clean environment (no Slack, no controller). */
function runMain(args: string[], input = '', env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [MAIN, ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATA_DIR: mkdtempSync(join(tmpdir(), 'netops-')),
        ...env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe.concurrent('main (the README quick start, against the built-in simulator)', () => {
  it('runs the interactive console: lists, previews a create, runs it once approved', async () => {
    const script = [
      'list_vlans',
      '/net create_network name=Lab vlan_id=40 subnet=10.40.0.0/24',
      'y',
      'vlans',
      'quit',
      '',
    ].join('\n');
    const run = await runMain([], script);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('No GATEWAY_URL set: using the built-in controller simulator');
    expect(run.stdout).toMatch(/IoT\s+corporate\s+20\s+10\.20\.0\.1\/24/);
    expect(run.stdout).toContain('preview (dry run, nothing changed)');
    expect(run.stdout).toContain('approve? [y/N]');
    const afterApproval = run.stdout.slice(run.stdout.lastIndexOf('approve? [y/N]'));
    expect(afterApproval).toMatch(/Lab\s+corporate\s+40\s+10\.40\.0\.1\/24/);
  }, 30_000);

  it('runs one command and prints JSON for scripts', async () => {
    const run = await runMain(['get_subnet_info', 'network_id=IoT', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ name: 'IoT', vlan_id: 20, dhcpd_gateway: '10.20.0.1' });
  }, 30_000);

  it('previews a one-shot write without --yes and exits 3, changing nothing', async () => {
    const run = await runMain(['delete_network', 'network_id=Guest', '--json']);
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toMatchObject({ dry_run: true, would_delete: { name: 'Guest' } });
    expect(run.stderr).toContain('--yes');
  }, 30_000);

  it('exits 1 on list_firewall_rules against the zone-based demo, naming the zone-based firewall and the policy tools', async () => {
    const run = await runMain(['list_firewall_rules']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('not supported: site default uses the zone-based firewall');
    expect(run.stderr).toContain('list_firewall_policies, get_firewall_policy, create_firewall_policy');
    expect(run.stdout).toBe('');
  }, 30_000);

  it('lists traditional rules, and says there are no zones, with SIMULATOR_FIREWALL=legacy', async () => {
    const [rules, zones] = await Promise.all([
      runMain(['list_firewall_rules', '--json'], '', { SIMULATOR_FIREWALL: 'legacy' }),
      runMain(['list_firewall_zones'], '', { SIMULATOR_FIREWALL: 'legacy' }),
    ]);
    expect(rules.code).toBe(0);
    expect((JSON.parse(rules.stdout) as { name: string }[]).map((r) => r.name)).toContain(
      'Drop Telnet from WAN',
    );
    expect(zones.code).toBe(1);
    expect(zones.stderr).toContain('it has no firewall zones and no firewall policies');
  }, 30_000);

  it('refuses a bad environment naming every variable, with exit code 2', async () => {
    const run = await runMain(['list_vlans'], '', { PORT: 'x', GATEWAY_API_TYPE: 'moon' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('PORT: must be a whole number');
    expect(run.stderr).toContain('GATEWAY_API_TYPE: must be local or cloud');
  }, 30_000);

  it('exits 1 with a clear line when the controller is unreachable', async () => {
    const run = await runMain(['list_vlans'], '', {
      GATEWAY_URL: 'http://127.0.0.1:9',
      GATEWAY_API_KEY: 'k',
      GATEWAY_TIMEOUT_MS: '500',
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/unreachable/i);
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
  }, 30_000);
});
