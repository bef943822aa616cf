import * as fs from 'node:fs';
import type { JournalFs } from '../../src/store/file/journal.js';

/**
 * The real file operations, with faults on demand: `enospcAfter` bytes of the next write reach
 * the file before ENOSPC (what a filling disk does), `short` makes the next write stop halfway and
 * say so, `fsync` and `truncate` fail once. `skipWrites` lets that many writes through before a
 * write fault applies (to hit the third append of an approval, say). `readOnly` holds until
 * cleared: every write and truncate fails with EROFS, as on a file system remounted read-only.
 */
export function faultyFs() {
  const faults: {
    enospcAfter?: number;
    short?: boolean;
    fsync?: boolean;
    truncate?: boolean;
    skipWrites?: number;
    readOnly?: boolean;
    /** Lets this many writes through, then every write fails with ENOSPC until cleared (a disk that stays full). */
    fullAfterWrites?: number;
  } = {};
  const calls = { writes: 0, truncates: 0 };
  const readOnly = (call: string) =>
    Object.assign(new Error(`EROFS: read-only file system, ${call}`), { code: 'EROFS' });
  const skipped = () => {
    if (!faults.skipWrites) return false;
    faults.skipWrites -= 1;
    return true;
  };
  const seam: JournalFs = {
    writeSync(fd, buffer, offset, length) {
      calls.writes += 1;
      if (faults.readOnly) throw readOnly('write');
      if (faults.fullAfterWrites !== undefined) {
        if (faults.fullAfterWrites === 0) {
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        }
        faults.fullAfterWrites -= 1;
      }
      if ((faults.enospcAfter !== undefined || faults.short) && skipped())
        return fs.writeSync(fd, buffer, offset, length);
      if (faults.enospcAfter !== undefined) {
        fs.writeSync(fd, buffer, offset, Math.min(faults.enospcAfter, length));
        faults.enospcAfter = undefined;
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      }
      if (faults.short) {
        faults.short = false;
        return fs.writeSync(fd, buffer, offset, Math.floor(length / 2));
      }
      return fs.writeSync(fd, buffer, offset, length);
    },
    fsyncSync(fd) {
      if (faults.fsync) {
        faults.fsync = false;
        throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
      }
      fs.fsyncSync(fd);
    },
    ftruncateSync(fd, length) {
      calls.truncates += 1;
      if (faults.readOnly) throw readOnly('ftruncate');
      if (faults.truncate) {
        faults.truncate = false;
        throw Object.assign(new Error('EIO: i/o error, ftruncate'), { code: 'EIO' });
      }
      fs.ftruncateSync(fd, length);
    },
  };
  return { seam, faults, calls };
}
