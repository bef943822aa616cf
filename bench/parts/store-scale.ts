import { mkdtempSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HISTORY_PAGE_SIZE } from '../../src/approvals/history.js';
import { FileStore } from '../../src/store/file/file-store.js';
import type { Actor, ChangeRequest } from '../../src/store/records.js';
import type { ChangeFilter } from '../../src/store/types.js';
import type { PartContext } from '../lib/context.js';
import { median } from '../lib/stats.js';

const RITA: Actor = { userId: 'U0RITA', name: 'rita' };
const ALEX: Actor = { userId: 'U0ALEX', name: 'alex' };
const T0 = Date.parse('2026-01-01T00:00:00Z');

/** The queries a `changes` page and an App Home view make (src/approvals/history.ts, src/slack/home.ts). */
const QUERIES: { name: string; run: (s: FileStore) => Promise<unknown> }[] = [
  {
    name: '`changes` page 1 (count + page)',
    run: async (s) => {
      await s.changes().count({});
      return s.changes().list({ limit: HISTORY_PAGE_SIZE, offset: 0 });
    },
  },
  {
    name: '`changes user=rita` page 1',
    run: async (s) => {
      const filter: ChangeFilter = { requester: RITA.userId };
      await s.changes().count(filter);
      return s.changes().list({ ...filter, limit: HISTORY_PAGE_SIZE, offset: 0 });
    },
  },
  {
    name: 'App Home: mine, my count, recent outcomes, pending count',
    run: async (s) =>
      Promise.all([
        s.changes().list({ requester: RITA.userId, limit: 10 }),
        s.changes().count({ requester: RITA.userId }),
        s.changes().list({ state: ['succeeded', 'failed', 'unknown'], site: 'default', limit: 20 }),
        s.changes().count({ state: 'pending' }),
      ]),
  },
  {
    name: 'App Home: every pending request (sorted by expiry there)',
    run: (s) => s.changes().list({ state: 'pending' }),
  },
];

export interface StoreScaleRow {
  entries: number;
  pending: number;
  requests: number;
  /** Median ms per query, by query name. */
  ms: Record<string, number>;
}

export interface StoreScaleResult {
  small: StoreScaleRow;
  large: StoreScaleRow;
  /** large ÷ small, by query name. */
  ratios: Record<string, number>;
}

function sample(n: number, pending: boolean): ChangeRequest {
  const created = T0 + n * 60_000;
  return {
    id: `cr_bench${String(n).padStart(12, '0')}`,
    tool: n % 3 === 0 ? 'delete_network' : 'create_network',
    site: 'default',
    args: { site_id: 'default', name: `Lab${n}`, vlan_id: 40 + (n % 100) },
    requester: n % 4 === 0 ? RITA : ALEX,
    channel: 'C0OPS',
    preview: { dry_run: true, would_create: { name: `Lab${n}` }, warnings: [] },
    previewHash: 'a'.repeat(64),
    createdAt: new Date(created).toISOString(),
    // Pending ones are still live when the queries run.
    expiresAt: new Date(pending ? Date.now() + 86_400_000 : created + 900_000).toISOString(),
    state: 'pending',
  };
}

/**
 * A journal of `entries` lines: `pending` requests left pending (one line each) among requests that
 * ran (four lines: created, approved, executing, succeeded). Seeded without fsync (the figures are
 * about reading), then reopened as the bot opens it.
 */
async function seeded(dir: string, entries: number, pending: number): Promise<number> {
  const store = new FileStore(dir, {
    fs: { writeSync, fsyncSync: () => {}, ftruncateSync: () => {} },
  });
  const changes = store.changes();
  let n = 0;
  const done = Math.floor((entries - pending) / 4);
  // Pending ones spread through the history, as they would be with a busy team.
  const pendingEvery = Math.max(1, Math.floor((done + pending) / Math.max(1, pending)));
  let left = pending;
  for (let i = 0; i < done + pending; i += 1) {
    const isPending = left > 0 && i % pendingEvery === 0;
    const request = await changes.create(sample(n, isPending), RITA, T0 + n * 60_000);
    n += 1;
    if (isPending) {
      left -= 1;
      continue;
    }
    const at = Date.parse(request.createdAt);
    await changes.transition(
      request.id,
      { type: 'approved', id: request.id, actor: ALEX, previewHash: request.previewHash },
      { from: ['pending'], at: at + 1000 },
    );
    await changes.transition(
      request.id,
      { type: 'executing', id: request.id, actor: ALEX },
      {
        from: ['approved'],
        at: at + 2000,
      },
    );
    await changes.transition(
      request.id,
      { type: 'succeeded', id: request.id, actor: ALEX, result: { success: true } },
      { from: ['executing'], at: at + 3000 },
    );
  }
  await store.close();
  return n;
}

async function measure(ctx: PartContext, entries: number, pending: number): Promise<StoreScaleRow> {
  const dir = mkdtempSync(join(tmpdir(), 'netops-bench-store-'));
  try {
    const requests = await seeded(dir, entries, pending);
    const store = new FileStore(dir);
    try {
      store.changes();
      const ms: Record<string, number> = {};
      for (const query of QUERIES) {
        for (let i = 0; i < 5; i += 1) await query.run(store); // warm
        const times: number[] = [];
        for (let i = 0; i < 31; i += 1) {
          const started = performance.now();
          await query.run(store);
          times.push(performance.now() - started);
        }
        ms[query.name] = median(times);
      }
      ctx.progress(`store: ${entries} entries (${requests} requests, ${pending} pending) measured`);
      return { entries, pending, requests, ms };
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Issue 26, item 6: the file store's `changes` and App Home queries at 100 and 100,000 journal entries. */
export async function runStoreScale(ctx: PartContext): Promise<StoreScaleResult> {
  const small = await measure(ctx, 100, 10);
  const large = await measure(ctx, 100_000, 1_000);
  const ratios: Record<string, number> = {};
  for (const query of QUERIES)
    ratios[query.name] = (large.ms[query.name] ?? 0) / Math.max(1e-6, small.ms[query.name] ?? 0);
  return { small, large, ratios };
}
