// The Docker image's runtime stage holds dist/ and the production dependencies only
// (`npm ci --omit=dev`). The programs docs/deploying.md tells operators to run inside it must load there:
// every package they reach, statically or through a dynamic import, is a production dependency.

import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/bot-process.js';
import { readDockerfile } from '../helpers/shipped-files.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const deploying = readFileSync(join(ROOT, 'docs', 'deploying.md'), 'utf8');

const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { dev?: boolean; peerDependenciesMeta?: Record<string, { optional?: boolean }> }>;
};

// dist/ is esbuild's bundle; its metafile says which sources went into each output and what each
// output imports (other outputs, or packages left outside the bundle).
const meta = JSON.parse(readFileSync(join(ROOT, 'dist', '.bundle-meta.json'), 'utf8')) as {
  outputs: Record<
    string,
    { inputs: Record<string, unknown>; imports: { path: string; external?: boolean }[] }
  >;
};

const packageOf = (path: string) => {
  const parts = path.split('/');
  return path.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? path);
};

/**
 * Every package a built program can load, statically or through a dynamic import: bundled into it
 * (`node_modules/…` inputs, as the lockfile names them) or imported from node_modules at run time.
 */
function packagesReachedFrom(entry: string): { bundled: Set<string>; external: Set<string> } {
  const seen = new Set<string>();
  const bundled = new Set<string>();
  const external = new Set<string>();
  const visit = (output: string) => {
    if (seen.has(output)) return;
    seen.add(output);
    const described = meta.outputs[output];
    if (!described) throw new Error(`${output} is not in dist/.bundle-meta.json`);
    for (const input of Object.keys(described.inputs)) {
      const at = input.lastIndexOf('node_modules/');
      if (at >= 0)
        bundled.add(
          `${input.slice(0, at)}node_modules/${packageOf(input.slice(at + 'node_modules/'.length))}`,
        );
    }
    for (const imported of described.imports) {
      if (!imported.external) visit(imported.path);
      else if (!imported.path.startsWith('node:') && !builtinModules.includes(imported.path))
        external.add(packageOf(imported.path));
    }
  };
  visit(entry);
  return { bundled, external };
}

describe('the programs the image ships', () => {
  it.each(['dist/main.js', 'dist/store/verify-cli.js', 'dist/store/import-cli.js'])(
    '%s loads with production dependencies only',
    (entry) => {
      expect(existsSync(join(ROOT, entry))).toBe(true);
      const { bundled, external } = packagesReachedFrom(entry);
      expect(bundled.size).toBeGreaterThan(0);
      // Code bundled in comes from packages the production install has (none dev-only) ...
      for (const path of bundled) {
        expect(lock.packages[path], `${entry} bundles ${path}`).toBeDefined();
        expect(lock.packages[path]?.dev, `${entry} bundles ${path}`).not.toBe(true);
      }
      // ... and what it imports at run time is a production dependency of ours, or an optional peer
      // that a bundled package asks for only when it is installed (pg's `pg-native`).
      const optionalPeers = new Set(
        [...bundled].flatMap((path) =>
          Object.entries(lock.packages[path]?.peerDependenciesMeta ?? {})
            .filter(([, peer]) => peer.optional === true)
            .map(([name]) => name),
        ),
      );
      for (const name of external) {
        if (optionalPeers.has(name)) continue;
        expect(Object.keys(pkg.dependencies), `${entry} → ${name}`).toContain(name);
      }
    },
  );

  it('are the ones docs/deploying.md names, run from the image’s WORKDIR', () => {
    const docker = readDockerfile();
    expect(docker.cmd).toEqual(['node', 'dist/main.js']);
    expect(deploying).toContain('node dist/store/verify-cli.js');
    expect(deploying).toContain('node dist/store/import-cli.js');
  });
});
