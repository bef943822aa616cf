import { describe, expect, it } from 'vitest';
import { runInteractiveConsole, runOneShot } from '../../src/console/console.js';
import { type ConsoleHarness, consoleHarness } from '../helpers/console-harness.js';
import { type FakeCalls, fakeSetup, NETWORKS } from './fake-registry.js';

interface Harness extends ConsoleHarness {
  calls: FakeCalls;
}

function harness(): Harness {
  const { registry, context, calls } = fakeSetup();
  return { ...consoleHarness({ registry, context, banner: 'netops console' }), calls };
}

/** Feeds every line at once (as a pipe would) and waits for the console to finish. */
async function session(lines: string[]): Promise<Harness> {
  const h = harness();
  const done = runInteractiveConsole(h.deps);
  h.input.end(lines.map((line) => `${line}\n`).join(''));
  await done;
  return h;
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!check()) throw new Error('condition not reached');
}

describe('interactive console', () => {
  it('prints the banner and a net> prompt, runs a read with or without /net, and renders it', async () => {
    const h = await session(['/net vlans', 'network IoT', 'quit']);

    expect(h.output.text.startsWith('netops console\n')).toBe(true);
    expect(h.output.text).toContain('net> ');
    expect(h.output.text).toMatch(/id\s+name\s+purpose\s+vlan_id\s+ip_subnet\s+dhcpd_enabled/);
    expect(h.output.text).toContain('(3 rows)');
    expect(h.output.text).toContain('id: IoT\n');
    expect(h.errorOutput.text).toBe('');
    expect(h.calls.gatewayTouches).toEqual([]);
  });

  it('takes clear as a command: nothing to refuse, nothing written when the output is not a terminal', async () => {
    const h = await session(['clear', 'cls', 'help', 'quit']);
    expect(h.errorOutput.text).toBe('');
    expect(h.output.text).not.toContain('\x1b[2J');
    expect(h.output.text).toContain('clear clears the screen');
  });

  it('prints help with the tools and the shortcuts for help and a bare /net', async () => {
    const h = await session(['help', '/net', 'quit']);

    const helps = h.output.text.split('Shortcuts:').length - 1;
    expect(helps).toBe(2);
    expect(h.output.text).toContain('Networks:\n  list_vlans [limit]  — List networks');
    expect(h.output.text).toContain('→ get_network_details');
  });

  it('previews a write and does not run it when the answer is n', async () => {
    const h = await session(['create_network name=IoT vlan_id=40', 'n', 'quit']);

    expect(h.output.text).toContain(
      'preview (dry run, nothing changed):\nwould create:\n  name: IoT\n  vlan: 40',
    );
    expect(h.output.text).toContain('! VLAN 40 is new on this site');
    expect(h.output.text).toContain('approve? [y/N] ');
    expect(h.output.text).toContain('not run.');
    expect(h.calls.createNetwork).toHaveLength(1);
    expect(h.calls.createNetwork[0]?.dry_run).toBe(true);
    expect(h.calls.executed).toEqual([]);
  });

  it('treats an empty answer as no', async () => {
    const h = await session(['create_network name=IoT vlan_id=40', '', 'quit']);

    expect(h.output.text).toContain('not run.');
    expect(h.calls.executed).toEqual([]);
  });

  it('runs an approved write once with confirm=true and no dry_run, answering at the prompt', async () => {
    const h = harness();
    const done = runInteractiveConsole(h.deps);

    h.input.write('/net create_network name=IoT vlan_id=40 confirm=true\n');
    await until(() => h.output.text.includes('approve? [y/N] '));
    h.input.write('Yes\n');
    await until(() => h.output.text.includes('id: net-new'));
    h.input.end('quit\n');
    await done;

    expect(h.calls.executed).toEqual([{ site_id: 'default', name: 'IoT', vlan_id: 40, confirm: true }]);
    expect(h.calls.createNetwork).toHaveLength(2);
    expect(h.output.text).not.toContain('not run.');
  });

  it('only previews when the user asked for dry_run=true', async () => {
    const h = await session(['create_network name=IoT vlan_id=40 dry_run=true', 'quit']);

    expect(h.output.text).toContain('would create:');
    expect(h.output.text).not.toContain('approve?');
    expect(h.calls.executed).toEqual([]);
  });

  it('previews a write that has no dry_run from its validated arguments', async () => {
    const h = await session(['update_traffic_route route_id=r1 enabled=false', 'n', 'quit']);

    expect(h.output.text).toContain(
      'would run update_traffic_route with:\n  site_id: default\n  route_id: r1\n  enabled: false',
    );
    expect(h.calls.routeUpdates).toEqual([]);
  });

  it('prints errors and keeps reading after bad input', async () => {
    const h = await session([
      'frobnicate',
      'network "unterminated',
      'create_network name=IoT vlan_id=9999',
      'zones',
      'vlans limit=1',
      'quit',
    ]);

    expect(h.errorOutput.text).toContain(
      'invalid input:\n  tool: unknown tool "frobnicate"; `help` lists them',
    );
    expect(h.errorOutput.text).toContain('command: unterminated quote " starting at character 9');
    expect(h.errorOutput.text).toContain('  vlan_id: ');
    expect(h.errorOutput.text).toContain(
      '"zones" runs list_firewall_zones, which is not available in this build',
    );
    expect(h.output.text).toContain('(1 row)');
    expect(h.calls.createNetwork).toEqual([]);
  });

  it('shows controller and internal errors without a stack trace and continues', async () => {
    const h = await session(['stats', 'topology', 'vlans', 'quit']);

    expect(h.errorOutput.text).toContain('controller unreachable: connect ECONNREFUSED 192.168.1.1:443');
    expect(h.errorOutput.text).toMatch(/internal error: [0-9a-f]{8}; see the log/);
    expect(h.errorOutput.text).not.toContain('TypeError');
    expect(h.errorOutput.text).not.toMatch(/\n\s+at /);
    expect(h.logged()).toContain('TypeError: cannot read properties of undefined');
    expect(h.output.text).toContain('(3 rows)');
  });

  it('stops at quit without reading further lines', async () => {
    const h = await session(['quit', 'vlans']);

    expect(h.output.text).not.toContain('(3 rows)');
  });

  it('ends at end of input, and end of input at the approval prompt runs nothing', async () => {
    const h = await session(['create_network name=IoT vlan_id=40']);

    expect(h.output.text).toContain('not run.');
    expect(h.calls.executed).toEqual([]);
  });

  it('prints JSON for a line with --json', async () => {
    const h = await session(['vlans --json limit=1', 'quit']);

    const start = h.output.text.indexOf('[');
    const end = h.output.text.lastIndexOf(']');
    expect(JSON.parse(h.output.text.slice(start, end + 1))).toEqual([NETWORKS[0]]);
  });
});

describe('one-shot', () => {
  it('runs a read, prints the rendering and exits 0', async () => {
    const h = harness();

    const code = await runOneShot(['vlans'], h.deps);

    expect(code).toBe(0);
    expect(h.output.text).toContain('(3 rows)');
    expect(h.errorOutput.text).toBe('');
    expect(h.calls.gatewayTouches).toEqual([]);
  });

  it('prints the result as JSON with --json', async () => {
    const h = harness();

    const code = await runOneShot(
      ['--json', 'get_network_details', 'network_id=net-iot', 'site=lab'],
      h.deps,
    );

    expect(code).toBe(0);
    const parsed = JSON.parse(h.output.text) as Record<string, unknown>;
    expect(parsed).toMatchObject({ id: 'net-iot', site: 'lab', vlan_id: 40 });
  });

  it('prints a string result as is, even with --json', async () => {
    const h = harness();

    const code = await runOneShot(['export', 'dot', '--json'], h.deps);

    expect(code).toBe(0);
    expect(h.output.text).toBe('digraph "default" {\n  "a" -> "b";\n}\n');
  });

  it('keeps shell-split words whole and applies the comma rule', async () => {
    const h = harness();

    const code = await runOneShot(['network', 'Guest WiFi', '--json'], h.deps);

    expect(code).toBe(0);
    expect((JSON.parse(h.output.text) as { id: string }).id).toBe('Guest WiFi');
  });

  // Deliberately alike: one-shot console runs: each test its own command line, exit code and stream.
  it('exits 1 on a controller error, with the error on stderr', async () => {
    const h = harness();

    const code = await runOneShot(['stats'], h.deps);

    expect(code).toBe(1);
    expect(h.errorOutput.text).toBe('controller unreachable: connect ECONNREFUSED 192.168.1.1:443\n');
    expect(h.output.text).toBe('');
  });

  it('exits 1 on a bug without showing its stack', async () => {
    const h = harness();

    const code = await runOneShot(['topology'], h.deps);

    expect(code).toBe(1);
    expect(h.errorOutput.text).toMatch(/^internal error: [0-9a-f]{8}; see the log\n$/);
    expect(h.logged()).toContain('"stack"');
  });

  it('exits 2 on an unknown command, a bad value, an unknown option, or no command', async () => {
    const unknown = harness();
    const badValue = harness();
    const badOption = harness();
    const empty = harness();

    const codes = [
      await runOneShot(['frobnicate'], unknown.deps),
      await runOneShot(['create_network', 'name=IoT', 'vlan_id=abc', '--yes'], badValue.deps),
      await runOneShot(['vlans', '--verbose'], badOption.deps),
      await runOneShot([], empty.deps),
    ];

    expect(codes).toEqual([2, 2, 2, 2]);
    expect(unknown.errorOutput.text).toContain('unknown tool "frobnicate"');
    expect(badValue.errorOutput.text).toContain('vlan_id: ');
    expect(badValue.calls.createNetwork).toEqual([]);
    expect(badOption.errorOutput.text).toContain(
      'unknown option --verbose (known: --json, --yes, --help, --ids)',
    );
    expect(empty.errorOutput.text).toContain('usage: npm start --');
  });

  it('exits 0 with help for --help', async () => {
    const h = harness();

    const code = await runOneShot(['--help'], h.deps);

    expect(code).toBe(0);
    expect(h.output.text).toContain('list_vlans');
    expect(h.output.text).toContain('Shortcuts:');
  });

  it('previews a write without --yes, says to add --yes on stderr, and exits 3', async () => {
    const h = harness();

    const code = await runOneShot(['create_network', 'name=IoT', 'vlan_id=40', 'confirm=true'], h.deps);

    expect(code).toBe(3);
    expect(h.output.text).toContain('would create:');
    expect(h.errorOutput.text).toBe('not run: create_network changes the network; add --yes to run it\n');
    expect(h.calls.executed).toEqual([]);
  });

  it('prints the preview as JSON with --json and still exits 3', async () => {
    const h = harness();

    const code = await runOneShot(['create_network', 'name=IoT', 'vlan_id=40', '--json'], h.deps);

    expect(code).toBe(3);
    expect(JSON.parse(h.output.text)).toEqual({
      dry_run: true,
      would_create: { name: 'IoT', vlan: 40, purpose: 'corporate' },
      warnings: ['VLAN 40 is new on this site'],
    });
  });

  it('runs a write once with --yes and exits 0', async () => {
    const h = harness();

    const code = await runOneShot(['create_network', 'name=IoT', 'vlan_id=40', '--yes'], h.deps);

    expect(code).toBe(0);
    expect(h.calls.createNetwork).toEqual([{ site_id: 'default', name: 'IoT', vlan_id: 40, confirm: true }]);
    expect(h.output.text).toContain('id: net-new');
  });

  it('exits 0 for an explicit dry run without --yes', async () => {
    const h = harness();

    const code = await runOneShot(['create_network', 'name=IoT', 'vlan_id=40', 'dry_run=true'], h.deps);

    expect(code).toBe(0);
    expect(h.output.text).toContain('would create:');
    expect(h.calls.executed).toEqual([]);
  });
});
