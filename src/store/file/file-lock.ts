import * as nodeFs from 'node:fs';
import { hostname } from 'node:os';
import { StoreUnavailableError } from '../../errors.js';

/**
 * A cross-process exclusive lock on a file in DATA_DIR, held only for the few synchronous
 * milliseconds of a check-and-append: `<path>` is created with O_EXCL and holds
 * `<pid> <host> <time>` of its holder. A lock whose holder is a dead process on this host (or, on
 * another host, older than `staleMs`) is broken; breaking takes a second O_EXCL file first, so two
 * processes never both break one lock and then both hold it.
 *
 * It is synchronous on purpose: the file change store checks a guard, appends and applies in one
 * synchronous step, so nothing in this process interleaves, and the lock extends that to the other
 * processes on the same DATA_DIR (the bot and a console run beside it).
 */
export interface FileLockOptions {
  /** How long to wait for a live holder before giving up with StoreUnavailableError [15 s]. */
  timeoutMs?: number;
  /** A lock from another host (its pid cannot be checked) older than this is broken [30 s]. */
  staleMs?: number;
}

const HOST = hostname();
// Re-entrant within one process: a step that holds the lock may call another that takes it.
const held = new Map<string, number>();
const sleeper = new Int32Array(new SharedArrayBuffer(4));

function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/** Whether a process with this pid runs on this host (EPERM: it runs, under another user). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface Holder {
  pid: number;
  host: string;
  at: number;
  text: string;
  /** When the lock file was last written (its creation, for one never written). */
  mtimeMs: number;
}

/**
 * An empty lock file is one being written: a live holder fills it in the same synchronous step that
 * created it. One still empty after this long was left by a process killed between the two.
 */
const EMPTY_GRACE_MS = 2_000;

function readHolder(path: string): Holder | undefined {
  let text: string;
  let mtimeMs: number;
  try {
    text = nodeFs.readFileSync(path, 'utf8');
    mtimeMs = nodeFs.statSync(path).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const [pid = '', host = '', at = ''] = text.trim().split(' ');
  return { pid: Number(pid), host, at: Number(at), text, mtimeMs };
}

function isStale(holder: Holder, staleMs: number, now: number): boolean {
  // A lock file still being written (empty) by a live process is not stale; give it a moment. One
  // left empty by a process killed mid-write would otherwise lock DATA_DIR for good.
  if (holder.text === '') return now - holder.mtimeMs > EMPTY_GRACE_MS;
  if (holder.host === HOST) return !processAlive(holder.pid);
  return !(now - holder.at < staleMs);
}

/** Removes a stale lock unless someone else is already breaking it or it changed meanwhile. */
function breakStale(path: string, holder: Holder): void {
  const breaker = `${path}.break`;
  let fd: number;
  try {
    fd = nodeFs.openSync(breaker, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // A breaker that died mid-break leaves this file: after a few seconds it is itself stale.
    const stat = nodeFs.statSync(breaker, { throwIfNoEntry: false });
    if (stat && Date.now() - stat.mtimeMs > 5_000) nodeFs.rmSync(breaker, { force: true });
    return;
  }
  try {
    if (readHolder(path)?.text === holder.text) nodeFs.rmSync(path, { force: true });
  } finally {
    nodeFs.closeSync(fd);
    nodeFs.rmSync(breaker, { force: true });
  }
}

// A file system that takes no writes: nobody can append, so there is nothing to exclude.
const READ_ONLY_CODES = new Set(['EROFS', 'EACCES', 'EPERM']);

/** Takes the lock; false when the file system is read-only (no lock needed, none taken). */
function acquire(path: string, options: FileLockOptions): boolean {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const staleMs = options.staleMs ?? 30_000;
  const started = Date.now();
  let wait = 1;
  for (;;) {
    try {
      const fd = nodeFs.openSync(path, 'wx');
      try {
        nodeFs.writeSync(fd, `${process.pid} ${HOST} ${Date.now()}\n`);
      } finally {
        nodeFs.closeSync(fd);
      }
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (READ_ONLY_CODES.has(code)) return false;
      if (code !== 'EEXIST') throw error;
    }
    const holder = readHolder(path);
    if (holder && isStale(holder, staleMs, Date.now())) {
      breakStale(path, holder);
      continue;
    }
    if (Date.now() - started > timeoutMs) {
      throw new StoreUnavailableError(
        `the store in DATA_DIR is locked by process ${holder?.pid ?? 'unknown'} on ${holder?.host ?? 'this host'} for more than ${Math.round(timeoutMs / 1000)} s, so nothing was recorded`,
      );
    }
    sleepSync(wait);
    wait = Math.min(wait * 2, 20);
  }
}

/** Runs `fn` while holding the lock file `path` (created beside the file it guards). */
export function withFileLock<T>(path: string, fn: () => T, options: FileLockOptions = {}): T {
  const depth = held.get(path) ?? 0;
  if (depth === 0 && !acquire(path, options)) return fn();
  held.set(path, depth + 1);
  try {
    return fn();
  } finally {
    const left = (held.get(path) ?? 1) - 1;
    if (left === 0) {
      held.delete(path);
      nodeFs.rmSync(path, { force: true });
    } else {
      held.set(path, left);
    }
  }
}
