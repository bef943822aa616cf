import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Deliberately alike: architecture rules walk all of src; tools/core/tool-layout walks only src/tools for its own rules.
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

/** The composition root: wires every layer, so it may import any. */
const TOP = ['app', 'main'];

const EVERY_LAYER = [
  'errors',
  'config',
  'log',
  'lib',
  'model',
  'records',
  'gateway',
  'format',
  'topology',
  'telemetry',
  'policy',
  'tools',
  'commands',
  'store',
  'changes',
  'approvals',
  'watch',
  'slack',
  'console',
  'mcp',
  'simulator',
  'policy-startup',
  'process-errors',
  'fleet',
  'consoles',
  'http-server',
  'audit',
  'identity',
  ...TOP,
];
/** Every layer but the ones named: for the bottom modules, which may import almost nothing. */
const allBut = (...allowed: string[]) => EVERY_LAYER.filter((layer) => !allowed.includes(layer));
const FACES_AND_TOP = ['slack', 'console', 'mcp', 'simulator', ...TOP];
/** The layers that use a pure, low module (format, topology, lib, records…) and so sit above it. */
const USERS_OF_PURE = ['tools', 'slack', 'console', 'mcp', 'approvals', 'store', 'gateway', 'simulator'];

/** What a module that only needs the store (and the process wiring above it) must not reach into. */
const BESIDE_THE_STORE = ['approvals', 'changes', 'watch', 'tools', 'gateway', 'consoles', 'commands'];

/** Layers a layer must never import (DESIGN §2 and docs/architecture.md). */
const FORBIDDEN: Record<string, readonly string[]> = {
  errors: allBut('errors'),
  config: allBut('config', 'errors', 'lib'),
  log: allBut('log', 'config', 'errors', 'lib'),
  // The change-request domain types, below the store that keeps them and approvals that move them.
  model: allBut('model'),
  // Turns a typed line into a tool call; the faces render what it finds.
  commands: [...FACES_AND_TOP, 'store', 'approvals', 'watch', 'changes'],
  'policy-startup': [...FACES_AND_TOP, 'store', 'approvals', 'tools', 'gateway'],
  'process-errors': allBut('process-errors', 'log', 'config', 'errors', 'lib'),
  // The process's HTTP server: the faces register their routes on it, it knows none of them.
  'http-server': allBut('http-server'),
  tools: ['slack', 'console', 'mcp', 'approvals', 'store', 'simulator', 'consoles', 'app', 'main'],
  gateway: ['tools', 'slack', 'console', 'mcp', 'approvals', 'store', 'simulator', 'consoles', 'app', 'main'],
  // One gateway per console of the fleet: above gateway/ and fleet/, below the process wiring;
  // the faces reach it only through the ToolContext's ConsolePort.
  consoles: [
    'slack',
    'console',
    'mcp',
    'approvals',
    'store',
    'simulator',
    'commands',
    'changes',
    'watch',
    ...TOP,
  ],
  store: ['tools', 'slack', 'console', 'mcp', 'approvals', 'gateway', 'simulator', 'app', 'main'],
  approvals: ['slack', 'console', 'mcp', 'gateway', 'simulator', 'consoles', 'app', 'main'],
  // The faces see the controller only through tools/ and approvals/ (its status type included).
  slack: ['console', 'mcp', 'gateway', 'records', 'simulator', 'consoles', 'app', 'main'],
  console: ['slack', 'mcp', 'gateway', 'records', 'simulator', 'consoles', 'app', 'main'],
  mcp: ['slack', 'console', 'gateway', 'records', 'simulator', 'consoles', 'app', 'main'],
  format: USERS_OF_PURE,
  lib: [...USERS_OF_PURE, 'records', 'format'],
  // The controller's record schemas: pure zod, below the gateway that parses with them.
  records: [...USERS_OF_PURE, 'format', 'topology', 'telemetry', 'watch', 'changes', 'policy', 'app', 'main'],
  // Which consoles and sites the bot serves, read from CONSOLES_FILE: below every part that uses it.
  fleet: ['consoles', ...USERS_OF_PURE, 'commands', 'changes', 'watch', ...TOP],
  // Pure: builds the picture from records it is given, never reads the controller.
  topology: USERS_OF_PURE,
  simulator: ['tools', 'slack', 'console', 'mcp', 'approvals', 'store', 'gateway', 'app', 'main'],
  // DESIGN §8: imported by tools/, never the reverse; never a front end.
  telemetry: ['tools', 'slack', 'console', 'mcp', 'approvals', 'simulator', 'app', 'main'],
  // DESIGN §8: pure; the tools gather its facts, approvals and the faces call it.
  policy: [...USERS_OF_PURE, 'telemetry', 'topology', 'commands', 'app', 'main'],
  watch: ['slack', 'console', 'mcp', 'simulator', 'app', 'main'],
  // DESIGN §8: runs an approved change; approvals/ decides whether and when.
  changes: ['slack', 'console', 'mcp', 'approvals', 'gateway', 'simulator', 'consoles', 'app', 'main'],
  // Step-up sign-in: the Slack face registers its callback and hands it the approval to record.
  identity: [...FACES_AND_TOP.filter((l) => l !== 'main' && l !== 'app'), ...BESIDE_THE_STORE, 'policy'],
  // Copies the store's journal to a SIEM; only the process wiring starts it.
  audit: [...FACES_AND_TOP.filter((l) => l !== 'main'), ...BESIDE_THE_STORE],
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

  it('has a rule for every folder and top-level module under src/', () => {
    const layers = new Set(sourceFiles().map(layerOf));
    const unruled = [...layers].filter((layer) => !(layer in FORBIDDEN) && !TOP.includes(layer));
    expect(unruled).toEqual([]);
    // allBut() forbids only the layers it knows: a new folder must be placed among them.
    expect([...layers].filter((layer) => !EVERY_LAYER.includes(layer))).toEqual([]);
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

  it('raises only BotErrors: every error class outside simulator/ extends BotError', () => {
    // The simulator's errors are the fake controller's own, not the bot's. RecordedFailure only
    // carries a BotError (and its change) to the console's exit code and wording.
    const exempt = ['console/console.ts RecordedFailure'];
    const parents = new Map<string, string>();
    const declared: { where: string; name: string }[] = [];
    for (const file of sourceFiles()) {
      const text = readFileSync(join(SRC, file), 'utf8');
      for (const match of text.matchAll(/\bclass\s+(\w+)(?:<[^>]*>)?\s+extends\s+([\w.]+)/g)) {
        const [, name = '', parent = ''] = match;
        parents.set(name, parent);
        if (layerOf(file) !== 'simulator') declared.push({ where: file, name });
      }
    }
    /** Follows `extends` through the classes of src/ to the first class declared elsewhere. */
    const root = (name: string): string => {
      const seen = new Set<string>();
      let current = name;
      while (current !== 'BotError' && parents.has(current) && !seen.has(current)) {
        seen.add(current);
        current = parents.get(current) ?? current;
      }
      return current;
    };
    const errors = declared.filter(({ name }) => /Error$/.test(root(name)));
    const plain = errors
      .filter(({ name }) => root(name) !== 'BotError')
      .map(({ where, name }) => `${where} ${name}`)
      .filter((entry) => !exempt.includes(entry));
    expect(plain).toEqual([]);
    // The check finds the error classes it judges, subclasses of subclasses included.
    expect(errors.map((e) => e.name)).toEqual(
      expect.arrayContaining([
        'ValidationError',
        'NoControllerError',
        'JournalIntegrityError',
        'ProtocolError',
      ]),
    );
  });

  it('reads the environment only in config.ts', () => {
    const readers = sourceFiles().filter((file) =>
      /process\.env\b/.test(readFileSync(join(SRC, file), 'utf8').replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '')),
    );
    expect(readers).toEqual(['config.ts']);
  });
});

describe('rooms that read at a glance', () => {
  const MAX_FILE_LINES = 700;
  const MAX_FUNCTION_LINES = 120;

  it(`keeps every source file under ${MAX_FILE_LINES} lines`, () => {
    const long = sourceFiles()
      .map((file) => ({ file, lines: readFileSync(join(SRC, file), 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > MAX_FILE_LINES)
      .map(({ file, lines }) => `${file}: ${lines}`);
    expect(long).toEqual([]);
  });

  it(`says why a function runs over ${MAX_FUNCTION_LINES} lines ("One function: …" in its comment)`, () => {
    const unexplained: string[] = [];
    for (const file of sourceFiles()) {
      const text = readFileSync(join(SRC, file), 'utf8');
      const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (ts.isFunctionLike(node) && 'body' in node && node.body) {
          const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
          const end = source.getLineAndCharacterOfPosition(node.end).line;
          const owner = ts.isVariableDeclaration(node.parent) ? node.parent.parent.parent : node;
          const comment = text.slice(owner.getFullStart(), owner.getStart());
          if (end - start + 1 > MAX_FUNCTION_LINES && !comment.includes('One function:'))
            unexplained.push(`${file}:${start + 1} (${end - start + 1} lines)`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(unexplained).toEqual([]);
  });
});
