import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonFileStore } from '../../src/lib/json-file-store.js';

describe('JsonFileStore', () => {
  it('keeps values across instances on the same file', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'store-')), 'nested', 'bot-data.json');
    const first = new JsonFileStore(path);
    await first.set('zone:abc', { description: 'Cameras & NVR' });
    await first.set('zone:def', { description: 'old' });
    await first.delete('zone:def');
    const second = new JsonFileStore(path);
    expect(await second.get('zone:abc')).toEqual({ description: 'Cameras & NVR' });
    expect(await second.keys()).toEqual(['zone:abc']);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ 'zone:abc': { description: 'Cameras & NVR' } });
  });

  it('hands out copies, so changing a value read does not change what is stored', async () => {
    const store = new JsonFileStore(join(mkdtempSync(join(tmpdir(), 'store-')), 'bot-data.json'));
    await store.set('zone:abc', { description: 'Cameras' });

    const read = await store.get<{ description: string }>('zone:abc');
    if (read) read.description = 'changed';

    expect(await store.get('zone:abc')).toEqual({ description: 'Cameras' });
  });

  it('starts empty without a file, and refuses a file that is not a JSON object', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-'));
    expect(await new JsonFileStore(join(dir, 'none.json')).keys()).toEqual([]);
    writeFileSync(join(dir, 'bad.json'), '[1,2]');
    expect(() => new JsonFileStore(join(dir, 'bad.json'))).toThrow(/does not hold a JSON object/);
  });
});
