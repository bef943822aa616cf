import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/approvals/canonical.js';
import type { ChangeRequest } from '../../src/approvals/types.js';
import {
  Journal,
  JournalIntegrityError,
  journalReport,
  verifyJournal,
} from '../../src/store/file/journal.js';
import { ALEX, Clock, RITA, tempDataDir } from '../approvals/harness.js';
import { catching } from '../helpers/catching.js';

/** The chain starts from 64 zeros (the journal format), pinned here rather than imported. */
const GENESIS = '0'.repeat(64);

let data: ReturnType<typeof tempDataDir>;
let clock: Clock;

beforeEach(() => {
  data = tempDataDir();
  clock = new Clock();
});
afterEach(() => {
  data.remove();
});

function request(id: string): ChangeRequest {
  return {
    id,
    tool: 'delete_network',
    site: 'default',
    args: { site_id: 'default', network_id: 'Guest' },
    requester: RITA,
    preview: { dry_run: true, would_delete: { name: 'Guest' }, warnings: ['deletion is irreversible'] },
    previewHash: 'a'.repeat(64),
    createdAt: '2030-01-01T00:00:00.000Z',
    expiresAt: '2030-01-01T00:15:00.000Z',
    state: 'pending',
  };
}

/** Writes a five-event journal (two requests: one ran, one pending) and returns its lines. */
function writeJournal(): string[] {
  const { journal } = Journal.open(data.journal, { now: clock.now });
  journal.append({ type: 'created', id: 'cr_one', actor: RITA, request: request('cr_one') });
  journal.append({ type: 'approved', id: 'cr_one', actor: ALEX, previewHash: 'a'.repeat(64) });
  journal.append({ type: 'executing', id: 'cr_one', actor: ALEX });
  journal.append({ type: 'succeeded', id: 'cr_one', actor: ALEX, result: { success: true } });
  journal.append({ type: 'created', id: 'cr_two', actor: RITA, request: request('cr_two') });
  journal.close();
  return readFileSync(data.journal, 'utf8').split('\n').slice(0, -1);
}

function rewrite(lines: string[]): void {
  writeFileSync(data.journal, `${lines.join('\n')}\n`);
}

describe('journal format', () => {
  it('chains every line to the SHA-256 of the line before, from a genesis of 64 zeros', () => {
    const lines = writeJournal();

    const events = lines.map((line) => JSON.parse(line) as { seq: number; prev: string; at: string });

    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(events[0]?.prev).toBe(GENESIS);
    for (let i = 1; i < lines.length; i++) expect(events[i]?.prev).toBe(sha256Hex(lines[i - 1] ?? ''));
    expect(events[0]?.at).toBe('2030-01-01T00:00:00.000Z');
    expect(Object.keys(JSON.parse(lines[1] ?? '{}'))).toEqual([
      'seq',
      'at',
      'prev',
      'type',
      'id',
      'actor',
      'previewHash',
    ]);
  });

  it('continues the chain after a reopen', () => {
    const lines = writeJournal();
    const { journal } = Journal.open(data.journal, { now: clock.now });

    const event = journal.append({ type: 'cancelled', id: 'cr_two', actor: RITA });
    journal.close();

    expect(event.seq).toBe(6);
    expect(event.prev).toBe(sha256Hex(lines[4] ?? ''));
    expect(verifyJournal(data.journal)).toMatchObject({ ok: true, events: 6 });
  });

  it('refuses appends after close', () => {
    const { journal } = Journal.open(data.journal);
    journal.close();

    expect(() => journal.append({ type: 'expired', id: 'cr_x', actor: RITA })).toThrow(/is closed/);
  });
});

describe('verifyJournal', () => {
  it('accepts a good journal and counts its events', () => {
    const lines = writeJournal();

    expect(verifyJournal(data.journal)).toEqual({ ok: true, events: 5, head: sha256Hex(lines[4] ?? '') });
  });

  it('accepts a missing file as an empty journal', () => {
    expect(verifyJournal(data.journal)).toEqual({ ok: true, events: 0, head: GENESIS });
  });

  it.each<{ name: string; tamper: (lines: string[]) => void; line: number; reason: string }>([
    // Deliberately alike: cells of one it.each table share its fields by design; each cell is a different case.
    {
      name: 'names the line in which one byte was changed',
      // One byte of line 3's actor id: still valid JSON, seq intact, only the hash chain tells.
      tamper: (lines) => {
        lines[2] = (lines[2] ?? '').replace('U0ALEX', 'U0ALEY');
      },
      line: 3,
      reason: 'its SHA-256 no longer matches the prev recorded on line 4: the line was changed',
    },
    {
      name: 'names the line whose prev was changed',
      tamper: (lines) => {
        lines[3] = (lines[3] ?? '').replace(
          /"prev":"(.)/,
          (_m, c: string) => `"prev":"${c === 'f' ? 'e' : 'f'}`,
        );
      },
      line: 4,
      reason: 'prev is not the SHA-256 of line 3: line 3 or this line was changed',
    },
    {
      name: 'names both candidates when the changed line is the one before the last',
      tamper: (lines) => {
        lines[3] = (lines[3] ?? '').replace('"success":true', '"success":false');
      },
      line: 5,
      reason: 'prev is not the SHA-256 of line 4: line 4 or this line was changed',
    },
    {
      name: 'detects a deleted line',
      tamper: (lines) => {
        lines.splice(1, 1);
      },
      line: 2,
      reason: 'seq is 3 where 2 was expected: a line was removed or inserted before it',
    },
  ])('$name', ({ tamper, line, reason }) => {
    const lines = writeJournal();
    tamper(lines);
    rewrite(lines);

    expect(verifyJournal(data.journal)).toEqual({ ok: false, line, reason });
  });

  it('detects a deleted line even when the seq numbers were renumbered', () => {
    const lines = writeJournal();
    lines.splice(1, 1);
    rewrite(lines.map((line, i) => line.replace(/^\{"seq":\d+/, `{"seq":${i + 1}`)));

    expect(verifyJournal(data.journal)).toMatchObject({ ok: false, line: 2 });
  });

  it('detects a line that is not JSON, or not an event, or cut short', () => {
    const lines = writeJournal();

    rewrite([...lines.slice(0, 2), '{"seq":3', ...lines.slice(3)]);
    const broken = verifyJournal(data.journal);
    rewrite([...lines.slice(0, 2), JSON.stringify({ seq: 3, at: 'x', prev: 'y', type: 'launched' })]);
    const foreign = verifyJournal(data.journal);
    writeFileSync(data.journal, `${lines.join('\n')}`);
    const torn = verifyJournal(data.journal);

    expect(broken).toEqual({ ok: false, line: 3, reason: 'not valid JSON' });
    expect(foreign).toMatchObject({ ok: false, line: 3 });
    expect(foreign.ok === false && foreign.reason).toMatch(/^not a journal event/);
    // A torn last line is not damage to the chain: the four lines before it verify, and it is reported.
    expect(torn).toEqual({
      ok: true,
      events: 4,
      head: sha256Hex(lines[3] ?? ''),
      torn: {
        line: 5,
        bytes: Buffer.byteLength(lines[4] ?? ''),
        reason: 'the line is incomplete (no line end): a write was cut short',
      },
    });
  });
});

describe('opening a journal that does not verify', () => {
  it('throws JournalIntegrityError naming the line, leaves the file as it was, and stays openable once restored', () => {
    const lines = writeJournal();
    const good = readFileSync(data.journal, 'utf8');
    lines[1] = (lines[1] ?? '').replace('U0ALEX', 'U0ALEY');
    rewrite(lines);
    const tampered = readFileSync(data.journal, 'utf8');

    const error = catching(() => Journal.open(data.journal));

    expect(error).toBeInstanceOf(JournalIntegrityError);
    expect((error as JournalIntegrityError).line).toBe(2);
    expect((error as Error).message).toMatch(/fails verification at line 2: .*Refusing to open it/);
    expect(readFileSync(data.journal, 'utf8')).toBe(tampered);
    writeFileSync(data.journal, good);
    const { journal, events } = Journal.open(data.journal);
    journal.close();
    expect(events).toHaveLength(5);
  });
});

describe('audit:verify (verify-cli)', () => {
  it('prints OK with the count for a good journal, and exits 0', () => {
    writeJournal();

    const answer = journalReport(data.dir);

    expect(answer.exitCode).toBe(0);
    expect(answer.line).toMatch(/^journal OK: 5 events, chain verified \(/);
  });

  it('prints TAMPERED with the line, and exits 1', () => {
    const lines = writeJournal();
    lines.splice(2, 1);
    rewrite(lines);

    const answer = journalReport(data.dir);

    expect(answer.exitCode).toBe(1);
    expect(answer.line).toMatch(/^journal TAMPERED at line 3: seq is 4 where 3 was expected/);
  });

  it('says so when there is no journal yet, and exits 0', () => {
    expect(journalReport(data.dir)).toEqual({
      exitCode: 0,
      line: `journal OK: 0 events (no journal at ${data.journal} yet)`,
    });
  });

  it('runs as a program with DATA_DIR from the environment: one line, exit code 1 when tampered', async () => {
    const lines = writeJournal();
    lines[0] = (lines[0] ?? '').replace('Guest', 'Guesu');
    rewrite(lines);
    const run = promisify(execFile);

    const failure = await run(process.execPath, ['--import', 'tsx', 'src/store/verify-cli.ts'], {
      env: { ...process.env, DATA_DIR: data.dir },
    }).catch((error: { code: number; stdout: string }) => error);

    expect(failure).toMatchObject({ code: 1 });
    expect((failure as { stdout: string }).stdout).toMatch(/^journal TAMPERED at line 1: [^\n]*\n$/);
  });
});
