import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageVersion } from '../../src/lib/package-version.js';

const ROOT = process.cwd();
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

describe('packageVersion', () => {
  it.each([
    ['src/mcp/mcp-server.ts'],
    ['dist/main.js'],
    ['dist/chunks/chunk-ABCDEF.js'],
    ['dist/topology/chart-worker.js'],
  ])('finds the project version from a module at %s, whatever its depth', (path) => {
    expect(packageVersion(pathToFileURL(join(ROOT, path)).href)).toBe(version);
  });

  it('skips other packages’ package.json on the way up (a module inside node_modules)', () => {
    expect(packageVersion(pathToFileURL(join(ROOT, 'node_modules', 'zod', 'index.js')).href)).toBe(version);
  });

  it('says unknown when the project is not above the module', () => {
    expect(packageVersion(pathToFileURL(join(tmpdir(), 'elsewhere', 'module.js')).href)).toBe('unknown');
  });
});
