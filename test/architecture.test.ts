import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve('src');

/** Every TypeScript file under src/, as a path relative to src/. */
function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [relative(SRC, path)] : [];
  });
}

/** The layer of a file: its folder under src/, or the file's own name for top-level files. */
const layerOf = (file: string): string => file.split('/')[0]?.replace(/\.ts$/, '') ?? file;

interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** The project-internal imports of every source file, resolved to files under src/. */
function imports(): Import[] {
  const found: Import[] = [];
  for (const file of sourceFiles()) {
    const text = readFileSync(join(SRC, file), 'utf8');
    for (const match of text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'(\.[^']+)'/gms)) {
      const target = relative(SRC, resolve(SRC, file, '..', match[3] ?? '')).replace(/\.js$/, '.ts');
      found.push({ from: file, to: target, typeOnly: match[2] !== undefined });
    }
  }
  return found;
}

/** Layers a layer must never import (DESIGN §2 and docs/architecture.md). */
const FORBIDDEN: Record<string, readonly string[]> = {
  tools: ['slack', 'console', 'mcp', 'approvals', 'store', 'simulator', 'app', 'main'],
  gateway: ['tools', 'slack', 'console', 'mcp', 'approvals', 'store', 'simulator', 'app', 'main'],
  store: ['tools', 'slack', 'console', 'mcp', 'approvals', 'gateway', 'simulator', 'app', 'main'],
  approvals: ['slack', 'console', 'mcp', 'gateway', 'simulator', 'app', 'main'],
  slack: ['console', 'mcp', 'simulator', 'app', 'main'],
  console: ['slack', 'mcp', 'simulator', 'app', 'main'],
  mcp: ['slack', 'console', 'simulator', 'app', 'main'],
  format: ['tools', 'slack', 'console', 'mcp', 'approvals', 'store', 'gateway', 'simulator'],
  lib: ['tools', 'slack', 'console', 'mcp', 'approvals', 'store', 'gateway', 'simulator', 'format'],
  topology: ['tools', 'slack', 'console', 'mcp', 'approvals', 'store', 'simulator'],
  simulator: ['tools', 'slack', 'console', 'mcp', 'approvals', 'store', 'gateway', 'app', 'main'],
  // DESIGN §8: imported by tools/, never the reverse; never a front end.
  telemetry: ['tools', 'slack', 'console', 'mcp', 'approvals', 'simulator', 'app', 'main'],
  // DESIGN §8: pure; the tools gather its facts, approvals and the faces call it.
  policy: [
    'tools',
    'slack',
    'console',
    'mcp',
    'approvals',
    'store',
    'gateway',
    'simulator',
    'telemetry',
    'topology',
    'commands',
    'app',
    'main',
  ],
  watch: ['slack', 'console', 'mcp', 'simulator', 'app', 'main'],
  // DESIGN §8: runs an approved change; approvals/ decides whether and when.
  changes: ['slack', 'console', 'mcp', 'approvals', 'gateway', 'simulator', 'app', 'main'],
};

describe('the layers keep to their import rules', () => {
  const all = imports();

  it('finds the imports it checks', () => {
    expect(all.length).toBeGreaterThan(300);
    expect(all.some((i) => i.from === 'main.ts' && i.to === 'app.ts')).toBe(true);
  });

  it('never imports a forbidden layer', () => {
    const broken = all
      .filter((i) => (FORBIDDEN[layerOf(i.from)] ?? []).includes(layerOf(i.to)))
      .map((i) => `${i.from} → ${i.to}`);
    expect(broken).toEqual([]);
  });

  it('lets front ends see only the gateway types, never its implementation', () => {
    const broken = all
      .filter((i) => ['slack', 'console', 'mcp'].includes(layerOf(i.from)) && layerOf(i.to) === 'gateway')
      .filter((i) => !i.typeOnly)
      .map((i) => `${i.from} → ${i.to}`);
    expect(broken).toEqual([]);
  });

  it('keeps policy/ pure: no file, network or process access of its own (DESIGN §8)', () => {
    const impure = sourceFiles()
      .filter((file) => layerOf(file) === 'policy')
      .filter((file) =>
        /from 'node:(fs|net|http|https|child_process|dns|fs\/promises)'|process\.env/.test(
          readFileSync(join(SRC, file), 'utf8'),
        ),
      );
    expect(impure).toEqual([]);
    expect(sourceFiles().filter((file) => layerOf(file) === 'policy').length).toBeGreaterThan(3);
  });

  it('reads the environment only in config.ts', () => {
    const readers = sourceFiles().filter((file) =>
      /process\.env\b/.test(readFileSync(join(SRC, file), 'utf8').replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '')),
    );
    expect(readers).toEqual(['config.ts']);
  });
});
