import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = process.cwd();

/**
 * A stand-in for the bundler script (scripts/bundle.mjs, the edge of this script): copies src/*.ts
 * to dist/*.js, logs each run, and fails like esbuild (error on stdout, exit 2) on a file
 * containing COMPILE_ERROR.
 */
const FAKE_BUNDLER = `
import fs from 'node:fs';
import path from 'node:path';
fs.appendFileSync('bundle-runs.log', 'run\\n');
fs.mkdirSync('dist', { recursive: true });
let failed = false;
for (const name of fs.readdirSync('src')) {
  const text = fs.readFileSync(path.join('src', name), 'utf8');
  if (text.includes('COMPILE_ERROR')) {
    process.stdout.write('✘ [ERROR] src/' + name + ':1:1: No matching export\\n');
    failed = true;
  }
  fs.writeFileSync(path.join('dist', name.replace(/\\.ts$/, '.js')), text);
}
process.exit(failed ? 2 : 0);
`;

/** A two-file project with the real script, a fake bundler and an installed esbuild (its package.json). */
function tinyProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'netops-ensure-build-'));
  for (const folder of ['scripts', 'src', 'node_modules/esbuild'])
    mkdirSync(join(dir, folder), { recursive: true });
  copyFileSync(join(ROOT, 'scripts', 'ensure-build.mjs'), join(dir, 'scripts', 'ensure-build.mjs'));
  writeFileSync(join(dir, 'node_modules', 'esbuild', 'package.json'), '{ "name": "esbuild" }\n');
  writeFileSync(join(dir, 'scripts', 'bundle.mjs'), FAKE_BUNDLER);
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(dir, 'tsconfig.json'), '{}\n');
  writeFileSync(join(dir, 'src', 'main.ts'), '#!/usr/bin/env node\nexport const answer = 1;\n');
  writeFileSync(join(dir, 'src', 'extra.ts'), 'export const extra = 2;\n');
  return dir;
}

function ensureBuild(dir: string, ...args: string[]) {
  const run = spawnSync(process.execPath, [join(dir, 'scripts', 'ensure-build.mjs'), ...args], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 10_000,
  });
  return { status: run.status, stderr: run.stderr, stdout: run.stdout };
}

/** Moves a path's mtime `seconds` into the past (so the test never races the clock). */
function age(path: string, seconds: number): void {
  const then = new Date(Date.now() - seconds * 1000);
  utimesSync(path, then, then);
}

const mtime = (path: string) => statSync(path).mtimeMs;

/** How often the compiler ran in `dir`. */
function compilerRuns(dir: string): number {
  try {
    return readFileSync(join(dir, 'bundle-runs.log'), 'utf8').split('\n').filter(Boolean).length;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

describe('scripts/ensure-build.mjs (prestart and the process tests build dist/ only when stale)', () => {
  let dir: string;
  let main: string;
  let stamp: string;
  beforeAll(() => {
    dir = tinyProject();
    main = join(dir, 'dist', 'main.js');
    stamp = join(dir, 'dist', '.build-stamp');
  });

  /** Every input older than the stamp, as after a build long ago. */
  const settle = () => {
    for (const path of [
      'src/main.ts',
      'src/extra.ts',
      'src',
      'package.json',
      'tsconfig.json',
      'scripts/bundle.mjs',
    ]) {
      try {
        age(join(dir, path), 60);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    age(stamp, 30);
  };

  it('builds when dist/ is missing, with scripts/bundle.mjs: an executable dist/main.js and a stamp', () => {
    const run = ensureBuild(dir);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain('building dist/ (dist/main.js is missing)');
    expect(readFileSync(join(dir, 'bundle-runs.log'), 'utf8')).toBe('run\n');
    expect(readFileSync(main, 'utf8')).toContain('answer = 1');
    expect(statSync(main).mode & 0o111).not.toBe(0);
    expect(statSync(stamp).isFile()).toBe(true);
  });

  it('does nothing, silently, when no input is newer than the stamp', () => {
    settle();
    const runs = compilerRuns(dir);
    expect(ensureBuild(dir)).toEqual({ status: 0, stderr: '', stdout: '' });
    expect(ensureBuild(dir)).toEqual({ status: 0, stderr: '', stdout: '' });
    expect(compilerRuns(dir)).toBe(runs);
  });

  // Deliberately alike: each case changes the source its own way and checks the build's answer to that change.
  it('builds again when a source changed, then not again', () => {
    settle();
    const runs = compilerRuns(dir);
    writeFileSync(join(dir, 'src', 'main.ts'), 'export const answer = 42;\n');
    const run = ensureBuild(dir);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain('sources changed since the last build');
    expect(readFileSync(main, 'utf8')).toContain('answer = 42');
    expect(ensureBuild(dir).stderr).toBe('');
    expect(compilerRuns(dir)).toBe(runs + 1);
  });

  it('builds again when a source was deleted (only its folder changed), or the bundler script, a tsconfig or package.json changed', () => {
    for (const change of [
      () => rmSync(join(dir, 'src', 'extra.ts')),
      () => utimesSync(join(dir, 'scripts', 'bundle.mjs'), new Date(), new Date()),
      () => utimesSync(join(dir, 'tsconfig.json'), new Date(), new Date()),
      () => utimesSync(join(dir, 'package.json'), new Date(), new Date()),
    ]) {
      settle();
      const runs = compilerRuns(dir);
      change();
      expect(ensureBuild(dir).stderr).toContain('sources changed');
      expect(compilerRuns(dir)).toBe(runs + 1);
    }
  });

  it('always builds with --force (npm run build), silently', () => {
    settle();
    const runs = compilerRuns(dir);
    expect(ensureBuild(dir, '--force')).toEqual({ status: 0, stderr: '', stdout: '' });
    expect(compilerRuns(dir)).toBe(runs + 1);
  });

  it('fails with the compiler status and leaves dist/ stale when the code does not compile', () => {
    settle();
    const stampBefore = mtime(stamp);
    writeFileSync(join(dir, 'src', 'main.ts'), 'export const answer = COMPILE_ERROR;\n');
    const failed = ensureBuild(dir);
    expect(failed.status).toBe(2);
    expect(failed.stdout).toContain('[ERROR] src/main.ts');
    expect(mtime(stamp)).toBe(stampBefore);
    writeFileSync(join(dir, 'src', 'main.ts'), 'export const answer = 3;\n');
    expect(ensureBuild(dir).status).toBe(0);
    expect(readFileSync(main, 'utf8')).toContain('answer = 3');
  });

  it('says what to do when dist/ is stale and esbuild is not installed (a production install)', () => {
    settle();
    rmSync(join(dir, 'node_modules'), { recursive: true });
    writeFileSync(join(dir, 'src', 'main.ts'), 'export const answer = 4;\n');
    const run = ensureBuild(dir);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('esbuild is not installed: run npm ci');
  });
});
