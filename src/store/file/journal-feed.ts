import { closeSync, openSync, readSync } from 'node:fs';
import type { JournalFeed, JournalLine } from '../types.js';

const CHUNK = 1 << 20;

/**
 * The file journal read forward from a byte offset. It remembers where the last read ended, so
 * following the chain costs the new lines only; a read from an earlier event (a replay) starts
 * again from the top. A line still being written (no newline yet) is left for the next read.
 */
export class FileJournalFeed implements JournalFeed {
  private known = { seq: 0, offset: 0 };

  constructor(private readonly path: string) {}

  async read(afterSeq: number, limit: number): Promise<JournalLine[]> {
    if (afterSeq < this.known.seq) this.known = { seq: 0, offset: 0 };
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    try {
      return this.readFrom(fd, afterSeq, limit);
    } finally {
      closeSync(fd);
    }
  }

  private readFrom(fd: number, afterSeq: number, limit: number): JournalLine[] {
    const out: JournalLine[] = [];
    let { offset, seq } = this.known;
    let carry = Buffer.alloc(0);
    const buffer = Buffer.alloc(CHUNK);
    while (out.length < limit) {
      const read = readSync(fd, buffer, 0, CHUNK, offset + carry.length);
      if (read === 0) break;
      const data = Buffer.concat([carry, buffer.subarray(0, read)]);
      let start = 0;
      for (
        let end = data.indexOf(10, start);
        end !== -1 && out.length < limit;
        end = data.indexOf(10, start)
      ) {
        const line = data.subarray(start, end).toString('utf8');
        start = end + 1;
        if (line.trim() === '') continue;
        seq += 1;
        if (seq > afterSeq) out.push({ seq: lineSeq(line, seq), line });
        this.known = { seq, offset: offset + start };
      }
      offset += start;
      carry = Buffer.from(data.subarray(start));
    }
    return out;
  }
}

/** The `seq` a line says it has; the count of lines before it where it says none (a torn line). */
function lineSeq(line: string, counted: number): number {
  const found = /"seq":(\d+)/.exec(line);
  return found ? Number(found[1]) : counted;
}
