import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

/**
 * A helper script of the tests (a second process on a DATA_DIR: test/helpers/journal-writer.ts,
 * test/changes/deadline-writer.ts) bundled into one ES module with esbuild, once per test worker.
 * Started with `node --import tsx` each process took about 2.5 s of CPU before its first line ran
 * (Node 20 passes every module of src/ it imports through tsx's loader thread); bundled, it starts
 * in a fraction of that. The script runs the same src/ code either way.
 */
const bundles = new Map<string, Promise<string>>();

export function bundledScript(entry: string): Promise<string> {
  const path = resolve(entry);
  let bundle = bundles.get(path);
  if (!bundle) {
    // Beside node_modules: the packages left outside the bundle resolve as they do for src/.
    const cache = join(process.cwd(), 'node_modules', '.cache', 'netops-test-scripts');
    mkdirSync(cache, { recursive: true });
    const outfile = join(mkdtempSync(join(cache, 'bundle-')), 'script.mjs');
    bundle = build({
      entryPoints: [path],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'error',
    }).then(() => outfile);
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
