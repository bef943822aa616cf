import { chainEvent, GENESIS_HASH, type JournalEntry } from '../../src/store/journal-format.js';
import type { JournalLine } from '../../src/store/types.js';

/** A chain of `count` journal lines as the store writes them: cancellations by Alice, or the entries given. */
export function journalLines(count: number, entryAt?: (seq: number) => JournalEntry): JournalLine[] {
  const lines: JournalLine[] = [];
  let prev = GENESIS_HASH;
  for (let seq = 1; seq <= count; seq++) {
    const entry = entryAt?.(seq) ?? {
      type: 'cancelled',
      id: `c${seq}`,
      actor: { userId: 'U0ALICE', name: 'alice' },
    };
    const { line, hash } = chainEvent(entry, {
      seq,
      at: new Date(Date.UTC(2026, 11, 7, 9, 0, seq)).toISOString(),
      prev,
    });
    lines.push({ seq, line });
    prev = hash;
  }
  return lines;
}
