import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'unifi');

/** Reads a captured controller payload from the project's own copy of the fixtures. */
export function fixture<T = unknown>(relativePath: string): T {
  return JSON.parse(readFileSync(join(root, relativePath), 'utf8')) as T;
}

/** The records of a fixture, whether it is a `{meta,data}` body, a bare array, or one record. */
export function fixtureRecords(relativePath: string): unknown[] {
  const body = fixture(relativePath);
  if (Array.isArray(body)) return body;
  if (body && typeof body === 'object' && 'data' in body && Array.isArray(body.data)) return body.data;
  return [body];
}
