import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal, JournalKeyError, journalReport, verifyJournal } from '../../src/store/file/journal.js';
import { chainEvent } from '../../src/store/journal-format.js';
import { ALEX, RITA, tempDataDir } from '../approvals/harness.js';
import { sampleRequest } from './contract.js';

const KEY = 'journal-key-for-tests-0123456789abcdef';
const OTHER_KEY = 'another-journal-key-0123456789abcdefgh';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

let data: ReturnType<typeof tempDataDir>;
beforeEach(() => {
  data = tempDataDir();
});
afterEach(() => {
  data.remove();
});

/** Five events (one request run, one pending), signed with `key` when given. */
function writeJournal(key?: string): string[] {
  const { journal } = Journal.open(data.journal, key ? { key } : {});
  journal.append({ type: 'created', id: 'cr_one', actor: RITA, request: sampleRequest({ id: 'cr_one' }) });
  journal.append({ type: 'approved', id: 'cr_one', actor: ALEX, previewHash: 'a'.repeat(64) });
  journal.append({ type: 'executing', id: 'cr_one', actor: ALEX });
  journal.append({ type: 'succeeded', id: 'cr_one', actor: ALEX, result: { success: true } });
  journal.append({ type: 'created', id: 'cr_two', actor: RITA, request: sampleRequest({ id: 'cr_two' }) });
  journal.close();
  return lines();
}

function lines(): string[] {
  return readFileSync(data.journal, 'utf8').split('\n').slice(0, -1);
}

function rewrite(text: string[]): void {
  writeFileSync(data.journal, `${text.join('\n')}\n`);
}

/**
 * What someone who can write DATA_DIR but does not hold the key can do: recompute every `prev`
 * after an edit so the hash chain holds again (each line re-serialised, its old MAC kept or dropped).
 */
function rechain(text: string[], options: { stripMacs?: boolean } = {}): string[] {
  const out: string[] = [];
  for (const [i, line] of text.entries()) {
    const event = JSON.parse(line) as Record<string, unknown>;
    event.prev = i === 0 ? '0'.repeat(64) : sha256(out[i - 1] ?? '');
    if (options.stripMacs) delete event.mac;
    out.push(JSON.stringify(event));
  }
  return out;
}

describe('JOURNAL_KEY: an HMAC on every event', () => {
  it('signs each line with an HMAC-SHA256 over the whole event, chain included, written last', () => {
    const written = writeJournal(KEY);

    for (const line of written) expect(line).toMatch(/,"mac":"[0-9a-f]{64}"\}$/);
    const report = journalReport(data.dir, { key: KEY });
    expect(report.exitCode).toBe(0);
    expect(report.line).toMatch(
      /^journal OK: 5 events, chain verified; every event's MAC verified \(JOURNAL_KEY\)/,
    );
  });

  it('detects a re-chained edit that the hash chain alone accepts', () => {
    const written = writeJournal(KEY);
    const edited = [...written];
    edited[3] = (edited[3] ?? '').replace('"success":true', '"success":false');
    rewrite(rechain(edited));

    const withoutKey = verifyJournal(data.journal);
    const withKey = verifyJournal(data.journal, { key: KEY });

    expect(withoutKey).toMatchObject({ ok: true, events: 5 });
    expect(withKey).toEqual({
      ok: false,
      line: 4,
      reason:
        'its MAC does not match: the line was forged or changed, or JOURNAL_KEY is not the key it was written with',
    });
  });

  it('detects a forged append with the right prev, signed or not', () => {
    const written = writeJournal(KEY);
    const forged = {
      seq: 6,
      at: '2030-01-01T00:10:00.000Z',
      prev: sha256(written[4] ?? ''),
      type: 'cancelled',
      id: 'cr_two',
      actor: RITA,
    };
    rewrite([...written, JSON.stringify(forged)]);
    const unsigned = verifyJournal(data.journal, { key: KEY });
    rewrite([...written, JSON.stringify({ ...forged, mac: 'f'.repeat(64) })]);
    const badMac = verifyJournal(data.journal, { key: KEY });

    expect(unsigned).toEqual({
      ok: false,
      line: 6,
      reason:
        'it has no MAC although line 1 before it has one: it was written without JOURNAL_KEY, or forged',
    });
    expect(badMac).toMatchObject({
      ok: false,
      line: 6,
      reason: expect.stringMatching(/^its MAC does not match/),
    });
  });

  it('detects MACs stripped from the whole journal and the chain rebuilt', () => {
    const written = writeJournal(KEY);
    rewrite(rechain(written, { stripMacs: true }));

    const report = journalReport(data.dir, { key: KEY });

    expect(report.exitCode).toBe(1);
    expect(report.line).toMatch(/^journal TAMPERED at line 1: JOURNAL_KEY is set but no event carries a MAC/);
  });

  it('names a wrong key at the first line', () => {
    writeJournal(KEY);

    expect(verifyJournal(data.journal, { key: OTHER_KEY })).toMatchObject({ ok: false, line: 1 });
    expect(() => Journal.open(data.journal, { key: OTHER_KEY })).toThrow(
      /fails verification at line 1: its MAC/,
    );
  });

  it('refuses to open a signed journal without the key, rather than append unsigned events to it', () => {
    writeJournal(KEY);

    expect(() => Journal.open(data.journal)).toThrow(JournalKeyError);
  });

  it('refuses to open an unsigned journal with a key: stripped MACs look exactly like a key set late', () => {
    writeJournal();

    expect(() => Journal.open(data.journal, { key: KEY })).toThrow(
      /fails verification at line 1: JOURNAL_KEY is set but no event carries a MAC/,
    );
    expect(lines()).toHaveLength(5);
  });

  it('calls unsigned events before a signed one tampering, with the key or without (no "predate the key" escape)', () => {
    const unsigned = rechain(writeJournal(KEY), { stripMacs: true });
    const { line: signed } = chainEvent(
      { type: 'cancelled', id: 'cr_two', actor: RITA },
      { seq: 6, at: '2030-01-01T00:10:00.000Z', prev: sha256(unsigned[4] ?? '') },
      KEY,
    );
    rewrite([...unsigned, signed]);

    const keyed = journalReport(data.dir, { key: KEY });
    const unkeyed = journalReport(data.dir);

    expect(keyed.exitCode).toBe(1);
    expect(keyed.line).toMatch(/^journal TAMPERED at line 1: it has no MAC although line 6 after it has one/);
    expect(unkeyed.exitCode).toBe(1);
    expect(unkeyed.line).toMatch(
      /^journal TAMPERED at line 1: it has no MAC although line 6 after it has one/,
    );
    expect(() => Journal.open(data.journal, { key: KEY })).toThrow(/fails verification at line 1/);
  });

  it('calls an unsigned event after a signed one tampering, without the key too', () => {
    const signed = writeJournal(KEY);
    rewrite(
      rechain(
        signed.map((line, i) => (i === 4 ? JSON.stringify({ ...JSON.parse(line), mac: undefined }) : line)),
      ),
    );

    expect(journalReport(data.dir).line).toMatch(
      /^journal TAMPERED at line 5: it has no MAC although line 1 before it has one/,
    );
  });
});

describe('anchors: the head hash and count published outside DATA_DIR', () => {
  it('pass while the journal still runs through them, and print the current anchor', () => {
    const written = writeJournal();
    const anchor = { count: 3, head: sha256(written[2] ?? '') };

    const report = journalReport(data.dir, { anchors: [anchor] });

    expect(report.exitCode).toBe(0);
    expect(report.line).toContain('5 events, chain verified; the anchor matched');
    expect(report.line).toContain(`anchor 5:${sha256(written[4] ?? '')})`);
  });

  it('detect a cut tail that the chain alone cannot see', () => {
    const written = writeJournal();
    const anchor = { count: 5, head: sha256(written[4] ?? '') };
    rewrite(written.slice(0, 3));

    const unanchored = journalReport(data.dir);
    const anchored = journalReport(data.dir, { anchors: [anchor] });

    expect(unanchored.exitCode).toBe(0);
    expect(anchored.exitCode).toBe(1);
    expect(anchored.line).toMatch(
      /^journal TAMPERED at line 3: the anchor 5:[0-9a-f]{12}… records 5 events but the journal has 3: lines were cut from the end/,
    );
  });

  it('detect a rewrite before the anchor, even a cut-and-regrow to the same length', () => {
    const written = writeJournal();
    const anchor = { count: 4, head: sha256(written[3] ?? '') };
    const edited = [...written];
    edited[1] = (edited[1] ?? '').replace('U0ALEX', 'U0ALEY');
    rewrite(rechain(edited));

    const report = journalReport(data.dir, { anchors: [anchor] });

    expect(report.exitCode).toBe(1);
    expect(report.line).toMatch(
      /^journal TAMPERED at line 4: it is not the line anchored as 4:[0-9a-f]{12}…: the journal was rewritten at or before this line/,
    );
  });

  it('detect a journal deleted outright', () => {
    const report = journalReport(data.dir, { anchors: [{ count: 2, head: 'a'.repeat(64) }] });

    expect(report.exitCode).toBe(1);
    expect(report.line).toMatch(/records 2 events but the journal has 0/);
  });
});
