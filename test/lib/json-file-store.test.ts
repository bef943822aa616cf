import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonFileStore } from '../../src/lib/json-file-store.js';

describe('JsonFileStore', () => {
  it('keeps values across instances on the same file', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'store-')), 'nested', 'bot-data.json');
    const first = new JsonFileStore(path);
    first.set('zone:abc', { description: 'Cameras & NVR' });
    first.set('zone:def', { description: 'old' });
    first.delete('zone:def');
    const second = new JsonFileStore(path);
    expect(second.get('zone:abc')).toEqual({ description: 'Cameras & NVR' });
    expect(second.keys()).toEqual(['zone:abc']);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ 'zone:abc': { description: 'Cameras & NVR' } });
  });

  it('starts empty without a file, and refuses a file that is not a JSON object', () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-'));
    expect(new JsonFileStore(join(dir, 'none.json')).keys()).toEqual([]);
    writeFileSync(join(dir, 'bad.json'), '[1,2]');
    expect(() => new JsonFileStore(join(dir, 'bad.json'))).toThrow(/does not hold a JSON object/);
  });
});
