import { describe, expect, it } from 'vitest';
import { usePostgresReplicas } from '../helpers/postgres.js';

// Each console's watch lease in netops_console_leases, between two replicas on one database.
const { db, open } = usePostgresReplicas();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('console leases (PostgreSQL)', () => {
  it('one replica holds a console; the other takes it over only once the lease ran out', async () => {
    const [a, b] = await Promise.all([open(), open()]);
    const leasesA = a.consoleLeases();
    const leasesB = b.consoleLeases();
    const TTL = 600;

    expect(await leasesA.acquire('berlin', 'replica-a', TTL)).toBe(true);
    expect(await leasesB.acquire('berlin', 'replica-b', TTL)).toBe(false);
    // Renewed by its holder: still A's past the first lease's end.
    await sleep(400);
    expect(await leasesA.acquire('berlin', 'replica-a', TTL)).toBe(true);
    const renewedAt = Date.now();
    await sleep(400);
    expect(await leasesB.acquire('berlin', 'replica-b', TTL)).toBe(false);
    expect((await leasesA.list()).map((lease) => [lease.console, lease.holder])).toEqual([
      ['berlin', 'replica-a'],
    ]);

    // A dies (renews no more): B keeps asking, and gets it once the renewed lease has run out.
    let takenAt: number | undefined;
    while (takenAt === undefined) {
      if (await leasesB.acquire('berlin', 'replica-b', TTL)) takenAt = Date.now();
      else await sleep(25);
      if (Date.now() - renewedAt > 5_000) throw new Error('the lease was never taken over');
    }
    expect(takenAt - renewedAt).toBeGreaterThanOrEqual(TTL - 50);
    // And A, back, does not get it while B renews.
    expect(await leasesA.acquire('berlin', 'replica-a', TTL)).toBe(false);
    expect((await leasesB.list()).map((lease) => lease.holder)).toEqual(['replica-b']);
  });

  it('never gives a console to both: of simultaneous attempts exactly one wins, round after round', async () => {
    const [a, b] = await Promise.all([open(), open()]);
    for (let round = 0; round < 20; round++) {
      const console = `round-${round}`;
      const results = await Promise.all([
        a.consoleLeases().acquire(console, 'replica-a', 10_000),
        b.consoleLeases().acquire(console, 'replica-b', 10_000),
        a.consoleLeases().acquire(console, 'replica-c', 10_000),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
    }
    const rows = await db.query<{ n: number }>(
      "SELECT count(DISTINCT console)::int AS n FROM netops_console_leases WHERE console LIKE 'round-%'",
    );
    expect(rows.rows[0]?.n).toBe(20);
  });

  it('holds each console apart, and hands a released one over at once', async () => {
    const [a, b] = await Promise.all([open(), open()]);
    expect(await a.consoleLeases().acquire('munich', 'replica-a', 30_000)).toBe(true);
    expect(await b.consoleLeases().acquire('vienna', 'replica-b', 30_000)).toBe(true);
    expect(await b.consoleLeases().acquire('munich', 'replica-b', 30_000)).toBe(false);
    // Releasing someone else's lease does nothing.
    await b.consoleLeases().release('munich', 'replica-b');
    expect(await b.consoleLeases().acquire('munich', 'replica-b', 30_000)).toBe(false);
    await a.consoleLeases().release('munich', 'replica-a');
    expect(await b.consoleLeases().acquire('munich', 'replica-b', 30_000)).toBe(true);
    const held = (await a.consoleLeases().list()).filter((l) => ['munich', 'vienna'].includes(l.console));
    expect(held.map((lease) => [lease.console, lease.holder])).toEqual([
      ['munich', 'replica-b'],
      ['vienna', 'replica-b'],
    ]);
  });
});
