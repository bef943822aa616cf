import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runBot, spawnBot, stopAllBots } from '../helpers/bot-process.js';

// Networks serve as the sample write on their classic path (networkconf routes and faults): a 9.0
// console. Networks through the official API (10.1): tools/networks-official.test.ts.

// Reverting a recorded change at the interactive console (`node dist/main.js` on stdin): `revert
// <id>` shows the preview of the undoing change and asks y/N; what runs is the revert whose preview
// was shown. When the object changed between the preview and the "y", nothing runs and the console
// says so.

afterAll(stopAllBots);

describe('console revert runs only the revert that was shown', () => {
  let sim: Simulator;
  afterAll(async () => {
    await sim?.close();
  });

  it('refuses when the object changed after the preview, and runs a fresh preview once approved', async () => {
    sim = await startSimulator({ apiVersion: '9.0' });
    const env = {
      GATEWAY_URL: sim.url,
      GATEWAY_API_KEY: sim.apiKey,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'netops-console-revert-')),
    };
    const iot = () => structuredClone(sim.state.site('default')?.networks.find((n) => n._id === id));
    const start = structuredClone(sim.state.site('default')?.networks.find((n) => n.name === 'IoT'));
    const id = start?._id;
    const changed = await runBot(['update_network', 'network_id=IoT', 'vlan_id=25', '--yes', '--json'], {
      env,
    });
    expect(changed.code, changed.stderr).toBe(0);
    const changeId = (JSON.parse(changed.stdout) as { change_id: string }).change_id;

    const console = spawnBot(env, { args: [] });
    const say = (line: string) => console.child.stdin?.write(`${line}\n`);
    const prompts = () => console.stdout().split('approve? [y/N]').length - 1;
    const waitFor = async (check: () => boolean) => {
      for (let waited = 0; !check(); waited += 50) {
        if (waited > 30_000)
          throw new Error(`the console never got there:\n${console.stdout()}\n${console.stderr()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };

    say(`revert ${changeId}`);
    await waitFor(() => prompts() === 1);
    expect(console.stdout()).toContain('vlan: 25 → 20');
    // Someone else renames the network while the preview is on the screen.
    const site = sim.state.site('default');
    const record = site?.networks.find((n) => n._id === id);
    if (record) record.name = 'Things';
    say('y');
    await waitFor(() => `${console.stdout()}${console.stderr()}`.includes('no longer the one shown'));
    expect(iot()).toEqual({ ...start, vlan: 25, name: 'Things' });

    // Shown again, the preview says what changed since; approved, that revert runs.
    say(`revert ${changeId}`);
    await waitFor(() => prompts() === 2);
    const second = console.stdout().slice(console.stdout().indexOf('approve? [y/N]') + 1);
    expect(second).toContain('changed since');
    say('y');
    await waitFor(() => iot()?.vlan === 20);
    say('quit');
    expect((await console.exited).code).toBe(0);
    expect(iot()).toEqual({ ...start, name: 'Things' });
    const puts = sim.requests.filter((r) => r.method === 'PUT' && r.route.endsWith(`rest/networkconf/${id}`));
    expect(puts).toHaveLength(2);
  }, 90_000);
});
