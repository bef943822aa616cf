import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledScript } from '../helpers/script-process.js';

const MAIN = join(process.cwd(), 'src', 'simulator', 'main.ts');

/**
 * The script `npm run simulator` runs (src/simulator/main.ts), bundled once with esbuild, the
 * transform tsx itself applies: through tsx's loader each start cost about 2.5 s of CPU.
 */
async function start(args: string[]): Promise<ChildProcess> {
  return spawn(process.execPath, [await bundledScript(MAIN), ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Resolves with the first stdout line that matches, or everything printed when the process ends. */
function waitFor(
  child: ChildProcess,
  pattern: RegExp,
): Promise<{ match?: RegExpMatchArray; out: string; err: string }> {
  return new Promise((resolve) => {
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = out.match(pattern);
      if (match) resolve({ match, out, err });
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on('close', () => resolve({ out, err }));
  });
}

describe('npm run simulator', () => {
  it('runs the legacy firewall with --firewall=legacy and says so', async () => {
    const child = await start(['--port', '0', '--firewall=legacy']);
    const exit = new Promise((resolve) => child.on('close', resolve));
    try {
      const { match } = await waitFor(child, /\(unifi-os, legacy firewall\) listening on (http:\/\/\S+)/);
      const url = match?.[1];
      expect(url).toBeDefined();
      const answer = await fetch(`${url}/proxy/network/v2/api/site/default/site-feature-migration`, {
        headers: { 'X-API-KEY': 'sim-demo-key-0000' },
      });
      expect(await answer.json()).toEqual([]);
    } finally {
      child.kill('SIGTERM');
      await exit;
    }
  }, 30_000);

  it('plays UniFi Network 9.0 with --api-version 9.0: info says so and a 10.1 operation answers 404', async () => {
    const child = await start(['--port', '0', '--api-version', '9.0']);
    const exit = new Promise((resolve) => child.on('close', resolve));
    try {
      const { match } = await waitFor(child, /listening on (http:\/\/\S+)[\s\S]*Network: {2}9\.0/);
      const url = match?.[1];
      const headers = { 'X-API-KEY': 'sim-demo-key-0000' };
      const info = await fetch(`${url}/proxy/network/integration/v1/info`, { headers });
      expect(await info.json()).toEqual({ applicationVersion: '9.0.114' });
      const sites = (await (
        await fetch(`${url}/proxy/network/integration/v1/sites`, { headers })
      ).json()) as {
        data: { id: string }[];
      };
      const zones = await fetch(
        `${url}/proxy/network/integration/v1/sites/${sites.data[0]?.id}/firewall/zones`,
        {
          headers,
        },
      );
      expect(zones.status).toBe(404);
      const devices = await fetch(`${url}/proxy/network/integration/v1/sites/${sites.data[0]?.id}/devices`, {
        headers,
      });
      expect(devices.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      await exit;
    }
  }, 30_000);

  it('refuses an unknown firewall with the usage line and exit code 2', async () => {
    const child = await start(['--firewall', 'zones']);
    const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
    const { err } = await waitFor(child, /(?!)/);
    expect(await exit).toBe(2);
    expect(err).toContain('--firewall must be zone-based or legacy');
    expect(err).toContain('[--firewall zone-based|legacy]');
  }, 30_000);

  it('runs a fleet with --consoles 3 --sites 2 and prints each console and a consoles file for it', async () => {
    const child = await start(['--consoles', '3', '--sites', '2']);
    const exit = new Promise((resolve) => child.on('close', resolve));
    try {
      const { match, out } = await waitFor(child, /Ctrl\+C to stop/);
      expect(match).toBeDefined();
      expect(out).toMatch(/3 consoles, cloud \(Site Manager and connector\) on http:\/\/127\.0\.0\.1:\d+/);
      const munich = /munich\s+Network 9\.0\s+(http:\/\/\S+)\s+sites: default, \w{8}/.exec(out);
      expect(munich).not.toBeNull();
      const key = /export FLEET_MUNICH_API_KEY=(\S+)/.exec(out)?.[1] ?? '';
      const info = await fetch(`${munich?.[1]}/proxy/network/integration/v1/info`, {
        headers: { 'X-API-KEY': key },
      });
      expect(await info.json()).toEqual({ applicationVersion: expect.stringMatching(/^9\.0\./) });
      expect(out).toContain('api_key_env: FLEET_MUNICH_API_KEY');
      expect(out).not.toMatch(/^\s+api_key: /m);
    } finally {
      child.kill('SIGTERM');
      await exit;
    }
  }, 30_000);

  it('refuses --sites without --consoles, and --port with a fleet, with exit code 2', async () => {
    for (const [args, message] of [
      [['--sites', '2'], '--sites needs --consoles'],
      [['--consoles', '2', '--port', '9000'], '--port is for one console'],
      [['--consoles', '0'], '--consoles must be 1–4096'],
    ] as const) {
      const child = await start([...args]);
      const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
      const { err } = await waitFor(child, /(?!)/);
      expect(await exit).toBe(2);
      expect(err).toContain(message);
      expect(err).toContain('--consoles N [--sites M]');
    }
  }, 30_000);
});
