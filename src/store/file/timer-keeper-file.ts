import * as nodeFs from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { TimerKeepers } from '../types.js';
import { processAlive } from './file-lock.js';

/** DATA_DIR/timer-keeper.json: the running bot that fires this data directory's deadlines. */
export const TIMER_KEEPER_FILE = 'timer-keeper.json';

const keeperSchema = z.object({
  holder: z.string(),
  pid: z.number().int(),
  host: z.string(),
  until: z.number(),
});

/**
 * The file store's timer keeper: the long-running bot writes who it is and until when; a console
 * on the same host believes it while its process is alive, one elsewhere until the time runs out.
 */
export class FileTimerKeepers implements TimerKeepers {
  private readonly path: string;

  constructor(
    dataDir: string,
    private readonly now: () => number = Date.now,
  ) {
    this.path = join(dataDir, TIMER_KEEPER_FILE);
  }

  async announce(holder: string, ttlMs: number): Promise<void> {
    const record = { holder, pid: process.pid, host: hostname(), until: this.now() + ttlMs };
    const temporary = `${this.path}.${process.pid}.tmp`;
    nodeFs.writeFileSync(temporary, `${JSON.stringify(record)}\n`);
    nodeFs.renameSync(temporary, this.path);
  }

  async withdraw(holder: string): Promise<void> {
    if (this.read()?.holder === holder) nodeFs.rmSync(this.path, { force: true });
  }

  async find(): Promise<string | undefined> {
    const keeper = this.read();
    if (!keeper) return undefined;
    const alive = keeper.host === hostname() ? processAlive(keeper.pid) : keeper.until > this.now();
    return alive ? keeper.holder : undefined;
  }

  private read(): z.output<typeof keeperSchema> | undefined {
    let text: string;
    try {
      text = nodeFs.readFileSync(this.path, 'utf8');
    } catch {
      return undefined;
    }
    try {
      const parsed = keeperSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }
}
