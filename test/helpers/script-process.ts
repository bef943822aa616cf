import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { build } from 'esbuild';

/**
 * A TypeScript entry point run as a process of its own (a second process on a DATA_DIR:
 * test/helpers/journal-writer.ts, test/changes/deadline-writer.ts; or an entry point of src/ that a
 * unit test runs) bundled into one ES module with esbuild, once per worker and version, as dist/ is
 * built. Started with tsx each process took up to 2.5 s of CPU before its first line ran (Node 20
 * passes every module it imports through tsx's loader thread); bundled, it starts in a fraction of
 * that. The process runs the same src/ code either way.
 */
const bundles = new Map<string, Promise<string>>();

export function bundledScript(entry: string): Promise<string> {
  const path = resolve(entry);
  let bundle = bundles.get(path);
  if (!bundle) {
    // Beside node_modules: the packages left outside the bundle resolve as they do for src/. Named
    // by its content, so runs and workers share one file per version and nothing piles up.
    const cache = join(process.cwd(), 'node_modules', '.cache', 'netops-test-scripts');
    mkdirSync(cache, { recursive: true });
    bundle = build({
      entryPoints: [path],
      outfile: join(cache, 'bundle.mjs'),
      write: false,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'error',
    }).then(({ outputFiles }) => {
      const code = outputFiles[0]?.contents ?? new Uint8Array();
      const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
      const file = join(cache, `${basename(path, '.ts')}-${hash}.mjs`);
      if (!existsSync(file)) {
        // Written beside and renamed: a worker starting it never sees half a file.
        const partial = `${file}.${process.pid}.partial`;
        writeFileSync(partial, code);
        renameSync(partial, file);
      }
      return file;
    });
    bundles.set(path, bundle);
  }
  return bundle;
}

/** A running helper script started with `go` as its start argument (see the writers). */
export interface ScriptProcess {
  /** Resolves once the script said "ready" (it has opened its store and waits for the go). */
  ready: Promise<void>;
  /** Lets it start (a line on its stdin). */
  go(): void;
  /** Resolves with its stdout when it exits 0; rejects with its stderr otherwise. */
  done: Promise<string>;
}

/** Runs a bundled helper script in a process of its own with `args`. */
export async function runScript(entry: string, args: string[]): Promise<ScriptProcess> {
  const child = spawn(process.execPath, [await bundledScript(entry), ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolveReady) => {
    onReady = resolveReady;
  });
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (/^ready$/m.test(stdout)) onReady();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<string>((resolveDone, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolveDone(stdout);
      else reject(new Error(`${entry} ${args.join(' ')} exited ${String(code)}:\n${stderr}`));
    });
  });
  // A script that ends before it is ready fails `ready` rather than leaving the test waiting. Both
  // are marked handled here: a caller awaits `ready` only for a script it lets go, and its failure
  // still reaches the caller through whichever of the two it awaits.
  const readyOrEnded = Promise.race([
    ready,
    done.then(() => {
      throw new Error(`${entry} ended before it said ready`);
    }),
  ]);
  readyOrEnded.catch(() => undefined);
  done.catch(() => undefined);
  return { ready: readyOrEnded, go: () => child.stdin.end('go\n'), done };
}
