import { describe, expect, it } from 'vitest';
import { mappings, threadArenaKiB } from '../../bench/lib/smaps.js';

/** One smaps entry: header line and the Rss line (the other fields smaps prints are left out). */
const entry = (start: bigint, end: bigint, perms: string, rssKiB: number, name = '') =>
  `${start.toString(16)}-${end.toString(16)} ${perms} 00000000 00:00 0 ${name}\nSize: ${(end - start) / 1024n} kB\nRss: ${rssKiB} kB\n`;

const MiB = 1024n * 1024n;
const arenaBase = 0x7f3a_2c00_0000n; // 64 MiB-aligned, as glibc places a thread arena's heap

describe('threadArenaKiB (the idle RSS burst is a thread malloc arena)', () => {
  it('counts the resident part of a 64 MiB-aligned heap followed by its reserved rest', () => {
    const text =
      entry(arenaBase, arenaBase + 36n * MiB, 'rw-p', 10_420) +
      entry(arenaBase + 36n * MiB, arenaBase + 64n * MiB, '---p', 0);
    expect(threadArenaKiB(text)).toBe(10_420);
  });

  it('counts a heap grown to its whole 64 MiB, and adds up several arenas', () => {
    const second = arenaBase + 128n * MiB;
    const text =
      entry(arenaBase, arenaBase + 64n * MiB, 'rw-p', 2_000) +
      entry(second, second + 1n * MiB, 'rw-p', 900) +
      entry(second + 1n * MiB, second + 64n * MiB, '---p', 0);
    expect(threadArenaKiB(text)).toBe(2_900);
  });

  it("leaves out V8's reservations, the main heap, files, and mappings not aligned to 64 MiB", () => {
    const v8 = 0x3_4000_0000n; // 64 MiB-aligned too, but its reservation is not 64 MiB
    const text =
      entry(v8, v8 + 36n * MiB, 'rw-p', 10_000) +
      entry(v8 + 36n * MiB, v8 + 128n * MiB, '---p', 0) +
      entry(0x5555_0000_0000n, 0x5555_0080_0000n, 'rw-p', 8_000, '[heap]') +
      entry(arenaBase, arenaBase + 64n * MiB, 'r--p', 5_000, '/usr/bin/node') +
      entry(arenaBase + 64n * MiB + 4096n, arenaBase + 128n * MiB + 4096n, 'rw-p', 7_000);
    expect(threadArenaKiB(text)).toBe(0);
  });

  it('reads every mapping with its resident size', () => {
    const text =
      entry(arenaBase, arenaBase + 4096n, 'rw-p', 4) +
      entry(arenaBase + 4096n, arenaBase + 8192n, 'r-xp', 8, '/lib/x.so');
    expect(mappings(text).map((m) => [m.perms, m.name, m.rssKiB])).toEqual([
      ['rw-p', '', 4],
      ['r-xp', '/lib/x.so', 8],
    ]);
  });
});
