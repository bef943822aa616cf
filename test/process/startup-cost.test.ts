import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAIN, ROOT } from '../helpers/bot-process.js';

const DIST = join(ROOT, 'dist');

/** Specifiers of the static imports and re-exports of a compiled module (dynamic import() excluded). */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const from = [...text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s*['"]([^'"]+)['"]/gms)].map(
    (m) => m[1],
  );
  const bare = [...text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm)].map((m) => m[1]);
  return [...from, ...bare].filter((s): s is string => Boolean(s));
}

/** Every module loaded before any code runs when Node starts `entry`: dist files and packages. */
function staticGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const specifier of staticImports(file)) {
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier));
      else if (!specifier.startsWith('node:')) packages.add(specifier);
    }
  };
  visit(entry);
  return { files: new Set([...files].map((f) => relative(DIST, f))), packages };
}

describe('what `node dist/main.js` loads before it runs (start-up cost of a console one-shot)', () => {
  it("loads Slack's SDK only for the Slack bot: the console's static import graph has no @slack/bolt", () => {
    const consoleGraph = staticGraph(MAIN);
    expect(consoleGraph.files).toContain('app.js');
    expect(consoleGraph.files).toContain('console/index.js');
    expect(consoleGraph.packages).toContain('zod');
    expect([...consoleGraph.packages].filter((p) => p.startsWith('@slack/'))).toEqual([]);
    expect([...consoleGraph.files].filter((f) => f.startsWith('slack/'))).toEqual([]);

    const slack = staticGraph(join(DIST, 'slack', 'slack-kit.js'));
    expect(slack.packages).toContain('@slack/bolt');
    expect(readFileSync(MAIN, 'utf8')).toContain("import('./slack/slack-kit.js')");
  });

  it('loads the MCP SDK only for `netops mcp` and a bot with MCP_TOKEN, never for the console or Slack', () => {
    const mcpPackages = (graph: { packages: Set<string> }) =>
      [...graph.packages].filter((p) => p.startsWith('@modelcontextprotocol/'));
    const consoleGraph = staticGraph(MAIN);
    expect(mcpPackages(consoleGraph)).toEqual([]);
    expect([...consoleGraph.files].filter((f) => f.startsWith('mcp/'))).toEqual([]);
    expect(mcpPackages(staticGraph(join(DIST, 'slack', 'slack-kit.js')))).toEqual([]);
    expect(mcpPackages(staticGraph(join(DIST, 'mcp', 'mcp-kit.js')))).toContain(
      '@modelcontextprotocol/sdk/server/mcp.js',
    );
    expect(readFileSync(MAIN, 'utf8')).toContain("import('./mcp/mcp-kit.js')");
  });

  it('starts the built-in simulator only when no controller is configured (loaded on demand)', () => {
    const consoleGraph = staticGraph(MAIN);
    expect([...consoleGraph.files].filter((f) => f.startsWith('simulator/'))).toEqual([]);
    expect(readFileSync(MAIN, 'utf8')).toContain("import('./simulator/server.js')");
  });

  it('loads the controller client (got) with the first controller request, and the picture engines with the first picture', () => {
    const slackGraph = staticGraph(MAIN);
    for (const file of staticGraph(join(DIST, 'slack', 'slack-kit.js')).files) slackGraph.files.add(file);
    for (const pkg of staticGraph(join(DIST, 'slack', 'slack-kit.js')).packages) slackGraph.packages.add(pkg);

    expect(slackGraph.files).toContain('gateway/transport.js');
    expect(
      [...slackGraph.packages].filter(
        (p) => p === 'got' || p.startsWith('@hpcc-js/') || p.startsWith('@resvg/'),
      ),
    ).toEqual([]);
    expect(readFileSync(join(DIST, 'gateway', 'transport.js'), 'utf8')).toContain("import('got')");
  });
});
