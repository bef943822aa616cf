// `use` at the interactive console of a bot serving a fleet: `node dist/main.js` with the lines on
// stdin. The place it picks is shown in the prompt and decides where the following commands go.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fleet, startFleet } from '../../src/simulator/fleet.js';
import { runBot, stopAllBots } from '../helpers/bot-process.js';

// Deliberately alike: each fleet process suite starts the consoles it needs; the first two are the same pair.
let fleet: Fleet;
let env: Record<string, string>;

beforeAll(async () => {
  fleet = await startFleet({
    consoles: [
      { name: 'berlin', version: '10.1' },
      { name: 'munich', version: '9.0' },
    ],
  });
  const file = fleet.consolesFile();
  const path = join(mkdtempSync(join(tmpdir(), 'netops-console-use-')), 'consoles.yaml');
  writeFileSync(path, file.text);
  env = { ...file.env, CONSOLES_FILE: path };
});

afterAll(async () => {
  await stopAllBots();
  await fleet?.close();
});

describe('`use` at the interactive console, on a fleet', () => {
  // Deliberately alike: the fleet read that mcp-fleet makes over MCP, here at the interactive console.
  it('sends the following commands to the console and site it names, and shows them in the prompt', async () => {
    const munich = fleet.console('munich');
    const second = munich.siteNames[1];
    if (second === undefined) throw new Error('two sites per console');
    munich.clearRequests();
    fleet.console('berlin').clearRequests();
    const script = [`use munich/${second}`, 'vlans --json', 'use', 'quit', ''].join('\n');
    const run = await runBot([], { env, input: script });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`using console munich, site ${second}.`);
    expect(run.stdout).toContain(`net munich/${second}> `);
    const json = run.stdout.slice(run.stdout.indexOf('['), run.stdout.lastIndexOf(']') + 1);
    const names = (JSON.parse(json) as { name: string }[]).map((row) => row.name);
    const seeded = munich.state.sites.find((s) => s.name === second)?.networks.map((n) => n.name) ?? [];
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(seeded).toContain(name);
    expect(munich.requests.some((r) => r.path.includes(`/s/${second}/`))).toBe(true);
    expect(fleet.console('berlin').requests.filter((r) => !r.path.includes('/v1/'))).toEqual([]);
  });

  it('says an unknown console or site with the nearest names, and keeps the place it had', async () => {
    const script = ['use munich', 'use munch', 'use berlin/defualt', 'use', 'quit', ''].join('\n');
    const run = await runBot([], { env, input: script });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('no console is named munch');
    expect(run.stderr).toContain('did you mean munich');
    expect(run.stderr).toMatch(
      /berlin has no site defualt \(it has [^)]*default[^)]*\); did you mean default\?/,
    );
    // Still munich, site as configured: neither refusal moved it.
    const last = run.stdout.lastIndexOf('using ');
    expect(run.stdout.slice(last)).toMatch(/^using console munich, site default \(the default\)\./);
    expect(run.stdout).toContain('net munich> ');
    expect(run.stdout).not.toContain('net berlin');
  });
});
