#!/usr/bin/env node
/**
 * `node scripts/ensure-build.mjs [--force]`: builds dist/ from src/ (scripts/bundle.mjs, esbuild)
 * only when dist/ is stale, so `npm start` and `npm test` on an up-to-date tree start at once. Stale means: no
 * dist/main.js, no stamp, or a file or folder under src/ (a deleted file changes its folder's
 * mtime), a tsconfig*.json or package.json newer than the stamp of the last successful build.
 * `--force` (npm run build) always compiles. Plain Node, no dependencies.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const stamp = join(dist, '.build-stamp');
const entry = join(dist, 'main.js');

function newestMtime(path) {
  const stat = statSync(path);
  let newest = stat.mtimeMs;
  if (stat.isDirectory()) {
    for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name)));
  }
  return newest;
}

function inputs() {
  const configs = readdirSync(root).filter(
    (name) => /^tsconfig.*\.json$/.test(name) || name === 'package.json',
  );
  return ['src', join('scripts', 'bundle.mjs'), ...configs]
    .map((name) => join(root, name))
    .filter((path) => existsSync(path));
}

function staleReason() {
  if (!existsSync(entry)) return 'dist/main.js is missing';
  if (!existsSync(stamp)) return 'dist/ has no build stamp';
  const built = statSync(stamp).mtimeMs;
  const newest = Math.max(...inputs().map(newestMtime));
  return newest > built ? 'sources changed since the last build' : undefined;
}

function bundlerInstalled() {
  try {
    createRequire(join(root, 'package.json')).resolve('esbuild/package.json');
    return true;
  } catch {
    return false;
  }
}

const force = process.argv.includes('--force');
const reason = force ? 'forced' : staleReason();
if (reason) {
  if (!bundlerInstalled()) {
    process.stderr.write(
      `netops: dist/ must be built (${reason}) but esbuild is not installed: run npm ci\n`,
    );
    process.exit(1);
  }
  if (!force) process.stderr.write(`netops: building dist/ (${reason})…\n`);
  // The stamp carries the time the build started: a file saved during the build stays newer.
  const startedAt = new Date();
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'bundle.mjs')], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
  // Executable, so `./dist/main.js` and an installed `netops` bin run it through its shebang.
  chmodSync(entry, 0o755);
  writeFileSync(stamp, `${JSON.stringify({ built_at: startedAt.toISOString() })}\n`);
  utimesSync(stamp, startedAt, startedAt);
}
