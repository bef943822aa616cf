/**
 * Reading /proc/<pid>/smaps for the idle-memory figure. Pure, so it is tested
 * (test/bench/smaps.test.ts); processes.ts reads the file.
 *
 * Why: the RSS of a Node process at idle jumps by 9–34 MiB at random from one start to the next, in
 * the bot and in the bare Bolt floor alike. The jump is memory that a thread's malloc arena holds
 * after start-up (glibc gives every thread that allocates its own arena; what a background thread
 * freed stays resident there): with MALLOC_ARENA_MAX=1 it is gone from the floor. Measured per
 * sample, it tells a start that drew the burst from one that did not.
 */

/** glibc's HEAP_MAX_SIZE on 64-bit Linux: a thread arena's heap is reserved whole, aligned to it. */
const ARENA_HEAP_BYTES = 64 * 1024 * 1024;

interface Mapping {
  start: bigint;
  end: bigint;
  perms: string;
  name: string;
  rssKiB: number;
}

/** The mappings of an smaps text, with their resident size. */
export function mappings(smaps: string): Mapping[] {
  const out: Mapping[] = [];
  for (const line of smaps.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      out.push({
        start: BigInt(`0x${head[1]}`),
        end: BigInt(`0x${head[2]}`),
        perms: head[3] ?? '',
        name: head[4] ?? '',
        rssKiB: 0,
      });
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    const last = out.at(-1);
    if (rss && last) last.rssKiB = Number(rss[1]);
  }
  return out;
}

/**
 * Resident KiB of the thread (non-main) malloc arenas: each heap of one is an anonymous 64 MiB
 * reservation aligned to 64 MiB, its used part read-write and the rest `---p` right after it (or
 * all of it read-write once full). V8's own reservations are not 64 MiB-aligned pairs of that size.
 */
export function threadArenaKiB(smaps: string): number {
  const maps = mappings(smaps);
  const size = BigInt(ARENA_HEAP_BYTES);
  let total = 0;
  for (const [i, m] of maps.entries()) {
    if (m.name !== '' || !m.perms.startsWith('rw') || m.start % size !== 0n) continue;
    const next = maps[i + 1];
    const reservedEnd =
      next && next.name === '' && next.perms.startsWith('---') && next.start === m.end ? next.end : m.end;
    if (reservedEnd - m.start === size) total += m.rssKiB;
  }
  return total;
}
