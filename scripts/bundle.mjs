#!/usr/bin/env node
/**
 * `node scripts/bundle.mjs`: builds dist/ from src/ with esbuild. One file per entry
 * point (the program, the two store tools, the chart thread, the simulator as a module), plus chunks under dist/chunks/ for
 * what the program imports on demand (the Slack kit, the MCP kit, the simulator, PostgreSQL, the
 * picture engines), so a console one-shot loads neither Slack's SDK nor the MCP SDK. Type checking
 * stays with tsc (`npm run typecheck`); esbuild only strips types. No source maps: the image ships
 * no sources for them to point at.
 *
 * Packages stay outside the bundle only where they read their own files at run time (WebAssembly,
 * fonts) or are optional native add-ons; the runtime image keeps the production node_modules for them.
 * dist/.bundle-meta.json is esbuild's metafile: which sources went into which output (the start-up
 * test reads it; the Dockerfile leaves it out of the image).
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

let esbuild;
try {
  esbuild = createRequire(join(root, 'package.json'))('esbuild');
} catch {
  process.stderr.write('netops: dist/ must be built but esbuild is not installed: run npm ci\n');
  process.exit(1);
}

// simulator/index: the controller simulator as a module, for stand-ins beside the image
// (`npm run test:image` starts one from /app/dist/simulator/index.js).
const ENTRIES = ['main', 'store/verify-cli', 'store/import-cli', 'topology/chart-worker', 'simulator/index'];

/** Read their own files (.wasm, .ttf) next to their code, or are optional native add-ons. */
const EXTERNAL = [
  '@resvg/resvg-wasm',
  '@hpcc-js/wasm-graphviz',
  'dejavu-fonts-ttf',
  'vega',
  'vega-lite',
  'pg-native',
];

// Idle memory: costly objects that bundled packages make when their module loads, made on
// first use instead (the same objects, the same behaviour). Every bot loads got with its controller
// warm-up, so an idle bot paid for them:
// - Intl objects: the first of a process maps ICU's code and data from the node binary, 4.7 MiB of
//   resident pages for a ListFormat, and got's type checker (@sindresorhus/is) makes two at load,
//   for the wording of its assertion errors only;
// - a TLS socket: http2-wrapper (got's HTTP/2 support, which the bot never asks for) makes one at
//   load to find Node's JSStreamSocket class, and with it a TLS secure context holding the root
//   certificates: 3.5 MiB and 12 ms, even for a bot whose controller and Slack are plain HTTP.
// The text must be found as written: a release of the package that changes it fails the build
// here, to be looked at again.
const LAZY_AT_LOAD = [
  {
    file: /[\\/]node_modules[\\/]@sindresorhus[\\/]is[\\/]distribution[\\/]index\.js$/,
    from: [
      "const andFormatter = new Intl.ListFormat('en', { style: 'long', type: 'conjunction' });",
      "const orFormatter = new Intl.ListFormat('en', { style: 'long', type: 'disjunction' });",
    ].join('\n'),
    to: [
      'let andFormatterMade, orFormatterMade;',
      "const andFormatter = { format: (list) => (andFormatterMade ??= new Intl.ListFormat('en', { style: 'long', type: 'conjunction' })).format(list) };",
      "const orFormatter = { format: (list) => (orFormatterMade ??= new Intl.ListFormat('en', { style: 'long', type: 'disjunction' })).format(list) };",
    ].join('\n'),
  },
  {
    file: /[\\/]node_modules[\\/]http2-wrapper[\\/]source[\\/]utils[\\/]js-stream-socket\.js$/,
    from: [
      'const JSStreamSocket = (new tls.TLSSocket(new stream.PassThrough()))._handle._parentWrap.constructor;',
      '',
      'module.exports = JSStreamSocket;',
    ].join('\n'),
    to: [
      'let JSStreamSocketClass;',
      '// Called with `new` only (h1-over-h2.js, h2-over-hx.js): the object made is what `new` gives.',
      'module.exports = function JSStreamSocket(wrapped) {',
      '\tJSStreamSocketClass ??= (new tls.TLSSocket(new stream.PassThrough()))._handle._parentWrap.constructor;',
      '\treturn new JSStreamSocketClass(wrapped);',
      '};',
    ].join('\n'),
  },
];
const lazyAtLoad = {
  name: 'netops-lazy-at-load',
  setup(build) {
    for (const { file, from, to } of LAZY_AT_LOAD) {
      build.onLoad({ filter: file }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes(from)) {
          return {
            errors: [{ text: `${args.path} no longer holds what scripts/bundle.mjs makes on first use` }],
          };
        }
        return { contents: text.replace(from, to), loader: 'js' };
      });
    }
  },
};

// Idle memory: data files of bundled packages read from node_modules at run time instead
// of being copied into the Slack kit as JavaScript. V8 keeps a module's source text for the life of
// the process, so a JSON table inside the bundle costs its text and its objects; required from
// node_modules it costs its objects only, when it is loaded (as in the bare Bolt app). iconv-lite's
// CJK tables (400 KB; loaded only to decode a body in such a charset) and mime-db (150 KB). The
// runtime image keeps the production node_modules (Dockerfile), and neither package restricts its
// subpaths (`exports`); test/process/startup-cost.test.ts resolves each one from dist/chunks/.
const PACKAGE_DATA = [
  { importer: /[\\/]node_modules[\\/]iconv-lite[\\/]encodings[\\/][^\\/]+$/, dir: 'iconv-lite/encodings/' },
  { importer: /[\\/]node_modules[\\/]mime-db[\\/]index\.js$/, dir: 'mime-db/' },
];
const packageData = {
  name: 'netops-package-data',
  setup(build) {
    build.onResolve({ filter: /^\.\/(tables\/)?[\w-]+\.json$/ }, (args) => {
      const data = PACKAGE_DATA.find(({ importer }) => importer.test(args.importer));
      return data ? { path: `${data.dir}${args.path.slice(2)}`, external: true } : undefined;
    });
  },
};

// Built beside dist/ and swapped in at the end: a program started from dist/ meanwhile (a test, a
// second `npm start`) never finds it half-written or gone.
const dist = join(root, 'dist');
const nextName = `.dist-next-${process.pid}`;
const next = join(root, nextName);
const old = join(root, `.dist-old-${process.pid}`);
rmSync(next, { recursive: true, force: true });
const result = await esbuild
  .build({
    absWorkingDir: root,
    entryPoints: ENTRIES.map((name) => ({ in: `src/${name}.ts`, out: name })),
    outdir: next,
    entryNames: '[dir]/[name]',
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    // Bundled CommonJS packages (Bolt, pg, pino) call require() for Node's own modules.
    banner: {
      js: "import { createRequire as __netopsRequire } from 'node:module'; const require = __netopsRequire(import.meta.url);",
    },
    metafile: true,
    plugins: [lazyAtLoad, packageData],
    legalComments: 'none',
    // Idle memory: V8 keeps every module's source text for the life of the process (lazy
    // compilation), and parses it whole at start. Without indentation and comments the sources are
    // 2.3 MB smaller and the bot about 3.5 MiB lighter at idle. Names are not minified, so a stack
    // trace still names every function (`at listVlans (file:///app/dist/main.js:3:51234)`); only the
    // line numbers are gone (a line ends only where a template literal holds one).
    minifyWhitespace: true,
    logLevel: 'warning',
  })
  .catch(() => {
    rmSync(next, { recursive: true, force: true });
    process.exit(2);
  });

// Every output in ASCII. esbuild escapes non-ASCII characters in code (its default
// charset) but keeps comments as written, and one em dash in a comment makes V8 hold the whole
// module source as a two-byte string for the life of the process: the 3 MB Slack kit cost 6 MB of
// heap instead of 3. What is left is in comments, where a \uXXXX escape changes nothing (and
// where it is code, a \uXXXX escape means the same character in strings, regexes and names).
for (const entry of readdirSync(next, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
  const file = join(entry.parentPath ?? entry.path, entry.name);
  const text = readFileSync(file, 'utf8');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range, on purpose.
  const ascii = text.replace(/[^\x00-\x7F]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (ascii !== text) writeFileSync(file, ascii);
}

// The metafile names outputs by where they will be, not by the build's own folder.
const named = JSON.stringify(result.metafile).replaceAll(`${nextName}/`, 'dist/');
writeFileSync(join(next, '.bundle-meta.json'), `${named}\n`);
if (existsSync(dist)) renameSync(dist, old);
renameSync(next, dist);
rmSync(old, { recursive: true, force: true });
