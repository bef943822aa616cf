import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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
    expect(await second.keys('zone:')).toEqual(['zone:abc']);
    expect(await second.keys('zones:')).toEqual([]);
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

  it('writes nothing when a value is set to what it holds already, and the file on a change', async () => {
    // Arrange: the watcher saves its state on every poll, unchanged on almost all of them.
    const path = join(mkdtempSync(join(tmpdir(), 'store-')), 'bot-data.json');
    const store = new JsonFileStore(path);
    await store.set('watch:default', { observed: { a: 1 }, incidents: [] });
    await store.set('baseline', { snapshot: { networks: { n1: { name: 'LAN' } } } });
    const written = statSync(path).ino;

    // Act: the same value again (a fresh object), then a changed one.
    await store.set('watch:default', { observed: { a: 1 }, incidents: [] });
    const afterSame = statSync(path).ino;
    await store.set('watch:default', { observed: { a: 2 }, incidents: [] });

    // Assert: every write replaces the file (a rename), so an unchanged inode means no write.
    expect(afterSame).toBe(written);
    expect(statSync(path).ino).not.toBe(written);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      'watch:default': { observed: { a: 2 }, incidents: [] },
      baseline: { snapshot: { networks: { n1: { name: 'LAN' } } } },
    });
  });

  it('reads a value back as the file keeps it, and drops a key set to undefined', async () => {
    // Arrange
    const path = join(mkdtempSync(join(tmpdir(), 'store-')), 'bot-data.json');
    const store = new JsonFileStore(path);
    await store.set('a', { at: new Date('2026-11-27T09:00:00.000Z'), gone: undefined, n: 1 });
    await store.set('b', 1);

    // Act
    await store.set('b', undefined);

    // Assert: the same value in this process as after a restart (its JSON).
    expect(await store.get('a')).toStrictEqual({ at: '2026-11-27T09:00:00.000Z', n: 1 });
    expect(await new JsonFileStore(path).get('a')).toStrictEqual({ at: '2026-11-27T09:00:00.000Z', n: 1 });
    expect(await store.keys()).toEqual(['a']);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ a: { at: '2026-11-27T09:00:00.000Z', n: 1 } });
  });
});
