import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isHourlySlot, type SamplePrune, type SampleStore, type StoredSample } from '../samples.js';

/** DATA_DIR/telemetry/: one JSON-lines file of samples per site. */
export const TELEMETRY_DIR = 'telemetry';

/**
 * Samples of one process in DATA_DIR/telemetry/<site>.jsonl, so a restarted bot keeps its windows.
 * Appended line by line; pruning rewrites the file through a temporary file and a rename. A torn
 * last line (a crash mid-append) is skipped when read.
 */
export class FileSampleStore implements SampleStore {
  constructor(private readonly dataDir: string) {}

  #path(site: string): string {
    return join(this.dataDir, TELEMETRY_DIR, `${encodeURIComponent(site)}.jsonl`);
  }

  async claim(): Promise<boolean> {
    return true;
  }

  async put(site: string, slot: number, at: number, payload: string): Promise<void> {
    mkdirSync(join(this.dataDir, TELEMETRY_DIR), { recursive: true });
    appendFileSync(this.#path(site), `${JSON.stringify({ slot, at, payload })}\n`);
  }

  async since(site: string, afterSlot: number): Promise<StoredSample[]> {
    return this.#read(site).filter((row) => row.slot > afterSlot);
  }

  async prune({ site, before, hourlyBefore, intervalMs }: SamplePrune): Promise<void> {
    const rows = this.#read(site);
    const kept = rows.filter(
      (row) => row.at >= before || (row.at >= hourlyBefore && isHourlySlot(row.slot, intervalMs)),
    );
    if (kept.length === rows.length) return;
    const path = this.#path(site);
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, kept.map((row) => `${JSON.stringify(row)}\n`).join(''));
    renameSync(temporary, path);
  }

  #read(site: string): StoredSample[] {
    let text: string;
    try {
      text = readFileSync(this.#path(site), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const rows: StoredSample[] = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        const row = JSON.parse(line) as StoredSample;
        if (typeof row.slot === 'number' && typeof row.at === 'number' && typeof row.payload === 'string')
          rows.push(row);
      } catch {
        // A torn last line: the sample it held is lost, the rest stand.
      }
    }
    return rows.sort((a, b) => a.slot - b.slot);
  }
}
