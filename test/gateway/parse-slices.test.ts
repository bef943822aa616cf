import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGateway } from '../../src/gateway/gateway.js';
import type { Gateway } from '../../src/gateway/types.js';
import { type FakeServer, sendClassic, startFake } from './support.js';

const RECORDS = 40;
let server: FakeServer;
let gateway: Gateway;
// A slice no test outlasts, even on a loaded machine: whether a list yields must not depend on
// a scheduler pause or a collection landing between two records.
let oneSliceGateway: Gateway;

beforeAll(async () => {
  server = await startFake((_req, res) => {
    sendClassic(
      res,
      Array.from({ length: RECORDS }, (_, i) => ({ _id: `r${i}`, n: i })),
    );
  });
  const options = {
    apiType: 'local',
    url: server.url,
    apiKey: 'k-slices',
    deployment: 'unifi-os',
    timeoutMs: 2000,
    cacheTtlSeconds: 30,
  } as const;
  gateway = createGateway(options);
  oneSliceGateway = createGateway({ ...options, parseSliceMs: 60_000 });
});

afterAll(async () => {
  await server.close();
});

/** Counts event-loop turns (setImmediate callbacks) while it runs. */
function turnCounter(): { turns: () => number; stop: () => void } {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns += 1;
    setImmediate(tick);
  };
  setImmediate(tick);
  return { turns: () => turns, stop: () => (running = false) };
}

/** A record schema that takes about `ms` of CPU per record, noting the turn count it ran at. */
function slowSchema(ms: number, seen: number[], turns: () => number) {
  return z.object({ _id: z.string(), n: z.number() }).refine(() => {
    const until = performance.now() + ms;
    while (performance.now() < until) {
      // Busy: stands in for the validation of a large record.
    }
    seen.push(turns());
    return true;
  });
}

describe('list validation in slices (acks never wait behind a large parse)', () => {
  it('gives the event loop turns while a long list is validated, keeping every record in order', async () => {
    // Arrange: 40 records of 0.5 ms each, about 20 ms of validation against 3 ms slices.
    const counter = turnCounter();
    const seen: number[] = [];

    // Act
    const list = await gateway.classicRead('default', 'rest/long', slowSchema(0.5, seen, counter.turns));
    counter.stop();

    // Assert: other work ran between slices, and the result is whole and ordered.
    expect(list.items.map((r) => r.n)).toEqual(Array.from({ length: RECORDS }, (_, i) => i));
    expect(list.skipped).toBe(0);
    const turnsDuringParse = (seen.at(-1) ?? 0) - (seen[0] ?? 0);
    expect(turnsDuringParse).toBeGreaterThanOrEqual(3);
  });

  it('does not yield for a list that parses within one slice', async () => {
    // Arrange: the same 40 records of 0.5 ms, against a slice longer than the whole list.
    const counter = turnCounter();
    const seen: number[] = [];

    // Act
    const list = await oneSliceGateway.classicRead(
      'default',
      'rest/long',
      slowSchema(0.5, seen, counter.turns),
    );
    counter.stop();

    // Assert: every record validated in one turn.
    expect(list.items).toHaveLength(RECORDS);
    expect(new Set(seen).size).toBe(1);
  });

  it('parses one answer once for readers that arrive while it is being parsed', async () => {
    // Arrange: a fresh answer, two readers at once.
    gateway.invalidate();
    const counter = turnCounter();
    const seen: number[] = [];
    const schema = slowSchema(0.3, seen, counter.turns);

    // Act
    const [a, b] = await Promise.all([
      gateway.classicRead('default', 'rest/shared', schema),
      gateway.classicRead('default', 'rest/shared', schema),
    ]);
    counter.stop();

    // Assert: each record validated once; both readers get every record, in their own lists.
    expect(seen).toHaveLength(RECORDS);
    expect(a.items).toHaveLength(RECORDS);
    expect(b.items).toEqual(a.items);
    expect(b.items).not.toBe(a.items);
  });
});
