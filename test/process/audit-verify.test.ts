import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { Journal } from '../../src/store/file/journal.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { runAuditVerify } from '../helpers/bot-process.js';
import { closedPort } from '../helpers/ports.js';
import { useTestDatabase } from '../helpers/postgres.js';

const KEY = 'process-test-journal-key-0123456789abcdef';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const RITA = { userId: 'U0RITA' };

const db = useTestDatabase();

// Deliberately alike: a change request as the journal records it; the journal and audit:verify tests each write their own.
function request(id: string) {
  return {
    id,
    tool: 'delete_network',
    site: 'default',
    args: { site_id: 'default', network_id: 'Guest' },
    requester: RITA,
    preview: { dry_run: true, would_delete: { name: 'Guest' }, warnings: [] },
    previewHash: 'a'.repeat(64),
    createdAt: '2030-01-01T00:00:00.000Z',
    expiresAt: '2030-01-01T00:15:00.000Z',
    state: 'pending' as const,
  };
}

/** A DATA_DIR whose journal holds three events, signed with `key` when given; its lines. */
function dataDir(key?: string): { dir: string; lines: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'netops-verify-'));
  const path = join(dir, 'approvals.jsonl');
  const { journal } = Journal.open(path, key ? { key } : {});
  journal.append({ type: 'created', id: 'cr_a', actor: RITA, request: request('cr_a') });
  journal.append({ type: 'created', id: 'cr_b', actor: RITA, request: request('cr_b') });
  journal.append({ type: 'cancelled', id: 'cr_a', actor: RITA });
  journal.close();
  return { dir, lines: readFileSync(path, 'utf8').split('\n').slice(0, -1) };
}

describe('audit:verify as shipped, on DATA_DIR', () => {
  it('exits 0 on a signed journal with DATA_DIR and JOURNAL_KEY only, and ignores the bot’s other settings', async () => {
    const { dir, lines } = dataDir(KEY);

    const result = await runAuditVerify({
      DATA_DIR: dir,
      JOURNAL_KEY: KEY,
      SLACK_BOT_TOKEN: 'not-a-token',
      PORT: 'x',
    });

    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `journal OK: 3 events, chain verified; every event's MAC verified (JOURNAL_KEY) (${join(dir, 'approvals.jsonl')}, anchor 3:${sha256(lines[2] ?? '')})\n`,
    );
    expect(result.stdout).not.toContain(KEY);
  });

  it('exits 1 on a forged append with the right prev', async () => {
    const { dir, lines } = dataDir(KEY);
    // Deliberately alike: a forged journal line, built by hand as an attacker would write it.
    const forged = {
      seq: 4,
      at: '2030-01-01T00:01:00.000Z',
      prev: sha256(lines[2] ?? ''),
      type: 'cancelled',
      id: 'cr_b',
      actor: RITA,
    };
    writeFileSync(join(dir, 'approvals.jsonl'), `${[...lines, JSON.stringify(forged)].join('\n')}\n`);

    const result = await runAuditVerify({ DATA_DIR: dir, JOURNAL_KEY: KEY });

    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^journal TAMPERED at line 4: it has no MAC although line 1 before it has one/,
    );
  });

  it('exits 1 when the tail was cut behind an anchor, given on the command line or in a file', async () => {
    const { dir, lines } = dataDir();
    const anchor = `3:${sha256(lines[2] ?? '')}`;
    writeFileSync(join(dir, 'approvals.jsonl'), `${lines.slice(0, 2).join('\n')}\n`);
    const saved = join(mkdtempSync(join(tmpdir(), 'netops-anchors-')), 'anchors.txt');
    writeFileSync(saved, `:anchor: Journal anchor (periodic): 3 events, head \`${anchor}\`.\n`);

    const plain = await runAuditVerify({ DATA_DIR: dir });
    const inline = await runAuditVerify({ DATA_DIR: dir }, ['--anchor', anchor]);
    const fromFile = await runAuditVerify({ DATA_DIR: dir }, [`--anchor-file=${saved}`]);

    expect(plain.code).toBe(0);
    expect(inline.code).toBe(1);
    expect(inline.stdout).toMatch(
      /^journal TAMPERED at line 2: the anchor 3:[0-9a-f]{12}… records 3 events but the journal has 2/,
    );
    expect(fromFile).toEqual(inline);
  });

  it('exits 2 when it cannot check: a short JOURNAL_KEY, DATA_DIR not a directory or missing, a bad anchor, a missing anchor file', async () => {
    const { dir } = dataDir();
    const notADir = join(dir, 'approvals.jsonl');

    const results = await Promise.all([
      runAuditVerify({ DATA_DIR: dir, JOURNAL_KEY: 'short-key' }),
      runAuditVerify({ DATA_DIR: notADir }),
      runAuditVerify({ DATA_DIR: dir }, ['--anchor', '3:xyz']),
      runAuditVerify({ DATA_DIR: dir }, ['--anchor-file', join(dir, 'none.txt')]),
      runAuditVerify({ DATA_DIR: dir }, ['--verbose']),
      runAuditVerify({ DATA_DIR: join(dir, 'no-such-dir') }),
    ]);

    expect(results.map((r) => r.code)).toEqual([2, 2, 2, 2, 2, 2]);
    for (const r of results) expect(r.stdout).toMatch(/^journal not checked: /);
    expect(results[0]?.stdout).toContain('JOURNAL_KEY: must be at least 32 characters');
    expect(results[0]?.stdout).not.toContain('short-key');
    expect(results[1]?.stdout).toBe(`journal not checked: DATA_DIR ${notADir} is not a directory\n`);
    expect(results[2]?.stdout).toContain('--anchor takes <count>:<the 64 hex digits of the head>');
    expect(results[3]?.stdout).toMatch(/ENOENT/);
    expect(results[4]?.stdout).toContain('unknown argument --verbose');
    expect(results[5]?.stdout).toMatch(/DATA_DIR .*no-such-dir does not exist/);
  });
});

describe('audit:verify as shipped, on PostgreSQL', () => {
  it('exits 2 when the database is unreachable: the journal was not checked, the URL’s password not shown', async () => {
    // A port held closed: the connection is refused.
    const closed = await closedPort();
    const { port } = closed;
    const password = 'unreachable-db-Pa55word';

    const result = await runAuditVerify({
      DATABASE_URL: `postgres://netops:${password}@127.0.0.1:${port}/netops`,
    }).finally(closed.release);

    expect(result.code).toBe(2);
    expect(result.stdout).toBe(
      `journal not checked: connect ECONNREFUSED 127.0.0.1:${port} (PostgreSQL 127.0.0.1:${port}/netops)\n`,
    );
    expect(`${result.stdout}${result.stderr}`).not.toContain(password);
  });

  it('exits 0 with DATABASE_URL and JOURNAL_KEY only, and 1 once a row was re-chained', async () => {
    await db.reset();
    const store = await PostgresStore.open({
      database: { url: db.url },
      logger: silentLogger(),
      leaseSeconds: 30,
      key: KEY,
    });
    await store
      .changes()
      .create({ ...request('cr_pg_one'), channel: 'C1' }, RITA, Date.parse('2030-01-01T00:00:00.000Z'));
    await store
      .changes()
      .create({ ...request('cr_pg_two'), channel: 'C1' }, RITA, Date.parse('2030-01-01T00:00:01.000Z'));
    await store.close();

    const intact = await runAuditVerify({ DATABASE_URL: db.url, JOURNAL_KEY: KEY });
    const rows = await db.query<{ line: string }>('SELECT line FROM netops_journal ORDER BY seq');
    const first = (rows.rows[0]?.line ?? '').replace('U0RITA', 'U0RITO');
    const second = JSON.parse(rows.rows[1]?.line ?? '{}') as Record<string, unknown>;
    second.prev = sha256(first);
    const secondLine = JSON.stringify(second);
    await db.query('UPDATE netops_journal SET line = $1 WHERE seq = 1', [first]);
    await db.query('UPDATE netops_journal SET line = $1 WHERE seq = 2', [secondLine]);
    await db.query('UPDATE netops_journal_head SET hash = $1', [sha256(secondLine)]);
    const tampered = await runAuditVerify({ DATABASE_URL: db.url, JOURNAL_KEY: KEY });

    expect(intact.code).toBe(0);
    expect(intact.stdout).toMatch(
      /^journal OK: 2 events, chain verified; every event's MAC verified \(JOURNAL_KEY\) \(PostgreSQL /,
    );
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toMatch(/^journal TAMPERED at entry 1: its MAC does not match/);
  }, 20_000);
});
