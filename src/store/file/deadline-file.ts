import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import {
  DEADLINE_KINDS,
  DEADLINE_STATES,
  type Deadline,
  type DeadlineFilter,
  type DeadlineStore,
  matchesDeadline,
  newDeadlineId,
  type ScheduleInput,
  soonestFirst,
} from '../deadlines.js';
import { type FileLockOptions, withFileLock } from './file-lock.js';

/** DATA_DIR/deadlines.json: every deadline, rewritten whole (through a temporary file) on each change. */
export const DEADLINES_FILE = 'deadlines.json';

const deadlineSchema = z.object({
  id: z.string().min(1),
  kind: z.enum(DEADLINE_KINDS),
  changeId: z.string().min(1),
  dueAt: z.iso.datetime(),
  createdAt: z.iso.datetime(),
  state: z.enum(DEADLINE_STATES),
  claimedBy: z.string().optional(),
  claimedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  finishedBy: z.string().optional(),
  note: z.string().optional(),
});
const fileSchema = z.object({ deadlines: z.array(deadlineSchema) });

export { newDeadlineId } from '../deadlines.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** How long a fired or kept deadline stays in the file before a compaction drops it [24 h]. */
export const KEEP_FINISHED_MS = 24 * 60 * 60 * 1000;

/** States a compaction drops once old: the deadline did its work (fired) or was kept (cancelled). */
const COMPACTED: ReadonlySet<string> = new Set(['fired', 'cancelled']);

/**
 * The deadlines worth keeping at `at`: all but those fired or kept more than `keepMs` ago. A failed
 * one stays (it is reported and never retried; the file is where it can still be looked up). The
 * retention outlives by far the notices a change sends when it succeeds, so a late notice still
 * finds its deadline and schedules nothing twice.
 */
export function compacted(all: readonly Deadline[], at: number, keepMs: number): Deadline[] {
  return all.filter(
    (d) => !(COMPACTED.has(d.state) && d.finishedAt !== undefined && Date.parse(d.finishedAt) < at - keepMs),
  );
}

/** Every deadline in a deadlines.json (none when the file does not exist); throws on a malformed file. */
export function readDeadlineFile(path: string): Deadline[] {
  let text: string;
  try {
    text = nodeFs.readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return fileSchema.parse(JSON.parse(text)).deadlines as Deadline[];
}

/**
 * Deadlines in DATA_DIR/deadlines.json. Every change reads the file, checks, and writes it back
 * (temporary file, fsync, rename) under a cross-process lock, so a claim is one atomic
 * check-and-write even with the bot and a console on one DATA_DIR; a crash leaves the old file or
 * the new one, never half of one.
 */
export class FileDeadlineStore implements DeadlineStore {
  private readonly path: string;

  private readonly keepFinishedMs: number;

  constructor(
    dataDir: string,
    private readonly lock: FileLockOptions = {},
    options: { keepFinishedMs?: number } = {},
  ) {
    this.path = join(dataDir, DEADLINES_FILE);
    this.keepFinishedMs = options.keepFinishedMs ?? KEEP_FINISHED_MS;
  }

  async schedule(input: ScheduleInput): Promise<Deadline> {
    return this.change((all) => {
      const existing = all.find((d) => d.changeId === input.changeId && d.kind === input.kind);
      if (existing) return { result: existing };
      const deadline: Deadline = {
        id: input.id ?? newDeadlineId(),
        kind: input.kind,
        changeId: input.changeId,
        dueAt: iso(input.dueAt),
        createdAt: iso(input.at),
        state: 'scheduled',
      };
      return { result: deadline, next: [...all, deadline] };
    });
  }

  async get(id: string): Promise<Deadline | undefined> {
    return this.read().find((d) => d.id === id);
  }

  async list(filter: DeadlineFilter = {}): Promise<Deadline[]> {
    return this.read()
      .filter((d) => matchesDeadline(d, filter))
      .sort(soonestFirst);
  }

  /**
   * Also compacts the file (every tick calls it): deadlines fired or kept long ago are dropped in
   * the same locked read-check-write, so no other process's change is lost to the rewrite.
   */
  async claimDue(at: number, by: string): Promise<Deadline[]> {
    return this.change((all) => {
      const claimed: Deadline[] = [];
      const kept = compacted(all, at, this.keepFinishedMs);
      const next = kept.map((d) => {
        if (d.state !== 'scheduled' || Date.parse(d.dueAt) > at) return d;
        const after: Deadline = { ...d, state: 'claimed', claimedBy: by, claimedAt: iso(at) };
        claimed.push(after);
        return after;
      });
      const changed = claimed.length > 0 || kept.length !== all.length;
      return changed ? { result: claimed.sort(soonestFirst), next } : { result: [] };
    });
  }

  /** Drops the deadlines fired or kept more than the retention before `at`; answers how many. */
  async compact(at: number): Promise<number> {
    return this.change((all) => {
      const kept = compacted(all, at, this.keepFinishedMs);
      return kept.length === all.length ? { result: 0 } : { result: all.length - kept.length, next: kept };
    });
  }

  async claim(id: string, at: number, by: string): Promise<Deadline | undefined> {
    return this.update(id, (d) =>
      d.state === 'scheduled' ? { ...d, state: 'claimed', claimedBy: by, claimedAt: iso(at) } : undefined,
    );
  }

  async cancel(id: string, at: number, by: string): Promise<Deadline | undefined> {
    return this.update(id, (d) =>
      d.state === 'scheduled' && at < Date.parse(d.dueAt)
        ? { ...d, state: 'cancelled', finishedAt: iso(at), finishedBy: by }
        : undefined,
    );
  }

  // Deliberately alike: the file and PostgreSQL deadline stores implement one DeadlineStore signature.
  async finish(
    id: string,
    outcome: 'fired' | 'failed',
    at: number,
    note?: string,
  ): Promise<Deadline | undefined> {
    return this.update(id, (d) =>
      d.state === 'claimed'
        ? {
            ...d,
            state: outcome,
            finishedAt: iso(at),
            ...(d.claimedBy !== undefined ? { finishedBy: d.claimedBy } : {}),
            ...(note !== undefined ? { note } : {}),
          }
        : undefined,
    );
  }

  /** One deadline changed by `step` (undefined: its guard did not hold, nothing changes). */
  private update(id: string, step: (d: Deadline) => Deadline | undefined): Promise<Deadline | undefined> {
    return this.change((all) => {
      const index = all.findIndex((d) => d.id === id);
      const found = all[index];
      const after = found ? step(found) : undefined;
      if (!after) return { result: undefined };
      const next = [...all];
      next[index] = after;
      return { result: after, next };
    });
  }

  /** Read, check and write back under the lock: of concurrent callers in any process, each sees the last write. */
  private async change<T>(step: (all: Deadline[]) => { result: T; next?: Deadline[] }): Promise<T> {
    return withFileLock(
      `${this.path}.lock`,
      () => {
        const { result, next } = step(this.read());
        if (next) this.write(next);
        return structuredClone(result);
      },
      this.lock,
    );
  }

  private read(): Deadline[] {
    return readDeadlineFile(this.path);
  }

  private write(deadlines: Deadline[]): void {
    nodeFs.mkdirSync(join(this.path, '..'), { recursive: true });
    const temporary = `${this.path}.${process.pid}.tmp`;
    const fd = nodeFs.openSync(temporary, 'w');
    try {
      nodeFs.writeFileSync(fd, `${JSON.stringify({ deadlines }, null, 1)}\n`);
      nodeFs.fsyncSync(fd);
    } finally {
      nodeFs.closeSync(fd);
    }
    nodeFs.renameSync(temporary, this.path);
  }
}
