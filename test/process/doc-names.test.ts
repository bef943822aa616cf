import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { META_ARGS } from '../../src/changes/meta-args.js';
import { ENV_VARIABLES } from '../../src/config.js';
import { GET_CHANGE_REQUEST, PROPOSE_CHANGE_SET, REVERT_CHANGE } from '../../src/mcp/change-request-tool.js';
import { MAIN, ROOT } from '../helpers/bot-process.js';

// The README and the guides against the built program: every environment variable they name is one
// the bot reads, and every tool or command they name is one its `--help` lists.

const GUIDES = [
  'README.md',
  ...[
    'getting-started',
    'slack',
    'on-call',
    'changes',
    'watching',
    'mcp',
    'deploying',
    'configuration',
    'security',
    'testing',
    'tools',
  ].map((name) => `docs/${name}.md`),
];

/** Variables of other programs the guides name: the test suite's, the image test's, PostgreSQL's. */
const OTHER_PROGRAMS_VARIABLES = new Set([
  'FUZZ_RUNS',
  'FUZZ_SEED',
  'TEST_DATABASE_URL',
  'NO_COMPOSE',
  'POSTGRES_PASSWORD',
  'NODE_OPTIONS',
]);

/** Words the faces take that are not tools or shortcuts: Slack's form, the MCP server, leaving the console. */
const FACE_WORDS = new Set(['help', 'form', 'mcp', 'quit', 'exit', '--help', '--version']);

/** The MCP-only tools (they act on change requests, so they are not in the registry's help). */
const MCP_ONLY_TOOLS = new Set([GET_CHANGE_REQUEST, REVERT_CHANGE, PROPOSE_CHANGE_SET]);

/** `node dist/main.js --help`, run once as a user runs it: environment variables only. */
function builtHelp(): string {
  const run = spawnSync(process.execPath, [MAIN, '--help'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', DATA_DIR: mkdtempSync(join(tmpdir(), 'netops-doc-names-')) },
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
}

/**
 * The code of a page, where names are written as typed: fenced blocks and inline spans. A block
 * fenced as `text` is the program's output (client names and all), not something to type.
 */
function codeOf(markdown: string): { text: string; output: boolean }[] {
  const blocks = [...markdown.matchAll(/^```([^\n]*)\n([\s\S]*?)^```/gm)].map((m) => ({
    text: m[2] ?? '',
    output: (m[1] ?? '').trim() === 'text',
  }));
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => ({ text: m[1] ?? '', output: false }));
  return [...blocks, ...spans];
}

const help = builtHelp();
const shortcutsAt = help.indexOf('\nShortcuts:');
/** Tool lines of the help: `  list_vlans [limit] [offset]  — List every network …`. */
const tools = new Set(
  [...help.slice(0, shortcutsAt).matchAll(/^ {2}([a-z][a-z0-9_]*)\b.* — /gm)].map((m) => m[1] ?? ''),
);
/** Every word the help prints: shortcuts (`who`, `offline`), history commands (`changes`, `keep`, `plan`). */
const helpWords = new Set(help.match(/[a-z][a-z0-9_]*/g) ?? []);
/** The first word of the tools' names: a backticked `verb_object` with one of these is a tool name. */
const verbs = new Set([...tools, ...MCP_ONLY_TOOLS].map((name) => name.split('_')[0] ?? ''));
const code = GUIDES.flatMap((page) =>
  codeOf(readFileSync(join(ROOT, page), 'utf8')).map((found) => ({ page, ...found })),
);

describe('the guides name what the built program knows', () => {
  it("reads the built program's --help", () => {
    expect(tools.size).toBeGreaterThan(60);
    expect(tools).toContain('list_vlans');
    expect(helpWords).toContain('who');
    expect(code.length).toBeGreaterThan(500);
  });

  it('name only environment variables config.ts reads (or another program’s, listed here)', () => {
    const known = new Set<string>(ENV_VARIABLES);
    const unknown = code.flatMap(({ page, text, output }) =>
      (output ? [] : (text.match(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g) ?? []))
        .filter((name) => !known.has(name) && !OTHER_PROGRAMS_VARIABLES.has(name))
        .map((name) => `${page}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it('name only tools the help lists (or the MCP-only ones)', () => {
    const unknown = code.flatMap(({ page, text }) =>
      (text.match(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g) ?? [])
        .filter((word) => verbs.has(word.split('_')[0] ?? ''))
        .filter((word) => !tools.has(word) && !MCP_ONLY_TOOLS.has(word))
        .filter((word) => !(META_ARGS as readonly string[]).includes(word))
        .map((word) => `${page}: ${word}`),
    );
    expect(unknown).toEqual([]);
  });

  it('start every command they show with a tool, a shortcut or a word of the faces', () => {
    // `netops` only where it starts a line or a span: elsewhere it is a container's or project's name.
    const prompt =
      /(?:(?:^|[\s`])(?:\/net|net>|node dist\/main\.js|npm start(?: --silent)? --)|(?:^[ \t]*|`)netops)[ \t]+(\S+)/gm;
    const unknown = code.flatMap(({ page, text }) =>
      [...text.matchAll(prompt)]
        .map((m) => (m[1] ?? '').replace(/[`…]+$/, ''))
        .filter((word) => word !== '' && !word.startsWith('<') && !word.includes('…'))
        .filter((word) => !tools.has(word) && !helpWords.has(word) && !FACE_WORDS.has(word))
        .map((word) => `${page}: ${word}`),
    );
    expect(unknown).toEqual([]);
  });
});
