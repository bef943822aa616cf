import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInteractiveConsole, runOneShot } from '../../src/console/console.js';
import type { Gateway } from '../../src/gateway/types.js';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { silentLogger } from '../../src/log.js';
import { createRegistry } from '../../src/tools/index.js';
import { consoleHarness } from '../helpers/console-harness.js';

// Help and argument checks need no controller: a gateway that throws proves none is used.
const untouchableGateway = new Proxy({} as Gateway, {
  get() {
    throw new Error('help must not use the gateway');
  },
});

function harness() {
  const context = { gateway: untouchableGateway, logger: silentLogger(), store: new MemoryStore() };
  return consoleHarness({ registry: createRegistry('default'), context });
}

const PURPOSE_LINE =
  /\n {2}purpose\s+optional {2}one of corporate, guest, vlan-only, wan \(refused: a WAN is added in the controller’s UI, under Internet\) \(default: corporate\) — What the network is for: [^\n]+\n/;
const VLAN_LINE = /\n {2}vlan_id\s+required {2}whole number 1–4094/;

describe('console help per tool', () => {
  it('answers help <tool>, <tool> --help and help <shortcut> interactively, and keeps going after an unknown one', async () => {
    const h = harness();
    const done = runInteractiveConsole(h.deps);
    h.input.end(
      ['help create_network', 'create_network --help', 'help vlans', 'help frobnicate', 'quit', ''].join(
        '\n',
      ),
    );
    await done;

    expect(h.output.text.match(/create_network: Create a VLAN network/g)).toHaveLength(2);
    expect(h.output.text).toMatch(PURPOSE_LINE);
    expect(h.output.text).toMatch(VLAN_LINE);
    expect(h.output.text).toContain('Example: create_network name=Lab vlan_id=40 subnet=10.70.0.0/24');
    expect(h.output.text).toContain('list_vlans: List every network');
    expect(h.errorOutput.text).toBe('invalid input:\n  tool: unknown tool "frobnicate"; `help` lists them\n');
  });

  it('prints one tool’s help for a one-shot `create_network --help` and exits 0', async () => {
    const h = harness();

    const code = await runOneShot(['create_network', '--help'], h.deps);

    expect(code).toBe(0);
    expect(h.output.text).toMatch(PURPOSE_LINE);
    expect(h.output.text).toMatch(VLAN_LINE);
    expect(h.output.text).not.toContain('Shortcuts:');
    expect(h.errorOutput.text).toBe('');
  });

  it('exits 2 for help on an unknown tool, suggesting the near one', async () => {
    const h = harness();

    const code = await runOneShot(['help', 'create_netwrk'], h.deps);

    expect(code).toBe(2);
    expect(h.errorOutput.text).toContain('did you mean create_network?');
  });

  it('refuses vlan=40 on create_network with a suggestion of vlan_id, exit 2, nothing sent', async () => {
    const h = harness();

    const code = await runOneShot(['create_network', 'name=Lab', 'vlan=40', 'subnet=10.70.0.0/24'], h.deps);

    expect(code).toBe(2);
    expect(h.errorOutput.text).toBe(
      'invalid input:\n  vlan: is not an argument of create_network; did you mean vlan_id?\n',
    );
    expect(h.output.text).toBe('');
  });
});

describe('the shipped entry point', () => {
  it('prints per-tool help for `create_network --help` and exits 0', async () => {
    const run = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn(
        join(process.cwd(), 'node_modules', '.bin', 'tsx'),
        [join(process.cwd(), 'src', 'main.ts'), 'create_network', '--help'],
        {
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '',
            DATA_DIR: mkdtempSync(join(tmpdir(), 'netops-help-')),
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout }));
    });

    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(PURPOSE_LINE);
    expect(run.stdout).toMatch(VLAN_LINE);
  }, 30_000);
});
