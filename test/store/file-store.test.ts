import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/store/file/file-store.js';
import type { Store } from '../../src/store/types.js';
import { describeStoreContract, sampleRequest } from './contract.js';

const dirs: string[] = [];
const dirOf = new Map<Store, string>();

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describeStoreContract('files under DATA_DIR', () => ({
  async fresh() {
    const dir = mkdtempSync(join(tmpdir(), 'netops-store-'));
    dirs.push(dir);
    const store = new FileStore(dir);
    dirOf.set(store, dir);
    return store;
  },
  async reopen(previous) {
    const dir = dirOf.get(previous);
    if (!dir) throw new Error('reopen of a store this harness did not open');
    await previous.close();
    const store = new FileStore(dir);
    dirOf.set(store, dir);
    return store;
  },
}));

describe('file store format', () => {
  it('keeps the journal in approvals.jsonl and bot data in bot-data.json, as before', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'netops-store-'));
    dirs.push(dir);
    const store = new FileStore(dir);
    const request = sampleRequest();

    await store.changes().create(request, { userId: 'U0RITA' }, Date.parse(request.createdAt));
    await store.data.set('zone-description:default:z1', 'Cameras');
    await store.close();

    const lines = readFileSync(join(dir, 'approvals.jsonl'), 'utf8').split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ seq: 1, type: 'created', id: request.id });
    expect(JSON.parse(readFileSync(join(dir, 'bot-data.json'), 'utf8'))).toEqual({
      'zone-description:default:z1': 'Cameras',
    });
  });

  it('opens the journal only when the change requests are asked for (a console never does)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'netops-store-'));
    dirs.push(dir);
    const console = new FileStore(dir);
    await console.data.set('k', 1);

    const bot = new FileStore(dir);
    const changes = bot.changes();

    expect(await changes.journalHead()).toEqual({ count: 0, head: '0'.repeat(64) });
    await console.close();
    await bot.close();
  });
  it("lets a console read the bot's journal beside it without opening it for append", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'netops-store-'));
    dirs.push(dir);
    const bot = new FileStore(dir);
    const changes = bot.changes();
    const first = await changes.create(sampleRequest(), { userId: 'U0RITA' }, Date.now());
    const journal = join(dir, 'approvals.jsonl');
    const size = statSync(journal).size;

    const console = new FileStore(dir);
    const seen = await console.changeHistory().list();
    // The bot keeps appending after the console looked; the console sees it on its next read.
    const second = await changes.create(sampleRequest(), { userId: 'U0RITA' }, Date.now());
    const later = await console.changeHistory().list();
    // A line the bot is still writing (no line end yet) is left for the next read.
    appendFileSync(journal, '{"seq":3,"at":"2030');

    expect(seen.map((r) => r.id)).toEqual([first.id]);
    expect(later.map((r) => r.id).sort()).toEqual([first.id, second.id].sort());
    expect((await console.changeHistory().history(first.id))?.events.map((e) => e.type)).toEqual(['created']);
    expect(statSync(journal).size).toBeGreaterThan(size);
    expect(await console.changeHistory().count()).toBe(2);
    await console.close();
    await bot.close();
  });
});
