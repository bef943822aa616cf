import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/bot-process.js';

// dist/ is esbuild's bundle (scripts/bundle.mjs); its metafile says which sources and packages went
// into which output file, and which outputs each one imports statically or on demand.
interface Output {
  entryPoint?: string;
  inputs: Record<string, unknown>;
  imports: { path: string; kind: string; external?: boolean }[];
}
const meta = JSON.parse(readFileSync(join(ROOT, 'dist', '.bundle-meta.json'), 'utf8')) as {
  outputs: Record<string, Output>;
};

function outputOf(entryPoint: string): string {
  const found = Object.entries(meta.outputs).find(([, output]) => output.entryPoint === entryPoint);
  if (!found) throw new Error(`no output has the entry point ${entryPoint}`);
  return found[0];
}

/** What Node loads before any code runs when it starts `output`: the sources and external packages. */
function staticGraph(...starts: string[]): { inputs: string[]; externals: string[] } {
  const seen = new Set<string>();
  const externals = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const imported of meta.outputs[path]?.imports ?? []) {
      if (imported.kind !== 'import-statement') continue;
      if (imported.external) externals.add(imported.path);
      else visit(imported.path);
    }
  };
  for (const start of starts) visit(start);
  const inputs = [...seen].flatMap((path) => Object.keys(meta.outputs[path]?.inputs ?? {}));
  return { inputs, externals: [...externals] };
}

/** The outputs `output` imports with import(), by their entry point. */
function onDemand(output: string): (string | undefined)[] {
  return (meta.outputs[output]?.imports ?? [])
    .filter((imported) => imported.kind === 'dynamic-import')
    .map((imported) => meta.outputs[imported.path]?.entryPoint);
}

const MAIN = 'dist/main.js';
const fromPackage = (inputs: string[], name: string) =>
  inputs.filter((i) => i.startsWith(`node_modules/${name}`));
const fromSource = (inputs: string[], folder: string) => inputs.filter((i) => i.startsWith(`src/${folder}/`));

describe('what `node dist/main.js` loads before it runs (start-up cost of a console one-shot)', () => {
  it('is the bundle the metafile describes: every output it names is in dist/', () => {
    expect(Object.keys(meta.outputs)).toContain(MAIN);
    for (const output of Object.keys(meta.outputs)) expect(existsSync(join(ROOT, output)), output).toBe(true);
  });

  it("loads Slack's SDK only for the Slack bot: the console's static graph has no @slack/bolt", () => {
    const consoleGraph = staticGraph(MAIN);
    expect(consoleGraph.inputs).toContain('src/app.ts');
    expect(consoleGraph.inputs).toContain('src/console/index.ts');
    expect(fromPackage(consoleGraph.inputs, 'zod/').length).toBeGreaterThan(0);
    expect(fromPackage(consoleGraph.inputs, '@slack/')).toEqual([]);
    expect(fromSource(consoleGraph.inputs, 'slack')).toEqual([]);

    const slackKit = outputOf('src/slack/slack-kit.ts');
    expect(fromPackage(staticGraph(slackKit).inputs, '@slack/bolt/').length).toBeGreaterThan(0);
    expect(onDemand(MAIN)).toContain('src/slack/slack-kit.ts');
  });

  it('loads the MCP SDK only for `netops mcp` and a bot with MCP_TOKEN, never for the console or Slack', () => {
    const consoleGraph = staticGraph(MAIN);
    expect(fromPackage(consoleGraph.inputs, '@modelcontextprotocol/')).toEqual([]);
    expect(fromSource(consoleGraph.inputs, 'mcp')).toEqual([]);
    expect(
      fromPackage(staticGraph(outputOf('src/slack/slack-kit.ts')).inputs, '@modelcontextprotocol/'),
    ).toEqual([]);
    expect(
      fromPackage(staticGraph(outputOf('src/mcp/mcp-kit.ts')).inputs, '@modelcontextprotocol/sdk/').length,
    ).toBeGreaterThan(0);
    expect(onDemand(MAIN)).toContain('src/mcp/mcp-kit.ts');
  });

  it('starts the built-in simulator, and PostgreSQL, only when asked for (loaded on demand)', () => {
    const consoleGraph = staticGraph(MAIN);
    expect(fromSource(consoleGraph.inputs, 'simulator')).toEqual([]);
    expect(onDemand(MAIN)).toContain('src/simulator/server.ts');
    expect(fromPackage(consoleGraph.inputs, 'pg/')).toEqual([]);
    expect(fromSource(consoleGraph.inputs, 'store/postgres')).toEqual([]);
  });

  it('loads the controller client (got) with the first controller request, and the picture engines with the first picture', () => {
    const slackGraph = staticGraph(MAIN, outputOf('src/slack/slack-kit.ts'));
    expect(slackGraph.inputs).toContain('src/gateway/transport.ts');
    expect(fromPackage(slackGraph.inputs, 'got/')).toEqual([]);
    expect(slackGraph.externals.filter((p) => p.startsWith('@hpcc-js/') || p.startsWith('@resvg/'))).toEqual(
      [],
    );
    const transport = Object.entries(meta.outputs).find(
      ([, o]) => 'src/gateway/transport.ts' in o.inputs,
    )?.[0];
    expect(onDemand(transport ?? '')).toContain('node_modules/got/dist/source/index.js');
  });

  it('is ASCII in every output, so V8 keeps each module source as a one-byte string', () => {
    const outputs = Object.keys(meta.outputs).filter((output) => output.endsWith('.js'));
    expect(outputs).toContain(MAIN);
    const nonAscii = outputs.filter((output) => readFileSync(join(ROOT, output)).some((byte) => byte > 0x7f));
    expect(nonAscii).toEqual([]);
  });

  it('loads the policy file parser (YAML and the CEL compiler) only when POLICY_FILE is set', () => {
    const slackGraph = staticGraph(MAIN, outputOf('src/slack/slack-kit.ts'));
    expect(slackGraph.inputs).toContain('src/policy/evaluate.ts');
    expect(fromPackage(slackGraph.inputs, 'yaml/')).toEqual([]);
    expect(fromPackage(slackGraph.inputs, '@bufbuild/')).toEqual([]);
    expect(slackGraph.inputs.filter((i) => i === 'src/policy/parse.ts' || i === 'src/policy/cel.ts')).toEqual(
      [],
    );
    expect(onDemand(MAIN)).toContain('src/policy/parse.ts');
  });

  it('makes no Intl object when a module loads, in our code or a bundled package (idle memory)', () => {
    // The first Intl object of a process maps ICU's code and data (2.7-4.7 MiB of resident pages);
    // esbuild turns a module's top-level const into `var`, so `var x = new Intl.` is one made at load.
    const outputs = Object.keys(meta.outputs).filter((output) => output.endsWith('.js'));
    const atLoad = outputs.flatMap((output) =>
      [...readFileSync(join(ROOT, output), 'utf8').matchAll(/\bvar\s+[\w$]+\s*=\s*new\s+Intl\.\w+/g)].map(
        (m) => `${output}: ${m[0]}`,
      ),
    );
    expect(atLoad).toEqual([]);
    // got's type checker keeps its two ListFormats, made on first use (scripts/bundle.mjs).
    const got = Object.entries(meta.outputs).find(
      ([, o]) => 'node_modules/got/dist/source/index.js' in o.inputs,
    );
    expect(readFileSync(join(ROOT, got?.[0] ?? MAIN), 'utf8')).toContain(
      'andFormatterMade??=new Intl.ListFormat(',
    );
  });

  it('makes no TLS secure context for a controller and a console on plain HTTP (idle memory)', () => {
    // http2-wrapper (got's HTTP/2 support) made a TLS socket when its module loaded, and with it a
    // secure context holding the root certificates: 3.5 MiB and 12 ms for a bot that never asks for
    // TLS. The built console against its built-in simulator loads got as every bot's warm-up does.
    const dir = mkdtempSync(join(tmpdir(), 'netops-tls-'));
    try {
      const hook = join(dir, 'count-tls.cjs');
      writeFileSync(
        hook,
        `const tls = require('node:tls');
let made = 0;
const original = tls.createSecureContext;
tls.createSecureContext = function (...args) { made += 1; return original.apply(this, args); };
process.on('exit', () => process.stderr.write('secure contexts made: ' + made + '\\n'));
`,
      );
      const run = spawnSync(process.execPath, [MAIN, 'list_vlans'], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 60_000,
        env: { PATH: process.env.PATH ?? '', DATA_DIR: join(dir, 'data'), NODE_OPTIONS: `--require ${hook}` },
      });
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/\(\d+ rows\)/);
      expect(run.stderr).toContain('secure contexts made: 0');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const got = Object.entries(meta.outputs).find(
      ([, o]) => 'node_modules/http2-wrapper/source/index.js' in o.inputs,
    );
    expect(readFileSync(join(ROOT, got?.[0] ?? MAIN), 'utf8')).toContain('JSStreamSocketClass??=');
  });

  it('is built without indentation or comments, so V8 keeps less module source (idle memory)', () => {
    const main = readFileSync(join(ROOT, MAIN), 'utf8');
    // A line ends only where a template literal holds one (13,766 lines before, 21 after).
    expect(main.split('\n').length).toBeLessThan(100);
  });

  it("reads bundled packages' data files from node_modules, where each resolves from its output (idle memory)", () => {
    const data = Object.entries(meta.outputs).flatMap(([output, o]) =>
      o.imports.filter((i) => i.external && i.path.endsWith('.json')).map((i) => ({ output, path: i.path })),
    );
    expect(data.map((d) => d.path)).toEqual(
      expect.arrayContaining(['mime-db/db.json', 'iconv-lite/encodings/tables/cp936.json']),
    );
    for (const { output, path } of data) {
      const table = createRequire(join(ROOT, output))(path) as unknown;
      expect(typeof table, `${path} from ${output}`).toBe('object');
    }
    const slackKit = outputOf('src/slack/slack-kit.ts');
    expect(
      Object.keys(meta.outputs[slackKit]?.inputs ?? {}).filter((i) => i.endsWith('.json')),
    ).not.toContain('node_modules/mime-db/db.json');
  });
});
