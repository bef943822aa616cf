import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileJournalFeed } from '../../src/store/file/journal-feed.js';
import { journalLines } from '../audit/journal-lines.js';

function journalFile(lineCount: number) {
  const path = join(mkdtempSync(join(tmpdir(), 'journal-feed-')), 'approvals.jsonl');
  const lines = journalLines(lineCount);
  writeFileSync(path, lines.map((l) => `${l.line}\n`).join(''));
  return { path, lines };
}

describe('the file journal read forward', () => {
  it('gives the exact lines after a position, a limit at a time', async () => {
    const { path, lines } = journalFile(5);
    const feed = new FileJournalFeed(path);
    expect(await feed.read(0, 2)).toEqual(lines.slice(0, 2));
    expect(await feed.read(2, 10)).toEqual(lines.slice(2));
    expect(await feed.read(5, 10)).toEqual([]);
  });

  it('leaves a line still being written for the next read, and reads from an earlier event again', async () => {
    const { path, lines } = journalFile(3);
    const more = journalLines(4)[3];
    const feed = new FileJournalFeed(path);
    expect(await feed.read(0, 10)).toHaveLength(3);
    const text = `${more?.line}\n`;
    appendFileSync(path, text.slice(0, 20));
    expect(await feed.read(3, 10)).toEqual([]);
    appendFileSync(path, text.slice(20));
    expect(await feed.read(3, 10)).toEqual([more]);
    expect(await feed.read(1, 2)).toEqual(lines.slice(1, 3));
  });

  it('reads nothing before the journal exists', async () => {
    const feed = new FileJournalFeed(join(mkdtempSync(join(tmpdir(), 'journal-feed-')), 'none.jsonl'));
    expect(await feed.read(0, 10)).toEqual([]);
  });
});
