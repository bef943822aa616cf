import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changeSpec } from '../../../src/changes/tool-changes.js';
import { createRegistry, toolGroups } from '../../../src/tools/index.js';

const TOOLS = resolve('src/tools');

/** Every TypeScript file under src/tools/, relative to it. */
function toolFiles(dir = TOOLS): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return toolFiles(path);
    return path.endsWith('.ts') ? [relative(TOOLS, path)] : [];
  });
}

/** The files under src/tools/ each file imports (type-only imports included). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of toolFiles()) {
    const text = readFileSync(join(TOOLS, file), 'utf8');
    const targets = [...text.matchAll(/^(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gms)]
      .map((m) => relative(TOOLS, resolve(TOOLS, file, '..', m[1] ?? '')).replace(/\.js$/, '.ts'))
      .filter((target) => !target.startsWith('..'));
    graph.set(file, targets);
  }
  return graph;
}

/** One import cycle as a path of files, or undefined. */
function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): string[] | undefined => {
    if (state.get(file) === 'done') return undefined;
    if (state.get(file) === 'open') return [...stack.slice(stack.indexOf(file)), file];
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(file, 'done');
    return undefined;
  };
  for (const file of graph.keys()) {
    const cycle = visit(file);
    if (cycle) return cycle;
  }
  return undefined;
}

/** The names of the tools a file defines (`defineTool({ name: '…'`). */
function definedNames(file: string): string[] {
  const text = readFileSync(join(TOOLS, file), 'utf8');
  return [...text.matchAll(/defineTool\(\{\s*name: '([a-z_]+)'/g)].map((m) => m[1] ?? '');
}

describe('src/tools/', () => {
  const graph = importGraph();

  it('has no import cycle among its files', () => {
    expect(graph.size).toBeGreaterThan(40);
    expect(findCycle(graph)).toBeUndefined();
  });

  it('finds a cycle when there is one (the check itself)', () => {
    const looped = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
    ]);
    expect(findCycle(looped)).toEqual(['a.ts', 'b.ts', 'c.ts', 'a.ts']);
  });

  it('keeps its tools in group folders, beside their models: no tool file at the top', () => {
    const top = toolFiles().filter((file) => !file.includes('/'));
    expect(top).toEqual(['index.ts']);
    expect(toolFiles().filter((file) => file.startsWith('core/') && definedNames(file).length > 0)).toEqual(
      [],
    );
  });

  it('registers every tool the group folders define, and nothing else', () => {
    const defined = toolFiles().flatMap(definedNames).sort();
    const listed = createRegistry('default')
      .list()
      .map((tool) => tool.name)
      .sort();
    expect(defined.length).toBeGreaterThan(60);
    expect(listed).toEqual(defined);
  });

  it('carries each write tool’s change spec in its own definition', () => {
    const writes = toolGroups.flatMap((group) => group.tools).filter((tool) => tool.access === 'write');
    expect(writes.filter((tool) => tool.change === undefined).map((tool) => tool.name)).toEqual([]);
    for (const tool of writes) expect(changeSpec(tool.name)).toBe(tool.change);
    // Reads change nothing, so they have nothing to read back or undo.
    const reads = toolGroups.flatMap((group) => group.tools).filter((tool) => tool.access === 'read');
    expect(reads.filter((tool) => tool.change !== undefined || tool.impact !== undefined)).toEqual([]);
  });

  it('reads the blast radius of the writes that can cut clients or the bot off', () => {
    const withImpact = toolGroups
      .flatMap((group) => group.tools)
      .filter((tool) => tool.impact !== undefined)
      .map((tool) => tool.name)
      .sort();
    expect(withImpact).toEqual([
      'block_client',
      'create_network',
      'delete_network',
      'power_cycle_port',
      'reconnect_client',
      'restart_device',
      'set_wifi_broadcast_enabled',
      'unauthorize_guest',
      'update_network',
    ]);
  });
});
