import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A small durable map of JSON values; the bot keeps data the controller has no field for here.
 * Asynchronous because one implementation is a database shared by several replicas.
 */
export interface KeyValueStore {
  get<T = unknown>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<void>;
  /** The keys, only those starting with `prefix` when one is given (a store may read just those). */
  keys(prefix?: string): Promise<string[]>;
}

/**
 * One JSON file, read once and rewritten whole on every change through a temporary file and a
 * rename, so a crash mid-write leaves the previous version rather than half a file.
 *
 * Values are kept as their JSON text (what the file holds, so a value reads back the same before
 * and after a restart). A read parses a fresh copy; a write whose text is what is stored already
 * writes nothing (the watcher saves its state on every poll, unchanged on almost all of them); and
 * the file is put together from the kept texts, never serializing the other values again (the
 * whole file, drift baseline included, was serialized and written on the event loop every poll).
 */
export class JsonFileStore implements KeyValueStore {
  private readonly texts: Map<string, string>;

  constructor(private readonly path: string) {
    this.texts = new Map(Object.entries(readJson(path)).map(([key, value]) => [key, JSON.stringify(value)]));
  }

  async get<T = unknown>(key: string): Promise<T | undefined> {
    const text = this.texts.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  async set(key: string, value: unknown): Promise<void> {
    const text = JSON.stringify(value);
    // `undefined` has no JSON: stored, it would be missing from the file anyway.
    if (text === undefined) return this.delete(key);
    if (this.texts.get(key) === text) return;
    this.texts.set(key, text);
    this.flush();
  }

  async delete(key: string): Promise<void> {
    if (this.texts.delete(key)) this.flush();
  }

  async keys(prefix = ''): Promise<string[]> {
    return [...this.texts.keys()].filter((key) => key.startsWith(prefix));
  }

  private flush(): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const temporary = `${this.path}.${process.pid}.tmp`;
    // One key per line: readable, and made from the kept texts.
    const lines = [...this.texts].map(([key, text]) => `  ${JSON.stringify(key)}: ${text}`);
    writeFileSync(temporary, lines.length === 0 ? '{}\n' : `{\n${lines.join(',\n')}\n}\n`);
    renameSync(temporary, this.path);
  }
}

function readJson(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const parsed: unknown = JSON.parse(text);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`${path} does not hold a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

/** A store kept in memory only; for tests and one-shot tools. */
export class MemoryStore implements KeyValueStore {
  private readonly data = new Map<string, unknown>();
  async get<T = unknown>(key: string): Promise<T | undefined> {
    return structuredClone(this.data.get(key)) as T | undefined;
  }
  async set(key: string, value: unknown): Promise<void> {
    this.data.set(key, structuredClone(value));
  }
  async delete(key: string): Promise<void> {
    this.data.delete(key);
  }
  async keys(prefix = ''): Promise<string[]> {
    return [...this.data.keys()].filter((key) => key.startsWith(prefix));
  }
}
