import * as nodeFs from 'node:fs';
import { dirname } from 'node:path';

/* The journal file's own operations: open for append, move a torn tail aside, sync a directory. */

/** Why the journal cannot be written at the moment, after a failed append. */
export interface JournalWriteFailure {
  at: string;
  /** The system's error code (ENOSPC, EROFS, EIO…), or `short_write`. */
  code: string;
  message: string;
}

// What a file system that takes no writes answers (EACCES/EPERM also for an immutable file, as root).
const READ_ONLY_CODES = new Set(['EROFS', 'EACCES', 'EPERM']);

export function mkdirFor(path: string): void {
  try {
    nodeFs.mkdirSync(dirname(path), { recursive: true });
  } catch {
    // A read-only DATA_DIR: opening for append says so below.
  }
}

/** Opens the journal for appending, or says why a read-only file system refused it. */
export function openForAppend(path: string): { fd: number } | { failure: Omit<JournalWriteFailure, 'at'> } {
  try {
    nodeFs.mkdirSync(dirname(path), { recursive: true });
    return { fd: nodeFs.openSync(path, 'a') };
  } catch (error) {
    const code = String((error as NodeJS.ErrnoException).code ?? '');
    if (!READ_ONLY_CODES.has(code)) throw error;
    return { failure: { code, message: error instanceof Error ? error.message : String(error) } };
  }
}

export function describeCode(code: string): string {
  const known: Record<string, string> = {
    ENOSPC: 'the disk is full',
    EDQUOT: 'the disk quota is used up',
    EROFS: 'the file system is read-only',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EIO: 'an input/output error',
    EFBIG: 'the file is too large',
    short_write: 'the disk took only part of the line',
  };
  return known[code] ? `${known[code]}, ${code}` : code;
}

/**
 * Moves a torn last line to `approvals.jsonl.torn-<time>` (written and fsynced first, so a crash
 * in between leaves it in both places, never in neither), then cuts the journal back to `good` bytes.
 */
export function moveAside(path: string, fd: number, torn: string, good: number): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  let target = `${path}.torn-${stamp}`;
  for (let n = 2; nodeFs.existsSync(target); n++) target = `${path}.torn-${stamp}-${n}`;
  const out = nodeFs.openSync(target, 'wx');
  try {
    nodeFs.writeFileSync(out, torn);
    nodeFs.fsyncSync(out);
  } finally {
    nodeFs.closeSync(out);
  }
  nodeFs.ftruncateSync(fd, good);
  nodeFs.fsyncSync(fd);
  return target;
}

/** Makes a newly created file's directory entry durable; not every platform allows it. */
export function syncDirectory(path: string): void {
  let fd: number | undefined;
  try {
    fd = nodeFs.openSync(path, 'r');
    nodeFs.fsyncSync(fd);
  } catch {
    // Best effort: the data itself is fsynced with each append.
  } finally {
    if (fd !== undefined) nodeFs.closeSync(fd);
  }
}
