// The fault matrix, disk side: the file journal in DATA_DIR failing at each append a change makes
// (created, approved, executing, succeeded), through its injectable fs (test/helpers/faulty-fs.ts):
// a full disk, a short write, a failed fsync, and a file system remounted read-only. A real
// read-only DATA_DIR cannot be made here: the suite runs as root, and root writes through
// `chmod -w` (docs/decisions.md, "Full-disk tests"). SIGTERM and SIGKILL during a write are
// test/process/interruptions.test.ts. One bot (HTTP mode, the fake Slack, the simulator). For each
// cell: the exact text the user reads, that the journal still verifies, that the bot keeps
// serving, and what reached the controller.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryStore } from '../../src/lib/json-file-store.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { journalReport } from '../../src/store/file/journal.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { faultyFs } from '../helpers/faulty-fs.js';
import { SLACK_CHANGE_VERIFIED } from '../helpers/journal-events.js';
import { type SlackBot, startSlackBot } from '../helpers/slack-bot.js';

const dataDir = mkdtempSync(join(tmpdir(), 'netops-disk-'));
const disk = faultyFs();
let b: SlackBot;

beforeAll(async () => {
  b = await startSlackBot({
    dataDir,
    store: new FileStore(dataDir, { data: new MemoryStore(), fs: disk.seam }),
  });
});
afterEach(() => {
  for (const key of Object.keys(disk.faults)) delete disk.faults[key as keyof typeof disk.faults];
});
afterAll(async () => {
  await b?.close();
});

const floppy = (reason: string) =>
  `:floppy_disk: Not recorded: the approvals journal cannot be written (${reason}), so nothing was recorded. ` +
  "Nothing was run; ask an admin to check the bot's storage (/healthz says why), then try again.";

const networkPosts = () => b.sim.requests.filter((r) => r.method === 'POST' && r.route.endsWith('/networks'));
const previews = () => b.slack.callsOf('chat.postMessage').filter((c) => !c.args.thread_ts);
const textOf = (call: SlackCall | undefined) =>
  `${String(call?.args.text)} ${JSON.stringify(call?.args.blocks ?? [])}`;
const journalTypes = (id: string) =>
  readFileSync(join(dataDir, 'approvals.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: string; type: string })
    .filter((event) => event.id === id)
    .map((event) => event.type);

async function health(): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${b.port}/healthz`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** What the user read on response_url after `/net <text>`. */
async function command(text: string, user = 'U1'): Promise<string> {
  const { responseUrl } = await b.command(text, user);
  await b.slack.waitFor(() => b.slack.responses.some((r) => responseUrl.endsWith(r.path)));
  return String(b.slack.responses.find((r) => responseUrl.endsWith(r.path))?.body.text);
}

/** A network proposed by U1; its request id and message ts. */
async function propose(vlan: number): Promise<{ id: string; ts: string }> {
  return b.propose(`create_network name=Disk${vlan} vlan_id=${vlan} subnet=10.${vlan}.0.0/24`, 'U1');
}

/** U2 approves; what U2 read on response_url, if anything, once the request left `pending`/running. */
async function approve(id: string): Promise<string | undefined> {
  const { responseUrl } = await b.click('approve', id, 'U2');
  await b.slack.waitFor(async () => {
    const told = b.slack.responses.some((r) => responseUrl.endsWith(r.path));
    const state = (await b.approvals.get(id))?.state;
    return told || state === 'succeeded' || state === 'failed';
  });
  return b.slack.responses.find((r) => responseUrl.endsWith(r.path))?.body.text as string | undefined;
}

interface DiskCell {
  fault: string;
  run: (vlan: number) => Promise<{ read: string | undefined; check?: () => Promise<void> }>;
  reads: string | undefined;
  /** POSTs of the network that reached the controller during the cell. */
  written: number;
}

/** A refused proposal: no preview, and the same request proposed again once the disk takes writes. */
const requestRefused = (arrange: () => void) => async (vlan: number) => {
  const before = previews().length;
  arrange();
  const read = await command(`create_network name=Disk${vlan} vlan_id=${vlan} subnet=10.${vlan}.0.0/24`);
  return {
    read,
    async check() {
      expect(previews()).toHaveLength(before);
      const again = await propose(vlan);
      expect((await b.approvals.get(again.id))?.state).toBe('pending');
    },
  };
};

const CELLS: DiskCell[] = [
  {
    fault: 'disk full while a change is requested (10 bytes of the line written, then ENOSPC)',
    run: requestRefused(() => {
      disk.faults.enospcAfter = 10;
    }),
    reads: floppy('the disk is full, ENOSPC'),
    written: 0,
  },
  {
    fault: 'a short write while a change is requested',
    run: requestRefused(() => {
      disk.faults.short = true;
    }),
    reads: floppy('the disk took only part of the line, short_write'),
    written: 0,
  },
  {
    fault: 'fsync failing (EIO) while a change is requested',
    run: requestRefused(() => {
      disk.faults.fsync = true;
    }),
    reads: floppy('an input/output error, EIO'),
    written: 0,
  },
  // Deliberately alike: cells of one it.each table share its fields by design; each cell is a different case.
  {
    fault: 'disk full when the approval is recorded',
    async run(vlan) {
      const { id, ts } = await propose(vlan);
      disk.faults.enospcAfter = 10;
      const read = await approve(id);
      return {
        read,
        async check() {
          // Still pending with its buttons; approved once the disk takes writes, it runs once.
          expect((await b.approvals.get(id))?.state).toBe('pending');
          expect(b.slack.callsOf('chat.update').filter((c) => c.args.ts === ts)).toEqual([]);
          expect(await approve(id)).toBeUndefined();
          // The verification is recorded right after the outcome the click answers with.
          await vi.waitFor(() => expect(journalTypes(id)).toEqual(SLACK_CHANGE_VERIFIED), {
            timeout: 10_000,
          });
        },
      };
    },
    reads: floppy('the disk is full, ENOSPC'),
    written: 1,
  },
  {
    fault: 'disk full when the run starts (the executing step)',
    async run(vlan) {
      const { id, ts } = await propose(vlan);
      disk.faults.skipWrites = 1;
      disk.faults.enospcAfter = 10;
      const read = await approve(id);
      await b.slack.waitFor(() => b.slack.callsOf('chat.postMessage').some((c) => c.args.thread_ts === ts));
      return {
        read,
        async check() {
          const thread = b.slack.callsOf('chat.postMessage').find((c) => c.args.thread_ts === ts);
          expect(thread?.args.text).toBe(
            ':no_entry_sign: Create network not run: the approvals journal cannot be written (the disk is full, ENOSPC), so nothing was recorded',
          );
          await b.slack.waitFor(() =>
            textOf(
              b.slack
                .callsOf('chat.update')
                .filter((c) => c.args.ts === ts)
                .at(-1),
            ).includes('*Not run*'),
          );
          expect(journalTypes(id)).toEqual(['created', 'message', 'approved', 'failed']);
        },
      };
    },
    reads: undefined,
    written: 0,
  },
  {
    fault: 'disk full after the change ran (the succeeded step)',
    async run(vlan) {
      const { id, ts } = await propose(vlan);
      disk.faults.skipWrites = 2;
      disk.faults.enospcAfter = 10;
      // The store still says executing: the thread post is what shows the run is over.
      const { responseUrl } = await b.click('approve', id, 'U2');
      await b.slack.waitFor(() => b.slack.callsOf('chat.postMessage').some((c) => c.args.thread_ts === ts));
      return {
        read: b.slack.responses.find((r) => responseUrl.endsWith(r.path))?.body.text as string | undefined,
        async check() {
          // The truth in the channel at once; the journal catches up at the next sweep.
          const thread = b.slack.callsOf('chat.postMessage').find((c) => c.args.thread_ts === ts);
          expect(thread?.args.text).toBe(':white_check_mark: Create network done.');
          expect(journalTypes(id)).toEqual(['created', 'message', 'approved', 'executing']);
          await b.app.slack?.sweep();
          expect(journalTypes(id)).toEqual(['created', 'message', 'approved', 'executing', 'succeeded']);
        },
      };
    },
    reads: undefined,
    written: 1,
  },
  {
    fault: 'DATA_DIR remounted read-only (EROFS until it is writable again)',
    async run(vlan) {
      disk.faults.readOnly = true;
      const read = await command(`create_network name=Disk${vlan} vlan_id=${vlan} subnet=10.${vlan}.0.0/24`);
      const readOnly = await health();
      const lookup = await command('list_vlans', 'U3');
      return {
        read,
        async check() {
          expect(readOnly).toMatchObject({
            status: 200,
            body: { status: 'degraded', store: { kind: 'file', ok: false, read_only: true } },
          });
          expect(String((readOnly.body.store as { error?: string }).error)).toMatch(
            /\(EROFS\): changes are refused, lookups work$/,
          );
          expect(lookup).toMatch(/^List vlans: \d+ row\(s\)$/);
          disk.faults.readOnly = false;
          expect(await health()).toMatchObject({ status: 200, body: { status: 'ok', store: { ok: true } } });
          const again = await propose(vlan);
          expect((await b.approvals.get(again.id))?.state).toBe('pending');
        },
      };
    },
    reads: floppy('the file system is read-only, EROFS'),
    written: 0,
  },
];

describe('the journal failing to take an append', () => {
  let vlan = 40;
  it.each(CELLS)(
    '$fault: the user reads what happened, the journal verifies, the bot keeps serving',
    async (cell) => {
      vlan += 1;
      const before = networkPosts().length;

      const { read, check } = await cell.run(vlan);
      await check?.();
      const written = networkPosts().length - before;
      const following = await command('list_vlans', 'U3');

      expect(read).toBe(cell.reads);
      expect(written).toBe(cell.written);
      expect(journalReport(dataDir)).toMatchObject({ exitCode: 0 });
      expect(following).toMatch(/^List vlans: \d+ row\(s\)$/);
    },
  );
});
