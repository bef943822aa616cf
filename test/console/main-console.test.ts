import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFake } from '../gateway/support.js';
import { bundledScript } from '../helpers/script-process.js';

const MAIN = join(process.cwd(), 'src', 'main.ts');

/**
 * The entry point in a child process with only the given environment, as a shell runs it (output
 * piped): src/main.ts bundled once with esbuild (as dist/ is built), not loaded through tsx, which
 * cost about 2.5 s of CPU a start.
 */
async function runMain(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const main = await bundledScript(MAIN);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main, ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATA_DIR: mkdtempSync(join(tmpdir(), 'netops-')),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
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
  });
}

describe.concurrent('the console as main.ts wires it', () => {
  it('prints warnings as readable lines and a --json error on stdout for a URL with no controller', async () => {
    const server = await startFake((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><body><h1>404 Not Found</h1></body></html>');
    });
    try {
      const run = await runMain(['list_vlans', '--json'], {
        GATEWAY_URL: server.url,
        GATEWAY_API_KEY: 'k-never-printed',
      });

      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout)).toMatchObject({
        error: {
          code: 'gateway_unavailable',
          message: expect.stringMatching(
            /^no UniFi Network controller at http:\/\/127\.0\.0\.1:\d+( for the Integration API)?: /,
          ),
          fields: [],
        },
      });
      expect(run.stderr).toBe(
        'warning: could not tell the controller type from GET /; assuming UniFi OS (status=404)\n',
      );
      expect(run.stdout + run.stderr).not.toContain('k-never-printed');
    } finally {
      await server.close();
    }
  }, 30_000);

  it('gives a bad environment as a --json error naming every variable, exit 2', async () => {
    const run = await runMain(['list_vlans', '--json'], { PORT: 'x', GATEWAY_API_TYPE: 'moon' });

    expect(run.code).toBe(2);
    const parsed = JSON.parse(run.stdout) as { error: { code: string; fields: { field: string }[] } };
    expect(parsed.error.code).toBe('config_invalid');
    expect(parsed.error.fields.map((f) => f.field).sort()).toEqual(['GATEWAY_API_TYPE', 'PORT']);
    expect(run.stderr).toBe('');
  }, 30_000);

  it("fits tables to the shell's COLUMNS: one line per network, the ids whole with --ids", async () => {
    // The built-in simulator plays a 10.1 console: networks carry their official UUIDs (36
    // characters), and the official list has no WAN.
    const run = await runMain(['list_vlans'], { COLUMNS: '56' });

    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(56);
    expect(lines.filter((line) => /^(Default|IoT|Guest|Servers|Cameras)\s/.test(line))).toHaveLength(5);
    expect(run.stdout).toMatch(/\(\d+ rows; --ids shows id\)\n$/);

    const ids = await runMain(['list_vlans', '--ids'], { COLUMNS: '56' });
    expect(ids.code).toBe(0);
    const uuids = ids.stdout.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g) ?? [];
    expect(uuids.length).toBeGreaterThanOrEqual(5);
    for (const line of ids.stdout.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(56);
  }, 30_000);
});
