import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
});
