// The Docker image's runtime stage holds dist/ and the production dependencies only
// (`npm ci --omit=dev`). The programs the README tells operators to run inside it must load there:
// every package they reach, statically or through a dynamic import, is a production dependency.

import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/bot-process.js';
import { readDockerfile } from '../helpers/shipped-files.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** Every package (not a file of ours, not a Node built-in) a built program can load. */
function packagesReachedFrom(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? '';
      if (specifier.startsWith('.')) {
        visit(resolve(dirname(file), specifier));
      } else if (!specifier.startsWith('node:') && !builtinModules.includes(specifier)) {
        const parts = specifier.split('/');
        packages.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier));
      }
    }
  };
  visit(join(ROOT, entry));
  return packages;
}

describe('the programs the image ships', () => {
  it.each(['dist/main.js', 'dist/store/verify-cli.js', 'dist/store/import-cli.js'])(
    '%s loads with production dependencies only',
    (entry) => {
      expect(existsSync(join(ROOT, entry))).toBe(true);
      const reached = [...packagesReachedFrom(entry)];
      expect(reached.length).toBeGreaterThan(0);
      for (const name of reached) expect(Object.keys(pkg.dependencies), `${entry} → ${name}`).toContain(name);
    },
  );

  it('are the ones the README names, run from the image’s WORKDIR', () => {
    const docker = readDockerfile();
    expect(docker.cmd).toEqual(['node', 'dist/main.js']);
    expect(readme).toContain('node dist/store/verify-cli.js');
    expect(readme).toContain('node dist/store/import-cli.js');
  });
});
