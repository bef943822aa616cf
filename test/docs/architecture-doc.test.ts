import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/architecture.md's module table against src/ itself: every folder and top-level module has a
// row, and what a row says a module imports (and never imports) is what its files import.

const SRC = resolve('src');
const doc = readFileSync(resolve('docs', 'architecture.md'), 'utf8');

/** `src/x/` for a folder, `src/x.ts` for a top-level module: what the table names. */
function srcEntries(): string[] {
  return readdirSync(SRC)
    .filter((name) => statSync(join(SRC, name)).isDirectory() || name.endsWith('.ts'))
    .map((name) => (statSync(join(SRC, name)).isDirectory() ? `src/${name}/` : `src/${name}`));
}

interface Row {
  module: string;
  imports: string;
  never: string;
}

/** The rows of the table under "## Modules". */
function moduleRows(): Row[] {
  const start = doc.indexOf('\n## Modules');
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^\| `(src\/[^`]+)` \| .* \| ([^|]*) \| ([^|]*) \|$/gm)].map((m) => ({
    module: m[1] ?? '',
    imports: (m[2] ?? '').trim(),
    never: (m[3] ?? '').trim(),
  }));
}

/** A module's layer as test/architecture.test.ts names it: the folder, or the file without `.ts`. */
const layerOf = (path: string): string =>
  path
    .replace(/^src\//, '')
    .split('/')[0]
    ?.replace(/\.ts$/, '') ?? '';

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [relative(SRC, path)] : [];
  });
}

/** Per layer, the other layers its files import, and whether every import of each is type-only. */
function actualImports(): Map<string, Map<string, { typeOnly: boolean }>> {
  const found = new Map<string, Map<string, { typeOnly: boolean }>>();
  for (const file of sourceFiles()) {
    const from = layerOf(file);
    const text = readFileSync(join(SRC, file), 'utf8');
    for (const match of text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'(\.[^']+)'/gms)) {
      const target = relative(SRC, resolve(SRC, file, '..', match[3] ?? '')).replace(/\.js$/, '.ts');
      const to = layerOf(target);
      if (to === from) continue;
      const layers = found.get(from) ?? new Map<string, { typeOnly: boolean }>();
      const typeOnly = match[2] !== undefined && (layers.get(to)?.typeOnly ?? true);
      layers.set(to, { typeOnly });
      found.set(from, layers);
    }
  }
  return found;
}

/** `approvals, config types, lib` → layer → type-only; `everything` and `—` say no list. */
function listed(cell: string): Map<string, { typeOnly: boolean }> {
  const layers = new Map<string, { typeOnly: boolean }>();
  for (const word of cell.split(',').map((w) => w.trim())) {
    if (word === '' || word === '—' || word === 'its own files') continue;
    const typeOnly = word.endsWith(' types');
    layers.set(word.replace(/ types$/, ''), { typeOnly });
  }
  return layers;
}

describe("docs/architecture.md's module table", () => {
  const rows = moduleRows();

  it('finds the table it checks', () => {
    expect(rows.length).toBeGreaterThan(20);
  });

  it('has a row for every folder and top-level module of src/ (add one when this fails)', () => {
    const documented = new Set(rows.map((r) => r.module));
    expect(srcEntries().filter((entry) => !documented.has(entry))).toEqual([]);
  });

  it('names nothing that is not in src/ any more', () => {
    const present = new Set(srcEntries());
    expect(rows.map((r) => r.module).filter((m) => !present.has(m))).toEqual([]);
  });

  it('says what each module imports: every layer its files import, type-only where it says types', () => {
    const actual = actualImports();
    const wrong: string[] = [];
    for (const row of rows) {
      if (row.imports === 'everything') continue;
      const claimed = listed(row.imports);
      for (const [layer, { typeOnly }] of actual.get(layerOf(row.module)) ?? []) {
        const said = claimed.get(layer);
        if (!said) wrong.push(`${row.module} imports ${layer}, not in its row`);
        else if (said.typeOnly && !typeOnly) wrong.push(`${row.module} imports ${layer} beyond its types`);
      }
      for (const layer of claimed.keys()) {
        if (!actual.get(layerOf(row.module))?.has(layer))
          wrong.push(`${row.module} no longer imports ${layer}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('never lists a layer under "Never imports" that the module does import', () => {
    const actual = actualImports();
    const broken = rows.flatMap((row) =>
      [...listed(row.never).keys()]
        .filter((layer) => actual.get(layerOf(row.module))?.has(layer))
        .map((layer) => `${row.module} → ${layer}`),
    );
    expect(broken).toEqual([]);
  });
});
