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
  keys(): Promise<string[]>;
}

/**
 * One JSON file, read once and rewritten whole on every change through a temporary file and a
 * rename, so a crash mid-write leaves the previous version rather than half a file.
 */
export class JsonFileStore implements KeyValueStore {
  private readonly data: Map<string, unknown>;

  constructor(private readonly path: string) {
    this.data = new Map(Object.entries(readJson(path)));
  }

  async get<T = unknown>(key: string): Promise<T | undefined> {
    return structuredClone(this.data.get(key)) as T | undefined;
  }

  async set(key: string, value: unknown): Promise<void> {
    this.data.set(key, structuredClone(value));
    this.flush();
  }

  async delete(key: string): Promise<void> {
    if (this.data.delete(key)) this.flush();
  }

  async keys(): Promise<string[]> {
    return [...this.data.keys()];
  }

  private flush(): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(Object.fromEntries(this.data), null, 2)}\n`);
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
  async keys(): Promise<string[]> {
    return [...this.data.keys()];
  }
}
